/*
 * Fuzzing of POST /webhooks/properties: whatever arrives, the
 * webhook answers one of the documented statuses with a documented error body, never a 500.
 *
 * (a) Arbitrary header sets (each of the five headers kept, removed, garbage, over-long, unicode,
 *     sent twice) and arbitrary bodies (random bytes, random JSON, deep nesting, strings up to and
 *     beyond the 256 KiB limit), unsigned or correctly signed. Besides the status and body shape,
 *     every answer is checked against what the pure verifier says about the headers as the server
 *     receives them: an unsigned request never gets past 401, a correctly signed one never gets 401.
 *     503 is not accepted either: the storage is up here, so execution_storage_unavailable would be
 *     a bug too.
 * (b) Correctly signed flat payloads of canonical field names with random scalar values: the
 *     canonical validator is the oracle (202 only when it accepts the row, 422 validation_failed
 *     when it does not), an accepted event writes what the validator normalized, and a second
 *     delivery of the same key and body answers the same (200 replayed after a 202).
 * Unit level: `verifySignedRequest` never throws, whatever the headers, body, secret or clock.
 *
 * Requests go through `app.inject`, which treats repeated headers like Node's HTTP parser does
 * (Content-Type keeps its first value, other headers are joined with ", "); `received` below
 * applies the same rule so that the oracle sees what the route sees.
 */
import { randomBytes } from 'node:crypto'

import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { warsawDate } from '../../src/host/warsaw-day.js'
import { CANONICAL_FIELDS, type CanonicalField, VOIVODESHIPS } from '../../src/offers/canonical-fields.js'
import { priceWithinRounding } from '../../src/offers/validation/price-consistency.js'
import { validateOfferRow } from '../../src/offers/validation/validate-offer-row.js'
import { WEBHOOK_BODY_LIMIT } from '../../src/webhook/webhook-routes.js'
import { sign, verifySignedRequest } from '../../src/webhook/verify-signature.js'
import { rotateWebhookSecret } from '../../src/webhook/webhook-secret.js'
import { grantProLicense } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { WEBHOOK_URL } from '../helpers/webhook.js'

const FUZZ_TIMEOUT_MS = 90_000
/** DG_FUZZ_SCALE=10 multiplies the runs, for a deeper search by hand (the timeout grows with it). */
const SCALE = Math.max(1, Number(process.env.DG_FUZZ_SCALE ?? 1))

const DOCUMENTED_STATUSES = new Set([200, 202, 400, 401, 403, 409, 413, 422])
const DOCUMENTED_ERRORS = new Set([
  'invalid_auth',
  'expired_timestamp',
  'invalid_signature',
  'replay',
  'pro_feature_required',
  'invalid_json',
  'invalid_payload',
  'unsupported_property_structure',
  'validation_failed',
  'webhook_import_failed',
  'webhook_in_progress',
  'idempotency_body_conflict',
  'recovery_required',
  'execution_storage_unavailable',
])
const AUTH_ERRORS = new Set(['invalid_auth', 'expired_timestamp', 'invalid_signature'])

const HEADER_NAMES = ['content-type', 'x-dg-timestamp', 'x-dg-nonce', 'idempotency-key', 'x-dg-signature'] as const
type HeaderName = (typeof HEADER_NAMES)[number]
type SentHeaders = Partial<Record<HeaderName, string | string[]>>

/*
 * A Content-Type that is not a syntactically valid media type ("", "json", "application json",
 * anything non-ASCII) used to be refused by Fastify with 415 before the route ran; the webhook's
 * onRequest hook now answers it 401 invalid_auth, as for any missing or malformed signed header. The fuzz asserts exactly
 * that for those values. This mirrors fastify/lib/content-type.js.
 */
