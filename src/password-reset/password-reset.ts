/*
 * Password reset by e-mail, offered when an SMTP server is in force and the panel's public address
 * is known, both from the mail settings (src/mail/mail-settings.ts: the environment, else the panel;
 * the link is never built from a request's Host header). In a trial (outside production with no
 * SMTP server) the e-mail is kept in the outbox the panel shows.
 *
 * A request answers the same at once whatever it names: the name and the client address are
 * counted by the sign-in throttle (atomic across instances) before anything is looked up, and the
 * lookup, the token and the e-mail happen after the answer, so neither the body nor the time of the
 * answer tells whether an account exists. An account gets at most one pending reset: a random
 * token of 256 bits, stored only as its keyed hash (HMAC-SHA-256 with the service's auth key),
 * valid for 30 minutes, taken once; a newer request or any password change voids it. The link
 * carries the token in its fragment (`#/nowe-haslo?token=…`), which browsers never send to a
 * server, so it reaches no access log. Setting the new password follows the password policy and
 * the password change's own path: every panel session of the account ends.
 */
import { recordAnonymousRefusal, recordAudit } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { claimSignInAttempt, type SignInBucket } from '../host/auth/login-throttle.js'
import { claimPasswordReset, replacePasswordReset } from '../host/auth/password-resets-repository.js'
import { keyedHash, randomToken } from '../host/auth/secrets.js'
import { HostError } from '../host/errors.js'
import { clientBucketIp } from '../host/http/rate-limit/rate-limit.js'
import {
  findUserByLoginOrEmail,
  getUserById,
  MIN_LOGIN_PASSWORD_LENGTH,
  setLoginPasswordOf,
} from '../host/users/users.js'
import { effectiveMailSettings } from '../mail/mail-settings.js'
import { deliverEmail } from '../mail/outgoing-mail.js'

export const PASSWORD_RESET_TTL_MINUTES = 30
export const PASSWORD_RESET_ROUTE = 'nowe-haslo'

/** Why the e-mail reset is not offered, or null when it is. */
export async function passwordResetUnavailable(
  ctx: HostContext,
): Promise<'smtp_not_configured' | 'panel_url_not_configured' | null> {
  const mail = await effectiveMailSettings(ctx)
  if (mail.smtp === undefined && !mail.outbox) return 'smtp_not_configured'
  if (mail.panelUrl === undefined) return 'panel_url_not_configured'
  return null
}

export function hashResetToken(ctx: Pick<HostContext, 'authKey'>, token: string): string {
  return keyedHash(ctx.authKey, `dg-password-reset|${token}`)
}

export function resetLink(panelUrl: string, token: string): string {
  return `${panelUrl}/dg-admin/#/${PASSWORD_RESET_ROUTE}?token=${token}`
}

const pending = new WeakMap<HostContext, Set<Promise<void>>>()

/** Resolves when the reset requests this context answered have done their work (tests, shutdown). */
export async function settledPasswordResetRequests(ctx: HostContext): Promise<void> {
  await Promise.all([...(pending.get(ctx) ?? [])])
}

/** The throttle's buckets of a request: the name typed and the client address, each counted apart from sign-ins. */
function requestBuckets(name: string, ip: string): SignInBucket[] {
  return [
    { kind: 'account', key: `password-reset:name:${name.toLowerCase().replaceAll('\u0000', '\ufffd')}` },
    { kind: 'address', key: `password-reset:address:${clientBucketIp(ip)}` },
  ]
}

/**
 * Accepts a reset request. Refuses only what does not depend on the account: the e-mail reset not
 * offered (409), or the name or the address asking too often (429, the same throttle as sign-ins).
 * Everything that depends on the account runs after the answer.
 */
export async function requestPasswordReset(ctx: HostContext, args: { name: string; ip: string }): Promise<void> {
  const unavailable = await passwordResetUnavailable(ctx)
  if (unavailable)
    throw new HostError(
      'password_reset_unavailable',
      409,
      'Password reset by e-mail is not set up here (no SMTP server or no panel address: Settings → E-mail): an administrator sets a new password under Users, or `dg user set-password`.',
      { reason: unavailable },
    )
  const delay = await claimSignInAttempt(ctx, requestBuckets(args.name, args.ip))
  if (delay)
    throw new HostError(
      'too_many_password_reset_requests',
      429,
      `Too many password reset requests; try again in ${delay.retryAfterSeconds} seconds.`,
      { retry_after: delay.retryAfterSeconds, scope: delay.scope },
      { 'Retry-After': delay.retryAfterSeconds },
    )
  const work = sendResetLink(ctx, args).catch((error: unknown) =>
    ctx.log.error({ err: error }, 'password reset e-mail not sent'),
  )
  const set = pending.get(ctx) ?? new Set()
  pending.set(ctx, set)
  set.add(work)
  void work.finally(() => set.delete(work))
}

