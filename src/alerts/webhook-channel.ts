/*
 * The outgoing notification webhook: a JSON POST signed like the property webhook (X-DG-Timestamp,
 * X-DG-Nonce, Idempotency-Key, X-DG-Signature = HMAC-SHA256 of timestamp.nonce.key.body with the
 * configured secret), the body serialized once and each attempt signed anew with a fresh nonce.
 * Its `text` field is what Slack and Teams incoming webhooks show. The address may hold a token
 * (Slack, Teams), so it is never logged or recorded: only its origin.
 */
import { signedHeaders } from '../webhook/sender.js'
import { AttemptFailed, withoutSecrets } from './channel-attempts.js'

const ATTEMPT_TIMEOUT_MS = 10_000

/** What may be said of the address: its scheme, host and port. */
export function webhookOrigin(url: string): string {
  return new URL(url).origin
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000
  const at = Date.parse(header)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}

export async function postAlertWebhook(
  webhook: { url: string; secret: string },
  body: Buffer,
  idempotencyKey: string,
  now: () => Date,
): Promise<void> {
  const headers = signedHeaders(webhook.secret, idempotencyKey, body, now().getTime() / 1000)
  let response: Response
  try {
    response = await fetch(webhook.url, {
      method: 'POST',
      headers: { ...headers, 'user-agent': 'dg-offers-alerts' },
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    })
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code
    const reason = (error as Error).name === 'TimeoutError' ? 'timeout' : (cause ?? (error as Error).message)
    throw new AttemptFailed(
      withoutSecrets(`${webhookOrigin(webhook.url)}: ${reason}`, [webhook.url, webhook.secret]),
      true,
    )
  }
  await response.body?.cancel().catch(() => undefined)
  if (response.status >= 200 && response.status < 300) return
  const transient =
    response.status === 408 || response.status === 425 || response.status === 429 || response.status >= 500
  throw new AttemptFailed(
    `${webhookOrigin(webhook.url)} answered HTTP ${response.status}`,
    transient,
    transient ? retryAfterMs(response.headers.get('retry-after')) : undefined,
  )
}
