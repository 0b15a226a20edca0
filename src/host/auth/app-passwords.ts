/*
 * Application passwords (docs/decisions/authentication.md): 24 random alphanumeric characters, shown once, stored
 * only as a keyed hash, several per user, each revocable on its own. Sent with HTTP Basic using
 * the user's login or e-mail.
 */
import { randomUUID } from 'node:crypto'

import type { Actor } from '../audit/audit.js'
import { recordAudit } from '../audit/audit.js'
import type { HostContext } from '../context.js'
import type { AppPasswordRow, UserRow } from '../db/schema.js'
import { HostError, PluginError } from '../errors.js'
import { findUserById } from '../users/users-repository.js'
import { findUserByLoginOrEmail, requireUser } from '../users/users.js'
import {
  deleteAppPassword,
  insertAppPassword,
  selectAppPasswordsOfUser,
  selectCredentialsRevision,
  touchAppPassword,
} from './app-passwords-repository.js'
import { clientBucketIp } from '../http/rate-limit/rate-limit.js'
import {
  claimSignInAttempt,
  currentSignInDelay,
  type SignInBucket,
  type SignInDelay,
  signInBuckets,
} from './login-throttle.js'
import { constantTimeEqual, keyedHash, randomAlphanumeric } from './secrets.js'

export const APP_PASSWORD_LENGTH = 24
const HASH_PREFIX = 'hmac-sha256$'
/** Last use is written at most once per this interval, so reads do not turn into writes. */
const LAST_USED_RESOLUTION_MS = 24 * 3600 * 1000

export interface AppPasswordView {
  uuid: string
  name: string
  created_at: string
  last_used_at: string | null
  last_ip: string | null
}

function toView(row: AppPasswordRow): AppPasswordView {
  return {
    uuid: row.uuid,
    name: row.name,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    last_ip: row.last_ip,
  }
}

function hashAppPassword(authKey: string, password: string): string {
  return HASH_PREFIX + keyedHash(authKey, password)
}

/** Groups of four, as the CMS shows them; spaces are optional when the password is used. */
export function formatAppPassword(password: string): string {
  return password.replace(/(.{4})(?=.)/g, '$1 ')
}

/** Removes everything but letters and digits, so a password pasted with spaces still matches. */
export function normalizeAppPassword(input: string): string {
  return input.replace(/[^A-Za-z0-9]/g, '')
}

export async function createAppPassword(
  ctx: HostContext,
  args: { login: string; name: string; actor: Actor },
): Promise<AppPasswordView & { user: string; password: string }> {
  const name = args.name.trim()
  if (!name || name.length > 100)
    throw new HostError(
      'application_password_invalid_name',
      400,
      'Give the application password a name of 1–100 characters.',
    )
  const user = await requireUser(ctx, args.login)
  const existing = await selectAppPasswordsOfUser(ctx.db, user.id)
  if (existing.some((row) => row.name === name)) {
    throw new HostError(
      'application_password_duplicate_name',
      409,
      `User ${user.login} already has an application password named "${name}".`,
    )
  }
  const password = randomAlphanumeric(APP_PASSWORD_LENGTH)
  const row = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await insertAppPassword(trx, {
      uuid: randomUUID(),
      user_id: user.id,
      name,
      password_hash: hashAppPassword(ctx.authKey, password),
      created_at: ctx.now().toISOString(),
    })
    await recordAudit(
      ctx,
      {
        actor: args.actor,
        action: 'app_password.create',
        objectType: 'user',
        objectId: user.id,
        outcome: 'success',
        details: { uuid: inserted.uuid, name },
      },
      trx,
    )
    return inserted
  })
  return { ...toView(row), user: user.login, password }
}

export async function listAppPasswords(
  ctx: HostContext,
  login: string,
): Promise<{ user: string; items: AppPasswordView[] }> {
  const user = await requireUser(ctx, login)
  return { user: user.login, items: (await selectAppPasswordsOfUser(ctx.db, user.id)).map(toView) }
}