const MEDIA_TOKEN = /^[\w!#$%&'*+.^`|~-]+$/
const MEDIA_SUBTYPE = /^[\w!#$%&'*+.^`|~-]+\s*$/
function fastifyAcceptsContentType(value: string): boolean {
  if (value === '' || value === 'undefined') return false
  const semicolon = value.indexOf(';')
  const media = (semicolon === -1 ? value : value.slice(0, semicolon)).toLowerCase()
  const slash = media.indexOf('/')
  if (slash === -1) return false
  return MEDIA_TOKEN.test(media.slice(0, slash).trimStart()) && MEDIA_SUBTYPE.test(media.slice(slash + 1).trimEnd())
}

/** The headers as the route sees them after Node's (and light-my-request's) handling of repeats. */
function received(headers: SentHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const name of HEADER_NAMES) {
    const value = headers[name]
    out[name] = Array.isArray(value) ? (name === 'content-type' ? value[0] : value.join(', ')) : value
  }
  return out
}

let nonceCounter = 0
/** Unique across the whole file, so no fuzzed request is refused as a replay by accident. */
const freshNonce = () => `fz${++nonceCounter}-${randomBytes(9).toString('base64url')}`

// ------------------------------------------------------------------------------------------------
// Arbitraries

const unicodeText = (maxLength: number) => fc.string({ unit: 'grapheme', maxLength })
const binaryText = (maxLength: number) => fc.string({ unit: 'binary', maxLength })
const overLong = fc
  .integer({ min: 129, max: 12_000 })
  .chain((n) => fc.constantFrom('a', '0', 'f', 'ż', '-').map((c) => c.repeat(n)))
const tokenish = fc.stringMatching(/^[A-Za-z0-9._:-]{0,140}$/)

/** A replacement value for one header: plausible-but-wrong, garbage, over-long or unicode. */
const garbageHeaderValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  unicodeText(40),
  binaryText(40),
  overLong,
  tokenish,
  fc.stringMatching(/^\d{8,12}$/),
  fc.stringMatching(/^-?\d{1,10}(\.\d+)?$/),
  fc.stringMatching(/^[0-9a-fA-F]{60,68}$/),
  fc.constantFrom(
    '',
    ' ',
    'application/json',
    'APPLICATION/JSON; charset=UTF-8',
    'application/json; charset=latin1',
    'application/json;charset=utf-8;x=y',
    'application/jsonx',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=----x',
    'application/octet-stream',
    'json',
    'application json',
    '*/*',
    '0000000000',
    '9999999999',
    'undefined',
    'null',
  ),
)

type HeaderChange = { kind: 'keep' } | { kind: 'remove' } | { kind: 'set'; value: string | string[] }
const headerChange: fc.Arbitrary<HeaderChange> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<HeaderChange>({ kind: 'keep' }) },
  { weight: 1, arbitrary: fc.constant<HeaderChange>({ kind: 'remove' }) },
  { weight: 2, arbitrary: garbageHeaderValue.map((value): HeaderChange => ({ kind: 'set', value })) },
  {
    // the header sent twice (or three times)
    weight: 1,
    arbitrary: fc
      .array(garbageHeaderValue, { minLength: 1, maxLength: 2 })
      .map((values): HeaderChange => ({ kind: 'set', value: ['<original>', ...values] })),
  },
)

const KEEP: HeaderChange = { kind: 'keep' }
/** All five headers intact (so that the body fuzzing reaches the parser), one of them changed, or any mix. */
const headerChanges: fc.Arbitrary<HeaderChange[]> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(HEADER_NAMES.map(() => KEEP)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 0, max: HEADER_NAMES.length - 1 }),
        headerChange.filter((change) => change.kind !== 'keep'),
      )
      .map(([index, change]) => HEADER_NAMES.map((_, i) => (i === index ? change : KEEP))),
  },
  { weight: 2, arbitrary: fc.tuple(...HEADER_NAMES.map(() => headerChange)) },
)

const deepNesting = fc
  .record({ depth: fc.integer({ min: 1, max: 120_000 }), open: fc.constantFrom('[', '{"a":') })
  .map(({ depth, open }) => open.repeat(depth) + (open === '[' ? ']' : '}').repeat(depth))
const hugeString = fc
  .oneof(
    fc.integer({ min: 1, max: 300 * 1024 }),
    // the wrapper below is 91 bytes: bodies of exactly the limit, one byte over, and far over
    fc.constantFrom(WEBHOOK_BODY_LIMIT - 92, WEBHOOK_BODY_LIMIT - 91, WEBHOOK_BODY_LIMIT - 90, 1024 * 1024),
  )
  .map(
    (n) =>
      `{"source_investment_id":"FZ","source_property_id":"BIG","prop_type":"dom","proj_street":"${'x'.repeat(n)}"}`,
  )
const flatObject = fc.dictionary(
  fc.oneof(fc.constantFrom(...CANONICAL_FIELDS), fc.string({ maxLength: 12 })),
  fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null)),
  { maxKeys: 8 },
)
const withNested = fc
  .tuple(flatObject, fc.constantFrom(...CANONICAL_FIELDS), fc.jsonValue({ maxDepth: 3 }))
  .map(([record, field, value]) => ({ ...record, [field]: typeof value === 'object' ? value : [value] }))

/**
 * An object that names one of its keys again (also spelled with escapes), at the top or in a
 * nested object: two parsers may read two different values from one signed body.
 */
const duplicateKeys: fc.Arbitrary<string> = fc
  .record({
    record: flatObject.filter((record) => Object.keys(record).length > 0),
    again: fc.jsonValue({ maxDepth: 1 }),
    escaped: fc.boolean(),
    nested: fc.boolean(),
  })
  .map(({ record, again, escaped, nested }) => {
    const text = JSON.stringify(record)
    const key = Object.keys(record)[0] ?? ''
    const spelled = escaped
      ? `"${[...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`
      : JSON.stringify(key)
    const twice = `${text.slice(0, -1)},${spelled}:${JSON.stringify(again) ?? 'null'}}`
    return nested ? `{"outer":${twice},"ok":1}` : twice
  })

