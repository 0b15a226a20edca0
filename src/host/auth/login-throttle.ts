/*
 * Sign-in protection of the admin panel: repeated failed logins are slowed down, never locked out.
 *
 * Failures are counted per bucket in the database (every instance sees the same counts):
 * - the account tried (by user id, or by the name typed when no account has it, so that an
 *   unknown login is slowed down exactly like a known one and the answer tells nothing);
 * - the client address (IPv6 by /64), across every account it tries;
 * - instead of the account, a browser that signed in to that account before (a signed
 *   "known browser" cookie, OWASP's device cookie): an attacker who keeps failing on an account
 *   slows that account down for new browsers only, never for its owner's own browser, so nobody
 *   can keep an administrator out.
 * A bucket's first failures are free; each further one refuses the bucket's sign-ins (429 with
 * Retry-After) for twice as long as the one before, from 2 s up to 15 minutes, and a bucket with
 * no failure for an hour starts over. A refused attempt checks no password and counts nothing.
 * A successful sign-in clears its account's (or browser's) count, not the address's, so an
 * attacker holding one valid account cannot reset the address count of its guesses on others.
 */
import type { HostContext } from '../context.js'
import { clientBucketIp } from '../http/rate-limit/rate-limit.js'
import {
  countFailure,
  deleteForgottenThrottles,
  deleteThrottles,
  selectThrottles,
  setBlockedUntil,
} from './login-throttle-repository.js'
import { constantTimeEqual, keyedHash, randomToken } from './secrets.js'

export const KNOWN_BROWSER_COOKIE = 'dg_known_browser'
/** How long a browser that signed in stays known (the cookie's lifetime). */
export const KNOWN_BROWSER_DAYS = 180

export const LOGIN_THROTTLE = Object.freeze({
  /** Failures of one account (or one known browser) before its sign-ins are slowed down. */
  accountFreeFailures: 5,
  /** Failures from one client address, across accounts, before its sign-ins are slowed down. */
  addressFreeFailures: 20,
  firstDelaySeconds: 2,
  maxDelaySeconds: 15 * 60,
  /** A bucket without a failure for this long starts over. */
  forgetAfterSeconds: 60 * 60,
})

type BucketKind = 'account' | 'browser' | 'address'

export interface SignInBucket {
  kind: BucketKind
  key: string
}

export interface SignInAttempt {
  /** The login or e-mail typed. */
  name: string
  /** The account it names, when one does. */
  userId: number | undefined
  ip: string
  /** The known-browser cookie the request carried. */
  knownBrowserCookie: string | undefined
}

function browserSignature(ctx: Pick<HostContext, 'authKey'>, userId: number, id: string): string {
  return keyedHash(ctx.authKey, `dg-known-browser|${userId}|${id}`).slice(0, 32)
}

/** A new known-browser cookie value for an account that has just signed in. */
export function knownBrowserCookie(ctx: Pick<HostContext, 'authKey'>, userId: number): string {
  const id = randomToken(18)
  return `${userId}.${id}.${browserSignature(ctx, userId, id)}`
}

/** The browser's id when the cookie is ours and names this account; anything else is ignored. */
export function knownBrowserOf(
  ctx: Pick<HostContext, 'authKey'>,
  cookie: string | undefined,
  userId: number | undefined,
): string | undefined {
  if (!cookie || userId === undefined || cookie.length > 200) return undefined
  const [user, id, signature] = cookie.split('.')
  if (!user || !id || !signature || Number(user) !== userId) return undefined
  return constantTimeEqual(signature, browserSignature(ctx, userId, id)) ? id : undefined
}

export function signInBuckets(ctx: Pick<HostContext, 'authKey'>, attempt: SignInAttempt): SignInBucket[] {
  const browser = knownBrowserOf(ctx, attempt.knownBrowserCookie, attempt.userId)
  const account =
    browser !== undefined
      ? { kind: 'browser' as const, key: `browser:${browser}` }
      : {
          kind: 'account' as const,
          // U+0000 cannot be stored in PostgreSQL: a login holding one answered 500 (found by the fuzz suite)
          key:
            attempt.userId !== undefined
              ? `account:#${attempt.userId}`
              : `account:${attempt.name.toLowerCase().replaceAll('\u0000', '\ufffd')}`,
        }
  return [account, { kind: 'address', key: `address:${clientBucketIp(attempt.ip)}` }]
}

export interface SignInDelay {
  retryAfterSeconds: number
  /** What is slowed down: the account (or this browser's sign-ins to it) or the client address. */
  scope: 'account' | 'address'
}

/** How long sign-ins of these buckets are still refused; null when they may try now. */
export async function signInDelay(ctx: HostContext, buckets: readonly SignInBucket[]): Promise<SignInDelay | null> {
  const rows = await selectThrottles(
    ctx.db,
    buckets.map((b) => b.key),
  )
  const now = ctx.now().getTime()
  let longest: SignInDelay | null = null
  for (const row of rows) {
    const until = row.blocked_until ? Date.parse(row.blocked_until) : NaN
    if (!(until > now)) continue
    const seconds = Math.ceil((until - now) / 1000)
    if (longest === null || seconds > longest.retryAfterSeconds) {
      const kind = buckets.find((b) => b.key === row.bucket)?.kind
      longest = { retryAfterSeconds: seconds, scope: kind === 'address' ? 'address' : 'account' }
    }
  }
  return longest
}

/** The delay after a bucket's `failures`-th failure in a row (0 while it is within the free ones). */
export function delayAfterFailures(failures: number, freeFailures: number): number {
  if (failures < freeFailures) return 0
  const doubled = LOGIN_THROTTLE.firstDelaySeconds * 2 ** Math.min(30, failures - freeFailures)
  return Math.min(LOGIN_THROTTLE.maxDelaySeconds, doubled)
}

export async function recordSignInFailure(ctx: HostContext, buckets: readonly SignInBucket[]): Promise<void> {
  const now = ctx.now()
  const forgetBefore = new Date(now.getTime() - LOGIN_THROTTLE.forgetAfterSeconds * 1000).toISOString()
  for (const bucket of buckets) {
    const failures = await countFailure(ctx.db, bucket.key, now.toISOString(), forgetBefore)
    const free = bucket.kind === 'address' ? LOGIN_THROTTLE.addressFreeFailures : LOGIN_THROTTLE.accountFreeFailures
    const delay = delayAfterFailures(failures, free)
    if (delay > 0) await setBlockedUntil(ctx.db, bucket.key, new Date(now.getTime() + delay * 1000).toISOString())
  }
}

export async function recordSignInSuccess(ctx: HostContext, buckets: readonly SignInBucket[]): Promise<void> {
  await deleteThrottles(
    ctx.db,
    buckets.filter((b) => b.kind !== 'address').map((b) => b.key),
  )
}

/** Hourly clean-up: buckets that are neither counting nor slowed down any more. */
export async function removeForgottenSignInFailures(ctx: HostContext): Promise<number> {
  const now = ctx.now()
  const before = new Date(now.getTime() - LOGIN_THROTTLE.forgetAfterSeconds * 1000).toISOString()
  return deleteForgottenThrottles(ctx.db, before, now.toISOString())
}
