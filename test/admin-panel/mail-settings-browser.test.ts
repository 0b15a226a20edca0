/*
 * E-mail in the panel, in Chromium without Polish locale data: Ustawienia → Poczta shows a trial
 * (no SMTP server: e-mails to the outbox), saves an SMTP server whose password is only ever shown
 * as set, removes it again, sets the panel's address and sends a test e-mail; the Skrzynka
 * nadawcza page shows it and a password reset e-mail, whose link opens the new-password page.
 * Screenshots in DG_PANEL_SCREENSHOTS.
 *
 * SQLite only: the routes' storage is covered on both databases by test/mail/mail-settings.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { settledPasswordResetRequests } from '../../src/password-reset/password-reset.js'
import { handbookShot } from '../helpers/handbook-screenshots.js'
import { chromiumPresent, type PanelSession, startPanel } from '../helpers/panel-browser.js'
import { SMTP_PASSWORD, SMTP_USER, startSmtp } from '../helpers/servers/smtp-server.js'

describe.skipIf(!chromiumPresent)('e-mail settings and the outbox in the panel [sqlite]', () => {
  let panel: PanelSession
  let smtp: Awaited<ReturnType<typeof startSmtp>>

  beforeAll(async () => {
    smtp = await startSmtp()
    panel = await startPanel({ screenshotPrefix: 'poczta' })
    await panel.login()
  })
  afterAll(async () => {
    await panel?.close()
    await smtp?.close()
  })

  it('saves the SMTP server with a password shown only as set, and removes it', async () => {
    const { page, origin } = panel
    await page.goto(`${origin}/dg-admin/#/ustawienia/poczta`)
    await page.locator('#mail-settings-form').waitFor()
    expect(await page.getAttribute('#mail-delivery', 'data-delivery')).toBe('outbox')
    expect(await page.textContent('#mail-delivery')).toContain('Tryb próbny')
    expect(await page.textContent('#mail-password-state')).toContain('nieustawione')
    await panel.shot('proba')
    await handbookShot(page, 'admin/pl-ustawienia-poczta')

    await page.fill('#mail-smtp-host', '127.0.0.1')
    await page.fill('#mail-smtp-port', String(smtp.port))
    await page.selectOption('#mail-smtp-tls', 'none')
    await page.fill('#mail-smtp-user', SMTP_USER)
    await page.fill('#mail-smtp-password', SMTP_PASSWORD)
    await page.click('#save-mail-settings')
    await page.locator('#mail-delivery[data-delivery="smtp"]').waitFor()
    expect(await page.textContent('#mail-password-state')).toContain('ustawione')
    expect(await page.inputValue('#mail-smtp-password')).toBe('')
    expect(await page.content()).not.toContain(SMTP_PASSWORD)
    expect(await page.inputValue('#mail-smtp-from')).toBe(SMTP_USER)
    await panel.shot('smtp-zapisany')

    await page.fill('#mail-test-to', 'ops@example.pl')
    await page.click('#send-test-email')
    await page.locator('#test-email-result .alert-success').waitFor()
    expect(smtp.mails.map((mail) => mail.to)).toEqual([['ops@example.pl']])

    await page.click('#remove-mail-smtp')
    await page.locator('#mail-delivery[data-delivery="outbox"]').waitFor()
    expect(panel.problems).toEqual([])
  })

  it('keeps a test e-mail and a password reset e-mail in the outbox, whose link works', async () => {
    const { page, origin, env, demo } = panel
    await page.fill('#mail-panel-url', origin)
    await page.click('#save-mail-settings')
    await page.locator('#mail-delivery[data-delivery="outbox"]').waitFor()
    expect(await page.inputValue('#mail-panel-url')).toBe(origin)
    await page.fill('#mail-test-to', 'ops@example.pl')
    await page.click('#send-test-email')
    await page.locator('#test-email-result .alert-success').waitFor()
    expect(await page.textContent('#test-email-result')).toContain('Skrzynce nadawczej')
    await panel.shot('test-do-skrzynki')

    const asked = await env.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/session/password-reset',
      payload: { login: demo.admin.login },
    })
    expect(asked.statusCode).toBe(202)
    await settledPasswordResetRequests(env.ctx)

    await page.click('#test-email-result a')
    await page.locator('#outbox-list').waitFor()
    const subjects = await page.locator('.outbox-subject').allTextContents()
    expect(subjects).toHaveLength(2)
    expect(subjects[0]).toContain('Ustawienie nowego hasła')
    expect(subjects[1]).toContain('Testowy e-mail')
    expect(await page.locator('.outbox-email').first().locator('.outbox-to').textContent()).toContain('@')
    await panel.shot('skrzynka-nadawcza')
    await handbookShot(page, 'admin/pl-skrzynka-nadawcza')

    const link = page.locator('.outbox-email').first().locator('.outbox-body a')
    expect(await link.getAttribute('href')).toMatch(/#\/nowe-haslo\?token=[A-Za-z0-9_-]{43}$/)
    await link.click()
    await page.locator('#new-password').waitFor()
    await page.fill('#new-password', 'Nowe-haslo-ze-skrzynki-2026')
    await page.fill('#new-password-repeat', 'Nowe-haslo-ze-skrzynki-2026')
    await page.click('#new-password-save')
    await page.locator('#new-password-done').waitFor()
    expect(panel.problems).toEqual([])
  })
})