/**
 * Whether a JSON text names a key twice in one object, told without the service's scanner: in
 * valid JSON a string followed by a colon is a key, so the text holds more key tokens than the
 * parsed objects hold keys exactly when one is named twice.
 */
function namesAKeyTwice(body: Buffer): boolean {
  const text = body.toString('utf8')
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return false
  }
  // without recursion: the fuzzed bodies nest thousands deep
  let keys = 0
  const pending: unknown[] = [parsed]
  while (pending.length > 0) {
    const value = pending.pop()
    if (value === null || typeof value !== 'object') continue
    if (Array.isArray(value)) pending.push(...(value as unknown[]))
    else
      for (const item of Object.values(value)) {
        keys++
        pending.push(item)
      }
  }
  // strings and the text between them, in order: a string token ending in a colon is a key
  const tokens = (text.match(/"(?:[^"\\]|\\.)*"\s*:?|[^"]+/g) ?? []).filter(
    (t) => t.startsWith('"') && t.endsWith(':'),
  ).length
  // `__proto__` is a key of the text that JSON.parse keeps as an own property: counted alike
  return tokens > keys
}

const fuzzBody: fc.Arbitrary<Buffer> = fc.oneof(
  duplicateKeys.map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
  fc.jsonValue({ maxDepth: 4 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
  deepNesting.map((text) => Buffer.from(text)),
  hugeString.map((text) => Buffer.from(text)),
  flatObject.map((record) => Buffer.from(JSON.stringify(record))),
  withNested.map((record) => Buffer.from(JSON.stringify(record))),
  fc
    .constantFrom('', '{}', 'null', '[]', '"x"', '{"a":1}', '\uFEFF{}', '{"__proto__":{"x":1}}')
    .map((text) => Buffer.from(text)),
)

// values per canonical format for (b): many plausible ones so that a good share of rows is accepted
const ANY_SCALAR = fc.oneof(
  fc.string({ maxLength: 20 }),
  unicodeText(12),
  fc.integer({ min: -1_000_000, max: 1_000_000_000 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('', '   '),
)
const amount = fc.oneof(
  fc.integer({ min: 0, max: 99_999_999 }).map((c) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`),
  fc.integer({ min: 0, max: 9_999_999 }).map((n) => `${n}`),
  fc.constantFrom('1 234 567,89', '-100.00', '1.234,56', '1e5', '100.001', 'NaN', '10000000000000000000'),
  fc.integer({ min: 0, max: 10_000_000 }),
)
const date = fc.oneof(
  fc
    .record({
      y: fc.integer({ min: 1890, max: 2210 }),
      m: fc.integer({ min: 0, max: 13 }),
      d: fc.integer({ min: 0, max: 32 }),
    })
    .map(({ y, m, d }) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
  fc.constantFrom('2026-05-01', '2026-02-29', '2024-02-29', '01.05.2026', '2026-5-1'),
)
const FORMAT_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  identifier: fc.oneof(fc.constantFrom('FZ-1', 'FZ-2', 'P1', 'P2', 'P3', 'a/b', '%'), fc.string({ maxLength: 110 })),
  text: fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.string({ minLength: 250, maxLength: 260 })),
  property_type: fc.constantFrom(
    'mieszkanie',
    'dom',
    'Mieszkanie',
    'lokal mieszkalny',
    'garaż',
    'komórka',
    'Miejsce postojowe',
    'villa',
  ),
  status: fc.constantFrom('wolne', 'available', 'REZERWACJA', 'sprzedane', 'archived', 'maybe'),
  area: fc.oneof(
    fc.integer({ min: 0, max: 20_000 }).map((h) => `${Math.floor(h / 100)}.${String(h % 100).padStart(2, '0')}`),
    fc.constantFrom('54,3', '54.345', '-1', '2000000.00'),
    fc.double({ min: 0, max: 500, noNaN: true }),
  ),
  integer: fc.oneof(fc.integer({ min: -30, max: 250 }), fc.constantFrom('3', '3.5', '-1', 'x', 2 ** 40)),
  amount,
  date,
  voivodeship: fc.oneof(fc.constantFrom(...VOIVODESHIPS), fc.constantFrom('woj. Mazowieckie', 'Mazovia')),
  postal_code: fc.constantFrom('00-950', '00950', '60-001', '6-001', 'ABCDE'),
}
const FIELD_FORMAT_OF: Record<CanonicalField, string> = {
  source_investment_id: 'identifier',
  source_property_id: 'identifier',
  prop_no: 'text',
  prop_type: 'property_type',
  property_status: 'status',
  prop_area: 'area',
  prop_rooms: 'integer',
  prop_floor: 'integer',
  price_m2: 'amount',
  price_m2_from: 'date',
  price_total: 'amount',
  price_total_from: 'date',
  price_combined: 'amount',
  price_combined_from: 'date',
  price_combined_variant: 'text',
  price_combined_status: 'text',
  proj_voivod: 'voivodeship',
  proj_powiat: 'text',
  proj_gmina: 'text',
  proj_city: 'text',
  proj_street: 'text',
  proj_build_no: 'text',
  proj_local_no: 'text',
  proj_zip: 'postal_code',
}
/** Values each field's parser accepts, so that "clean" rows get through to the planner. */
const money = (hundredths: number) => `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`
const cents = (min: number, max: number) => fc.integer({ min, max }).map(money)
const CLEAN_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  identifier: fc.constantFrom('FZ-1', 'FZ-2'),
  text: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ./-]{0,19}$/),
  property_type: fc.constantFrom('mieszkanie', 'dom', 'Mieszkanie', 'lokal mieszkalny', ' DOM '),
  status: fc.constantFrom('wolne', 'available', 'REZERWACJA', 'sprzedane'),
  area: cents(1000, 20_000),
  integer: fc.integer({ min: 0, max: 20 }),
  amount: fc.oneof(cents(100_000, 200_000_000), fc.integer({ min: 1000, max: 2_000_000 })),
  date: fc
    .record({
      y: fc.integer({ min: 2020, max: 2030 }),
      m: fc.integer({ min: 1, max: 12 }),
      d: fc.integer({ min: 1, max: 28 }),
    })
    .map(({ y, m, d }) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
  voivodeship: fc.constantFrom(...VOIVODESHIPS),
  postal_code: fc.constantFrom('00-950', '60-001', '31-000'),
}
const fieldValue = (field: CanonicalField, clean: boolean): fc.Arbitrary<unknown> =>
  clean
    ? (CLEAN_VALUES[FIELD_FORMAT_OF[field]] ?? ANY_SCALAR)
    : fc.oneof(
        { weight: 4, arbitrary: FORMAT_VALUES[FIELD_FORMAT_OF[field]] ?? ANY_SCALAR },
        { weight: 1, arbitrary: ANY_SCALAR },
      )

const PRICE_FIELDS: readonly string[] = ['price_m2', 'price_total', 'prop_area']
/** m² price, area and total that agree (the validator's and the planner's 1% rule), or none of them. */
const consistentPrices = fc
  .record({ m2: fc.integer({ min: 100_000, max: 3_000_000 }), area: fc.integer({ min: 1000, max: 20_000 }) })
  .map(({ m2, area }) => ({
    price_m2: money(m2),
    prop_area: money(area),
    price_total: money(Math.round((m2 * area) / 100)),
  }))

/*
 * Half the runs are "clean": every value valid, usually a type (mieszkanie or dom) and either
 * no price or a consistent m² price, area and total (a lone price may disagree with the stored
 * ones, which the planner refuses). The other half are "wild": plausible, malformed and junk values
 * mixed, ids missing or malformed too. Each run sends a random subset of the other fields.
 */
const cleanPayload: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    investment: fc.constantFrom('FZ-1', 'FZ-2'),
    property: fc.constantFrom('P1', 'P2', 'P3', 'P4', 'P5', 'P6'),
    type: fc.option(CLEAN_VALUES.property_type ?? fc.constant('dom'), { freq: 6 }),
    prices: fc.option(consistentPrices, { freq: 3 }),
    rest: fc
      .subarray(
        CANONICAL_FIELDS.filter((f) => !PRICE_FIELDS.includes(f) && f !== 'prop_type').slice(2) as CanonicalField[],
        { maxLength: 8 },
      )
      .chain((fields) =>
        fc.tuple(...fields.map((field) => fieldValue(field, true).map((value) => [field, value] as const))),
      ),
  })
  .map(({ investment, property, type, prices, rest }) => ({
    source_investment_id: investment,
    source_property_id: property,
    ...(type === null ? {} : { prop_type: type }),
    ...(prices ?? {}),
    ...Object.fromEntries(rest),
  }))
const wildPayload: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    investment: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('FZ-1', 'FZ-2') },
      { weight: 2, arbitrary: fieldValue('source_investment_id', false) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    property: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('P1', 'P2', 'P3', 'P4', 'P5', 'P6') },
      { weight: 2, arbitrary: fieldValue('source_property_id', false) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    rest: fc
      .subarray(CANONICAL_FIELDS.slice(2) as CanonicalField[], { maxLength: 10 })
      .chain((fields) =>
        fc.tuple(...fields.map((field) => fieldValue(field, false).map((value) => [field, value] as const))),
      ),
  })
  .map(({ investment, property, rest }) => {
    const record: Record<string, unknown> = {}
    if (investment !== undefined) record.source_investment_id = investment
    if (property !== undefined) record.source_property_id = property
    for (const [field, value] of rest) record[field] = value
    return record
  })
const canonicalPayload = fc.oneof(cleanPayload, wildPayload)

// ------------------------------------------------------------------------------------------------

interface ErrorBody {
  error?: unknown
  code?: unknown
}

function parseBody(text: string): ErrorBody & Record<string, unknown> {
  const parsed: unknown = JSON.parse(text)
  expect(parsed, text).toBeTypeOf('object')
  expect(parsed, text).not.toBeNull()
  return parsed as ErrorBody & Record<string, unknown>
}

const knownContentTypeBug: string[] = []
/** `status error` → count, printed per database so that a run shows how deep the fuzzing got. */
const answers = new Map<string, number>()

describeEachDatabase('webhook fuzzing', (getEnv) => {
  let env: TestEnv
  let secret: string
  const nowSeconds = () => Math.floor(env.clock.now().getTime() / 1000)

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    secret = (await rotateWebhookSecret(env.ctx, { type: 'cli' })).secret
  })

  afterAll(() => {
    const histogram = [...answers.entries()].sort(([a], [b]) => a.localeCompare(b))
    process.stdout.write(`\n[${env.dialect}] answers: ${histogram.map(([k, n]) => `${k} ×${n}`).join(', ')}\n`)
    answers.clear()
    if (knownContentTypeBug.length > 0) {
      process.stdout.write(
        `\n[${env.dialect}] unparseable Content-Type sent ${knownContentTypeBug.length}× (answered 401 invalid_auth), e.g. ` +
          `${knownContentTypeBug
            .slice(0, 5)
            .map((v) => JSON.stringify(v.slice(0, 20)))
            .join(', ')}\n`,
      )
      knownContentTypeBug.length = 0
    }
  })

  const post = (headers: SentHeaders, body: Buffer) =>
    env.app.inject({
      method: 'POST',
      url: WEBHOOK_URL,
      headers: headers as Record<string, string | string[]>,
      payload: body,
    })

  function signedHeaders(body: Buffer, key: string, skew = 0): Record<HeaderName, string> {
    const timestamp = String(nowSeconds() + skew)
    const nonce = freshNonce()
    return {
      'content-type': 'application/json',
      'x-dg-timestamp': timestamp,
      'x-dg-nonce': nonce,
      'idempotency-key': key,
      'x-dg-signature': sign(secret, { timestamp, nonce, idempotencyKey: key }, body),
    }
  }

  it(
    '(a) answers arbitrary headers and bodies, signed or not, only with documented codes and never 500',
    async () => {
      let keyCounter = 0
      await fc.assert(
        fc.asyncProperty(
          fuzzBody,
          fc.constantFrom('signed', 'unsigned'),
          fc.oneof(
            { weight: 4, arbitrary: fc.constant(0) },
            { weight: 1, arbitrary: fc.integer({ min: -2000, max: 2000 }) },
          ),
          fc.stringMatching(/^[0-9a-f]{64}$/),
          headerChanges,
          async (body, mode, skew, randomSignature, changes) => {
            const key = `fuzz-a-${++keyCounter}-${randomBytes(4).toString('hex')}`
            const base: Record<HeaderName, string> =
              mode === 'signed'
                ? signedHeaders(body, key, skew)
                : {
                    'content-type': 'application/json',
                    'x-dg-timestamp': String(nowSeconds() + skew),
                    'x-dg-nonce': freshNonce(),
                    'idempotency-key': key,
                    'x-dg-signature': randomSignature,
                  }
            const headers: SentHeaders = { ...base }
            HEADER_NAMES.forEach((name, i) => {
              const change = changes[i] ?? KEEP
              if (change.kind === 'remove') delete headers[name]
              else if (change.kind === 'set')
                headers[name] = Array.isArray(change.value)
                  ? change.value.map((v) => (v === '<original>' ? base[name] : v))
                  : change.value
            })
            const seen = received(headers)
            const response = await post(headers, body)
            const context = `${mode} ${JSON.stringify(seen).slice(0, 300)} body ${body.length} B: ${response.statusCode} ${response.body.slice(0, 300)}`

            expect(response.statusCode, context).not.toBe(500)
            const tally = (label: unknown) => {
              const name = `${response.statusCode} ${typeof label === 'string' ? label : ''}`.trim()
              answers.set(name, (answers.get(name) ?? 0) + 1)
            }
            const contentType = seen['content-type']
            if (contentType !== undefined && !fastifyAcceptsContentType(contentType)) {
              // once a bug (415 from Fastify); now a header problem like any other
              expect(response.statusCode, context).toBe(401)
              expect(parseBody(response.body).error, context).toBe('invalid_auth')
              knownContentTypeBug.push(contentType)
              tally('invalid_auth (unparseable Content-Type)')
              return
            }
            expect(DOCUMENTED_STATUSES.has(response.statusCode), context).toBe(true)
            const parsed = parseBody(response.body)
            tally(parsed.error ?? parsed.code)
            if (response.statusCode === 413) {
              expect(parsed.code, context).toBe('rest_payload_too_large')
              expect(body.length, context).toBeGreaterThan(WEBHOOK_BODY_LIMIT)
              return
            }
            // the body limit is enforced whatever the headers say
            expect(body.length, context).toBeLessThanOrEqual(WEBHOOK_BODY_LIMIT)
            // a body declared JSON that names a key twice is refused before the other headers and the
            // signature are looked at (a Content-Type that is not JSON is refused as a header first)
            const declaredJson = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(String(contentType ?? '').trim())
            if (declaredJson && namesAKeyTwice(body)) {
              expect(response.statusCode, context).toBe(400)
              expect(parsed.error, context).toBe('invalid_json')
              return
            }
            if (response.statusCode >= 400) {
              expect(typeof parsed.error === 'string' && DOCUMENTED_ERRORS.has(parsed.error), context).toBe(true)
            } else {
              expect(parsed, context).toMatchObject({ accepted: true, result: { status: 'completed' } })
            }

            // the pure verifier on the headers as received decides whether the request may pass 401
            const verdict = verifySignedRequest({ headers: seen, rawBody: body, secret, nowSeconds: nowSeconds() })
            if (!verdict.ok) {
              expect(response.statusCode, context).toBe(401)
              expect(parsed.error, context).toBe(verdict.error)
            } else {
              expect(AUTH_ERRORS.has(String(parsed.error)), context).toBe(false)
              expect(parsed.error, context).not.toBe('replay')
            }
            if (mode === 'unsigned') expect(response.statusCode, context).toBe(401)
          },
        ),
        { numRuns: 200 * SCALE },
      )
    },
    FUZZ_TIMEOUT_MS * SCALE,
  )

  /**
   * The refusals the planner's catalog rules owe the payload, read from the stored offer and its
   * price history before it is sent: a price dated before the offer's first record of that price,
   * and a combined price below the total when the payload sends only one of the two.
   */
  async function catalogRefusals(
    values: ReturnType<typeof validateOfferRow>['values'],
  ): Promise<Array<{ field: string; code: string }>> {
    const offer = await env.ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select([
        'offers.id',
        'offers.area',
        'offers.price_total_cents',
        'offers.price_m2_cents',
        'offers.price_combined_cents',
      ])
      .where('investments.source_id', '=', values.sourceInvestmentId ?? '')
      .where('offers.source_property_id', '=', values.sourcePropertyId ?? '')
      .executeTakeFirst()
    if (!offer) return []
    const out: Array<{ field: string; code: string }> = []
    const records = await env.ctx.db
      .selectFrom('price_history')
      .select(['price_type', 'valid_from'])
      .where('offer_id', '=', offer.id)
      .where('component_id', 'is', null)
      .execute()
    // a price sent without its date takes effect today (the service's clock), so it is dated today
    const today = warsawDate(env.clock.now())
    // an undated price of the pair takes the date sent with the other one
    const totalFrom = values.priceTotalFrom ?? (values.priceM2Cents !== undefined ? values.priceM2From : undefined)
    const m2From = values.priceM2From ?? (values.priceTotalCents !== undefined ? values.priceTotalFrom : undefined)
    const prices = [
      {
        type: 'total',
        field: 'price_total_from',
        from: totalFrom,
        changed: values.priceTotalCents !== undefined && values.priceTotalCents !== offer.price_total_cents,
      },
      {
        type: 'm2',
        field: 'price_m2_from',
        from: m2From,
        changed: values.priceM2Cents !== undefined && values.priceM2Cents !== offer.price_m2_cents,
      },
      {
        type: 'combined',
        field: 'price_combined_from',
        from: values.priceCombinedFrom,
        changed: values.priceCombinedCents !== undefined && values.priceCombinedCents !== offer.price_combined_cents,
      },
    ]
    for (const price of prices) {
      const firsts = records.filter((r) => r.price_type === price.type).map((r) => String(r.valid_from))
      const from = price.from ?? (price.changed ? today : undefined)
      if (typeof from === 'string' && firsts.length > 0 && firsts.every((first) => from < first))
        out.push({ field: price.field, code: 'price_before_first_record' })
    }
    // a package price sent alone is held to the stored total; a total sent alone never to a package
    if (values.priceCombinedCents !== undefined && values.priceTotalCents === undefined) {
      const total = offer.price_total_cents
      if (total != null && values.priceCombinedCents < total)
        out.push({ field: 'price_combined', code: 'combined_below_total' })
    }
    // both prices changed with different dates: the new one beside the old other must agree in between
    const [total, m2] = prices
    const area = values.area ?? offer.area
    if (total?.changed && m2?.changed && area !== null) {
      const totalDay = totalFrom ?? today
      const m2Day = m2From ?? today
      if (totalDay !== m2Day) {
        const totalFirst = totalDay < m2Day
        const pairTotal = totalFirst ? values.priceTotalCents : offer.price_total_cents
        const pairM2 = totalFirst ? offer.price_m2_cents : values.priceM2Cents
        if (pairTotal != null && pairM2 != null && pairTotal > 0 && !priceWithinRounding(pairTotal, pairM2, area))
          out.push({ field: totalFirst ? 'price_total_from' : 'price_m2_from', code: 'inconsistent_price_dates' })
      }
    }
    return out
  }

  it(
    '(b) executes a signed flat canonical payload only when the validator accepts it, and answers a repeat alike',
    async () => {
      let keyCounter = 0
      let accepted = 0
      await fc.assert(
        fc.asyncProperty(canonicalPayload, async (payload) => {
          const key = `fuzz-b-${++keyCounter}-${randomBytes(4).toString('hex')}`
          const body = Buffer.from(JSON.stringify(payload))
          // what the server parses: JSON.stringify turned NaN/Infinity into null and dropped -0's sign
          const record = JSON.parse(body.toString('utf8')) as Record<string, unknown>
          const validated = validateOfferRow(record, { row: 1, mode: 'patch' })
          const owed = validated.errors.length === 0 ? await catalogRefusals(validated.values) : []
          const response = await post(signedHeaders(body, key), body)
          const parsed = parseBody(response.body)
          const context = `${body.toString('utf8').slice(0, 400)} → ${response.statusCode} ${response.body.slice(0, 400)}`

          expect(response.statusCode, context).not.toBe(500)
          expect([202, 400, 422], context).toContain(response.statusCode)
          if (validated.errors.length > 0) {
            const keyMissing = ['source_investment_id', 'source_property_id'].some(
              (field) => record[field] === undefined || record[field] === null || record[field] === '',
            )
            expect(parsed.error, context).toBe(keyMissing ? 'invalid_payload' : 'validation_failed')
            if (!keyMissing) {
              // the validator's errors, without the row, in Polish (message) and English
              expect(parsed.issues, context).toEqual(
                validated.errors.map(({ field, code, message_pl, message_en }) => ({
                  field,
                  code,
                  message: message_pl,
                  message_pl,
                  message_en,
                })),
              )
            }
          } else if (response.statusCode !== 202) {
            // valid data the planner refuses: a lone price the stored values contradict, a price
            // dated before the offer's first record of it, or a combined price below the total
            expect(response.statusCode, context).toBe(422)
            expect(parsed.error, context).toBe('webhook_import_failed')
            const issues = parsed.issues as Array<{ field?: unknown; code?: unknown }> | undefined
            expect(issues, context).toHaveLength(1)
            const issue = { field: issues?.[0]?.field, code: issues?.[0]?.code }
            expect([{ field: 'price_total', code: 'inconsistent_price' }, ...owed], context).toContainEqual(issue)
          } else {
            expect(owed, `${context}: refusals the catalog's rules owe`).toEqual([])
            accepted++
            expect(parsed, context).toMatchObject({
              accepted: true,
              result: { status: 'completed', processed: 1, archived: 0 },
            })
            const result = parsed.result as { created: number; updated: number }
            expect(result.created + result.updated, context).toBeLessThanOrEqual(1)
            // what the validator normalized is what the catalog now holds
            const offer = await env.ctx.db
              .selectFrom('offers')
              .innerJoin('investments', 'investments.id', 'offers.investment_id')
              .select([
                'offers.price_total_cents',
                'offers.price_m2_cents',
                'offers.area',
                'offers.rooms',
                'offers.property_type',
              ])
              .where('investments.source_id', '=', validated.values.sourceInvestmentId ?? '')
              .where('offers.source_property_id', '=', validated.values.sourcePropertyId ?? '')
              .executeTakeFirst()
            expect(offer, context).toBeDefined()
            const v = validated.values
            if (v.priceTotalCents !== undefined) expect(offer?.price_total_cents, context).toBe(v.priceTotalCents)
            if (v.priceM2Cents !== undefined) expect(offer?.price_m2_cents, context).toBe(v.priceM2Cents)
            if (v.area !== undefined) expect(offer?.area, context).toBe(v.area)
            if (v.rooms !== undefined) expect(offer?.rooms, context).toBe(v.rooms)
            if (v.propertyType !== undefined) expect(offer?.property_type, context).toBe(v.propertyType)
            // created without a type: unqualified, never a guessed type
            else if (result.created === 1) expect(offer?.property_type, context).toBe('')
          }

          // the same event again (new nonce): the stored result, or the same refusal
          const again = await post(signedHeaders(body, key), body)
          const againBody = parseBody(again.body)
          if (response.statusCode === 202) {
            expect(again.statusCode, context).toBe(200)
            expect(againBody, context).toEqual({ ...parsed, replayed: true })
          } else {
            expect(again.statusCode, context).toBe(response.statusCode)
            expect(againBody.error, context).toBe(parsed.error)
          }
        }),
        { numRuns: 100 * SCALE },
      )
      process.stdout.write(`\n[${env.dialect}] (b) ${accepted} of ${100 * SCALE} payloads executed (202)\n`)
      // the generator is useful only if a fair share of the rows gets through
      expect(accepted).toBeGreaterThan(15 * SCALE)
    },
    FUZZ_TIMEOUT_MS * SCALE,
  )

  // KNOWN BUG, see the top of the file: remove `.fails` once the route answers 401 invalid_auth
  it('refuses a Content-Type that is not a media type with 401 invalid_auth', async () => {
    for (const contentType of ['', 'json', 'application json', 'application/jsön']) {
      const body = Buffer.from('{"source_investment_id":"FZ-1","source_property_id":"P1"}')
      const headers = {
        ...signedHeaders(body, `fuzz-ct-${randomBytes(4).toString('hex')}`),
        'content-type': contentType,
      }
      const response = await post(headers, body)
      expect(response.statusCode, JSON.stringify(contentType)).toBe(401)
      expect(parseBody(response.body).error).toBe('invalid_auth')
    }
  })
})

