/*
 * Each channel is tried up to `maxAttempts` times, waiting `retryBaseMs`, then twice that, and so
 * on (with a little jitter so that instances do not retry in step), unless an attempt fails in a
 * way another attempt cannot mend (a refused login, a 4xx answer). The outcome is what is recorded
 * and shown in /status: never a secret, a signature or the webhook's address.
 */
export type ChannelName = 'email' | 'webhook'

export interface ChannelOutcome {
  status: 'sent' | 'failed'
  attempts: number
  /** When the last attempt ended. */
  at: string
  /** Why the last attempt failed. */
  error?: string
}

/** What one attempt tells the retry loop. */
export class AttemptFailed extends Error {
  constructor(
    message: string,
    /** Another attempt could succeed (a network error, a 5xx, a temporary SMTP refusal). */
    readonly transient: boolean,
    /** The receiver asked to wait this long (Retry-After). */
    readonly retryAfterMs?: number,
  ) {
    super(message)
  }
}

export interface RetryPolicy {
  maxAttempts: number
  retryBaseMs: number
  sleep?: (ms: number) => Promise<void>
  now?: () => Date
}

const MAX_WAIT_MS = 5 * 60_000

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export async function deliverWithRetries(
  attempt: () => Promise<void>,
  policy: RetryPolicy,
  onFailure: (failure: { attempt: number; error: string; transient: boolean; waitMs: number | undefined }) => void,
): Promise<ChannelOutcome> {
  const sleep = policy.sleep ?? defaultSleep
  const now = policy.now ?? (() => new Date())
  for (let number = 1; ; number++) {
    try {
      await attempt()
      return { status: 'sent', attempts: number, at: now().toISOString() }
    } catch (error) {
      const failed =
        error instanceof AttemptFailed ? error : new AttemptFailed((error as Error).message ?? String(error), true)
      const last = number >= policy.maxAttempts || !failed.transient
      const backoff = policy.retryBaseMs * 2 ** (number - 1) * (1 + Math.random() * 0.2)
      const waitMs = last ? undefined : Math.min(Math.max(backoff, failed.retryAfterMs ?? 0), MAX_WAIT_MS)
      onFailure({ attempt: number, error: failed.message, transient: failed.transient, waitMs })
      if (waitMs === undefined)
        return { status: 'failed', attempts: number, at: now().toISOString(), error: failed.message.slice(0, 300) }
      await sleep(waitMs)
    }
  }
}

/** Removes every occurrence of the given secrets from a text that is about to be logged or stored. */
export function withoutSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text
  for (const secret of secrets) if (secret) out = out.split(secret).join('***')
  return out
}
