/*
 * The admin panel driven in Debian's Chromium (playwright-core, never a downloaded browser) against
 * the service listening on 127.0.0.1 with the demo catalog: log in, read the status, see a refused
 * publication and its failure on the dashboard, publish, import a price change with live status,
 * show and rotate the webhook key, log out. Set DG_PANEL_SCREENSHOTS=<folder> to keep screenshots.
 *
 * SQLite only: the panel adds no storage code of its own (the route suites cover both databases).
 * .ci/run installs Chromium; elsewhere the suite is skipped, visibly, when /usr/bin/chromium is absent.
 */
import fs from 'node:fs'
import path from 'node:path'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { warsawDate } from '../../src/host/warsaw-day.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { getWebhookSecret } from '../../src/webhook/webhook-secret.js'
import { createTestUser } from '../helpers/factories.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'
import { chromiumPresent, launchChromium, openPage } from '../helpers/panel-browser.js'

const SCREENSHOTS = process.env.DG_PANEL_SCREENSHOTS

describe.skipIf(!chromiumPresent)('admin panel in Chromium [sqlite]', () => {
  let env: TestEnv
  let browser: Browser
  let page: Page
  let origin: string
  let adminPassword: string
  let day: string
  const problems: string[] = []

  /** The publication day as the panel writes it: 25.11.2026. */
  const polishDay = () => day.split('-').reverse().join('.')
  const shot = async (name: string) => {
    if (!SCREENSHOTS) return
    fs.mkdirSync(SCREENSHOTS, { recursive: true })
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
  }

  beforeAll(async () => {
    env = await startTestApp('sqlite')
    // the browser keeps the session cookie until its Expires, which the server computes from its clock
    env.clock.set(new Date().toISOString())
    day = warsawDate(env.clock.now())
    adminPassword = (await setUpDemo(env.ctx)).admin.password
    await env.app.listen({ port: 0, host: '127.0.0.1' })
    const address = env.app.server.address()
    if (!address || typeof address === 'string') throw new Error('not listening')
    origin = `http://127.0.0.1:${address.port}`
    browser = await launchChromium(null)
    page = await openPage(browser, problems)
  })

  afterAll(async () => {
    await browser?.close()
    await env?.app.close()
    await env?.database.cleanup()
  })

  it('logs in with the demo administrator and shows the status', async () => {
    await page.goto(`${origin}/dg-admin/`)
    await page.locator('#login').waitFor()
    // any role signs in here, not only an administrator
    expect(await page.textContent('.login-form')).toContain('Zaloguj się swoim kontem')
    expect(await page.textContent('.login-form')).not.toContain('kontem administratora')
    await shot('01-login')

    await page.fill('#login', 'admin')
    await page.fill('#password', 'not-the-password')
    await page.click('button[type=submit]')
    await expect.poll(() => page.locator('.alert-error').textContent()).toContain('Nieznany login lub błędne hasło')

    await page.fill('#password', adminPassword)
    await page.click('button[type=submit]')
    await page.locator('#no-publication').waitFor()
    expect(await page.textContent('#nav')).toContain('Publikacja')
    // the interactive API documentation the service serves, opened in a new tab
    const apiDocs = page.locator('#nav a', { hasText: 'Dokumentacja API' })
    // relative to the panel, so a company under /t/{slug}/ links its own API's documentation
    expect(new URL((await apiDocs.getAttribute('href')) ?? '', page.url()).pathname).toBe('/wp-json/dg/v2/docs')
    expect(await apiDocs.getAttribute('target')).toBe('_blank')
    expect(await page.textContent('#account-name')).toContain('Demo administrator')
    const status = await page.textContent('.page')
    expect(status).toContain('aktywna')
    expect(status).toContain('pełny')
    expect(status).toContain('Jeszcze nic nie opublikowano')
    expect(await page.textContent('#next-run')).toMatch(/^\d{2}\.\d{2}\.\d{4}, 00:30$/)
    expect(status).toContain('nie ustawiony')
    await shot('02-status-empty')
  })

  it('shows a refused publication with its Polish and English issues, and the failure on the dashboard', async () => {
    await page.click('#nav a[data-route=publikacja]')
    await page.fill('#publication-date', day)
    await page.click('#run-preflight')
    await page.locator('#preflight-report').waitFor()
    const report = await page.textContent('#preflight-report')
    expect(report).toContain(`Publikacja za ${polishDay()} zostałaby odrzucona`)
    expect(await page.locator('#preflight-report li[data-code=public_base_url_missing]').count()).toBe(1)
    await shot('03-preflight')

    await page.click('#run-publication')
    await page.locator('#confirm-dialog').waitFor()
    expect(await page.textContent('#confirm-title')).toContain(polishDay())
    await page.click('#confirm-ok')
    await page.locator('#publication-error').waitFor()
    const refused = page.locator('#publication-error')
    expect(await refused.textContent()).toContain('Publikacja nie została wykonana')
    // the message in the panel's language, the stable code beside it for support
    const issue = refused.locator('li[data-code=public_base_url_missing]')
    expect(await issue.locator('.issue-text').textContent()).toContain('Ustaw publiczny adres plików (https)')
    expect(await issue.locator('.issue-code').textContent()).toBe('public_base_url_missing')
    await shot('04-publication-refused')

    await page.click('#nav a[data-route=status]')
    const failure = page.locator('#publication-failure')
    await failure.waitFor()
    expect(await page.getAttribute('#today', 'data-status')).toBe('failed')
    expect(await page.textContent('#today')).toContain('Dzisiejsza publikacja nie powiodła się')
    expect(await failure.locator('li[data-code=public_base_url_missing]').count()).toBe(1)
    await shot('05-status-failure')
  })

  it('publishes the day once the public address is set, and the dashboard shows it instead of the failure', async () => {
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    await page.click('#nav a[data-route=publikacja]')
    await page.fill('#publication-date', day)
    await page.click('#run-publication')
    await page.click('#confirm-ok')
    const result = page.locator('#publication-result')
    await result.waitFor()
    expect(await result.textContent()).toContain(`Opublikowano plik za ${polishDay()}`)
    expect(
      await result.locator('a', { hasText: /ceny-ofertowe-mieszkan-dewelopera-.*-\d{4}-\d{2}-\d{2}\.csv/ }).count(),
    ).toBe(1)
    await shot('06-published')

    await page.click('#nav a[data-route=status]')
    await page.locator('#last-publication').waitFor()
    expect(await page.locator('#publication-failure').count()).toBe(0)
    expect(await page.getAttribute('#today', 'data-status')).toBe('published')
    const last = await page.textContent('#last-publication')
    expect(last).toContain(polishDay())
    expect(last).toContain('panel / API')
    expect(await page.locator('#today a', { hasText: /-\d{4}-\d{2}-\d{2}\.csv$/ }).count()).toBe(1)
    await shot('07-status-published')
  })

  it('previews a price list, executes it with an idempotency key and shows the live job status', async () => {
    await page.click('#nav a[data-route=import]')
    const csv =
      'Inwestycja;ID lokalu;Cena m2;Cena m2 od;Cena;Cena od\n' +
      `demo-zielone-tarasy;ZT-A-0.01;21 000,00;${day};949 200,00;${day}\n`
    await page.setInputFiles('#import-file', { name: 'cennik.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    await expect.poll(() => page.inputValue('#map-price_total')).toBe('Cena')
    expect(await page.inputValue('#map-source_property_id')).toBe('ID lokalu')
    await page.click('#run-preview')
    await page.locator('#import-preview').waitFor()
    expect(await page.textContent('#preview-counts [data-action=update]')).toContain('1')
    // field names and amounts as the operator reads them, not price_total and 949200.00
    const operations = await page.textContent('#preview-operations')
    expect(operations).toContain('Cena całkowita: 944\u00a0680,00\u00a0zł → 949\u00a0200,00\u00a0zł')
    expect(operations).not.toContain('price_total')
    // the offer by its designation and its investment's title, not by the file's source ids alone
    expect(await page.textContent('#preview-operations .offer-designation')).toBe('A/0.01')
    expect(await page.textContent('#preview-operations .offer-investment')).toBe('Zielone Tarasy')
    await shot('08-import-preview')

    // hold the execution's answer back for a moment: meanwhile the panel polls GET /imports/{id}
    await page.route('**/imports/offer', async (route) => {
      const response = await route.fetch()
      await new Promise((resolve) => setTimeout(resolve, 1500))
      await route.fulfill({ response })
    })
    await page.click('#run-import')
    await page.locator('h2', { hasText: 'stan na żywo' }).waitFor()
    await expect.poll(() => page.getAttribute('#job-status', 'data-status')).toBe('completed')
    await page.locator('#import-result').waitFor()
    await page.unroute('**/imports/offer')
    expect(await page.textContent('#import-result')).toContain('Import wykonany')
    expect(await page.getAttribute('#job-status', 'data-status')).toBe('completed')
    const offer = await env.ctx.db
      .selectFrom('offers')
      .select('price_total_cents')
      .where('source_property_id', '=', 'ZT-A-0.01')
      .executeTakeFirstOrThrow()
    expect(offer.price_total_cents).toBe(94_920_000)
    // done: the button stays disabled (a retry after a network error would reuse the same key)
    expect(await page.isDisabled('#run-import')).toBe(true)
    await shot('09-import-done')
  })

  it('shows the webhook key to the administrator and rotates it', async () => {
    const before = (await getWebhookSecret(env.ctx))!.secret
    await page.click('#nav a[data-route=webhook]')
    await page.locator('#show-secret').waitFor()
    expect(await page.textContent('#webhook-secret')).not.toContain(before)
    await page.click('#show-secret')
    await expect.poll(() => page.textContent('#webhook-secret')).toBe(before)
    await shot('10-webhook-key')

    await page.click('#rotate-secret')
    expect(await page.textContent('#confirm-body')).toContain('natychmiast')
    await shot('11-webhook-confirm')
    await page.click('#confirm-ok')
    await expect.poll(() => page.textContent('#webhook-secret')).not.toBe(before)
    const after = (await getWebhookSecret(env.ctx))!.secret
    expect(after).not.toBe(before)
    expect(await page.textContent('#webhook-secret')).toBe(after)
    await shot('12-webhook-rotated')
  })

  it('asks for a login again when the session ends, logs out, and offers a catalog reader nothing', async () => {
    await page.click('#nav a[data-route=status]')
    await page.locator('#last-publication').waitFor()
    // the session cookie is gone (expired, or logged out in another tab): the next call answers 401
    await page.context().clearCookies()
    await page.click('.page-header button')
    await page.locator('#login').waitFor()
    expect(await page.textContent('#toasts')).toContain('Sesja wygasła')

    await page.fill('#login', 'admin')
    await page.fill('#password', adminPassword)
    await page.click('button[type=submit]')
    await page.locator('#last-publication').waitFor()
    await page.click('#logout')
    await page.locator('#login').waitFor()
    expect(await page.isHidden('#nav')).toBe(true)
    await page.reload()
    await page.locator('#login').waitFor()

    // a catalog reader may log in, but the panel offers it nothing (the API would answer 403)
    const reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    await page.fill('#login', reader.login)
    await page.fill('#password', reader.loginPassword)
    await page.click('button[type=submit]')
    await expect.poll(() => page.textContent('.page')).toContain('nie ma uprawnień administratora')
    expect(await page.isHidden('#nav')).toBe(true)
    await page.click('#logout')
    await page.locator('#login').waitFor()
    expect(problems).toEqual([])
  })
})
