/*
 * The replay guard remembers a request's nonce, and also its signing string when that string has
 * another reading as `timestamp.nonce.key.body` (docs/decisions/webhook-exactly-once.md; `signingStringIsAmbiguous`).
 * Unit level: whenever a second valid reading exists, the function says so (checked by listing
 * every reading of random signing strings). Server level: every kind of re-split of a captured
 * request is refused as a replay.
 */
import { randomBytes } from 'node:crypto'

import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'

import { sign, signingString, signingStringIsAmbiguous, TOKEN } from '../../src/webhook/verify-signature.js'
import { rotateWebhookSecret } from '../../src/webhook/webhook-secret.js'
import { grantProLicense } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { WEBHOOK_URL } from '../helpers/webhook.js'

/** Every (nonce, key, body) reading of a signing string that the header checks would accept. */
function readings(signed: Buffer): Array<{ nonce: string; key: string; body: string }> {
  const text = signed.toString('latin1')
  const rest = text.slice(11) // 10 digits and a dot
  const dots = [...rest].flatMap((c, i) => (c === '.' ? [i] : []))
  const found = []
  for (const i of dots) {
    const nonce = rest.slice(0, i)
    if (nonce.length < 16 || nonce.length > 128 || !TOKEN.test(nonce)) continue
    for (const j of dots) {
      if (j <= i) continue
      const key = rest.slice(i + 1, j)
      if (key.length < 8 || key.length > 128 || !TOKEN.test(key)) continue
      found.push({ nonce, key, body: rest.slice(j + 1) })
    }
  }
  return found
}

const tokenChars = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-']
const token = (min: number, max: number, dots: boolean) =>
  fc
    .array(fc.constantFrom(...(dots ? [...tokenChars, '.', '.', '.'] : tokenChars.filter((c) => c !== '.'))), {
      minLength: min,
      maxLength: max,
    })
    .map((chars) => chars.join(''))
    .filter((value) => TOKEN.test(value))
const body = fc.oneof(
  fc.json().map((json) => Buffer.from(json)),
  fc
    .tuple(fc.constantFrom('', ' ', '\n', 'x', '.', 'a.b', '9'), fc.string())
    .map(([head, tail]) => Buffer.from(head + tail)),
  fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
)

describe('signingStringIsAmbiguous', () => {
  it('is true whenever the signing string has another valid nonce/key reading', () => {
    let ambiguousSeen = 0
    fc.assert(
      fc.property(fc.boolean(), token(16, 40, true), token(8, 30, true), body, (dots, nonce, key, raw) => {
        const headers = dots
          ? { timestamp: '1795168800', nonce, idempotencyKey: key }
          : { timestamp: '1795168800', nonce: nonce.replaceAll('.', 'n'), idempotencyKey: key.replaceAll('.', 'k') }
        const others = readings(signingString(headers, raw)).filter(
          (r) => r.nonce !== headers.nonce || r.key !== headers.idempotencyKey,
        )
        if (others.length > 0) {
          ambiguousSeen++
          expect(signingStringIsAmbiguous(headers, raw), JSON.stringify({ headers, others })).toBe(true)
        }
      }),
      { numRuns: 3000 },
    )
    // the generator does produce re-splittable requests
    expect(ambiguousSeen).toBeGreaterThan(100)
  })

  it('is false for a usual request: nonce and key without dots, a JSON object body', () => {
    const headers = { nonce: randomBytes(24).toString('base64url'), idempotencyKey: 'crm-offer-1234-v17' }
    expect(signingStringIsAmbiguous(headers, Buffer.from('{"a":"1.5"}'))).toBe(false)
    expect(signingStringIsAmbiguous(headers, Buffer.from(' \n{"a":1}'))).toBe(false)
    expect(signingStringIsAmbiguous({ ...headers, nonce: `${headers.nonce}.x` }, Buffer.from('{}'))).toBe(true)
    expect(signingStringIsAmbiguous({ ...headers, idempotencyKey: 'crm.1' }, Buffer.from('{}'))).toBe(true)
    expect(signingStringIsAmbiguous(headers, Buffer.from('x.{}'))).toBe(true)
  })
})

