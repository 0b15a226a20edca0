/*
 * A forgotten password in the panel, in Chromium without Polish locale data: "Nie pamiętasz
 * hasła?" on the sign-in page asks for a link by e-mail (a local SMTP server receives it), the
 * link's page sets a new password under the policy, the old one stops working and the new one
 * signs in; in production without SMTP the sign-in page says who can set a new password instead. Screenshots in
 * DG_PANEL_SCREENSHOTS.
 *
 * SQLite only: the routes' storage is covered on both databases by test/password-reset/password-reset.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { settledPasswordResetRequests } from '../../src/password-reset/password-reset.js'
import { chromiumPresent, type PanelSession, startPanel } from '../helpers/panel-browser.js'
import { startSmtp } from '../helpers/servers/smtp-server.js'

describe.skipIf(!chromiumPresent)('password reset in the panel [sqlite]', () => {
  let panel: PanelSession
  let smtp: Awaited<ReturnType<typeof startSmtp>>

  beforeAll(async () => {
    smtp = await startSmtp()
    panel = await startPanel({
      screenshotPrefix: 'haslo',
      env: {
        DG_ALERT_SMTP_HOST: '127.0.0.1',
        DG_ALERT_SMTP_PORT: String(smtp.port),
        DG_ALERT_SMTP_TLS: 'none',
        DG_ALERT_SMTP_FROM: 'panel@ceny.example.pl',
        DG_ALERT_EMAIL_TO: 'ops@ceny.example.pl',
        DG_PANEL_URL: 'https://ceny.example.pl',
      },
    })
  })
  afterAll(async () => {
    await panel?.close()
    await smtp?.close()
  })

  it('sends a link from the sign-in page and sets a new password on the link’s page', async () => {
    const { page, origin, demo, env } = panel
    await page.goto(`${origin}/dg-admin/`)
    await page.locator('#login').waitFor()
    await page.click('#forgotten-password summary')
    await page.locator('#reset-login').waitFor()
    await page.fill('#reset-login', demo.admin.login)
    await page.click('#reset-request')
    await page.locator('#reset-sent').waitFor()
    expect(await page.textContent('#reset-sent')).toContain('Jeśli takie konto istnieje')
    await panel.shot('prosba-o-link')

    await settledPasswordResetRequests(env.ctx)
    expect(smtp.mails).toHaveLength(1)
    const link = /https:\/\/\S+/.exec(smtp.mails[0]!.text)?.[0] ?? ''
    expect(link).toMatch(/^https:\/\/ceny\.example\.pl\/dg-admin\/#\/nowe-haslo\?token=[A-Za-z0-9_-]{43}$/)
    // the configured address is another host: the test opens the same fragment on this server
    await page.goto(`${origin}/dg-admin/${link.slice(link.indexOf('#'))}`)
    await page.locator('#new-password').waitFor()
    // the token leaves the address bar at once
    expect(page.url()).not.toContain('token=')

    await page.fill('#new-password', 'krotkie')
    await page.fill('#new-password-repeat', 'krotkie')
    await page.click('#new-password-save')
    expect(await page.textContent('#new-password-message')).toContain('co najmniej 12 znaków')
    await page.fill('#new-password', 'Nowe-haslo-panelu-2026')
    await page.fill('#new-password-repeat', 'Nowe-haslo-panelu-2026')
    await panel.shot('nowe-haslo')
    await page.click('#new-password-save')
    await page.locator('#new-password-done').waitFor()
    await panel.shot('haslo-ustawione')

    await page.click('#back-to-login')
    await page.locator('#login').waitFor()
    // the panel signs in only from its configured address (https://ceny.example.pl), which this
    // server is not: the new password is tried there, as that page's browser would send it
    const signIn = (password: string) =>
      env.app.inject({
        method: 'POST',
        url: '/wp-json/dg/v2/session',
        headers: { origin: 'https://ceny.example.pl' },
        payload: { login: demo.admin.login, password },
      })
    expect((await signIn(demo.admin.password)).statusCode).toBe(401)
    expect((await signIn('Nowe-haslo-panelu-2026')).statusCode).toBe(200)
    expect(panel.problems).toEqual([])
  })

  it('says the link is not valid when it is opened again', async () => {
    const { page, origin } = panel
    const link = /https:\/\/\S+/.exec(smtp.mails[0]!.text)?.[0] ?? ''
    await page.goto(`${origin}/dg-admin/${link.slice(link.indexOf('#'))}`)
    await page.locator('#new-password').waitFor()
    await page.fill('#new-password', 'Jeszcze-inne-haslo-2026')
    await page.fill('#new-password-repeat', 'Jeszcze-inne-haslo-2026')
    await page.click('#new-password-save')
    await page.locator('#reset-invalid').waitFor()
    expect(await page.textContent('#reset-invalid')).toContain('Ten odnośnik jest nieważny')
    await panel.shot('link-niewazny')
  })
})

describe.skipIf(!chromiumPresent)('forgotten password without SMTP in production [sqlite]', () => {
  let panel: PanelSession
  beforeAll(async () => {
    panel = await startPanel({ screenshotPrefix: 'haslo-bez-smtp' })
  })
  afterAll(async () => {
    await panel?.close()
  })

  it('says who can set a new password instead of offering the form', async () => {
    const { page, origin } = panel
    // a trial keeps the e-mail in the outbox (mail-settings-browser.test.ts); production without
    // SMTP answers that the reset is not offered, which the page is given here
    await page.route('**/wp-json/dg/v2/session/password-reset', (route) =>
      route.request().method() === 'GET'
        ? route.fulfill({
            json: { available: false, reason: 'smtp_not_configured', ttl_minutes: 30, min_password_length: 12 },
          })
        : route.continue(),
    )
    await page.goto(`${origin}/dg-admin/`)
    await page.locator('#login').waitFor()
    await page.click('#forgotten-password summary')
    await page.locator('#who-can-reset').waitFor()
    expect(await page.textContent('#who-can-reset')).toContain('dg user set-password')
    expect(await page.locator('#reset-login').count()).toBe(0)
    await panel.shot('kto-ustawi-haslo')
  })
})
