/*
 * An operator's day in the admin panel, driven in Debian's Chromium (playwright-core, never a
 * downloaded browser) against the service listening on 127.0.0.1 with the demo catalog and a test
 * extension defining site options:
 * - failed logins slowed down (429 with the wait in the message), then a login;
 * - settings: the public address saved, the developer refused with a wrong NIP at its field, then
 *   saved; a site option edited and seen in /catalog's extension_options; the legacy key switch;
 * - the 58-column XLSX report imported and published, then found in the publication history;
 * - an application password for the website created (shown once), used with curl, revoked and
 *   refused; a new user refused with field errors, then created;
 * - the audit log showing each of these;
 * - every section in Polish and in English, each saved as a screenshot.
 * Set DG_PANEL_SCREENSHOTS=<folder> to keep every screenshot; the documentation's come from handbookShot.
 *
 * SQLite only: the panel adds no storage code of its own (the route suites cover both databases).
 * .ci/run installs Chromium; elsewhere the suite is skipped, visibly, when /usr/bin/chromium is absent.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { warsawDate } from '../../src/host/warsaw-day.js'
import { basicAuth } from '../helpers/factories.js'
import { handbookShot } from '../helpers/handbook-screenshots.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'
import { chromiumPresent, launchChromium, openPage } from '../helpers/panel-browser.js'

const SCREENSHOTS = process.env.DG_PANEL_SCREENSHOTS
const EXTENSION = path.join(import.meta.dirname, 'fixtures/site-option-extension.mjs')
const REPORT = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/official/real-report-example.xlsx'))
const TEMPLATE = fs.readFileSync(
  path.join(import.meta.dirname, '../fixtures/official/Wcorcowy_zakres_danych_dotyczących_cen_mieszkań.csv'),
  'utf8',
)
/** The NIP of the real report's developer: a report is published only under its own developer. */
const REPORT_NIP = '9721307957'
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
const run = promisify(execFile)