export async function revokeAppPassword(
  ctx: HostContext,
  args: { login: string; uuid: string; actor: Actor },
): Promise<{ user: string; uuid: string; revoked: true }> {
  const user = await requireUser(ctx, args.login)
  const removed = await ctx.db.transaction().execute(async (trx) => {
    const count = await deleteAppPassword(trx, user.id, args.uuid)
    if (count > 0) {
      await recordAudit(
        ctx,
        {
          actor: args.actor,
          action: 'app_password.revoke',
          objectType: 'user',
          objectId: user.id,
          outcome: 'success',
          details: { uuid: args.uuid },
        },
        trx,
      )
    }
    return count
  })
  if (removed === 0)
    throw new HostError(
      'application_password_not_found',
      404,
      `User ${user.login} has no application password ${args.uuid}.`,
    )
  return { user: user.login, uuid: args.uuid, revoked: true }
}

export type AppPasswordCheck =
  | { ok: true; user: UserRow; credential: string }
  | { ok: false; code: 'incorrect_password' | 'account_disabled' }
  | { ok: false; code: 'throttled'; delay: SignInDelay }

/** A successful check, kept while the credentials revision it was made under is current. */
interface VerifiedCheck {
  revision: number
  user: UserRow
  credential: string
  passwordId: number
  lastUsedAt: string | null
}

/** Bounds the memory of the cache: a flood of distinct valid credentials only empties it. */
const MAX_VERIFIED_CHECKS = 1000
const verifiedChecks = new WeakMap<HostContext, Map<string, VerifiedCheck>>()

/**
 * Verifies HTTP Basic credentials. One keyed hash per request, then a constant-time comparison
 * with each of the user's (few) stored hashes. A successful check is kept per instance under the
 * credentials revision read before it (migration 0012's triggers bump it on any change to users
 * or passwords, on any instance), so a repeated request costs that one read, and a revoked
 * password or a disabled account is refused on its next request. Only the keyed hash is kept,
 * never the password.
 *
 * A check that is not kept is a sign-in attempt: with `throttled`, a failure is counted by the
 * sign-in throttle (the name typed and the client address, as the admin panel's logins) in one
 * step with the check of the counts, and any attempt is refused while they are slowed down. An unknown name, a wrong password and a
 * password of the wrong length answer alike, after the same work (a read of stored hashes and a
 * comparison with each), so neither the answer nor its time tells which names exist.
 */
export async function verifyAppPassword(
  ctx: HostContext,
  args: {
    name: string
    password: string
    ip: string
    /** The credentials revision, when the caller read it (before this call) with its own state. */
    credentialsRevision?: number
    /** Count the check with the sign-in throttle (every HTTP request; not the service's own checks). */
    throttled?: boolean
  },
): Promise<AppPasswordCheck> {
  const normalized = normalizeAppPassword(args.password)
  const revision = args.credentialsRevision ?? (await selectCredentialsRevision(ctx.db))
  let checks = verifiedChecks.get(ctx)
  if (!checks) {
    checks = new Map()
    verifiedChecks.set(ctx, checks)
  }
  const candidate = hashAppPassword(ctx.authKey, normalized)
  const key = `${candidate}\u0000${args.name}`
  const known = checks.get(key)
  if (known && known.revision === revision) {
    known.lastUsedAt = await recordUse(ctx, known.passwordId, known.lastUsedAt, args.ip)
    return { ok: true, user: known.user, credential: known.credential }
  }
  const user = await findUserByLoginOrEmail(ctx, args.name)
  // an unknown name reads (no) stored hashes and compares with one as well
  const rows = await selectAppPasswordsOfUser(ctx.db, user?.id ?? 0)
  const buckets = args.throttled
    ? basicSignInBuckets(
        ctx,
        args.name,
        args.ip,
        user !== undefined && rows.some((row) => row.last_ip === args.ip) ? user.id : undefined,
      )
    : []
  const stored = user ? rows.map((row) => row.password_hash) : [DUMMY_HASH]
  let matched = -1
  for (const [index, hash] of stored.entries()) {
    // no early exit: every stored hash is compared, so timing does not tell which one matched
    if (constantTimeEqual(hash, candidate)) matched = index
  }
  const match = user && normalized.length === APP_PASSWORD_LENGTH ? rows[matched] : undefined
  if (buckets.length > 0) {
    // A failure is counted in one step with the check of the counts, so parallel wrong guesses
    // get no more 401s than the free ones. A right password is not counted (a client's burst of
    // parallel first requests is no guessing), yet it is refused like a wrong one while its name
    // or address is slowed down: a 429 never tells whether the password was right.
    const delay = match ? await currentSignInDelay(ctx, buckets) : await claimSignInAttempt(ctx, buckets)
    if (delay) return { ok: false, code: 'throttled', delay }
  }
  if (!user || !match) return { ok: false, code: 'incorrect_password' }
  // told only to whoever holds a valid password of the account
  if (user.disabled_at !== null) return { ok: false, code: 'account_disabled' }
  const lastUsedAt = await recordUse(ctx, match.id, match.last_used_at, args.ip)
  if (checks.size >= MAX_VERIFIED_CHECKS) checks.clear()
  checks.set(key, { revision, user, credential: match.name, passwordId: match.id, lastUsedAt })
  return { ok: true, user, credential: match.name }
}

