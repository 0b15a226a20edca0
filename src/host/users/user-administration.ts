/*
 * Users as administrators manage them over REST (the admin panel's Users section): list, create,
 * change role, disable and enable. Input is checked as a whole first and refused with 422
 * `invalid_user` and one issue per field ({field, code, message_pl, message_en}), writing
 * nothing; two rules protect the service from locking itself out: the last active administrator
 * can be neither demoted nor disabled (409 `last_administrator`), and nobody disables their own
 * account (409 `own_account`).
 */
import type { Actor } from '../audit/audit.js'
import { recordAudit } from '../audit/audit.js'
import { isRoleName, ROLES } from '../auth/capabilities.js'
import { mayBeScoped, type StoredScope, storedScopesOf } from '../auth/scope.js'
import { deleteSessionsOfUser } from '../auth/sessions-repository.js'
import type { HostContext } from '../context.js'
import { HostError, PluginError } from '../errors.js'
import {
  countOtherActiveAdministrators,
  findUserByEmail,
  findUserById,
  findUserByLogin,
  selectAppPasswordStats,
  selectUsers,
  updateUserRow,
} from './users-repository.js'
import { normalizeScope, scopeIssues, writeUserScope } from './user-scopes.js'
import { createUser, MIN_LOGIN_PASSWORD_LENGTH, type PublicUser, setLoginPasswordOf, toPublicUser } from './users.js'

export interface FieldIssue {
  field: string
  code: string
  message_pl: string
  message_en: string
}

const issue = (field: string, code: string, message_pl: string, message_en: string): FieldIssue => ({
  field,
  code,
  message_pl,
  message_en,
})

export interface AdministeredUser extends PublicUser {
  application_passwords: number
  /** The latest use of any of its application passwords (recorded at most once a day per password). */
  last_api_use_at: string | null
  /** The developer entities and investments it may work on; null: the whole catalog. */
  scope: StoredScope | null
}

const LOGIN_PATTERN = /^[A-Za-z0-9._@-]{1,60}$/
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const DISPLAY_NAME_MAX = 100

function refuse(issues: FieldIssue[]): never {
  throw new PluginError('invalid_user', 422, { message: 'The user was not saved.', issues })
}

const roleIssue = (role: string): FieldIssue | null =>
  isRoleName(role)
    ? null
    : issue(
        'role',
        'invalid_role',
        `Wybierz rolę: ${Object.keys(ROLES).join(' albo ')}.`,
        `Choose a role: ${Object.keys(ROLES).join(' or ')}.`,
      )

async function emailIssue(ctx: HostContext, email: string, ownId?: number): Promise<FieldIssue | null> {
  if (!EMAIL_PATTERN.test(email) || email.length > 254)
    return issue('email', 'invalid_email', 'Adres e-mail jest niepoprawny.', 'The e-mail address is not valid.')
  const holder = await findUserByEmail(ctx.db, email)
  if (holder && holder.id !== ownId)
    return issue(
      'email',
      'email_taken',
      'Inny użytkownik ma już ten adres e-mail.',
      'Another user already has this e-mail address.',
    )
  return null
}

function displayNameIssue(name: string): FieldIssue | null {
  return name.length > DISPLAY_NAME_MAX
    ? issue(
        'display_name',
        'too_long',
        `Nazwa wyświetlana może mieć najwyżej ${DISPLAY_NAME_MAX} znaków.`,
        `The display name may have at most ${DISPLAY_NAME_MAX} characters.`,
      )
    : null
}

export async function listAdministeredUsers(ctx: HostContext): Promise<AdministeredUser[]> {
  const [rows, stats] = await Promise.all([selectUsers(ctx.db), selectAppPasswordStats(ctx.db)])
  const byUser = new Map(stats.map((s) => [s.user_id, s]))
  const scopes = await storedScopesOf(
    ctx.db,
    rows.map((row) => row.id),
  )
  return rows.map((row) => ({
    ...toPublicUser(row),
    application_passwords: byUser.get(row.id)?.count ?? 0,
    last_api_use_at: byUser.get(row.id)?.last_used_at ?? null,
    scope: mayBeScoped(row.role) ? normalizeScope(scopes.get(row.id) ?? null) : null,
  }))
}

