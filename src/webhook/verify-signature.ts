/*
 * Verification of a signed property webhook (docs/integration/webhook.md), on the raw bytes exactly as received,
 * in the contract's order: header formats (invalid_auth), clock skew (expired_timestamp),
 * HMAC-SHA256 in constant time (invalid_signature). Replay checks need the database and follow in
 * the service. Pure, so it is fuzzed without a server.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

export const MAX_SKEW_SECONDS = 300
export const TOKEN = /^[A-Za-z0-9._:-]+$/

export interface SignedHeaders {
  timestamp: string
  nonce: string
  idempotencyKey: string
  signature: string
}

export type VerifyFailure = {
  ok: false
  error: 'invalid_auth' | 'expired_timestamp' | 'invalid_signature'
  detail: string
}
export type VerifyResult = { ok: true; headers: SignedHeaders; signingStringSha256: string } | VerifyFailure

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value
}

export function readSignedHeaders(
  headers: Record<string, string | string[] | undefined>,
): SignedHeaders | VerifyFailure {
  const contentType = single(headers['content-type'])
  const timestamp = single(headers['x-dg-timestamp'])
  const nonce = single(headers['x-dg-nonce'])
  const idempotencyKey = single(headers['idempotency-key'])
  const signature = single(headers['x-dg-signature'])
  const fail = (detail: string): VerifyFailure => ({ ok: false, error: 'invalid_auth', detail })
  if (!contentType || !/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(contentType.trim()))
    return fail('Content-Type must be application/json')
  if (!timestamp || !/^\d{10}$/.test(timestamp)) return fail('X-DG-Timestamp must be exactly 10 digits (Unix seconds)')
  if (!nonce || nonce.length < 16 || nonce.length > 128 || !TOKEN.test(nonce))
    return fail('X-DG-Nonce must be 16–128 characters of A-Za-z0-9._:-')
  if (!idempotencyKey || idempotencyKey.length < 8 || idempotencyKey.length > 128 || !TOKEN.test(idempotencyKey)) {
    return fail('Idempotency-Key must be 8–128 characters of A-Za-z0-9._:-')
  }
  if (!signature || !/^[0-9a-fA-F]{64}$/.test(signature))
    return fail('X-DG-Signature must be 64 hexadecimal characters')
  return { timestamp, nonce, idempotencyKey, signature: signature.toLowerCase() }
}

export function signingString(
  headers: Pick<SignedHeaders, 'timestamp' | 'nonce' | 'idempotencyKey'>,
  rawBody: Buffer,
): Buffer {
  return Buffer.concat([Buffer.from(`${headers.timestamp}.${headers.nonce}.${headers.idempotencyKey}.`), rawBody])
}

/** Lowercase hex HMAC-SHA256 of the signing string, keyed with the secret's UTF-8 bytes as shown. */
export function sign(
  secret: string,
  headers: Pick<SignedHeaders, 'timestamp' | 'nonce' | 'idempotencyKey'>,
  rawBody: Buffer,
): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(signingString(headers, rawBody)).digest('hex')
}

const TOKEN_BYTES = new Set(Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-'))

/**
 * Whether the signing string `timestamp.nonce.key.body` could be split into another nonce/key
 * pair (docs/decisions/webhook-exactly-once.md). The timestamp is 10 digits, so another split needs another end for
 * the nonce or the key: a dot inside the nonce or the key, or key characters taken from the body,
 * which needs a body that starts with a key character. JSON objects start with `{` or
 * whitespace, so senders' usual requests (nonce and key without dots) have exactly one reading,
 * and their nonce alone identifies them.
 */
export function signingStringIsAmbiguous(
  headers: Pick<SignedHeaders, 'nonce' | 'idempotencyKey'>,
  rawBody: Buffer,
): boolean {
  if (headers.nonce.includes('.') || headers.idempotencyKey.includes('.')) return true
  const first = rawBody[0]
  return first !== undefined && TOKEN_BYTES.has(first)
}

/** The checks that need neither the secret nor the database: header formats, then clock skew. */
export function checkSignedHeaders(
  headers: Record<string, string | string[] | undefined>,
  nowSeconds: number,
): SignedHeaders | VerifyFailure {
  const read = readSignedHeaders(headers)
  if ('ok' in read) return read
  const skew = nowSeconds - Number(read.timestamp)
  if (Math.abs(skew) > MAX_SKEW_SECONDS) {
    return {
      ok: false,
      error: 'expired_timestamp',
      detail: `timestamp is ${Math.abs(skew)} s ${skew > 0 ? 'in the past' : 'in the future'}; at most ${MAX_SKEW_SECONDS} s are accepted`,
    }
  }
  return read
}

/** The HMAC check (constant time) of headers that passed `checkSignedHeaders`. */
export function verifySignature(
  headers: SignedHeaders,
  rawBody: Buffer,
  secret: string | undefined,
): { ok: true; signingStringSha256: string } | VerifyFailure {
  if (!secret) return { ok: false, error: 'invalid_signature', detail: 'no webhook secret is configured' }
  const signed = signingString(headers, rawBody)
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed).digest()
  const given = Buffer.from(headers.signature, 'hex')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, error: 'invalid_signature', detail: 'the signature does not match the body and the secret' }
  }
  return { ok: true, signingStringSha256: createHash('sha256').update(signed).digest('hex') }
}

export function verifySignedRequest(args: {
  headers: Record<string, string | string[] | undefined>
  rawBody: Buffer
  secret: string | undefined
  nowSeconds: number
}): VerifyResult {
  const headers = checkSignedHeaders(args.headers, args.nowSeconds)
  if ('ok' in headers) return headers
  const verified = verifySignature(headers, args.rawBody, args.secret)
  return verified.ok ? { ok: true, headers, signingStringSha256: verified.signingStringSha256 } : verified
}
