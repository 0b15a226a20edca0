/*
 * Sign-in protection of the admin panel and of HTTP Basic (application passwords): repeated
 * failed sign-ins are slowed down, never locked out.
 *
 * Attempts are counted per bucket in the database (every instance sees the same counts):
 * - the name typed (a login or an e-mail, known or not): a login and the e-mail of one account
 *   are two counts, so the throttle never tells that they belong together, and an unknown name
 *   is slowed down exactly like a known one;
 * - the client address (IPv6 by /64), across every name it tries;
 * - instead of both, a browser that signed in to that account before (a signed "known browser"
 *   cookie, OWASP's device cookie): an attacker who keeps failing on an account, or from the
 *   owner's shared address, slows down new browsers only, never the owner's own browser, so
 *   nobody can keep an administrator out.
 * The check and the count are one step: an attempt is counted as a failure before its password
 * is checked, in one transaction over its buckets that refuses it, counting nothing, when one of
 * them is slowed down. Parallel guesses therefore get exactly the free attempts and no more.
 * A bucket's first failures are free; each further one refuses the bucket's sign-ins (429 with
 * Retry-After) for twice as long as the one before, from 2 s up to 15 minutes, and a bucket with
 * no failure for an hour starts over. A success takes its attempt back: it clears its name's (or
 * browser's) count and removes its own attempt from the address's, so an attacker holding one
 * valid account cannot reset the address count of its guesses on others.
 */
import type { HostContext } from '../context.js'
import { clientBucketIp } from '../http/rate-limit/rate-limit.js'
import {
  claimThrottles,
  deleteForgottenThrottles,
  deleteThrottles,
  selectThrottles,
  type ThrottleClaim,
  uncountThrottle,
} from './login-throttle-repository.js'
import { constantTimeEqual, keyedHash, randomToken } from './secrets.js'

export const KNOWN_BROWSER_COOKIE = 'dg_known_browser'
/** How long a browser that signed in stays known (the cookie's lifetime). */
export const KNOWN_BROWSER_DAYS = 180

export const LOGIN_THROTTLE = Object.freeze({
  /** Failures of one name typed (or one known browser) before its sign-ins are slowed down. */
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
  /** The account it names, when one does (only a known-browser cookie of that account counts). */
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

/** The name's bucket: what the lookup of the account reads the same is one count. */
export function nameBucketKey(name: string): string {
  // U+0000 cannot be stored in PostgreSQL: a login holding one answered 500 (found by the fuzz suite)
  return `account:${name.toLowerCase().replaceAll('\u0000', '\ufffd')}`
}

export function signInBuckets(ctx: Pick<HostContext, 'authKey'>, attempt: SignInAttempt): SignInBucket[] {
  const browser = knownBrowserOf(ctx, attempt.knownBrowserCookie, attempt.userId)
  // a known browser is counted on its own and is exempt from the address's count: an address
  // shared with an attacker (or every client, behind a proxy that is not trusted) never keeps it out
  if (browser !== undefined) return [{ kind: 'browser', key: `browser:${browser}` }]
  return [
    { kind: 'account', key: nameBucketKey(attempt.name) },
    { kind: 'address', key: `address:${clientBucketIp(attempt.ip)}` },
  ]
}

export interface SignInDelay {
  retryAfterSeconds: number
  /** What is slowed down: the account (or this browser's sign-ins to it) or the client address. */
  scope: 'account' | 'address'
}

/** The delay after a bucket's `failures`-th failure in a row (0 while it is within the free ones). */
export function delayAfterFailures(failures: number, freeFailures: number): number {
  if (failures < freeFailures) return 0
  const doubled = LOGIN_THROTTLE.firstDelaySeconds * 2 ** Math.min(30, failures - freeFailures)
  return Math.min(LOGIN_THROTTLE.maxDelaySeconds, doubled)
}

function freeFailuresOf(bucket: SignInBucket): number {
  return bucket.kind === 'address' ? LOGIN_THROTTLE.addressFreeFailures : LOGIN_THROTTLE.accountFreeFailures
}

function claimOf(bucket: SignInBucket, now: number): ThrottleClaim {
  const free = freeFailuresOf(bucket)
  const blockedUntilAfter: string[] = []
  for (let failures = free; ; failures++) {
    const delay = delayAfterFailures(failures, free)
    blockedUntilAfter.push(new Date(now + delay * 1000).toISOString())
    if (delay >= LOGIN_THROTTLE.maxDelaySeconds) break
  }
  return { bucket: bucket.key, freeFailures: free, blockedUntilAfter }
}

/**
 * Counts a sign-in attempt as a failure of its buckets before its password is checked, or refuses
 * it (counting nothing) when one of them is slowed down: the delay to answer with 429.
 */
export async function claimSignInAttempt(
  ctx: HostContext,
  buckets: readonly SignInBucket[],
): Promise<SignInDelay | null> {
  const now = ctx.now().getTime()
  const forgetBefore = new Date(now - LOGIN_THROTTLE.forgetAfterSeconds * 1000).toISOString()
  const refused = await claimThrottles(
    ctx.db,
    buckets.map((bucket) => claimOf(bucket, now)),
    new Date(now).toISOString(),
    forgetBefore,
  )
  if (!refused) return null
  return (
    (await currentSignInDelay(ctx, buckets)) ?? {
      // it ran out between the refusal and this read: the next attempt may go
      retryAfterSeconds: 1,
      scope: buckets.find((b) => b.key === refused.refusedBucket)?.kind === 'address' ? 'address' : 'account',
    }
  )
}

/** How long sign-ins of these buckets are still refused; null when they may try now (a read only). */
export async function currentSignInDelay(
  ctx: HostContext,
  buckets: readonly SignInBucket[],
): Promise<SignInDelay | null> {
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

/**
 * A claimed attempt whose password was right: its name's (or browser's) count starts over, and the
 * address's count loses this attempt only.
 */
export async function recordSignInSuccess(ctx: HostContext, buckets: readonly SignInBucket[]): Promise<void> {
  await deleteThrottles(
    ctx.db,
    buckets.filter((b) => b.kind !== 'address').map((b) => b.key),
  )
  for (const bucket of buckets)
    if (bucket.kind === 'address') await uncountThrottle(ctx.db, bucket.key, freeFailuresOf(bucket))
}

/** Hourly clean-up: buckets that are neither counting nor slowed down any more. */
export async function removeForgottenSignInFailures(ctx: HostContext): Promise<number> {
  const now = ctx.now()
  const before = new Date(now.getTime() - LOGIN_THROTTLE.forgetAfterSeconds * 1000).toISOString()
  return deleteForgottenThrottles(ctx.db, before, now.toISOString())
}