describe.skipIf(!chromiumPresent)('operator administration in Chromium [sqlite]', () => {
  let env: TestEnv
  let browser: Browser
  let page: Page
  let origin: string
  let adminPassword: string
  let readerPassword: string
  let day: string
  const problems: string[] = []
  let shots = 0

  const shot = async (name: string) => {
    if (!SCREENSHOTS) return
    fs.mkdirSync(SCREENSHOTS, { recursive: true })
    // from the top (the sticky bar would be drawn where the page was scrolled to), without the toasts
    // a string, since the test is compiled without the DOM's types
    const lang = await page.evaluate<string>(
      "(() => { window.scrollTo(0, 0); document.getElementById('toasts')?.replaceChildren(); return document.documentElement.lang })()",
    )
    shots++
    await page.screenshot({
      path: path.join(SCREENSHOTS, `${lang}-${String(shots).padStart(2, '0')}-${name}.png`),
      fullPage: true,
    })
  }
  const go = async (route: string) => {
    await page.click(`#nav a[data-route=${route}]`)
    await page.locator(`.page[data-view=${route}]`).waitFor()
  }
  const audit = (action: string) =>
    env.ctx.db.selectFrom('audit_log').selectAll().where('action', '=', action).orderBy('id').execute()
  /** HTTP status of the catalog called with curl and an application password, as the website would. */
  const curlCatalog = async (login: string, password: string) => {
    const { stdout } = await run('curl', [
      '-s',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      '-u',
      `${login}:${password}`,
      `${origin}/wp-json/dg/v2/catalog`,
    ])
    return Number(stdout)
  }

  beforeAll(async () => {
    env = await startTestApp('sqlite', { env: { DG_EXTENSIONS: EXTENSION } })
    // the browser keeps the session cookie until its Expires, which the server computes from its clock
    env.clock.set(new Date().toISOString())
    day = warsawDate(env.clock.now())
    const demo = await setUpDemo(env.ctx)
    adminPassword = demo.admin.password
    readerPassword = demo.reader.application_password
    await env.ctx.db.updateTable('developers').set({ nip: REPORT_NIP }).execute()
    await env.app.listen({ port: 0, host: '127.0.0.1' })
    const address = env.app.server.address()
    if (!address || typeof address === 'string') throw new Error('not listening')
    origin = `http://127.0.0.1:${address.port}`
    browser = await launchChromium('pl-PL')
    page = await openPage(browser, problems)
  })

  afterAll(async () => {
    await browser?.close()
    await env?.app.close()
    await env?.database.cleanup()
  })

  it('slows repeated failed logins down with a clear message, then lets the administrator in', async () => {
    await page.goto(`${origin}/dg-admin/`)
    await page.locator('#login').waitFor()
    expect(await page.getAttribute('html', 'lang')).toBe('pl')
    for (let i = 0; i < 5; i++) {
      await page.fill('#login', 'admin')
      await page.fill('#password', `wrong-password-${i}`)
      await page.click('button[type=submit]')
      await expect.poll(() => page.getAttribute('.alert-error', 'data-code')).toBe('incorrect_password')
    }
    await page.fill('#password', adminPassword)
    await page.click('button[type=submit]')
    await expect.poll(() => page.getAttribute('.alert-error', 'data-code')).toBe('too_many_login_attempts')
    expect(await page.textContent('.alert-error')).toContain(
      'Za dużo nieudanych prób logowania. Spróbuj ponownie za 2\u00a0s.',
    )
    await shot('logowanie-spowolnione')
    await handbookShot(page, 'admin/pl-01-logowanie-spowolnione')
    const refused = (await audit('session.login')).filter((e) => e.outcome === 'refused')
    // counted per address, cause and window: each cause's first refusal of the window is written at once
    expect(refused.map((e) => JSON.parse(e.details ?? '{}').reason)).toEqual(['wrong_password', 'throttled'])

    env.clock.advance(3000)
    await page.click('button[type=submit]')
    await page.locator('#today').waitFor()
    expect(await page.textContent('#nav')).toContain('Użytkownicy')
  })

  it('shows the dashboard: today still to publish, the missing public address, the catalog and the schedule', async () => {
    const today = page.locator('#today')
    expect(await today.getAttribute('data-status')).toBe('pending')
    expect(await today.textContent()).toContain('Nie ustawiono publicznego adresu plików')
    expect(await page.textContent('#next-run')).toMatch(/^\d{2}\.\d{2}\.\d{4}, 00:30$/)
    expect(await page.textContent('.page')).toContain('Jeszcze nic nie opublikowano')
    await shot('pulpit')
  })

  it('saves the public address, refuses a wrong NIP at its field, then saves the developer', async () => {
    await go('ustawienia')
    await page.locator('#publication-settings-form').waitFor()
    await page.fill('#set-public-base-url', 'https://ceny.example.pl/dane-gov')
    await page.click('#save-publication-settings')
    await expect.poll(() => page.textContent('#publication-settings-form .alert-success')).toContain('Zapisano')
    await shot('ustawienia-publikacja')
    await handbookShot(page, 'admin/pl-03-ustawienia-publikacja')

    await page.click('.tabs a[data-tab=deweloper]')
    await page.locator('#developer-form').waitFor()
    const developer = await env.ctx.db.selectFrom('developers').selectAll().executeTakeFirstOrThrow()
    await page.fill('#dev-nip', '9721307958')
    await page.click('#save-developer')
    const nipError = page.locator('.field[data-field~=nip] .field-error')
    await expect.poll(() => nipError.textContent()).toContain('NIP musi mieć 10 cyfr z poprawną cyfrą kontrolną')
    expect(await page.getAttribute('#dev-nip', 'aria-invalid')).toBe('true')
    await shot('ustawienia-deweloper-zly-nip')
    await handbookShot(page, 'admin/pl-04-ustawienia-deweloper-zly-nip')
    expect((await env.ctx.db.selectFrom('developers').select('nip').executeTakeFirstOrThrow()).nip).toBe(REPORT_NIP)

    await page.fill('#dev-nip', REPORT_NIP)
    await page.fill('#dev-phone', '+48601887712')
    await page.click('#save-developer')
    await expect
      .poll(async () => (await env.ctx.db.selectFrom('developers').select('phone').executeTakeFirstOrThrow()).phone)
      .toBe('+48601887712')
    expect((await audit('developer.update')).some((e) => e.object_id === String(developer.id))).toBe(true)

    await page.click('.tabs a[data-tab=lokalizacje]')
    await page.locator('#locations-table tbody tr').first().waitFor()
    await page.locator('#locations-table button[data-investment]').first().click()
    await page.locator('#location-form').waitFor()
    await shot('ustawienia-lokalizacje')
    await handbookShot(page, 'admin/pl-05-ustawienia-lokalizacje')
  })

  it('edits a site option the extension defines; /catalog exposes it', async () => {
    await page.click('.tabs a[data-tab=opcje]')
    await page.locator('#site-options-form').waitFor()
    expect(await page.textContent('#site-options-form')).toContain('Baner promocji na stronie')
    await page.fill('#opt-promo_banner', '  Rabat 5% na mieszkania w grudniu  ')
    await page.fill('#opt-crm_sync_hour', '')
    await page.fill('#opt-crm_sync_hour', '4')
    await page.click('#save-site-options')
    await expect.poll(() => page.textContent('#site-options-form .alert-success')).toContain('Zapisano opcje: 2')
    expect(await page.inputValue('#opt-promo_banner')).toBe('Rabat 5% na mieszkania w grudniu')
    await shot('ustawienia-opcje-strony')
    const catalog = await fetch(`${origin}/wp-json/dg/v2/catalog`, {
      headers: { authorization: basicAuth('website', readerPassword) },
    })
    const body = (await catalog.json()) as { extension_options: Record<string, unknown> }
    expect(body.extension_options).toEqual({ promo_banner: 'Rabat 5% na mieszkania w grudniu' })
    expect((await audit('site_option.set')).map((e) => e.object_id)).toEqual(['promo_banner', 'crm_sync_hour'])
  })

  it('turns the legacy key parameter on after a warning, and off again', async () => {
    await page.click('.tabs a[data-tab=generate]')
    await page.locator('#key-param-state').waitFor()
    expect(await page.getAttribute('#key-param-state', 'data-enabled')).toBe('false')
    expect(await page.textContent('#key-param-state')).toContain('30.06.2027')
    await page.click('#toggle-key-param')
    expect(await page.textContent('#confirm-body')).toContain('historii przeglądarek')
    await page.click('#confirm-ok')
    await expect.poll(() => page.getAttribute('#key-param-state', 'data-enabled')).toBe('true')
    await shot('ustawienia-parametr-key')
    await page.click('#toggle-key-param')
    await expect.poll(() => page.getAttribute('#key-param-state', 'data-enabled')).toBe('false')
  })

  it('refuses a report with another company’s name or KRS, then publishes the company’s own for today', async () => {
    await go('raport')
    // the real report names another company than the entity with its NIP, and several KRS numbers
    await page.setInputFiles('#report-file', { name: 'raport.xlsx', mimeType: XLSX_TYPE, buffer: REPORT })
    await page.click('#report-preview')
    await page.locator('#report-preview-result').waitFor()
    expect(await page.getAttribute('#report-preview-result', 'data-valid')).toBe('false')
    expect(await page.textContent('#report-errors')).toContain('Ustawienia → Deweloper')
    expect(await page.locator('#report-publish').count()).toBe(0)

    // the template's first four rows as the report of the entity itself
    const entity = await env.ctx.db
      .selectFrom('developers')
      .select(['name', 'krs'])
      .orderBy('id')
      .executeTakeFirstOrThrow()
    const own = TEMPLATE.trimEnd()
      .split('\n')
      .slice(0, 5)
      .map((line, index) => {
        if (index === 0) return line
        const cells = line.split(';')
        cells[0] = entity.name
        cells[2] = entity.krs ?? 'X'
        cells[4] = REPORT_NIP
        return cells.join(';')
      })
      .join('\n')
    await page.setInputFiles('#report-file', {
      name: 'raport.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`${own}\n`),
    })
    await page.click('#report-preview')
    await expect.poll(() => page.getAttribute('#report-preview-result', 'data-valid')).toBe('true')
    expect(await page.textContent('#report-rows')).toBe('4')
    expect(await page.locator('#report-warnings li').count()).toBeGreaterThan(0)
    await shot('import-raportu-podglad')
    await handbookShot(page, 'admin/pl-08-import-raportu-podglad')

    expect(await page.inputValue('#report-date')).toBe(day.split('-').reverse().join('.'))
    await page.click('#report-publish')
    await expect.poll(() => page.textContent('.alert-error')).toContain('Zaznacz potwierdzenie')
    await page.check('#report-confirm')
    await page.click('#report-publish')
    await page.locator('#report-result').waitFor()
    expect(await page.textContent('#report-result')).toContain('Opublikowano raport')
    await shot('import-raportu-opublikowany')

    await page.click('#report-history-link')
    await page.locator('#history-table tbody tr[data-status]').first().waitFor()
    const row = page.locator('#history-table tbody tr').first()
    expect(await row.getAttribute('data-status')).toBe('published')
    expect(await row.textContent()).toContain('import raportu')
    expect(await row.textContent()).toContain('4')
    await row.locator('button[data-publication]').click()
    await page.locator('#publication-details').waitFor()
    expect(await page.textContent('#publication-details')).toMatch(/[0-9a-f]{32}/)
    await shot('historia-publikacji')
    await handbookShot(page, 'admin/pl-10-historia-publikacji')
    const published = await env.ctx.db
      .selectFrom('publications')
      .selectAll()
      .where('status', '=', 'published')
      .execute()
    expect(published.map((p) => [p.publication_date, p.trigger, p.record_count])).toEqual([[day, 'report_import', 4]])
  })

  it('creates an application password for the website, which works with curl until it is revoked', async () => {
    await go('uzytkownicy')
    await page.locator('#users-table').waitFor()
    expect(await page.textContent('#users-table')).toContain('Odczyt katalogu przez API')
    await shot('uzytkownicy')
    await handbookShot(page, 'admin/pl-11-uzytkownicy')
    await page.click('#users-table a:text-is("website")')
    await page.locator('#app-password-form').waitFor()
    await page.fill('#app-password-name', 'strona WWW (curl)')
    await page.click('#create-app-password')
    await page.locator('#shown-password').waitFor()
    const password = (await page.textContent('#shown-password')) ?? ''
    expect(password).toMatch(/^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/)
    expect(await page.textContent('.page')).toContain('nie zostanie pokazane ponownie')
    await shot('haslo-aplikacji-utworzone')

    expect(await curlCatalog('website', password.replace(/ /g, ''))).toBe(200)
    await page.reload()
    const row = page.locator('#app-passwords-table tr[data-name="strona WWW (curl)"]')
    await row.waitFor()
    expect(await row.textContent()).toContain('127.0.0.1')
    expect(await page.locator('#shown-password').count()).toBe(0)

    await row.locator('button').click()
    expect(await page.textContent('#confirm-title')).toContain('strona WWW (curl)')
    await page.click('#confirm-ok')
    await expect.poll(() => page.locator('#app-passwords-table tr[data-name="strona WWW (curl)"]').count()).toBe(0)
    await shot('haslo-aplikacji-uniewaznione')
    expect(await curlCatalog('website', password)).toBe(401)
    // the demo's own password of the website is untouched
    expect(await curlCatalog('website', readerPassword)).toBe(200)
  })

  it('refuses a new user with field errors, then creates one with a generated password shown once', async () => {
    await go('uzytkownicy')
    await page.fill('#new-user-login', 'zła nazwa!')
    await page.fill('#new-user-email', 'nie-adres')
    await page.fill('#new-user-password', 'krótkie')
    await page.click('#create-user')
    await expect.poll(() => page.locator('#new-user-form .field.has-error').count()).toBe(3)
    expect(await page.textContent('.field[data-field~=password] .field-error')).toContain('co najmniej 12 znaków')
    await shot('nowy-uzytkownik-bledy')
    await page.fill('#new-user-login', 'anna.operator')
    await page.fill('#new-user-email', 'anna@example.pl')
    await page.fill('#new-user-name', 'Anna Operator')
    await page.fill('#new-user-password', '')
    await page.selectOption('#new-user-role', 'administrator')
    await page.click('#create-user')
    await page.locator('#shown-password').waitFor()
    expect(await page.textContent('#users-table')).toContain('anna.operator')
    await shot('nowy-uzytkownik-utworzony')
  })

  it('shows each of these in the audit log, filtered, with details and no secret', async () => {
    await go('audyt')
    await page.locator('#audit-table tbody tr[data-action]').first().waitFor()
    const actions = await page
      .locator('#audit-table tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => (row as unknown as { dataset: Record<string, string | undefined> }).dataset.action),
      )
    for (const action of [
      'session.login',
      'publication.settings',
      'developer.update',
      'site_option.set',
      'legacy_generate.key_param_setting',
      'report_import.confirm',
      'publication.publish',
      'app_password.create',
      'app_password.revoke',
      'user.create',
    ])
      expect(actions, action).toContain(action)
    await shot('dziennik-zdarzen')
    await handbookShot(page, 'admin/pl-16-dziennik-zdarzen')

    await page.selectOption('#audit-action', 'app_password.revoke')
    await page.click('#audit-apply')
    await expect.poll(() => page.locator('#audit-table tbody tr[data-action]').count()).toBe(1)
    const revoked = page.locator('#audit-table tbody tr').first()
    expect(await revoked.textContent()).toContain('Unieważnienie hasła aplikacji')
    expect(await revoked.textContent()).toContain('panel (sesja)')
    await revoked.locator('details.row-details > summary').click()
    await shot('dziennik-zdarzen-filtr')
    await handbookShot(page, 'admin/pl-17-dziennik-zdarzen-filtr')

    await page.selectOption('#audit-action', 'session.login')
    await page.selectOption('#audit-outcome', 'refused')
    await page.click('#audit-apply')
    // refused sign-ins are counted per address, cause and window: one entry for each cause so far
    await expect.poll(() => page.locator('#audit-table tbody tr[data-action]').count()).toBe(2)
    const body = await page.textContent('#audit-table')
    expect(body).not.toContain(adminPassword)
  })

  it('shows the remaining sections in Polish', async () => {
    await go('status')
    await expect.poll(() => page.getAttribute('#today', 'data-status')).toBe('published')
    await shot('pulpit-opublikowano')
    await handbookShot(page, 'admin/pl-18-pulpit-opublikowano')
    await go('publikacja')
    await page.click('#run-preflight')
    await page.locator('#preflight-report').waitFor()
    await shot('publikacja-kontrola')
    await handbookShot(page, 'admin/pl-19-publikacja-kontrola')
    await go('audyt-publikacji')
    await page.click('#run-audit')
    await page.locator('#audit-summary').waitFor()
    await handbookShot(page, 'admin/pl-audyt-publikacji')
    await go('import')
    await page.locator('#import-form').waitFor()
    await shot('import-ofert')
    await handbookShot(page, 'admin/pl-20-import-ofert')
    await go('webhook')
    await page.locator('#rotation-steps').waitFor()
    expect(await page.locator('#rotation-steps li').count()).toBe(7)
    await shot('klucz-webhooka')
    // the catalog editor's sections share the navigation and the components
    await go('inwestycje')
    await page.locator('#investments-table tbody tr').first().waitFor()
    await shot('inwestycje')
    await go('oferty')
    await page.locator('#offers-table tbody tr').first().waitFor()
    await shot('oferty')
  })

  it('shows every section in English, its codes and terms explained', async () => {
    await page.click('#language-switch')
    await expect.poll(() => page.getAttribute('html', 'lang')).toBe('en')
    await expect.poll(() => page.textContent('#nav a[data-route=uzytkownicy]')).toBe('Users')
    const sections: Array<[string, string, string]> = [
      ['status', '#today', 'Dashboard'],
      ['publikacja', '#run-preflight', 'Publication on dane.gov.pl'],
      ['historia', '#history-table tbody tr[data-status]', 'Publication history'],
      ['raport', '#report-form', 'Official report import'],
      ['import', '#import-form', 'Offer import'],
      ['ustawienia', '#publication-settings-form', 'Settings'],
      ['webhook', '#rotation-steps', 'Webhook key'],
      ['uzytkownicy', '#users-table', 'Users'],
      ['audyt', '#audit-table tbody tr[data-action]', 'Audit log'],
      ['inwestycje', '#investments-table tbody tr', 'Investments'],
      ['oferty', '#offers-table tbody tr', 'Offers'],
    ]
    for (const [route, ready, heading] of sections) {
      await go(route)
      await page.locator(ready).first().waitFor()
      expect(await page.textContent('.page h1'), route).toContain(heading)
      await shot(route)
    }
    await go('ustawienia')
    await page.click('.tabs a[data-tab=deweloper]')
    await page.locator('#developer-form').waitFor()
    expect(await page.textContent('#developer-form')).toContain('Postal code (col. 18)')
    await shot('settings-developer')
    await page.click('.tabs a[data-tab=opcje]')
    await page.locator('#site-options-form').waitFor()
    await shot('settings-site-options')
    await go('uzytkownicy')
    await page.click('#users-table a:text-is("website")')
    await page.locator('#app-passwords-table, #no-app-passwords').first().waitFor()
    expect(await page.textContent('.page')).toContain('Application passwords')
    await shot('user-website')

    // a refusal in English: the server's field message comes in the panel's language
    await go('uzytkownicy')
    await page.fill('#new-user-login', 'anna.operator')
    await page.fill('#new-user-email', 'other@example.pl')
    await page.click('#create-user')
    await expect
      .poll(() => page.textContent('.field[data-field~=login] .field-error'))
      .toBe('A user with this login already exists.')
    await page.click('#language-switch')
    await expect.poll(() => page.getAttribute('html', 'lang')).toBe('pl')
    expect(problems).toEqual([])
  })
})