describeEachDatabase('replay guard against re-split signing strings', (getEnv) => {
  let env: TestEnv
  let secret: string
  const body = JSON.stringify({
    source_investment_id: 'RS-1',
    source_property_id: 'P1',
    prop_type: 'mieszkanie',
    prop_area: '50.00',
    price_m2: '10000.00',
    price_total: '500000.00',
  })
  const post = (timestamp: string, nonce: string, key: string, payload: string, signature: string) =>
    env.app.inject({
      method: 'POST',
      url: WEBHOOK_URL,
      payload,
      headers: {
        'content-type': 'application/json',
        'x-dg-timestamp': timestamp,
        'x-dg-nonce': nonce,
        'idempotency-key': key,
        'x-dg-signature': signature,
      },
    })

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    secret = (await rotateWebhookSecret(env.ctx, { type: 'cli' })).secret
  })

  it('refuses every re-split of a captured request as a replay', async () => {
    const tag = randomBytes(4).toString('hex')
    const timestamp = String(Math.floor(env.clock.now().getTime() / 1000))
    const cases = [
      // a dot in the key moves into the nonce
      {
        original: [`nonce${tag}AAAAAAAA`, `part1.evt-rs-${tag}`, body],
        resplit: [`nonce${tag}AAAAAAAA.part1`, `evt-rs-${tag}`, body],
      },
      // a dot in the nonce moves into the key
      {
        original: [`nonce${tag}BBBBBBBB.part2`, `evt-rs2-${tag}`, body],
        resplit: [`nonce${tag}BBBBBBBB`, `part2.evt-rs2-${tag}`, body],
      },
      // the key takes the start of a body that begins with key characters (the original is not JSON)
      {
        original: [`nonce${tag}CCCCCCCC`, `evt-rs3-${tag}`, `x.${body}`],
        resplit: [`nonce${tag}CCCCCCCC`, `evt-rs3-${tag}.x`, body],
      },
    ] as const
    for (const { original, resplit } of cases) {
      const [nonce, key, payload] = original
      const signature = sign(secret, { timestamp, nonce, idempotencyKey: key }, Buffer.from(payload))
      const first = await post(timestamp, nonce, key, payload, signature)
      expect(first.statusCode, `${nonce} ${key}`).not.toBe(401)
      const again = await post(timestamp, resplit[0], resplit[1], resplit[2], signature)
      expect(again.statusCode, `${resplit[0]} ${resplit[1]}`).toBe(401)
      expect(again.json().error).toBe('replay')
    }
  })

  it('forgets fingerprints 600 s after their use, as later deliveries go by', async () => {
    const tag = randomBytes(4).toString('hex')
    const fingerprints = () =>
      env.ctx.db
        .selectFrom('webhook_replay_guard')
        .select('fingerprint')
        .where('fingerprint', 'like', `n:old${tag}%`)
        .execute()
    const deliverWith = (nonce: string, key: string) => {
      const timestamp = String(Math.floor(env.clock.now().getTime() / 1000))
      return post(
        timestamp,
        nonce,
        key,
        body,
        sign(secret, { timestamp, nonce, idempotencyKey: key }, Buffer.from(body)),
      )
    }
    for (let i = 0; i < 3; i++)
      expect((await deliverWith(`old${tag}-nonce-${i}-xxxx`, `evt-old-${tag}`)).statusCode).not.toBe(401)
    expect(await fingerprints()).toHaveLength(3)
    env.clock.advance(599_000)
    await deliverWith(`mid${tag}-nonce-xxxxxxxx`, `evt-old-${tag}`)
    expect(await fingerprints()).toHaveLength(3)
    env.clock.advance(2_000)
    await deliverWith(`new${tag}-nonce-xxxxxxxx`, `evt-old-${tag}`)
    expect(await fingerprints()).toHaveLength(0)
  })
})
