/*
 * Reference sender of the property webhook, following the sender algorithm of
 * docs/integration/webhook.md to the letter:
 * - the idempotency key is stable for the logical event, and the body is serialized once;
 * - every attempt gets a fresh timestamp, nonce and signature;
 * - 200 and 202 are success (200 with `replayed` means an earlier attempt already applied it);
 * - 409 webhook_in_progress: wait Retry-After, then try again with the same body and key, for as
 *   long as an execution may take (an import that updates 100,000 offers on PostgreSQL runs
 *   ~45 s): these waits are bounded by their total time, not by the attempts;
 * - a body conflict, a validation failure or recovery_required stop the sender;
 * - network errors and other 5xx are retried with bounded exponential back-off.
 * Exported as `sendPropertyEvent` (package `dg-offers/webhook-sender`) and as `dg webhook send`.
 */
import { randomBytes } from 'node:crypto'

import { sign } from './verify-signature.js'

export interface SendOptions {
  url: string
  secret: string
  /** Stable id of the logical event: the same for every retry of the same body. */
  idempotencyKey: string
  /** The event: an object (serialized once here) or the exact JSON text to send. */
  payload: Record<string, string | number | boolean | null> | string
  /** Attempts after network errors and 5xx answers (default 8); a wait for an execution in progress is not counted here. */
  maxAttempts?: number
  /** Longest total wait for an execution in progress (409 webhook_in_progress), in seconds (default 600). */
  maxInProgressWaitSeconds?: number
  /** First back-off after a network error or 5xx, doubled each time (default 1000 ms, at most 30 s). */
  baseDelayMs?: number
  /** Longest Retry-After honoured, in seconds (default 60). */
  maxRetryAfterSeconds?: number
  fetch?: typeof fetch
  sleep?: (ms: number) => Promise<void>
  now?: () => number
  /** Called after each attempt, e.g. for logging (never receives the secret or the signature). */
  onAttempt?: (attempt: { number: number; status: number | 'network_error'; error?: string; waitMs?: number }) => void
}

export interface SendResult {
  status: 200 | 202
  replayed: boolean
  result: Record<string, unknown>
  attempts: number
}

export class WebhookSendError extends Error {
  constructor(
    readonly code: string,
    readonly status: number | undefined,
    readonly body: unknown,
    readonly attempts: number,
  ) {
    super(`webhook not delivered: ${code}${status ? ` (HTTP ${status})` : ''}`)
    this.name = 'WebhookSendError'
  }
}

/** 24 random bytes as base64url: 32 characters from the allowed nonce alphabet. */
export function newNonce(): string {
  return randomBytes(24).toString('base64url')
}

export function signedHeaders(
  secret: string,
  idempotencyKey: string,
  body: Buffer,
  nowSeconds: number,
): Record<string, string> {
  const timestamp = String(Math.floor(nowSeconds)).padStart(10, '0')
  const nonce = newNonce()
  return {
    'content-type': 'application/json',
    'x-dg-timestamp': timestamp,
    'x-dg-nonce': nonce,
    'idempotency-key': idempotencyKey,
    'x-dg-signature': sign(secret, { timestamp, nonce, idempotencyKey }, body),
  }
}

const STOP_CODES = new Set([
  'idempotency_body_conflict',
  'validation_failed',
  'recovery_required',
  'invalid_json',
  'invalid_payload',
  'unsupported_property_structure',
  'webhook_import_failed',
  'pro_feature_required',
  'invalid_signature',
  'invalid_auth',
  'replay',
])

export async function sendPropertyEvent(options: SendOptions): Promise<SendResult> {
  const body = Buffer.from(
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload),
    'utf8',
  )
  const doFetch = options.fetch ?? fetch
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const now = options.now ?? (() => Date.now())
  const maxAttempts = options.maxAttempts ?? 8
  const inProgressBudgetMs = (options.maxInProgressWaitSeconds ?? 600) * 1000
  let backoff = options.baseDelayMs ?? 1000
  let inProgressWaitedMs = 0
  // `failed` counts the attempts that maxAttempts bounds: those lost to the network or a 5xx
  let failed = 0
  for (let attempt = 1; ; attempt++) {
    let response: Response
    try {
      response = await doFetch(options.url, {
        method: 'POST',
        headers: signedHeaders(options.secret, options.idempotencyKey, body, now() / 1000),
        body,
      })
    } catch (error) {
      if (++failed >= maxAttempts) throw new WebhookSendError('network_error', undefined, String(error), attempt)
      options.onAttempt?.({ number: attempt, status: 'network_error', waitMs: backoff })
      await sleep(backoff)
      backoff = Math.min(backoff * 2, 30_000)
      continue
    }
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {
      // keep the text
    }
    const code =
      (parsed as { error?: string; code?: string } | null)?.error ?? (parsed as { code?: string } | null)?.code ?? ''
    if (response.status === 200 || response.status === 202) {
      options.onAttempt?.({ number: attempt, status: response.status })
      const ok = parsed as { result: Record<string, unknown>; replayed?: boolean }
      return { status: response.status, replayed: ok.replayed === true, result: ok.result, attempts: attempt }
    }
    const inProgressWait =
      response.status === 409 && code === 'webhook_in_progress'
        ? Math.min(options.maxRetryAfterSeconds ?? 60, Math.max(1, Number(response.headers.get('retry-after')) || 1)) *
          1000
        : undefined
    if (inProgressWait !== undefined && inProgressWaitedMs + inProgressWait <= inProgressBudgetMs) {
      options.onAttempt?.({ number: attempt, status: 409, error: code, waitMs: inProgressWait })
      inProgressWaitedMs += inProgressWait
      await sleep(inProgressWait)
      continue
    }
    const retryable = response.status >= 500 && !STOP_CODES.has(code)
    if (!retryable || ++failed >= maxAttempts) {
      options.onAttempt?.({ number: attempt, status: response.status, error: code })
      throw new WebhookSendError(code || `http_${response.status}`, response.status, parsed, attempt)
    }
    options.onAttempt?.({ number: attempt, status: response.status, error: code, waitMs: backoff })
    await sleep(backoff)
    backoff = Math.min(backoff * 2, 30_000)
  }
}