async function sendResetLink(ctx: HostContext, args: { name: string; ip: string }): Promise<void> {
  const user = await findUserByLoginOrEmail(ctx, args.name.trim())
  const token = randomToken(32)
  const tokenHash = hashResetToken(ctx, token)
  const refuse = (reason: string) =>
    recordAnonymousRefusal(ctx, {
      action: 'session.password_reset_request',
      reason,
      ip: args.ip,
      ...(user ? { objectType: 'user', objectId: user.id } : {}),
      details: { name: args.name.slice(0, 254) },
    })
  if (!user || user.disabled_at !== null || !user.email) {
    await refuse(!user ? 'unknown_account' : user.disabled_at ? 'account_disabled' : 'no_email')
    return
  }
  // per account too, whichever of its names was typed; so a sent link is audited on its own, at
  // the pace of this throttle
  const delay = await claimSignInAttempt(ctx, [{ kind: 'account', key: `password-reset:user:${user.id}` }])
  if (delay) {
    await refuse('throttled')
    return
  }
  const mail = await effectiveMailSettings(ctx)
  const panelUrl = mail.panelUrl
  if ((!mail.smtp && !mail.outbox) || !panelUrl) return
  const now = ctx.now()
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_TTL_MINUTES * 60_000)
  await replacePasswordReset(ctx.db, {
    user_id: user.id,
    token_hash: tokenHash,
    created_at: now.toISOString(),
    expires_at: expiresAt.toISOString(),
  })
  const link = resetLink(panelUrl, token)
  const until = new Intl.DateTimeFormat('pl-PL', {
    timeZone: 'Europe/Warsaw',
    hour: '2-digit',
    minute: '2-digit',
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
  }).format(expiresAt)
  const delivery = await deliverEmail(ctx, [user.email], {
    subject: 'Ustawienie nowego hasła do panelu / Setting a new panel password',
    text: [
      `Dzień dobry,`,
      ``,
      `ktoś (prawdopodobnie Ty) poprosił o ustawienie nowego hasła do panelu operatora dla konta „${user.login}”.`,
      `Otwórz ten odnośnik, aby ustawić nowe hasło (działa jeden raz, do ${until}, ${PASSWORD_RESET_TTL_MINUTES} minut od prośby):`,
      ``,
      link,
      ``,
      `Jeśli to nie Ty prosiłeś o zmianę, zignoruj tę wiadomość: hasło pozostaje bez zmian.`,
      ``,
      `---`,
      `Someone (probably you) asked to set a new password of the operator panel for the account "${user.login}".`,
      `Open the link above to set it (it works once, for ${PASSWORD_RESET_TTL_MINUTES} minutes). If it was not you, ignore this message: the password stays as it is.`,
    ].join('\n'),
    messageId: `<password-reset.${user.id}.${now.getTime()}@dg-offers>`,
  })
  await recordAudit(ctx, {
    actor: { type: 'system' },
    action: 'session.password_reset_request',
    objectType: 'user',
    objectId: user.id,
    outcome: 'success',
    details: {
      name: args.name.slice(0, 254),
      ip: args.ip,
      sent: true,
      ...(delivery.via === 'outbox' ? { outbox: true } : {}),
      expires_at: expiresAt.toISOString(),
    },
  })
}

/**
 * Sets the new password of the link's account: the password policy first (a weak password does not
 * use the link up), then the link is taken once, then the password change's own path ends every
 * panel session of the account.
 */
export async function completePasswordReset(
  ctx: HostContext,
  args: { token: string; password: string; ip: string },
): Promise<{ sessionsEnded: number }> {
  if (args.password.length < MIN_LOGIN_PASSWORD_LENGTH)
    throw new HostError(
      'weak_password',
      400,
      `The password must have at least ${MIN_LOGIN_PASSWORD_LENGTH} characters.`,
    )
  const invalid = () =>
    new HostError(
      'password_reset_invalid',
      400,
      'This password reset link is unknown, expired or already used; ask for a new one.',
    )
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(args.token)) throw invalid()
  const userId = await claimPasswordReset(ctx.db, hashResetToken(ctx, args.token), ctx.now().toISOString())
  const user = userId === undefined ? undefined : await getUserById(ctx, userId)
  if (!user || user.disabled_at !== null) {
    await recordAnonymousRefusal(ctx, {
      action: 'session.password_reset',
      reason: user ? 'account_disabled' : 'invalid_link',
      ip: args.ip,
      ...(user ? { objectType: 'user', objectId: user.id } : {}),
    })
    throw invalid()
  }
  const actor = { type: 'user' as const, userId: user.id, login: user.login }
  const changed = await setLoginPasswordOf(ctx, user, { password: args.password, actor })
  await recordAudit(ctx, {
    actor,
    action: 'session.password_reset',
    objectType: 'user',
    objectId: user.id,
    outcome: 'success',
    details: { ip: args.ip, sessions_ended: changed.sessionsEnded },
  })
  return { sessionsEnded: changed.sessionsEnded }
}