describe('verifySignedRequest (unit fuzzing)', () => {
  const anyHeaderValue = fc.oneof(
    fc.constant(undefined),
    garbageHeaderValue,
    fc.array(garbageHeaderValue, { maxLength: 3 }),
  )
  const anyHeaders = fc.dictionary(
    fc.oneof(fc.constantFrom(...HEADER_NAMES), fc.string({ maxLength: 12 })),
    anyHeaderValue,
    { maxKeys: 8 },
  )
  const anyNow = fc.oneof(
    fc.integer({ min: 0, max: 9_999_999_999 }),
    fc.double(),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, 1_779_000_000),
  )
  const anySecret = fc.oneof(fc.constant(undefined), fc.string({ maxLength: 40 }), binaryText(40))

  it('never throws, whatever the headers, body, secret and clock', () => {
    fc.assert(
      fc.property(
        anyHeaders,
        fc.uint8Array({ maxLength: 512 }),
        anySecret,
        anyNow,
        (headers, bytes, secret, nowSeconds) => {
          const result = verifySignedRequest({ headers, rawBody: Buffer.from(bytes), secret, nowSeconds })
          if (result.ok) expect(result.signingStringSha256).toMatch(/^[0-9a-f]{64}$/)
          else expect(AUTH_ERRORS.has(result.error)).toBe(true)
        },
      ),
      { numRuns: 2000 * SCALE },
    )
  })

  it('accepts exactly the correctly signed request and refuses it after any change of one body byte', () => {
    const token = (min: number, max: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9._:-]{${min},${max}}$`))
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 512 }),
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 40 }),
          binaryText(40).filter((s) => s.length > 0),
        ),
        token(16, 128),
        token(8, 128),
        fc.integer({ min: 1_000_000_300, max: 9_999_999_699 }),
        fc.integer({ min: -300, max: 300 }),
        fc.nat(),
        (bytes, secret, nonce, idempotencyKey, now, skew, position) => {
          const rawBody = Buffer.from(bytes)
          const timestamp = String(now + skew)
          const signature = sign(secret, { timestamp, nonce, idempotencyKey }, rawBody)
          const headers = {
            'content-type': 'application/json',
            'x-dg-timestamp': timestamp,
            'x-dg-nonce': nonce,
            'idempotency-key': idempotencyKey,
            'x-dg-signature': signature.toUpperCase(),
          }
          expect(verifySignedRequest({ headers, rawBody, secret, nowSeconds: now }).ok).toBe(true)
          const changed = Buffer.from(rawBody)
          const at = position % changed.length
          changed[at] = (changed[at] ?? 0) ^ 0x01
          const refused = verifySignedRequest({ headers, rawBody: changed, secret, nowSeconds: now })
          expect(refused).toMatchObject({ ok: false, error: 'invalid_signature' })
        },
      ),
      { numRuns: 500 * SCALE },
    )
  })
})
