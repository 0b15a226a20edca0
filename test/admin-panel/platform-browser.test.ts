/*
 * The platform page and a company's own panel in Debian's Chromium, through the real dispatcher:
 * the first company's administrator creates a company and reads its passwords once, the new
 * company's administrator signs in at /t/{slug}/dg-admin/ and works in its empty catalog with every
 * link staying under its prefix, a suspended company's panel says so, a resumed one works again,
 * and a company is deleted only after an export and the typed slug. Screenshots go to
 * DG_PANEL_SCREENSHOTS (default /tmp/shots).
 */
import fs from 'node:fs'
import path from 'node:path'

import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'

import { createTestUser } from '../helpers/factories.js'
import { handbookShot } from '../helpers/handbook-screenshots.js'
import { chromiumPresent, launchChromium } from '../helpers/panel-browser.js'
import { startPlatform, type TestPlatform } from '../helpers/platform.js'
import { describeEachDatabase } from '../helpers/test-app.js'

const SHOTS = process.env.DG_PANEL_SCREENSHOTS || '/tmp/shots'
const plain = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim()
// a changed company's app is built anew, which takes a while on a busy machine
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 15_000 })

describeEachDatabase('the platform page and a company’s panel in Chromium', (getEnv, dialect) => {
  if (!chromiumPresent) {
    it.skip('needs Chromium at /usr/bin/chromium', () => undefined)
    return
  }
  let platform: TestPlatform
  let browser: Browser
  let platformContext: BrowserContext
  let companyContext: BrowserContext
  let admin: Page
  let company: Page
  const problems: string[] = []
  let shots = 0
  const created = { password: '', applicationPassword: '' }

  async function newPage(context: BrowserContext): Promise<Page> {
    const page = await context.newPage()
    page.setDefaultTimeout(10_000)
    page.on('pageerror', (error) => problems.push(`page error: ${error.stack ?? error.message}`))
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(`console: ${message.text()}`)
    })
    return page
  }

  async function shot(page: Page, name: string) {
    fs.mkdirSync(SHOTS, { recursive: true })
    // a full-page shot of a scrolled page draws the sticky top bar mid-page
    await page.evaluate("(() => { window.scrollTo(0, 0); document.getElementById('toasts')?.replaceChildren() })()")
    await page.screenshot({
      path: path.join(SHOTS, `platform-${dialect}-${String(++shots).padStart(2, '0')}-${name}.png`),
      fullPage: true,
    })
  }

  async function signIn(page: Page, url: string, login: string, password: string) {
    await page.goto(url)
    await page.locator('#login').waitFor()
    await page.fill('#login', login)
    await page.fill('#password', password)
    await page.click('button[type=submit]')
  }

  const gammaCard = () => admin.locator('.platform-tenant[data-slug="gamma"]')

  beforeAll(async () => {
    const env = getEnv()
    // the browser keeps the session cookie until its Expires, computed from the server's clock
    env.clock.set(new Date().toISOString())
    platform = await startPlatform(env)
    browser = await launchChromium('pl-PL')
    platformContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'pl-PL' })
    companyContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'pl-PL' })
    admin = await newPage(platformContext)
    company = await newPage(companyContext)
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await platform?.close()
  })

  it('shows the platform page to the first company’s administrator, with no company yet', async () => {
    const first = await createTestUser(getEnv().ctx, 'administrator')
    await signIn(admin, `${platform.origin}/dg-admin/`, first.login, first.loginPassword)
    const entry = admin.locator('#nav a[data-route="platforma"]')
    await entry.waitFor()
    expect(await entry.textContent()).toBe('Platforma — firmy')
    await entry.click()
    await admin.locator('#platform-empty').waitFor()
    expect(await admin.textContent('.page h1')).toBe('Platforma — firmy')
    await shot(admin, 'empty')
  })

  it('refuses a bad slug at its field, then creates a company and shows its passwords once', async () => {
    await admin.fill('#tenant-slug', 'Zła Nazwa')
    await admin.fill('#tenant-name', 'Gamma Development')
    await admin.click('#create-tenant')
    const slugField = admin.locator('#new-tenant-form .field[data-field~="slug"]')
    await poll(() => slugField.getAttribute('class')).toContain('has-error')
    expect(await slugField.locator('.field-error').textContent()).toContain('Nieprawidłowy identyfikator')
    await shot(admin, 'slug-refused')

    await admin.fill('#tenant-slug', 'gamma')
    await admin.fill('#tenant-name', 'Gamma Development Sp. z o.o.')
    await admin.fill('#tenant-admin-email', 'biuro@gamma.example')
    await admin.click('#create-tenant')
    await admin.locator('#created-tenant').waitFor()
    expect(plain(await admin.textContent('#created-warning'))).toContain('nie zostaną pokazane ponownie')
    created.password = plain(await admin.textContent('#created-password'))
    created.applicationPassword = plain(await admin.textContent('#created-application-password'))
    expect(created.password.length).toBeGreaterThanOrEqual(12)
    expect(created.applicationPassword.length).toBeGreaterThanOrEqual(16)
    const box = plain(await admin.textContent('#created-tenant'))
    expect(box).toContain('/t/gamma/dg-admin/')
    expect(box).toContain('/t/gamma/wp-json/dg/v2/webhooks/properties')
    expect(await admin.locator('#copy-created-password').count()).toBe(1)
    await gammaCard().waitFor()
    const card = plain(await gammaCard().textContent())
    expect(card).toContain('aktywna')
    expect(card).toMatch(/Użytkownicy ?1/)
    expect(card).toMatch(/Oferty w sprzedaży ?0/)
    expect(card).toContain('jeszcze żadnej')
    await shot(admin, 'created')
    await handbookShot(admin, 'platforma/pl-02-nowa-firma-hasla')

    // the same slug again: refused at its field, nothing created
    await admin.click('#created-done')
    expect(await admin.locator('#created-tenant').count()).toBe(0)
    await admin.fill('#tenant-slug', 'gamma')
    await admin.fill('#tenant-name', 'Gamma bis')
    await admin.click('#create-tenant')
    await poll(() => slugField.textContent()).toContain('już istnieje')
    expect(await admin.locator('.platform-tenant').count()).toBe(1)
  })

  it('gives a company its own host name, refuses it to another, renames a company', async () => {
    await admin.fill('#tenant-slug', 'delta')
    await admin.fill('#tenant-name', 'Delta SA')
    await admin.fill('#tenant-hosts', 'ceny.delta.example')
    await admin.click('#create-tenant')
    await admin.locator('#created-tenant').waitFor()
    // a company on its own host name is reached there: its addresses say so
    expect(plain(await admin.textContent('#created-tenant'))).toContain('http://ceny.delta.example/dg-admin/')
    await admin.click('#created-done')
    await admin.fill('#tenant-slug', 'epsilon')
    await admin.fill('#tenant-name', 'Epsilon')
    await admin.fill('#tenant-hosts', 'ceny.delta.example')
    await admin.click('#create-tenant')
    const hostsField = admin.locator('#new-tenant-form .field[data-field~="hosts"]')
    await poll(() => hostsField.textContent()).toContain('należy już do innej firmy')
    expect(await admin.locator('.platform-tenant').count()).toBe(2)
    await shot(admin, 'host-taken')

    const delta = admin.locator('.platform-tenant[data-slug="delta"]')
    await delta.locator('.platform-edit-details summary').click()
    await delta.locator('input[name="site_url"]').fill('firma bez adresu')
    await delta.locator('.platform-edit button[type="submit"]').click()
    const siteField = delta.locator('.field[data-field~="site_url"]')
    await poll(() => siteField.textContent()).toContain('musi być adresem http(s)')
    await delta.locator('input[name="site_url"]').fill('https://delta.example')
    await delta.locator('input[name="name"]').fill('Delta Nieruchomości SA')
    await delta.locator('.platform-edit button[type="submit"]').click()
    await poll(async () =>
      plain(await admin.locator('.platform-tenant[data-slug="delta"] h2').textContent()),
    ).toContain('Delta Nieruchomości SA')
    expect(plain(await admin.locator('.platform-tenant[data-slug="delta"]').textContent())).toContain(
      'https://delta.example',
    )
    await shot(admin, 'renamed')
    await handbookShot(admin, 'platforma/pl-01-firmy')
  })

  it('lets the new company’s administrator sign in at its panel and work under its prefix only', async () => {
    const platformAsked = company.waitForResponse((response) =>
      response.url().endsWith('/t/gamma/wp-json/dg/v2/platform/tenants'),
    )
    await signIn(company, `${platform.origin}/t/gamma/dg-admin/`, 'admin', created.password)
    await company.locator('#nav').waitFor({ state: 'visible' })
    // the platform's routes exist in the first company only: no menu entry in a company's panel
    expect((await platformAsked).status()).toBe(404)
    expect(await company.locator('#nav a[data-route="platforma"]').count()).toBe(0)
    const cookies = await companyContext.cookies()
    expect(cookies.length).toBeGreaterThan(0)
    for (const cookie of cookies) expect(cookie.path).toBe('/t/gamma')

    await company.click('#nav a[data-route="inwestycje"]')
    await company.locator('#investments-table').waitFor()
    expect(plain(await company.textContent('#investments-table tbody'))).not.toMatch(/Zielone|Osiedle/)
    await shot(company, 'company-empty-catalog')
    await company.click('#new-investment')
    await company.locator('#investment-form').waitFor()
    await company.fill('#investment-title', 'Osiedle Gamma')
    await company.click('#save-investment')
    await company.waitForURL(/#\/inwestycje\/\d+/)
    await company.goto(`${platform.origin}/t/gamma/dg-admin/#/oferty`)
    await company.click('#new-offer')
    await company.locator('#new-offer-form').waitFor()
    await company.selectOption('#new-investment_id', { label: 'Osiedle Gamma' })
    await company.selectOption('#new-prop_type', 'mieszkanie')
    await company.fill('#new-prop_no', 'G/1')
    await company.fill('#new-prop_area', '52,4')
    await company.fill('#new-price_total', '650 000')
    await company.click('#create-offer')
    await company
      .locator('#offer-form')
      .waitFor()
      .catch(async (error: unknown) => {
        await shot(company, 'offer-refused')
        throw error
      })
    await shot(company, 'company-offer')

    // every link the panel drew stays under the company's prefix
    const outside = async () => {
      const hrefs = await company
        .locator('a[href]')
        .evaluateAll((links) => links.map((link) => (link as unknown as { href: string }).href))
      return hrefs.filter((href) => {
        const url = new URL(href)
        return url.origin === platform.origin && !url.pathname.startsWith('/t/gamma/')
      })
    }
    expect(await outside()).toEqual([])
    const help = await company.locator('.help-link').getAttribute('href')
    expect(new URL(help ?? '', company.url()).pathname).toMatch(/^\/t\/gamma\/dg-admin\/podrecznik\//)
    const apiDocs = company.locator('#nav a[href*="docs"]')
    expect(new URL((await apiDocs.getAttribute('href')) ?? '', company.url()).pathname).toBe(
      '/t/gamma/wp-json/dg/v2/docs',
    )
    await company.goto(`${platform.origin}/t/gamma/dg-admin/#/ustawienia`)
    await company.locator('.page[data-view="ustawienia"] form').first().waitFor()
    expect(await outside()).toEqual([])
    // the public files address the portal harvests is the company's, under its prefix
    expect(await company.inputValue('input[name="public_base_url"]')).toMatch(/\/t\/gamma\/dane-gov$/)
    expect(plain(await company.textContent('.page'))).toMatch(/\/t\/gamma\/dane-gov\/dataset\.xml/)
    await shot(company, 'company-settings')
    const handbook = await company.request.get(new URL(help ?? '', company.url()).href)
    expect(handbook.status()).toBe(200)
  })

  it('suspends the company: its panel says so; resumed, it works again', async () => {
    await admin.reload()
    await gammaCard().waitFor()
    await gammaCard().locator('button[data-action="toggle"]').click()
    const dialog = admin.locator('#confirm-dialog')
    await dialog.waitFor()
    const warning = plain(await dialog.textContent())
    expect(warning).toContain('403')
    expect(warning).toContain('Harmonogramy firmy się zatrzymają')
    expect(warning).toContain('pozostaną dostępne')
    await shot(admin, 'suspend-confirm')
    await handbookShot(admin, 'platforma/pl-03-zawieszenie')
    await admin.click('#confirm-ok')
    await poll(() => gammaCard().getAttribute('data-status')).toBe('suspended')
    expect(plain(await gammaCard().locator('h2').textContent())).toContain('zawieszona')
    await shot(admin, 'suspended')

    // the open panel's next call, then a fresh visit: the suspension in the panel's words
    await company.goto(`${platform.origin}/t/gamma/dg-admin/#/oferty`)
    await company.locator('.alert-error[data-code="tenant_suspended"]').waitFor()
    expect(plain(await company.textContent('.alert-error'))).toContain('jest zawieszone')
    await shot(company, 'company-suspended')
    const stranger = await newPage(await browser.newContext({ locale: 'pl-PL' }))
    await stranger.goto(`${platform.origin}/t/gamma/dg-admin/`)
    await stranger.locator('.alert-error[data-code="tenant_suspended"]').waitFor()
    expect(await stranger.locator('#login').count()).toBe(0)
    await shot(stranger, 'company-suspended-visit')
    await handbookShot(stranger, 'platforma/pl-04-panel-zawieszonej-firmy')
    await stranger.context().close()
    const api = await platform.fetch('/t/gamma/wp-json/dg/v2/catalog/properties')
    expect(api.status).toBe(403)

    await gammaCard().locator('button[data-action="toggle"]').click()
    await dialog.waitFor()
    await admin.click('#confirm-ok')
    await poll(() => gammaCard().getAttribute('data-status')).toBe('active')
    await company.goto(`${platform.origin}/t/gamma/dg-admin/#/oferty`)
    await company.reload()
    await company.locator('#offers-table').waitFor()
    await poll(async () => plain(await company.textContent('#offers-table'))).toContain('G/1')
  })

  it('deletes a company only after an export and the typed slug', async () => {
    const deleteButton = gammaCard().locator('button[data-action="delete"]')
    expect(await deleteButton.isDisabled()).toBe(true)
    await gammaCard().locator('button[data-action="export"]').click()
    await poll(async () => plain(await admin.textContent('#platform-tenants'))).toContain('Folder eksportu')
    expect(plain(await admin.textContent('#platform-tenants'))).toContain(path.join('exports', 'gamma-'))
    await gammaCard().locator('.platform-delete-details summary').click()
    expect(await deleteButton.isDisabled()).toBe(false)
    await gammaCard().locator('input[name="confirm"]').fill('gama')
    await deleteButton.click()
    await admin.click('#confirm-ok')
    const confirmField = gammaCard().locator('.field[data-field~="confirm"]')
    await poll(() => confirmField.textContent()).toContain('nie zgadza się')
    await shot(admin, 'delete-refused')
    await handbookShot(admin, 'platforma/pl-05-usuniecie')
    await gammaCard().locator('input[name="confirm"]').fill('gamma')
    await deleteButton.click()
    await admin.click('#confirm-ok')
    await poll(() => gammaCard().count()).toBe(0)
    expect(await admin.locator('.platform-tenant[data-slug="delta"]').count()).toBe(1)
    expect((await platform.fetch('/t/gamma/wp-json/dg/v2/')).status).toBe(404)

    // the page in English: its words, none of its Polish
    await admin.click('#language-switch')
    await poll(() => admin.textContent('.page h1')).toBe('Platform — companies')
    await admin.locator('.platform-tenant[data-slug="delta"]').waitFor()
    const english = plain(await admin.textContent('.page'))
    for (const words of ['Companies', 'New company', 'Offers on sale', 'Create the company', 'Suspend', 'Export'])
      expect(english).toContain(words)
    for (const words of ['Firmy', 'Nowa firma', 'Oferty w sprzedaży', 'Utwórz firmę', 'Zawieś', 'Eksportuj'])
      expect(english).not.toContain(words)
    await shot(admin, 'english')
    await admin.click('#language-switch')
    expect(problems.join('\n')).toBe('')
  })
})
