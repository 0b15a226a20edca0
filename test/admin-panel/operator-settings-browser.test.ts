/*
 * Settings an operator changes in the panel take effect at once, in Chromium without Polish
 * locale data: the licence's refusal said beside the publish button (continuity mode), the
 * licence installed in the panel and the button usable at once; the schedule moved to 02:00 and
 * the next run shown on saving; the alert e-mail set to a local SMTP server and a test alert
 * received; an unknown panel address said so. Screenshots in DG_PANEL_SCREENSHOTS.
 *
 * SQLite only: the routes' storage is covered on both databases by test/operator/operator-settings.test.ts.
 */
import type { AddressInfo } from 'node:net'

import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { setLicense } from '../../src/licensing/license.js'
import { handbookShot } from '../helpers/handbook-screenshots.js'
import { chromiumPresent, type PanelSession, startPanel } from '../helpers/panel-browser.js'

describe.skipIf(!chromiumPresent)('operator settings in the panel, at once [sqlite]', () => {
  let panel: PanelSession
  let smtpPort: number
  const mails: string[][] = []
  let smtp: SMTPServer

  beforeAll(async () => {
    smtp = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      onData(stream, session, callback) {
        stream.resume()
        stream.on('end', () => {
          mails.push(session.envelope.rcptTo.map((r) => r.address))
          callback()
        })
      },
    })
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
    smtpPort = (smtp.server.address() as AddressInfo).port
    panel = await startPanel({ screenshotPrefix: 'ustawienia' })
    // a fresh production install: no licence yet
    await setLicense(panel.env.ctx, { plan: 'free', entitlements: [], actor: { type: 'system' } })
    await panel.login()
  })

  afterAll(async () => {
    await panel?.close()
    await new Promise<void>((resolve) => smtp?.close(() => resolve()))
  })

  it('says beside the publish button why the licence refuses it, and installing a licence enables it at once', async () => {
    const { page } = panel
    await panel.go('publikacja')
    const publish = page.locator('#run-publication')
    expect(await publish.isDisabled()).toBe(true)
    const reason = page.locator('.licence-reason[data-refused=publication]')
    expect(await reason.textContent()).toContain('publikowanie z panelu wymaga aktywnej licencji PRO')
    expect(await reason.textContent()).not.toContain('api_webhooks')
    expect(await page.locator('.licence-reason[data-refused=preflight]').count()).toBe(1)
    await panel.shot('publikacja-bez-licencji')
    await handbookShot(panel.page, 'admin/pl-publikacja-bez-licencji')

    await panel.go('licencja')
    expect(await page.textContent('#licence-summary')).toContain('Tryb ciągłości')
    await page.selectOption('#licence-plan', 'pro')
    await page.fill('#licence-valid-until', '31.12.2027')
    await page.click('#install-licence')
    await expect.poll(() => page.textContent('#licence-summary')).toContain('Licencja jest aktywna')
    expect(await page.textContent('#licence-summary')).toContain('31.12.2027')
    await panel.shot('licencja-zainstalowana')
    await handbookShot(panel.page, 'admin/pl-licencja')
    const audit = await panel.env.ctx.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'license.set')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(JSON.parse(audit.details ?? '{}')).toMatchObject({ plan: 'pro', valid_until: '2027-12-31' })

    await panel.go('publikacja')
    expect(await page.locator('#run-publication').isDisabled()).toBe(false)
    expect(await page.locator('.licence-reason').count()).toBe(0)
  })

  it('moves the schedule to 02:00 and shows the next run as soon as it is saved', async () => {
    const { page } = panel
    await panel.go('ustawienia')
    await page.locator('#publication-settings-form').waitFor()
    expect(await page.inputValue('#set-schedule-time')).toBe('00:30')
    expect(await page.textContent('#schedule-effect')).toContain('Codziennie o 00:30 czasu polskiego')
    expect(await page.textContent('#schedule-daily-duty')).toBe('')
    await page.fill('#set-schedule-time', '02:00')
    expect(await page.textContent('#schedule-effect')).toContain('Codziennie o 02:00')
    expect(await page.inputValue('#set-schedule')).toBe('0 2 * * *')
    await page.click('#save-publication-settings')
    await expect.poll(() => page.textContent('#schedule-next-run')).toMatch(/^\d{2}\.\d{2}\.\d{4}, 02:00$/)
    await panel.shot('harmonogram-0200')
    await handbookShot(panel.page, 'admin/pl-ustawienia-harmonogram')
    const stored = await panel.env.ctx.db
      .selectFrom('options')
      .select('value')
      .where('name', '=', 'dg_publication_settings')
      .executeTakeFirstOrThrow()
    expect(JSON.parse(stored.value).schedule).toBe('0 2 * * *')

    // weekdays only, then a time that is not one
    await page.uncheck('#set-schedule-day-6')
    await page.uncheck('#set-schedule-day-0')
    expect(await page.inputValue('#set-schedule')).toBe('0 2 * * 1,2,3,4,5')
    // the law asks for a file every day: said at once, before saving, and saving stays possible
    expect(await page.textContent('#schedule-daily-duty')).toContain(
      'Harmonogram pomija dni tygodnia: sobota, niedziela',
    )
    expect(await page.textContent('#schedule-daily-duty')).toContain('art. 19b ust. 1')
    await page.fill('#set-schedule-time', '25:00')
    await page.click('#save-publication-settings')
    await expect
      .poll(() => page.textContent('.field[data-field~=schedule] .field-error'))
      .toContain('Podaj godzinę jako gg:mm')
    await panel.shot('harmonogram-zla-godzina')
  })

  it('sets the alert e-mail in the panel and a test alert arrives', async () => {
    const { page } = panel
    await panel.go('alerty')
    await page.click('#send-test-alert')
    await expect.poll(() => page.textContent('.page')).toContain('Nie ustawiono żadnego kanału')
    await page.fill('#alert-email-to', 'biuro@ceny.example.pl, szef@ceny.example.pl')
    await page.fill('#alert-smtp-host', '127.0.0.1')
    await page.fill('#alert-smtp-port', String(smtpPort))
    await page.selectOption('#alert-smtp-tls', 'none')
    await page.fill('#alert-smtp-from', 'Ceny <ceny@ceny.example.pl>')
    await page.click('#save-alert-email')
    await expect.poll(() => page.textContent('#alert-email-form .alert-success')).toContain('Zapisano')
    await page.click('#send-test-alert')
    await expect.poll(() => page.textContent('#test-alert-result')).toContain('Alert testowy dotarł każdym kanałem')
    expect(mails.at(-1)).toEqual(['biuro@ceny.example.pl', 'szef@ceny.example.pl'])
    await panel.shot('alerty-test')
    await handbookShot(panel.page, 'admin/pl-alerty-test')

    await page.fill('#alert-webhook-url', 'ftp://nie-tak')
    await page.fill('#alert-webhook-secret', 'krótki')
    await page.click('#save-alert-webhook')
    await expect
      .poll(() => page.textContent('.field[data-field~="webhook.secret"] .field-error'))
      .toContain('co najmniej 32 znaki')
    await panel.shot('alerty-zly-webhook')

    // a server that refuses the connection: the test alert says so in Polish, the raw error under it
    await page.fill('#alert-smtp-port', '1')
    await page.click('#save-alert-email')
    await expect.poll(() => page.textContent('#alert-email-form .alert-success')).toContain('Zapisano')
    await page.click('#send-test-alert')
    await expect
      .poll(() => page.textContent('#test-alert-result .network-error'))
      .toContain('Serwer odrzucił połączenie')
    expect(await page.textContent('#test-alert-result')).not.toMatch(/^\s*ECONNREFUSED/m)
    await panel.shot('alerty-test-blad-sieci')
  })

  it('links every view to its page of the operator handbook', async () => {
    const { page } = panel
    for (const [route, file] of [
      ['status', 'codzienna-praca.md'],
      ['publikacja', 'publikacja.md'],
      ['import', 'import.md'],
      ['alerty', 'alerty.md'],
      ['audyt', 'kontrola.md'],
    ] as const) {
      await panel.go(route)
      // relative to the panel, so a company under /t/{slug}/ opens its own copy
      const href = (await page.getAttribute('.page-header .help-link', 'href')) ?? ''
      expect(new URL(href, page.url()).pathname).toBe(`/dg-admin/podrecznik/${file}`)
    }
  })

  it('says so for an unknown panel address instead of showing the dashboard', async () => {
    const { page } = panel
    await page.goto(`${panel.origin}/dg-admin/#/cennik-stary`)
    await page.locator('.page[data-view=nieznany]').waitFor()
    expect(await page.textContent('.page')).toContain('Panel nie ma strony „cennik-stary”')
    await panel.shot('nieznany-adres')
    expect(panel.problems).toEqual([])
  })
})