/**
 * The throttle's buckets of a Basic sign-in: the name and the address, as the panel's; but a
 * client at the address an application password of the account was last used from (the website's
 * server) is counted on its own, as a known browser: failures elsewhere on its login, or from
 * others, never refuse it when this instance has not verified its password yet (after a restart).
 */
function basicSignInBuckets(
  ctx: HostContext,
  name: string,
  ip: string,
  knownClientOf: number | undefined,
): SignInBucket[] {
  if (knownClientOf !== undefined) return [{ kind: 'browser', key: `client:${knownClientOf}:${clientBucketIp(ip)}` }]
  return signInBuckets(ctx, { name, userId: undefined, ip, knownBrowserCookie: undefined })
}

/** Compared with when the name is unknown: no password hashes to it. */
const DUMMY_HASH = HASH_PREFIX + '0'.repeat(64)

/** Records a password's use at most once per resolution interval; returns the last use now stored. */
async function recordUse(ctx: HostContext, passwordId: number, lastUsedAt: string | null, ip: string) {
  const now = ctx.now()
  if (lastUsedAt && now.getTime() - Date.parse(lastUsedAt) < LAST_USED_RESOLUTION_MS) return lastUsedAt
  const usedAt = now.toISOString()
  await touchAppPassword(ctx.db, passwordId, usedAt, ip)
  return usedAt
}

/** The user an administrator names by id in a REST path. */
async function userById(ctx: HostContext, userId: number): Promise<UserRow> {
  const user = await findUserById(ctx.db, userId)
  if (!user) throw new HostError('user_not_found', 404, `There is no user ${userId}.`)
  return user
}

export async function listAppPasswordsOfUser(
  ctx: HostContext,
  userId: number,
): Promise<{ user: { id: number; login: string }; items: AppPasswordView[] }> {
  const user = await userById(ctx, userId)
  return {
    user: { id: user.id, login: user.login },
    items: (await selectAppPasswordsOfUser(ctx.db, user.id)).map(toView),
  }
}

/**
 * A new application password of the user `userId` (REST): a bad or taken name is 422
 * `invalid_application_password` with the field's issue, so the panel shows it beside the field.
 */
export async function createAppPasswordOfUser(
  ctx: HostContext,
  args: { userId: number; name: string; actor: Actor },
): Promise<AppPasswordView & { user: string; password: string }> {
  const user = await userById(ctx, args.userId)
  const name = args.name.trim()
  const refuse = (code: string, pl: string, en: string): never => {
    throw new PluginError('invalid_application_password', 422, {
      message: 'The application password was not created.',
      issues: [{ field: 'name', code, message_pl: pl, message_en: en }],
    })
  }
  if (!name || name.length > 100)
    refuse(
      'invalid_name',
      'Nadaj hasłu nazwę (1–100 znaków), np. „strona WWW”.',
      'Give the password a name of 1–100 characters.',
    )
  if ((await selectAppPasswordsOfUser(ctx.db, user.id)).some((row) => row.name === name))
    refuse(
      'name_taken',
      `Użytkownik ${user.login} ma już hasło aplikacji o tej nazwie.`,
      `User ${user.login} already has an application password with this name.`,
    )
  return createAppPassword(ctx, { login: user.login, name, actor: args.actor })
}

export async function revokeAppPasswordOfUser(
  ctx: HostContext,
  args: { userId: number; uuid: string; actor: Actor },
): Promise<{ user: string; uuid: string; revoked: true }> {
  const user = await userById(ctx, args.userId)
  return revokeAppPassword(ctx, { login: user.login, uuid: args.uuid, actor: args.actor })
}
