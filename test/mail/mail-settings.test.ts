/*
 * E-mail and the panel's address set in the panel, on both databases: the settings round trip
 * (the SMTP password is write-only, answered as "set"/"not set" and never audited), a change used by
 * the very next e-mail, the environment winning and saying so; and the trial's outbox: with no SMTP
 * server outside production a test e-mail and a password reset e-mail are kept there (the latest
 * hundred), and the reset link it shows works.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'

import { deliverEmail, OUTBOX_KEPT } from '../../src/mail/outgoing-mail.js'
import { settledPasswordResetRequests } from '../../src/password-reset/password-reset.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { SMTP_PASSWORD, SMTP_USER, startSmtp } from '../helpers/servers/smtp-server.js'
import { describeEachDatabase } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'

describeEachDatabase('e-mail settings and the trial outbox', (getEnv) => {
  let admin: TestUser & { loginPassword: string }
  let reader: TestUser
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  beforeAll(async () => {
    smtp = await startSmtp()
    admin = await createTestUser(getEnv().ctx, 'administrator')
    reader = await createTestUser(getEnv().ctx, 'dg_catalog_reader')
  })
  afterAll(async () => {
    await smtp?.close()
  })
  const call = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown, authorization = admin.authorization) =>
    getEnv().app.inject({
      method,
      url: `${API}${url}`,
      headers: { authorization },
      ...(payload === undefined ? {} : { payload: payload as object }),
    })

  it('starts as a trial: no SMTP server, e-mails to the outbox, the panel at the service’s own address', async () => {
    const view = await call('GET', '/mail/settings')
    expect(view.statusCode).toBe(200)
    expect(view.json()).toMatchObject({
      smtp: { source: null, host: null, password: 'not set' },
      panel_url: { source: 'default' },
      delivery: 'outbox',
    })
    expect((await call('GET', '/mail/settings', undefined, reader.authorization)).statusCode).toBe(403)
    expect((await call('GET', '/mail/outbox', undefined, reader.authorization)).statusCode).toBe(403)
  })

  it('keeps a test e-mail in the outbox', async () => {
    const sent = await call('POST', '/mail/test', { to: 'ops@example.pl' })
    expect(sent.json()).toMatchObject({ sent: true, via: 'outbox', error: null })
    const outbox = (await call('GET', '/mail/outbox')).json()
    expect(outbox.active).toBe(true)
    expect(outbox.emails[0]).toMatchObject({ to: ['ops@example.pl'], subject: expect.stringContaining('Testowy') })
    expect(smtp.mails).toHaveLength(0)
  })

  it('puts a password reset e-mail in the outbox, and its link sets a new password', async () => {
    await call('PUT', '/mail/settings', { panel_url: 'https://ceny.example.pl/' })
    const availability = await getEnv().app.inject({ method: 'GET', url: `${API}/session/password-reset` })
    expect(availability.json()).toMatchObject({ available: true })
    const asked = await getEnv().app.inject({
      method: 'POST',
      url: `${API}/session/password-reset`,
      payload: { login: admin.login },
    })
    expect(asked.statusCode).toBe(202)
    await settledPasswordResetRequests(getEnv().ctx)
    const email = (await call('GET', '/mail/outbox')).json().emails[0]
    expect(email.to).toEqual([admin.email])
    expect(email.subject).toContain('Ustawienie nowego hasła')
    const link = /https:\/\/\S+/.exec(email.body)?.[0] ?? ''
    expect(link).toMatch(/^https:\/\/ceny\.example\.pl\/dg-admin\/#\/nowe-haslo\?token=[A-Za-z0-9_-]{43}$/)
    const token = link.slice(link.indexOf('token=') + 'token='.length)
    const confirmed = await getEnv().app.inject({
      method: 'POST',
      url: `${API}/session/password-reset/confirm`,
      payload: { token, password: 'Nowe-haslo-z-outboxa-2026' },
    })
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    const signIn = await getEnv().app.inject({
      method: 'POST',
      url: `${API}/session`,
      payload: { login: admin.login, password: 'Nowe-haslo-z-outboxa-2026' },
    })
    expect(signIn.statusCode).toBe(200)
  })

  it('saves the SMTP server with a write-only password, used by the very next e-mail', async () => {
    const saved = await call('PUT', '/mail/settings', {
      smtp: { host: '127.0.0.1', port: smtp.port, tls: 'none', user: SMTP_USER, password: SMTP_PASSWORD },
    })
    expect(saved.statusCode, saved.body).toBe(200)
    expect(saved.body).not.toContain(SMTP_PASSWORD)
    expect(saved.json()).toMatchObject({
      smtp: { source: 'panel', host: '127.0.0.1', port: smtp.port, tls: 'none', user: SMTP_USER, password: 'set' },
      panel_url: { source: 'panel', value: 'https://ceny.example.pl' },
      delivery: 'smtp',
    })
    // the sender defaults to the login when it is an address
    expect(saved.json().smtp.from).toBe(SMTP_USER)
    const read = await call('GET', '/mail/settings')
    expect(read.body).not.toContain(SMTP_PASSWORD)
    expect(read.json().smtp.password).toBe('set')

    // a change without the password keeps the stored one
    expect(
      (
        await call('PUT', '/mail/settings', {
          smtp: { host: '127.0.0.1', port: smtp.port, tls: 'none', user: SMTP_USER, from: 'Ceny <ceny@example.pl>' },
        })
      ).json().smtp,
    ).toMatchObject({ password: 'set', from: 'Ceny <ceny@example.pl>' })

    const sent = await call('POST', '/mail/test', { to: 'ops@example.pl' })
    expect(sent.json()).toMatchObject({ sent: true, via: 'smtp' })
    expect(smtp.mails).toHaveLength(1)
    expect(smtp.mails[0]).toMatchObject({ to: ['ops@example.pl'], user: SMTP_USER })

    const audit = await getEnv()
      .ctx.db.selectFrom('audit_log')
      .select(['action', 'details'])
      .where('action', 'in', ['mail.settings', 'mail.test'])
      .execute()
    expect(audit.map((row) => row.action)).toContain('mail.settings')
    expect(JSON.stringify(audit)).not.toContain(SMTP_PASSWORD)

    // a wrong password: the server's refusal is answered, without the password
    await call('PUT', '/mail/settings', {
      smtp: { host: '127.0.0.1', port: smtp.port, tls: 'none', user: SMTP_USER, password: 'wrong-Pa55' },
    })
    const refused = await call('POST', '/mail/test', { to: 'ops@example.pl' })
    expect(refused.json()).toMatchObject({ sent: false, via: 'smtp' })
    expect(refused.body).not.toContain('wrong-Pa55')
  })

  it('refuses a wrong address at its field and writes nothing', async () => {
    const refused = await call('PUT', '/mail/settings', {
      smtp: { host: 'smtp example', from: 'nobody' },
      panel_url: 'ftp://ceny.example.pl',
    })
    expect(refused.statusCode).toBe(422)
    expect(refused.json().error).toBe('invalid_mail_settings')
    expect(
      refused
        .json()
        .issues.map((issue: { field: string }) => issue.field)
        .sort(),
    ).toEqual(['panel_url', 'smtp.from', 'smtp.host'])
    expect((await call('GET', '/mail/settings')).json().smtp.host).toBe('127.0.0.1')
  })

  it('keeps the latest hundred e-mails in the outbox', async () => {
    expect((await call('PUT', '/mail/settings', { smtp: null })).json().delivery).toBe('outbox')
    for (let i = 0; i < OUTBOX_KEPT + 3; i++)
      await deliverEmail(getEnv().ctx, ['x@example.pl'], { subject: `n${i}`, text: 'x', messageId: `<n${i}@t>` })
    const emails = (await call('GET', '/mail/outbox')).json().emails as { subject: string }[]
    expect(emails).toHaveLength(OUTBOX_KEPT)
    expect(emails[0]!.subject).toBe(`n${OUTBOX_KEPT + 2}`)
    expect(emails.at(-1)!.subject).toBe('n3')
  })
})

describeEachDatabase(
  'e-mail settings set by the environment',
  (getEnv) => {
    let admin: TestUser
    beforeAll(async () => {
      admin = await createTestUser(getEnv().ctx, 'administrator')
    })
    const call = (method: 'GET' | 'PUT', payload?: unknown) =>
      getEnv().app.inject({
        method,
        url: `${API}/mail/settings`,
        headers: { authorization: admin.authorization },
        ...(payload === undefined ? {} : { payload: payload as object }),
      })

    it('wins over the panel, says so, and is refused as a change', async () => {
      const view = await call('GET')
      expect(view.body).not.toContain('env-Pa55word-secret')
      expect(view.json()).toMatchObject({
        smtp: { source: 'environment', host: 'smtp.example.pl', port: 2525, user: SMTP_USER, password: 'set' },
        panel_url: { source: 'environment', value: 'https://panel.example.pl' },
        delivery: 'smtp',
      })
      const refused = await call('PUT', { smtp: { host: 'other.example.pl' }, panel_url: 'https://other.example.pl' })
      expect(refused.statusCode).toBe(422)
      expect(refused.json().issues).toEqual([
        expect.objectContaining({ field: 'smtp', code: 'set_by_environment' }),
        expect.objectContaining({ field: 'panel_url', code: 'set_by_environment' }),
      ])
      expect((await call('GET')).json().smtp.host).toBe('smtp.example.pl')
    })
  },
  {
    env: {
      DG_ALERT_SMTP_HOST: 'smtp.example.pl',
      DG_ALERT_SMTP_PORT: '2525',
      DG_ALERT_SMTP_USER: SMTP_USER,
      DG_ALERT_SMTP_PASSWORD: 'env-Pa55word-secret',
      DG_ALERT_EMAIL_TO: 'ops@example.pl',
      DG_PANEL_URL: 'https://panel.example.pl',
    },
  },
)
