import type { Actor } from '../audit/audit.js'
import { recordAudit } from '../audit/audit.js'
import { capabilitiesOf, isRoleName, ROLES, type RoleName } from '../auth/capabilities.js'
import { deletePasswordResetsOf } from '../auth/password-resets-repository.js'
import { hashLoginPassword, randomAlphanumeric, verifyLoginPassword } from '../auth/secrets.js'
import { deleteSessionsOfUser } from '../auth/sessions-repository.js'
import { hashSessionToken } from '../auth/sessions.js'
import type { HostContext } from '../context.js'
import type { UserRow } from '../db/schema.js'
import { HostError } from '../errors.js'
import {
  findUserByEmail,
  findUserById,
  findUserByLogin,
  insertUser,
  selectUsers,
  updateUserPasswordHash,
} from './users-repository.js'

export interface PublicUser {
  id: number
  login: string
  email: string
  display_name: string
  role: string
  role_label: string
  capabilities: string[]
  created_at: string
  /** A disabled account can neither log in nor use its application passwords. */
  disabled: boolean
  disabled_at: string | null
}

export function toPublicUser(row: UserRow): PublicUser {
  return {
    id: row.id,
    login: row.login,
    email: row.email,
    display_name: row.display_name,
    role: row.role,
    role_label: isRoleName(row.role) ? ROLES[row.role].label : row.role,
    capabilities: [...capabilitiesOf(row.role)],
    created_at: row.created_at,
    disabled: row.disabled_at !== null,
    disabled_at: row.disabled_at,
  }
}

const LOGIN_PATTERN = /^[A-Za-z0-9._@-]{1,60}$/
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
export const MIN_LOGIN_PASSWORD_LENGTH = 12

export interface CreateUserArgs {
  login: string
  email: string
  role: string
  /** Generated (and returned once) when omitted. */
  password?: string | undefined
  displayName?: string | undefined
  actor: Actor
}

export async function createUser(
  ctx: HostContext,
  args: CreateUserArgs,
): Promise<{ user: PublicUser; password: string | undefined }> {
  if (!LOGIN_PATTERN.test(args.login)) {
    throw new HostError(
      'invalid_user_login',
      400,
      'The login may use letters, digits and . _ @ - only (1–60 characters).',
    )
  }
  const email = args.email.trim().toLowerCase()
  if (!EMAIL_PATTERN.test(email)) throw new HostError('invalid_email', 400, 'The e-mail address is not valid.')
  if (!isRoleName(args.role)) {
    throw new HostError(
      'invalid_role',
      400,
      `Unknown role "${args.role}"; use one of: ${Object.keys(ROLES).join(', ')}.`,
    )
  }
  if (args.password !== undefined && args.password.length < MIN_LOGIN_PASSWORD_LENGTH) {
    throw new HostError(
      'weak_password',
      400,
      `The password must have at least ${MIN_LOGIN_PASSWORD_LENGTH} characters.`,
    )
  }
  if (await findUserByLogin(ctx.db, args.login)) {
    throw new HostError('existing_user_login', 409, `A user with the login "${args.login}" already exists.`)
  }
  if (await findUserByEmail(ctx.db, email)) {
    throw new HostError('existing_user_email', 409, 'A user with this e-mail address already exists.')
  }
  const generated = args.password === undefined ? randomAlphanumeric(20) : undefined
  const password = args.password ?? generated ?? ''
  const role: RoleName = args.role
  const row = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await insertUser(trx, {
      login: args.login,
      email,
      display_name: args.displayName ?? args.login,
      password_hash: await hashLoginPassword(password),
      role,
      created_at: ctx.now().toISOString(),
    })
    await recordAudit(
      ctx,
      {
        actor: args.actor,
        action: 'user.create',
        objectType: 'user',
        objectId: inserted.id,
        outcome: 'success',
        details: { login: inserted.login, role },
      },
      trx,
    )
    return inserted
  })
  return { user: toPublicUser(row), password: generated }
}

