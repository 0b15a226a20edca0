/*
 * Fuzzing of every endpoint: each operation of the service's own OpenAPI
 * document, plus HEAD, wrong methods and paths no route serves, gets hostile path parameters,
 * query strings, headers (Authorization variants, Content-Type lies, huge headers, If-None-Match,
 * If-Modified-Since and Accept-Language garbage, forwarded-for lies) and bodies (wrong JSON types,
 * deep nesting, huge strings, prototype-pollution keys, invalid UTF-8, form and multipart bodies
 * that do not fit the route), sent by valid and invalid callers alike.
 *
 * Every answer must be below 500 and one of the statuses the operation documents (429 counted
 * apart; an unrouted request 404 rest_no_route); an error carries a stable `code` or `error`; a
 * refused request leaves every table, the catalog revision, the site options and the data
 * folder as they were (a refused login's audit entry and an invalid preview's job record, which
 * the contract asks for, excepted). At the end the captured log (level trace) holds no secret, no
 * signature, no password and no Authorization header, and Object.prototype is untouched.
 *
 * DG_FUZZ_SCALE multiplies the cases (`npm run fuzz`); the suite prints the cases tried per target.
 * The regressions it found, kept as fixed requests, and raw HTTP are in endpoint-regressions.test.ts.
 */
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'

import { TEST_DIALECTS } from '../helpers/databases.js'
import { basicAuth } from '../helpers/factories.js'
import type { TestEnv } from '../helpers/test-app.js'
import {
  changes,
  checkProperty,
  countCase,
  type DocumentedOperation,
  errorCode,
  findOperation,
  fingerprint,
  fuzzTimeout,
  markedSecret,
  type OpenApiDocument,
  runs,
} from './fuzz-harness.js'
import { type FuzzedApp, logHoldsNoSecret, METRICS_TOKEN, startFuzzedApp, V2 } from './fuzzed-app.js'

/** Cases per documented operation in `npm test` (times DG_FUZZ_SCALE). */
const CASES_PER_OPERATION = 10
const CASES_UNROUTED = 30

type Json = Record<string, unknown>
interface Caller {
  name: string
  headers: () => Promise<Record<string, string>>
}
interface FuzzRequest {
  method: string
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
  /** How the caller authenticates, for the report of a failure. */
  caller: string
}

/** Routes the document leaves out on purpose (the document itself, the admin panel's files). */
const UNDOCUMENTED_ROUTES: Array<{ method: string; pattern: RegExp; statuses: number[] }> = [
  { method: 'GET', pattern: /^\/wp-json\/dg\/v2\/openapi\.json$/, statuses: [200] },
  { method: 'GET', pattern: /^\/dg-admin\/?[^/]*$/, statuses: [200, 301, 304, 404] },
]

// ------------------------------------------------------------------------------------------------
// Hostile values

/** A header value as Node receives it: UTF-8 bytes read as Latin-1, no line breaks. */
const headerSafe = (value: string): string =>
  Buffer.from(value, 'utf8')
    .toString('latin1')
    .replace(/[\r\n\0]/g, ' ')

const hugeText = fc
  .tuple(fc.integer({ min: 1_000, max: 200_000 }), fc.constantFrom('a', 'ż', '%', '"', '\\', '0', '😀'))
  .map(([n, c]) => c.repeat(Math.ceil(n / c.length)))

const weirdText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    'NaN',
    'Infinity',
    '9'.repeat(40),
    '0x1F',
    '1.5',
    '-0',
    'true',
    'null',
    'undefined',
    '[]',
    '{}',
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '../../../../etc/passwd',
    '..\\..\\windows\\win.ini',
    '%00',
    '\u0000',
    '\uFEFF',
    '\uD800',
    '\u202Eevil',
    "' OR 1=1 --",
    '"; DROP TABLE offers; --',
    '<script>alert(1)</script>',
    '${7*7}',
    '{{7*7}}',
    "=cmd|' /C calc'!A0",
    '2026-02-30',
    '2026-11-20',
    '2026-11-20T10:00:00Z',
    '0000-00-00',
    '9999-12-31',
    'modified',
    'price',
    'ASC',
    'desc',
    'property',
    'standalone_part',
    'available',
    'mieszkanie',
  ),
)

const hostileValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: weirdText },
  { weight: 1, arbitrary: hugeText },
  { weight: 2, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
)

/** A query value or path segment, percent-encoded, raw, or with broken escapes. */
const urlPart = (value: fc.Arbitrary<string>) =>
  fc
    .tuple(
      value,
      fc.constantFrom('encoded', 'encoded', 'encoded', 'raw', 'broken'),
      fc.constantFrom('%', '%z', '%zz', '%C0%AF', '%FF', '%ED%A0%80', '%00'),
    )
    .map(([text, how, broken]) => {
      const wellFormed = text.replace(/[\uD800-\uDFFF]/g, '\uFFFD')
      if (how === 'encoded') return encodeURIComponent(wellFormed)
      if (how === 'raw')
        return wellFormed.replace(/[\s#?&/]/g, '').replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c))
      return `${encodeURIComponent(wellFormed)}${broken}`
    })

// ------------------------------------------------------------------------------------------------

for (const dialect of TEST_DIALECTS) {
  describe(`every endpoint under hostile input [${dialect}]`, () => {
    const fuzzed = startFuzzedApp(dialect, 'endpoints')
    const { log, secrets, ids, login } = fuzzed
    let env: TestEnv
    let document: OpenApiDocument
    let operations: DocumentedOperation[]
    let admin: FuzzedApp['admin']
    let reader: string
    let session: FuzzedApp['session']
    beforeAll(() => {
      ;({ env, document, operations, admin, reader, session } = fuzzed)
    })

    // --------------------------------------------------------------------------------------------
    // Callers

    const callers: Array<[weight: number, name: string, headers: Caller['headers']]> = [
      [5, 'administrator', async () => ({ authorization: admin.authorization })],
      [1, 'catalog reader', async () => ({ authorization: reader })],
      [
        2,
        'session',
        async () => {
          session ??= await login()
          return { cookie: session.cookie, 'x-wp-nonce': session.nonce }
        },
      ],
      [1, 'anonymous', async () => ({})],
      [1, 'metrics token', async () => ({ authorization: `Bearer ${METRICS_TOKEN}` })],
      [1, 'wrong app password', async () => ({ authorization: basicAuth(admin.login, markedSecret()) })],
      [1, 'unknown user', async () => ({ authorization: basicAuth(markedSecret(), markedSecret()) })],
      [
        1,
        'login password as app password',
        async () => ({ authorization: basicAuth(admin.login, admin.loginPassword) }),
      ],
      [1, 'bearer garbage', async () => ({ authorization: `Bearer ${markedSecret()}` })],
      [1, 'basic not base64', async () => ({ authorization: `Basic ${markedSecret()}!!` })],
      [
        1,
        'basic without colon',
        async () => ({ authorization: `Basic ${Buffer.from(markedSecret()).toString('base64')}` }),
      ],
      [
        1,
        'basic huge',
        async () => ({ authorization: basicAuth(admin.login, `${markedSecret()}${'p'.repeat(200_000)}`) }),
      ],
      [
        1,
        'basic invalid utf-8',
        async () => ({
          authorization: `Basic ${Buffer.concat([Buffer.from([0xff, 0xfe, 0xc0, 0x3a]), Buffer.from(`:${markedSecret()}`)]).toString('base64')}`,
        }),
      ],
      [1, 'digest', async () => ({ authorization: `Digest username="admin", response="${markedSecret()}"` })],
      [
        1,
        'session wrong nonce',
        async () => ({ cookie: session?.cookie ?? 'dg_session=x', 'x-wp-nonce': markedSecret() }),
      ],
      [1, 'session cookie only', async () => ({ cookie: session?.cookie ?? 'dg_session=x' })],
      [
        1,
        'garbage cookie',
        async () => ({ cookie: `dg_session=${markedSecret()}; a=%zz; ;;=;`, 'x-wp-nonce': markedSecret() }),
      ],
      [1, 'webhook key', async () => ({ 'x-dg-webhook-key': markedSecret() })],
    ]
    const caller: fc.Arbitrary<Caller> = fc.oneof(
      ...callers.map(([weight, name, headers]) => ({ weight, arbitrary: fc.constant({ name, headers }) })),
    )

    // --------------------------------------------------------------------------------------------
    // Headers besides authentication

    const optionalHeaders: Record<string, fc.Arbitrary<string>> = {
      'if-none-match': fc.oneof(
        weirdText,
        hugeText,
        fc.constantFrom('*', 'W/"x"', '"a", W/"b", *', 'W/', '""', '"', ',,,,', `${'"x",'.repeat(5000)}"y"`),
      ),
      'if-modified-since': fc.oneof(
        weirdText,
        fc.constantFrom('Thu, 01 Jan 1970 00:00:00 GMT', 'Fri, 31 Dec 9999 23:59:59 GMT', 'yesterday', '-1'),
      ),
      'accept-language': fc.oneof(
        weirdText,
        hugeText,
        fc.constantFrom('en', 'pl', '*', 'en;q=abc', 'en;q=-1, pl;q=2', ';;;,,,', 'zz-ZZ-x-private'),
      ),
      accept: fc.oneof(weirdText, fc.constantFrom('*/*', 'application/xml', 'text/html;q=0', '')),
      'x-forwarded-for': fc.oneof(
        weirdText,
        fc.constantFrom('unknown', '::1', '1.2.3.4, 5.6.7.8', 'fe80::1%eth0', '999.999.999.999', ', , ,'),
      ),
      'x-forwarded-proto': fc.oneof(weirdText, fc.constantFrom('https', 'http', 'HTTPS, http', 'ftp')),
      'x-forwarded-host': weirdText,
      // a login from another site is refused before anything else (403 rest_cross_origin_login)
      origin: fc.oneof(
        weirdText,
        fc.constantFrom('https://attacker.example', 'null', 'http://localhost:80', 'http://localhost:80.evil'),
      ),
      'sec-fetch-site': fc.oneof(weirdText, fc.constantFrom('cross-site', 'same-site', 'same-origin', 'none')),
      host: fc.oneof(weirdText, fc.constantFrom('evil.example', '[::1]:99999', 'a:b:c', '')),
      'idempotency-key': fc.oneof(weirdText, hugeText, fc.stringMatching(/^[A-Za-z0-9._:-]{8,40}$/)),
      'x-http-method-override': fc.constantFrom('DELETE', 'PUT', 'GET'),
      'x-junk': hugeText,
      range: fc.constantFrom('bytes=0-1', 'bytes=-1', 'bytes=9999999999-', 'lines=1-2', 'bytes=1-0,0-1'),
      'x-dg-timestamp': weirdText,
      'x-dg-nonce': weirdText,
      'x-dg-signature': fc.constant('').map(() => markedSecret()),
    }
    const extraHeaders = fc
      .dictionary(fc.constantFrom(...Object.keys(optionalHeaders)), fc.constant(null), { maxKeys: 4 })
      .chain((picked) =>
        fc.record(
          Object.fromEntries(Object.keys(picked).map((name) => [name, optionalHeaders[name] ?? fc.constant('')])),
        ),
      )

    // --------------------------------------------------------------------------------------------
    // Bodies

    /** The body field names the document gives the operation, for objects of the right shape. */
    function bodyFields(operation: DocumentedOperation): string[] {
      const op = document.paths[operation.template]?.[operation.method.toLowerCase()] as
        | { requestBody?: { content?: Record<string, { schema?: { properties?: Json } }> } }
        | undefined
      const names = new Set<string>()
      for (const media of Object.values(op?.requestBody?.content ?? {}))
        for (const name of Object.keys(media.schema?.properties ?? {})) names.add(name)
      return [...names]
    }

    const jsonish: fc.Arbitrary<unknown> = fc.oneof(
      { weight: 3, arbitrary: hostileValue },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
      { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, [], {}, [null], { a: 1 }) },
      { weight: 1, arbitrary: fc.constantFrom('https://127.0.0.1:9/dane-gov', 'http://127.0.0.1:9/x', 'javascript:x') },
    )

    function bodyArbitrary(fields: string[]): fc.Arbitrary<{ payload?: string | Buffer; type?: string; kind: string }> {
      const shaped = fields.length
        ? fc.dictionary(fc.constantFrom(...fields), jsonish, { maxKeys: fields.length })
        : fc.dictionary(fc.string({ maxLength: 8 }), jsonish, { maxKeys: 4 })
      const polluted = shaped.map((object) => {
        const text = JSON.stringify(object).slice(0, -1)
        return `${text}${text.length > 1 ? ',' : ''}"__proto__":{"polluted":1,"isAdmin":true},"constructor":{"prototype":{"polluted":1}}}`
      })
      const json = (text: fc.Arbitrary<string>, kind: string) =>
        text.map((payload) => ({ payload, type: 'application/json', kind }))
      const form = fc
        .dictionary(
          fc.oneof(
            fc.constantFrom(...fields, '__proto__[polluted]', 'constructor[prototype][x]', 'a[b][c]'),
            fc.string({ maxLength: 6 }),
          ),
          fc.oneof(hostileValue, fc.constantFrom('true', '1', 'on', ids.job)),
          { maxKeys: 5 },
        )
        .map((entries) => ({
          payload: Object.entries(entries)
            .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v.replace(/[\uD800-\uDFFF]/g, ''))}`)
            .join('&'),
          type: 'application/x-www-form-urlencoded',
          kind: 'form',
        }))
      const multipartBody = fc
        .record({
          boundary: fc.stringMatching(/^[A-Za-z0-9'()+_,-./:=?]{1,70}$/),
          parts: fc.array(
            fc.record({
              name: fc.oneof(
                fc.constantFrom(...fields, 'file', 'mode', 'mapping', 'sheet', ''),
                fc.string({ maxLength: 10 }),
              ),
              filename: fc.option(
                fc.oneof(fc.constantFrom('a.csv', 'a.xlsx', '../../x.csv', ''), fc.string({ maxLength: 20 })),
              ),
              content: fc.oneof(
                hostileValue,
                fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
                fc.constantFrom(
                  '{"source_investment_id":"A","source_property_id":"B"}',
                  'patch',
                  'snapshot',
                  'A;B\n1;2\n',
                ),
              ),
            }),
            { maxLength: 12 },
          ),
          closed: fc.boolean(),
        })
        .map(({ boundary, parts, closed }) => {
          const body = parts
            .map(
              (part) =>
                `--${boundary}\r\nContent-Disposition: form-data; name="${part.name.replace(/["\r\n]/g, '')}"` +
                `${part.filename === null ? '' : `; filename="${part.filename.replace(/["\r\n]/g, '')}"`}\r\n\r\n${part.content}\r\n`,
            )
            .join('')
          return {
            payload: Buffer.from(`${body}${closed ? `--${boundary}--\r\n` : ''}`, 'latin1'),
            type: `multipart/form-data; boundary=${boundary}`,
            kind: 'multipart',
          }
        })
      return fc.oneof(
        { weight: 2, arbitrary: fc.constant({ kind: 'none' }) },
        {
          weight: 4,
          arbitrary: json(
            shaped.map((o) => JSON.stringify(o)),
            'json object',
          ),
        },
        { weight: 2, arbitrary: json(polluted, 'prototype keys') },
        {
          weight: 2,
          arbitrary: json(
            fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
            'json value',
          ),
        },
        {
          weight: 1,
          arbitrary: json(
            fc
              .tuple(fc.constantFrom(100, 5_000, 100_000), fc.constantFrom('[', '{"a":'))
              .map(([depth, open]) => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`),
            'deep nesting',
          ),
        },
        {
          weight: 1,
          arbitrary: json(
            fc
              .tuple(
                fc.constantFrom(...(fields.length ? fields : ['x'])),
                fc.constantFrom(900_000, 1_100_000, 3_000_000),
              )
              .map(([field, size]) => JSON.stringify({ [field]: 'x'.repeat(size) })),
            'huge string',
          ),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom(
              Buffer.from([0x7b, 0x22, 0x64, 0x61, 0x74, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
              Buffer.from('{"login":"\xc0\xaf","password":"x"}', 'latin1'),
              Buffer.from('{"date":"\\ud800"}'),
              Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
              Buffer.from([0xfe, 0xff, 0x00, 0x7b, 0x00, 0x7d]),
            )
            .map((payload) => ({ payload, type: 'application/json', kind: 'invalid utf-8' })),
        },
        { weight: 2, arbitrary: form },
        { weight: 2, arbitrary: multipartBody },
        {
          weight: 1,
          arbitrary: fc
            .uint8Array({ maxLength: 4000 })
            .map((bytes) => ({ payload: Buffer.from(bytes), type: 'application/octet-stream', kind: 'random bytes' })),
        },
      )
    }

    const contentTypeLie = fc.constantFrom(
      'text/plain',
      'application/json',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary=nothere',
      'application/xml',
      'application/vnd.api+json',
      '*/*',
      'json',
      '',
      ';;;',
      'application/json;;;charset=',
    )

    // --------------------------------------------------------------------------------------------
    // Requests

    function pathValue(name: string): fc.Arbitrary<string> {
      const valid: Record<string, string[]> = {
        id: [ids.investment, ids.property, ids.job, ids.developer],
        file: ['dataset.xml', 'dataset.md5', 'dataset.xml.md5', 'x.csv'],
        dataset: ['d1', 'd0', 'd2', 'd99999999999999999999'],
      }
      return fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom(...(valid[name] ?? ['1'])) },
        { weight: 5, arbitrary: urlPart(hostileValue) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '..%2F..%2Fetc%2Fpasswd',
            '%2e%2e',
            '.',
            '..',
            '%2F',
            'a%2Fb',
            '%5C..%5C',
            'x'.repeat(5000),
          ),
        },
        {
          // a secret in a path segment under a secret name, however spelled: the log check at the
          // end finds any marked secret that got through
          weight: 1,
          arbitrary: fc
            .constantFrom('key=', 'api_key=', 'x;key=', 'k%65y%3D', 'access_token%3D', 'x;%6bey=')
            .map((prefix) => `${prefix}${markedSecret()}`),
        },
      )
    }

    function queryArbitrary(operation: DocumentedOperation | undefined): fc.Arbitrary<string> {
      const op = operation
        ? (document.paths[operation.template]?.[operation.method.toLowerCase()] as
            | { parameters?: Array<{ in: string; name: string }> }
            | undefined)
        : undefined
      const names = (op?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)
      const name = fc.oneof(
        { weight: 5, arbitrary: names.length ? fc.constantFrom(...names) : fc.constant('page') },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '__proto__',
            'constructor',
            '__proto__[polluted]',
            'a[]',
            'toString',
            '_fields',
            'key',
            'password',
          ),
        },
        {
          weight: 1,
          arbitrary: fc.string({ maxLength: 8 }).map((n) => encodeURIComponent(n.replace(/[\uD800-\uDFFF]/g, ''))),
        },
      )
      const value = fc.oneof(
        { weight: 5, arbitrary: urlPart(hostileValue) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'id,title,offer.price_cents',
            `${'a.'.repeat(3000)}b`,
            '__proto__.polluted,constructor.prototype',
            ',,,,',
            '*',
          ),
        },
      )
      // a secret under a name the log must recognise however it is spelled: the log check at the
      // end finds any marked secret that got through
      const secretParam = fc
        .tuple(
          fc.constantFrom(
            'key',
            '%6bey',
            'k%65y',
            '%6B%65%79',
            'k%2565y',
            'api_key',
            'api%5Fkey',
            'access_token',
            'token',
            'secret',
            'password',
            'signature',
            '_wpnonce',
            'x-api-key',
          ),
          fc.constantFrom('&', ';', '?'),
        )
        .map(([n, separator]) => ({ pair: `${n}=${markedSecret()}`, separator }))
      return fc
        .tuple(fc.array(fc.tuple(name, value, fc.boolean()), { maxLength: 6 }), fc.option(secretParam))
        .map(([pairs, secret]) => {
          const query = pairs.map(([n, v, bare]) => (bare && v === '' ? n : `${n}=${v}`)).join('&')
          if (!secret) return query
          return query ? `${query}${secret.separator}${secret.pair}` : secret.pair
        })
    }

    function requestFor(operation: DocumentedOperation): fc.Arbitrary<Omit<FuzzRequest, 'caller'> & { who: Caller }> {
      const params = [...operation.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '')
      const method = fc.oneof(
        { weight: 9, arbitrary: fc.constant(operation.method) },
        { weight: 1, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'PATCH', 'DELETE', 'PUT', 'POST', 'GET') },
      )
      return fc
        .record({
          method,
          values: fc.tuple(...params.map((name) => pathValue(name))),
          query: queryArbitrary(operation),
          trailing: fc.constantFrom('', '', '', '', '/', '//', '?', '#frag', '/.', '%20'),
          who: caller,
          headers: extraHeaders,
          body: bodyArbitrary(bodyFields(operation)),
          lie: fc.option(contentTypeLie, { freq: 4 }),
        })
        .map(({ method: m, values, query, trailing, who, headers, body, lie }) => {
          let url = operation.template
          params.forEach((name, index) => (url = url.replace(`{${name}}`, values[index] ?? '')))
          url = `${url}${trailing}${query ? `${trailing.includes('?') ? '' : '?'}${query}` : ''}`
          const sent: Record<string, string> = {}
          for (const [name, value] of Object.entries(headers)) sent[name] = headerSafe(value)
          const type = lie ?? body.type
          if (type !== undefined) sent['content-type'] = headerSafe(type)
          return {
            method: m,
            url,
            headers: sent,
            ...(body.payload !== undefined ? { payload: body.payload } : {}),
            who,
          }
        })
    }

    // --------------------------------------------------------------------------------------------
    // The check of one answer

    function documentedStatuses(method: string, url: string): { statuses: ReadonlySet<number>; where: string } {
      const operation = findOperation(operations, method, url)
      if (operation) {
        // HEAD is answered by a GET route that allows it; legacy generate does not (it would publish)
        const statuses = method === 'HEAD' ? new Set([...operation.statuses, 404]) : operation.statuses
        return { statuses, where: `${operation.method} ${operation.template}` }
      }
      const pathname = URL.canParse(url, 'http://localhost') ? new URL(url, 'http://localhost').pathname : url
      const known = UNDOCUMENTED_ROUTES.find((route) => route.method === method && route.pattern.test(pathname))
      if (known) return { statuses: new Set(known.statuses), where: `${method} (undocumented route)` }
      // 404 rest_no_route; 400 rest_invalid_url when the path itself cannot be decoded; the body is
      // parsed before the not-found handler runs, so 413/415 for a body too large or of no known type
      return { statuses: new Set([400, 404, 413, 415]), where: `${method} (no route)` }
    }

    /** Tables a refusal may write, by status and code: what the contract asks to keep. */
    function allowedWrites(url: string, status: number, code: string | undefined): string[] {
      // a refused login is audited (who tried which login, never the password)
      if (url.startsWith(`${V2}/session`) && status === 401 && code === 'incorrect_password') return ['audit_log']
      // an invalid preview answers with its job id: the job, its items and its audit entry
      if (status === 422 && code === 'import_invalid') return ['import_jobs', 'import_job_items', 'audit_log']
      // a failed publication is recorded (GET /status shows it, alerts read it); files stay as they were
      if (status === 422 && code === 'publication_failed') return ['publications', 'audit_log']
      return []
    }

    async function send(request: FuzzRequest): Promise<LightMyRequestResponse | undefined> {
      const before = await fingerprint(env)
      let response: LightMyRequestResponse
      try {
        response = await env.app.inject({
          method: request.method as 'GET',
          url: request.url,
          headers: request.headers,
          ...(request.payload !== undefined ? { payload: request.payload } : {}),
        })
      } catch (error) {
        // the injector's own URL parser refuses it: no client library could send it either
        if (!(error instanceof TypeError && /Invalid URL/i.test(error.message))) throw error
        countCase('not sendable (the injector refused the URL)')
        return undefined
      }
      const what = `${request.method} ${request.url.slice(0, 200)} as ${request.caller} (${JSON.stringify(request.headers).slice(0, 300)}; body ${String(request.payload ?? '').slice(0, 200)})`
      const status = response.statusCode
      if (status >= 500) {
        const logged = log.lastError()
        expect.fail(`${what} → ${status}: ${response.body.slice(0, 300)}\nlogged: ${logged.slice(0, 2000)}`)
      }
      // every answer, refusals and 404s included, forbids content sniffing
      expect(response.headers['x-content-type-options'], `${what} → ${status}`).toBe('nosniff')
      if (status === 429) {
        countCase('answered 429 (counted apart)')
        return response
      }
      const { statuses, where } = documentedStatuses(request.method, request.url)
      expect(
        statuses.has(status),
        `${what} → ${status} is not documented for ${where} (${[...statuses].join(', ')}): ${response.body.slice(0, 300)}`,
      ).toBe(true)
      if (status >= 400) {
        if (request.method !== 'HEAD') {
          const { code, problem } = errorCode(response)
          expect(problem, `${what} → ${status}`).toBeUndefined()
          const after = await fingerprint(env)
          // a publication that failed may have made the identifier of its dataset, the service's own
          // or a developer entity's (made once on first use and never changed, so the portal keeps
          // knowing the dataset)
          const newOptions = status === 422 && code === 'publication_failed' ? /^dg_dataset_ext_ident($|_)/ : undefined
          const changed = changes(before, after, allowedWrites(request.url, status, code), newOptions)
          expect(changed, `${what} → ${status} ${code}: ${changed.join('; ')}`).toEqual([])
        } else {
          expect(changes(before, await fingerprint(env)), `${what} → ${status}`).toEqual([])
        }
      }
      // a secret shown in an answer (the webhook key, a rotated one) must not reach the log either
      if (status === 200 && /\/webhook-secret/.test(request.url) && request.method !== 'HEAD') {
        const secret = (response.json() as { secret?: unknown }).secret
        if (typeof secret === 'string') secrets.add(secret)
      }
      if (status === 204 && request.url.startsWith(`${V2}/session`)) session = undefined
      return response
    }

    it(
      'every documented operation answers hostile requests with a documented status, a stable code and no write',
      async () => {
        for (const operation of operations) {
          const target = `${operation.method} ${operation.template}`
          await checkProperty(target, requestFor(operation), runs(CASES_PER_OPERATION), async ({ who, ...request }) => {
            const headers = { ...(await who.headers()), ...request.headers }
            await send({ ...request, headers, caller: who.name })
          })
        }
      },
      fuzzTimeout(240_000),
    )

    it(
      'paths and methods no route serves answer 404 rest_no_route, whatever comes with them',
      async () => {
        const unrouted = fc.record({
          method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'),
          path: fc.oneof(
            fc.array(urlPart(hostileValue), { minLength: 1, maxLength: 5 }).map((parts) => `/${parts.join('/')}`),
            fc
              .tuple(
                fc.constantFrom(
                  `${V2}/`,
                  `${V2}/catalog/`,
                  '/wp-json/dg/v1/',
                  '/dane-gov/',
                  '/wp-json/',
                  '/dg-admin/x/',
                ),
                urlPart(hostileValue),
              )
              .map(([prefix, rest]) => `${prefix}${rest}`),
            fc.constantFrom(
              '/',
              '//',
              '/..',
              '/%2e%2e/%2e%2e/etc/passwd',
              '/wp-json/dg/v3/catalog',
              `/${'a'.repeat(70_000)}`,
            ),
          ),
          who: caller,
          headers: extraHeaders,
        })
        await checkProperty(
          'unrouted paths and methods',
          unrouted,
          runs(CASES_UNROUTED),
          async ({ method, path, who, headers }) => {
            const sent: Record<string, string> = {}
            for (const [name, value] of Object.entries(headers)) sent[name] = headerSafe(value)
            await send({ method, url: path, headers: { ...(await who.headers()), ...sent }, caller: who.name })
          },
        )
      },
      fuzzTimeout(120_000),
    )

    logHoldsNoSecret(fuzzed, 'endpoints', dialect, 100)
  })
}