export async function getAdministeredUser(ctx: HostContext, id: number): Promise<AdministeredUser> {
  const user = (await listAdministeredUsers(ctx)).find((u) => u.id === id)
  if (!user) throw new HostError('user_not_found', 404, `There is no user ${id}.`)
  return user
}

export interface NewUserInput {
  login: string
  email: string
  role: string
  display_name?: string | undefined
  /** Generated and returned once when left out. */
  password?: string | undefined
  /** null or left out: the whole catalog. */
  scope?: StoredScope | null | undefined
}

export async function createAdministeredUser(
  ctx: HostContext,
  input: NewUserInput,
  actor: Actor,
): Promise<{ user: AdministeredUser; password: string | null }> {
  const login = input.login.trim()
  const email = input.email.trim().toLowerCase()
  const displayName = input.display_name?.trim() || undefined
  const issues: FieldIssue[] = []
  if (!LOGIN_PATTERN.test(login))
    issues.push(
      issue(
        'login',
        'invalid_login',
        'Login: 1–60 znaków, tylko litery, cyfry i . _ @ -.',
        'Login: 1–60 characters, letters, digits and . _ @ - only.',
      ),
    )
  else if (await findUserByLogin(ctx.db, login))
    issues.push(issue('login', 'login_taken', 'Ten login jest już zajęty.', 'A user with this login already exists.'))
  const emailProblem = await emailIssue(ctx, email)
  if (emailProblem) issues.push(emailProblem)
  const roleProblem = roleIssue(input.role)
  if (roleProblem) issues.push(roleProblem)
  const nameProblem = displayName === undefined ? null : displayNameIssue(displayName)
  if (nameProblem) issues.push(nameProblem)
  if (input.password !== undefined && input.password.length < MIN_LOGIN_PASSWORD_LENGTH)
    issues.push(
      issue(
        'password',
        'weak_password',
        `Hasło logowania musi mieć co najmniej ${MIN_LOGIN_PASSWORD_LENGTH} znaków (albo zostaw pole puste, a hasło zostanie wygenerowane).`,
        `The login password must have at least ${MIN_LOGIN_PASSWORD_LENGTH} characters (or leave it empty to have one generated).`,
      ),
    )
  if (roleProblem === null) issues.push(...(await scopeIssues(ctx.db, input.role, input.scope)))
  if (issues.length > 0) refuse(issues)
  const created = await createUser(ctx, {
    login,
    email,
    role: input.role,
    password: input.password,
    displayName,
    actor,
  })
  if (input.scope)
    await ctx.db
      .transaction()
      .execute((trx) => writeUserScope(ctx, trx, created.user, null, input.scope ?? null, actor))
  return { user: await getAdministeredUser(ctx, created.user.id), password: created.password ?? null }
}

export interface UserChanges {
  role?: string | undefined
  email?: string | undefined
  display_name?: string | undefined
  disabled?: boolean | undefined
  /** null: the whole catalog; left out: unchanged (an administrator's is always null). */
  scope?: StoredScope | null | undefined
}

