/*
 * A forgotten password is reset by e-mail when SMTP and the panel's address are configured: the
 * request answers the same for any name, the e-mail (to a local SMTP server) carries a one-time
 * link to the configured address whose token is stored only as its keyed hash, the link expires,
 * is voided by a newer request or a password change, sets a password only under the policy, ends
 * every session of the account, is audited, throttled, and never reaches a log line.
 */
import { Writable } from 'node:stream'

import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { closeRefusalWindows } from '../../src/host/audit/audit.js'
import { keyedHash } from '../../src/host/auth/secrets.js'
import { loggerOptions } from '../../src/host/http/logging.js'
import { setLoginPasswordOf } from '../../src/host/users/users.js'
import { getUserById } from '../../src/host/users/users.js'
import { settledPasswordResetRequests } from '../../src/password-reset/password-reset.js'
import { TEST_DIALECTS } from '../helpers/databases.js'
import { createTestUser } from '../helpers/factories.js'
import { type Mail, startSmtp } from '../helpers/servers/smtp-server.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
const PANEL_URL = 'https://ceny.example.pl'

const lines: string[] = []
const logSink = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    lines.push(chunk.toString())
    callback()
  },
})

for (const dialect of TEST_DIALECTS) {
  describe(`password reset by e-mail [${dialect}]`, () => {
    let smtp: Awaited<ReturnType<typeof startSmtp>>
    let env: TestEnv
    let user: Awaited<ReturnType<typeof createTestUser>>

    beforeAll(async () => {
      smtp = await startSmtp()
      env = await startTestApp(dialect, {
        logger: pino(loggerOptions('trace'), logSink),
        env: {
          DG_ALERT_SMTP_HOST: '127.0.0.1',
          DG_ALERT_SMTP_PORT: String(smtp.port),
          DG_ALERT_SMTP_TLS: 'none',
          DG_ALERT_SMTP_FROM: 'panel@ceny.example.pl',
          DG_ALERT_EMAIL_TO: 'ops@ceny.example.pl',
          DG_PANEL_URL: PANEL_URL,
        },
      })
      user = await createTestUser(env.ctx, 'administrator', `operator-${dialect}`)
    })
    afterAll(async () => {
      await env?.app.close()
      await env?.database.cleanup()
      await smtp?.close()
    })

    const post = (url: string, body: unknown, ip = '203.0.113.7') =>
      env.app.inject({ method: 'POST', url: `${API}${url}`, payload: body as object, remoteAddress: ip })
    const mailsTo = (address: string): Mail[] => smtp.mails.filter((m) => m.to.includes(address))
    /** Asks for a link and answers the token the e-mail carries. */
    const requestLink = async (name: string): Promise<string> => {
      const before = mailsTo(user.email).length
      const answer = await post('/session/password-reset', { login: name })
      expect(answer.statusCode, answer.body).toBe(202)
      await settledPasswordResetRequests(env.ctx)
      const mails = mailsTo(user.email)
      expect(mails).toHaveLength(before + 1)
      const link = /https:\/\/\S+/.exec(mails.at(-1)!.text)?.[0] ?? ''
      expect(link.startsWith(`${PANEL_URL}/dg-admin/#/nowe-haslo?token=`)).toBe(true)
      return new URL(link.replace('#/nowe-haslo?', '?')).searchParams.get('token') ?? ''
    }
    const signIn = (password: string) => post('/session', { login: user.login, password })
    const confirm = (token: string, password: string) => post('/session/password-reset/confirm', { token, password })

    it('is offered, and answers the same at once for an account and for a name no account has', async () => {
      const availability = await env.app.inject({ method: 'GET', url: `${API}/session/password-reset` })
      expect(availability.json()).toEqual({
        available: true,
        reason: null,
        ttl_minutes: 30,
        min_password_length: 12,
      })
      const known = await post('/session/password-reset', { login: user.login })
      const unknown = await post('/session/password-reset', { login: 'nobody-here' })
      expect(known.statusCode).toBe(202)
      expect(unknown.statusCode).toBe(202)
      expect(unknown.body).toBe(known.body)
      await settledPasswordResetRequests(env.ctx)
      // one e-mail, to the account's own address, none for the unknown name
      expect(smtp.mails.map((m) => m.to)).toEqual([[user.email]])
      expect(smtp.mails[0]!.subject).toContain('Ustawienie nowego hasła')
      expect(smtp.mails[0]!.text).toContain('30 minut')
      const audit = await env.ctx.db
        .selectFrom('audit_log')
        .select(['outcome', 'details'])
        .where('action', '=', 'session.password_reset_request')
        .orderBy('id')
        .execute()
      // the unknown name's work ends first (no e-mail to send): compare without order
      expect(audit.map((a) => [a.outcome, JSON.parse(a.details ?? '{}').reason ?? null]).sort()).toEqual([
        ['refused', 'unknown_account'],
        ['success', null],
      ])
    })

    it('stores the token as its keyed hash only; the link sets a password once, under the policy, and ends every session', async () => {
      const session = await signIn(user.loginPassword)
      expect(session.statusCode).toBe(200)
      const token = await requestLink(user.email)
      const stored = await env.ctx.db.selectFrom('password_resets').selectAll().execute()
      expect(stored).toHaveLength(1)
      expect(stored[0]!.token_hash).not.toContain(token)
      expect(stored[0]!.token_hash).toBe(keyedHash(env.ctx.authKey, `dg-password-reset|${token}`))

      // a password under the policy does not use the link up
      const weak = await confirm(token, 'short')
      expect(weak.statusCode).toBe(400)
      expect(weak.json().code).toBe('weak_password')

      const done = await confirm(token, 'nowe-haslo-operatora-2026')
      expect(done.statusCode, done.body).toBe(200)
      expect(done.json().sessions_ended).toBeGreaterThanOrEqual(1)
      expect(await env.ctx.db.selectFrom('sessions').selectAll().where('user_id', '=', user.id).execute()).toEqual([])
      expect((await signIn(user.loginPassword)).statusCode).toBe(401)
      expect((await signIn('nowe-haslo-operatora-2026')).statusCode).toBe(200)

      const again = await confirm(token, 'jeszcze-inne-haslo-2026')
      expect(again.statusCode).toBe(400)
      expect(again.json().code).toBe('password_reset_invalid')
      const audit = await env.ctx.db
        .selectFrom('audit_log')
        .select(['outcome', 'object_id'])
        .where('action', '=', 'session.password_reset')
        .orderBy('id')
        .execute()
      expect(audit.map((a) => [a.outcome, Number(a.object_id) || null])).toEqual([
        ['success', user.id],
        ['refused', null],
      ])
    })

    it('voids a link by a newer request, by a password change and after 30 minutes', async () => {
      const older = await requestLink(user.login)
      const newer = await requestLink(user.login)
      expect((await confirm(older, 'haslo-z-pierwszego-linku')).json().code).toBe('password_reset_invalid')

      const row = await getUserById(env.ctx, user.id)
      await setLoginPasswordOf(env.ctx, row!, { password: 'haslo-od-administratora', actor: { type: 'cli' } })
      expect((await confirm(newer, 'haslo-z-drugiego-linku')).json().code).toBe('password_reset_invalid')

      const late = await requestLink(user.login)
      env.clock.advance(31 * 60 * 1000)
      expect((await confirm(late, 'haslo-po-terminie-linku')).json().code).toBe('password_reset_invalid')
      expect((await signIn('haslo-od-administratora')).statusCode).toBe(200)
    })

    it('slows down a name asked for too often, whether or not an account has it', async () => {
      const answers = []
      for (let i = 0; i < 7; i++)
        answers.push(
          (await post('/session/password-reset', { login: 'ghost@example.test' }, '198.51.100.9')).statusCode,
        )
      expect(answers.slice(0, 5)).toEqual([202, 202, 202, 202, 202])
      expect(answers.at(-1)).toBe(429)
      const refused = await post('/session/password-reset', { login: 'ghost@example.test' }, '198.51.100.9')
      expect(refused.json().code).toBe('too_many_password_reset_requests')
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
      await settledPasswordResetRequests(env.ctx)
    })

    it('audits the requests for names no account has as counts per address and window', async () => {
      const ip = '198.51.100.77'
      for (let i = 0; i < 20; i++)
        expect((await post('/session/password-reset', { login: `nobody-${i}@example.test` }, ip)).statusCode).toBe(202)
      await settledPasswordResetRequests(env.ctx)
      const entries = async () =>
        (
          await env.ctx.db
            .selectFrom('audit_log')
            .select('details')
            .where('action', '=', 'session.password_reset_request')
            .execute()
        )
          .map((row) => JSON.parse(row.details ?? '{}') as { address?: string; reason: string; count: number })
          .filter((details) => details.address === ip)
      expect((await entries()).map((e) => [e.reason, e.count])).toEqual([['unknown_account', 1]])
      env.clock.advance(15 * 60_000)
      await closeRefusalWindows(env.ctx)
      const closed = await entries()
      expect(closed).toHaveLength(2)
      expect(closed.reduce((sum, e) => sum + e.count, 0)).toBe(20)
    })

    it('writes no token, link or password to the log', () => {
      const logged = lines.join('')
      expect(logged).toContain('/session/password-reset')
      expect(logged).not.toMatch(/token=|nowe-haslo-operatora|haslo-z-/)
      for (const mail of smtp.mails) {
        const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1]
        if (token) expect(logged).not.toContain(token)
      }
    })
  })
}

describe('password reset without SMTP in production', () => {
  let env: TestEnv
  beforeAll(async () => {
    env = await startTestApp('sqlite', {
      env: { DG_ENV: 'production', DG_TRUSTED_PROXIES: '127.0.0.1', DG_PANEL_URL: PANEL_URL },
    })
  })
  afterAll(async () => {
    await env?.app.close()
    await env?.database.cleanup()
  })

  it('is not offered, and a request says so without looking at any account', async () => {
    const headers = { 'x-forwarded-proto': 'https' }
    const availability = await env.app.inject({ method: 'GET', url: `${API}/session/password-reset`, headers })
    expect(availability.json()).toMatchObject({ available: false, reason: 'smtp_not_configured' })
    const refused = await env.app.inject({
      method: 'POST',
      url: `${API}/session/password-reset`,
      headers,
      payload: { login: 'admin' },
    })
    expect(refused.statusCode).toBe(409)
    expect(refused.json().code).toBe('password_reset_unavailable')
  })
})