/** Finds a user by login or, when the name contains `@` and no login matches, by e-mail. */
export async function findUserByLoginOrEmail(ctx: Pick<HostContext, 'db'>, name: string): Promise<UserRow | undefined> {
  // no login or e-mail holds U+0000, and PostgreSQL refuses it in a query: a login or a Basic user
  // name with one answered 500 there (found by the fuzz suite) instead of an unknown user
  if (name.includes('\u0000')) return undefined
  const byLogin = await findUserByLogin(ctx.db, name)
  if (byLogin || !name.includes('@')) return byLogin
  return findUserByEmail(ctx.db, name)
}

export async function requireUser(ctx: Pick<HostContext, 'db'>, name: string): Promise<UserRow> {
  const user = await findUserByLoginOrEmail(ctx, name)
  if (!user) throw new HostError('invalid_username', 404, `There is no user "${name}".`)
  return user
}

export async function getUserById(ctx: Pick<HostContext, 'db'>, id: number): Promise<UserRow | undefined> {
  return findUserById(ctx.db, id)
}

export async function listUsers(ctx: Pick<HostContext, 'db'>): Promise<PublicUser[]> {
  return (await selectUsers(ctx.db)).map(toPublicUser)
}

/** Checks a login password; the same answer for an unknown user and a wrong password. */
export async function checkLoginPassword(
  ctx: Pick<HostContext, 'db'>,
  name: string,
  password: string,
): Promise<UserRow | undefined> {
  return verifyUserPassword(await findUserByLoginOrEmail(ctx, name), password)
}

/** Checks the login password of a user found beforehand (or of none, taking the same time). */
export async function verifyUserPassword(user: UserRow | undefined, password: string): Promise<UserRow | undefined> {
  if (!user) {
    // spend the same time as a real check so that response time does not reveal valid logins
    await verifyLoginPassword(password, DUMMY_HASH)
    return undefined
  }
  return (await verifyLoginPassword(password, user.password_hash)) ? user : undefined
}

const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'

export interface PasswordChange {
  user: PublicUser
  /** The generated password, shown this once; undefined when one was given. */
  password: string | undefined
  /** Panel sessions of the account that the change ended (every one but the caller's own). */
  sessionsEnded: number
}

/**
 * Sets (or generates) a user's login password and ends every panel session of the account but
 * `keepSessionToken` (the caller's, when it changes its own password): whoever signed in with the
 * old password is signed out. Application passwords are independent credentials and stay; an
 * administrator revokes them one by one.
 */
export async function setLoginPassword(
  ctx: HostContext,
  args: { login: string; password?: string | undefined; actor: Actor; keepSessionToken?: string | undefined },
): Promise<PasswordChange> {
  const user = await requireUser(ctx, args.login)
  return setLoginPasswordOf(ctx, user, args)
}

export async function setLoginPasswordOf(
  ctx: HostContext,
  user: UserRow,
  args: { password?: string | undefined; actor: Actor; keepSessionToken?: string | undefined },
): Promise<PasswordChange> {
  if (args.password !== undefined && args.password.length < MIN_LOGIN_PASSWORD_LENGTH) {
    throw new HostError(
      'weak_password',
      400,
      `The password must have at least ${MIN_LOGIN_PASSWORD_LENGTH} characters.`,
    )
  }
  const generated = args.password === undefined ? randomAlphanumeric(20) : undefined
  const hash = await hashLoginPassword(args.password ?? generated ?? '')
  const kept = args.keepSessionToken === undefined ? undefined : hashSessionToken(args.keepSessionToken)
  const sessionsEnded = await ctx.db.transaction().execute(async (trx) => {
    await updateUserPasswordHash(trx, user.id, hash)
    const ended = await deleteSessionsOfUser(trx, user.id, kept)
    await deletePasswordResetsOf(trx, user.id)
    await recordAudit(
      ctx,
      {
        actor: args.actor,
        action: 'user.password_set',
        objectType: 'user',
        objectId: user.id,
        outcome: 'success',
        details: { sessions_ended: ended },
      },
      trx,
    )
    return ended
  })
  return { user: toPublicUser(user), password: generated, sessionsEnded }
}