export async function updateAdministeredUser(
  ctx: HostContext,
  id: number,
  changes: UserChanges,
  actor: Actor,
): Promise<AdministeredUser> {
  const user = await findUserById(ctx.db, id)
  if (!user) throw new HostError('user_not_found', 404, `There is no user ${id}.`)
  const issues: FieldIssue[] = []
  const email = changes.email?.trim().toLowerCase()
  const displayName = changes.display_name?.trim()
  if (changes.role !== undefined) {
    const problem = roleIssue(changes.role)
    if (problem) issues.push(problem)
  }
  if (email !== undefined) {
    const problem = await emailIssue(ctx, email, id)
    if (problem) issues.push(problem)
  }
  if (displayName !== undefined) {
    const problem =
      displayName === ''
        ? issue('display_name', 'required', 'Podaj nazwę wyświetlaną.', 'Give a display name.')
        : displayNameIssue(displayName)
    if (problem) issues.push(problem)
  }
  const role = changes.role ?? user.role
  if (isRoleName(role)) issues.push(...(await scopeIssues(ctx.db, role, changes.scope)))
  if (issues.length > 0) refuse(issues)
  const scopeBefore = normalizeScope((await storedScopesOf(ctx.db, [id])).get(id) ?? null)
  // an administrator is never scoped: becoming one drops the scope the user had
  const scopeAfter = !mayBeScoped(role) ? null : changes.scope === undefined ? scopeBefore : changes.scope

  const disabled = changes.disabled ?? user.disabled_at !== null
  if (changes.disabled === true && actor.type === 'user' && actor.userId === id && user.disabled_at === null)
    throw new PluginError('own_account', 409, {
      message: 'You cannot disable your own account; ask another administrator.',
    })
  const stopsBeingAdministrator = user.role === 'administrator' && user.disabled_at === null
  if (stopsBeingAdministrator && (role !== 'administrator' || disabled)) {
    if ((await countOtherActiveAdministrators(ctx.db, id)) === 0)
      throw new PluginError('last_administrator', 409, {
        message:
          'This is the last active administrator: make another user an administrator before changing or disabling it.',
      })
  }

  const now = ctx.now().toISOString()
  await ctx.db.transaction().execute(async (trx) => {
    const set: Parameters<typeof updateUserRow>[2] = {}
    const audits: Array<{ action: string; details: Record<string, unknown> }> = []
    if (role !== user.role) {
      set.role = role
      audits.push({ action: 'user.role', details: { login: user.login, from: user.role, to: role } })
    }
    const fields: string[] = []
    if (email !== undefined && email !== user.email) {
      set.email = email
      fields.push('email')
    }
    if (displayName !== undefined && displayName !== user.display_name) {
      set.display_name = displayName
      fields.push('display_name')
    }
    if (fields.length > 0) audits.push({ action: 'user.update', details: { login: user.login, fields } })
    if (disabled !== (user.disabled_at !== null)) {
      set.disabled_at = disabled ? now : null
      audits.push({ action: disabled ? 'user.disable' : 'user.enable', details: { login: user.login } })
    }
    await writeUserScope(ctx, trx, user, scopeBefore, scopeAfter, actor)
    if (Object.keys(set).length === 0) return
    await updateUserRow(trx, id, set)
    // a disabled account's panel sessions end at once (its application passwords are refused)
    if (disabled && user.disabled_at === null) await deleteSessionsOfUser(trx, id)
    for (const entry of audits)
      await recordAudit(
        ctx,
        { actor, action: entry.action, objectType: 'user', objectId: id, outcome: 'success', details: entry.details },
        trx,
      )
  })
  return getAdministeredUser(ctx, id)
}

/** An administrator sets (or generates) a user's login password: its other panel sessions end. */
export async function setAdministeredUserPassword(
  ctx: HostContext,
  id: number,
  args: { password?: string | undefined; actor: Actor; keepSessionToken?: string | undefined },
): Promise<{
  user: AdministeredUser
  password: string | null
  sessions_ended: number
  application_passwords_kept: number
}> {
  const user = await findUserById(ctx.db, id)
  if (!user) throw new HostError('user_not_found', 404, `There is no user ${id}.`)
  const changed = await setLoginPasswordOf(ctx, user, args)
  const administered = await getAdministeredUser(ctx, id)
  return {
    user: administered,
    password: changed.password ?? null,
    sessions_ended: changed.sessionsEnded,
    application_passwords_kept: administered.application_passwords,
  }
}
