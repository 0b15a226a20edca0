/*
 * The example website in Debian's Chromium (playwright-core, never a downloaded browser), against
 * the service with the demo catalog and the example extension: browse the investments, filter
 * the offer table with the form, switch to the grid, open an offer card and compare its price
 * history with the API's, see the friendly page of an unreachable catalog; no answer the browser
 * receives holds the application password or the catalog's address. Requests to other hosts (the
 * demo's pictures at example.com) are refused, so the run needs no network.
 * Set DG_WEBSITE_SCREENSHOTS=<folder> to keep screenshots (docs/screenshots/website/ holds a set).
 *
 * SQLite only: the website adds no storage code (example-website.test.ts covers both databases).
 */
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CatalogClient } from '../../src/catalog/client.js'
import { setOption } from '../../src/host/options/options.js'
import {
  type DemoService,
  type RunningWebsite,
  startDemoService,
  startExampleWebsite,
} from '../helpers/servers/example-website.js'
import { chromiumPresent, launchChromium, openPage } from '../helpers/panel-browser.js'

const SCREENSHOTS = process.env.DG_WEBSITE_SCREENSHOTS

describe.skipIf(!chromiumPresent)('example website in Chromium [sqlite]', () => {
  let service: DemoService
  let site: RunningWebsite
  let api: CatalogClient
  let browser: Browser
  let page: Page
  const received: Array<{ url: string; status: number; text: string }> = []
  const problems: string[] = []

  const shot = async (name: string) => {
    if (!SCREENSHOTS) return
    fs.mkdirSync(SCREENSHOTS, { recursive: true })
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
  }
  const cellTexts = async (selector: string) =>
    page
      .locator(selector)
      .evaluateAll((rows) =>
        rows.map((row) =>
          [...row.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim()),
        ),
      )

  beforeAll(async () => {
    service = await startDemoService('sqlite', { env: { DG_CATALOG_RATE_LIMIT: '100000' } })
    await setOption(service.env.ctx, 'dg_ext_promo_banner', 'Rabat 5% na mieszkania z ogródkiem do końca miesiąca')
    site = await startExampleWebsite({ baseUrl: service.catalogUrl, password: service.password })
    api = new CatalogClient({ baseUrl: service.catalogUrl, user: 'website', password: service.password })
    browser = await launchChromium(null)
    page = await openPage(browser, problems)
    await page.route('**/*', (route) =>
      new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort(),
    )
    page.on('response', (response) => {
      void (async () => {
        const headers = JSON.stringify(await response.allHeaders())
        const body = await response.body().catch(() => Buffer.alloc(0))
        received.push({ url: response.url(), status: response.status(), text: `${headers}\n${body.toString('utf8')}` })
      })()
    })
  })

  afterAll(async () => {
    await browser?.close()
    await site?.close()
    await service?.close()
  })

  it('shows the investments with the site option the extension exposes', async () => {
    await page.goto(`${site.url}/`)
    await expect(page.locator('h1').textContent()).resolves.toBe('Nasze inwestycje')
    await expect(page.locator('.banner').textContent()).resolves.toBe(
      'Rabat 5% na mieszkania z ogródkiem do końca miesiąca',
    )
    const titles = await page.locator('.investment-card .card-title').allTextContents()
    expect(titles.sort()).toEqual((await api.investments({ per_page: 100 })).items.map((i) => i.title).sort())
    await shot('01-inwestycje')
  })

  it('filters and sorts the offer table through its form, as the catalog answers the same query', async () => {
    await page.goto(`${site.url}/oferty`)
    await shot('02-oferty-tabela')
    await page.locator('select[name="typ"]').selectOption('mieszkanie')
    await page.locator('select[name="status"]').selectOption('available')
    await page.locator('input[name="pokoje"]').fill('2')
    await page.locator('input[name="cena_do"]').fill('1 100 000')
    await page.locator('select[name="sortuj"]').selectOption('area')
    await page.locator('select[name="kolejnosc"]').selectOption('malejaco')
    await Promise.all([page.waitForURL(/pokoje=2/), page.getByRole('button', { name: 'Pokaż oferty' }).click()])

    const rows = await cellTexts('table.offers tbody tr')
    const expected = await api.properties({
      type: 'mieszkanie',
      status: 'available',
      rooms: 2,
      price_max: 110_000_000,
      orderby: 'area',
      order: 'DESC',
      per_page: 20,
    })
    expect(expected.items.length).toBeGreaterThan(1)
    expect(rows.map((r) => [r[0], r[3], r[5], r[6], r[8]])).toEqual(
      expected.items.map((o) => [o.title, o.rooms, o.area_label, o.price, o.status_label]),
    )
    await expect(page.locator('input[name="cena_do"]').inputValue()).resolves.toBe('1 100 000')
    await shot('03-oferty-filtry')

    await page.getByRole('link', { name: 'siatka' }).click()
    await page.locator('.offer-grid').waitFor()
    const cards = await page.locator('.offer-grid .card-title').allTextContents()
    expect(cards).toEqual(expected.items.slice(0, 12).map((o) => o.title))
    await shot('04-oferty-siatka')
  })

  it('opens an offer card whose price history is the API’s, as a table and a chart', async () => {
    await page.goto(`${site.url}/oferty?szukaj=A/1.01&inwestycja=`)
    const offer = (await api.properties({ search: 'A/1.01', per_page: 20 })).items.find(
      (o) => o.investment_title === 'Zielone Tarasy',
    )!
    await Promise.all([
      page.waitForURL(new RegExp(`/oferty/${offer.id}$`)),
      page.locator(`tr[data-offer-id="${offer.id}"] a`).click(),
    ])
    const history = (await api.priceHistory(offer.id)).items
    const shown = await cellTexts('table.price-history tbody tr')
    expect(shown).toEqual(
      history.map((item) => [
        item.valid_from,
        item.recorded_at,
        `${item.label}${item.correction ? ' (korekta)' : ''}${item.announced ? ' (zapowiedziana)' : ''}`,
        item.before.formatted || '—',
        item.after.formatted || '—',
        item.reason || '—',
      ]),
    )
    // the chart: one point per total-price record, each titled with the catalog's amount
    const totals = history.filter((item) => item.price_type === 'total' && !item.announced)
    const points = await page.locator('.price-chart circle.dot title').allTextContents()
    expect(points).toEqual(totals.map((item) => `${item.valid_from}: ${item.after.formatted}`))
    const detail = await api.property(offer.id)
    await expect(page.locator('#offer-price').textContent()).resolves.toBe(detail.offer.price)
    await expect(page.locator('.contact').textContent()).resolves.toContain(detail.contact.phone)
    const related = (await api.related(offer.id, { per_page: 6 })).items.map((o) => o.title)
    await expect(page.locator('.related .card-title').allTextContents()).resolves.toEqual(related)
    await shot('05-karta-oferty')

    await page.getByRole('navigation', { name: 'Ścieżka' }).getByRole('link', { name: 'Zielone Tarasy' }).click()
    await page.locator('article.investment').waitFor()
    await expect(page.locator('.meta').textContent()).resolves.toContain('Klasa energetyczna')
    await shot('06-inwestycja')
  })

  it('shows a friendly page when the catalog cannot be reached', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo
        probe.close(() => resolve(free))
      })
    })
    const offline = await startExampleWebsite({
      baseUrl: `http://127.0.0.1:${port}/wp-json/dg/v2`,
      password: service.password,
    })
    try {
      const response = await page.goto(`${offline.url}/oferty`)
      expect(response?.status()).toBe(503)
      await expect(page.locator('h1').textContent()).resolves.toBe('Oferty są chwilowo niedostępne')
      await shot('07-katalog-niedostepny')
    } finally {
      await offline.close()
    }
  })

  it('never gave the browser the application password or the catalog’s address, and raised no page error', async () => {
    // the response listener reads bodies in the background
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(received.filter((r) => r.url.includes('/oferty')).length).toBeGreaterThan(3)
    const spaced = service.password.replace(/(.{4})/g, '$1 ').trim()
    const basic = Buffer.from(`website:${service.password}`).toString('base64')
    const { host } = new URL(service.catalogUrl)
    for (const response of received)
      for (const secret of [service.password, spaced, basic, host]) expect(response.text).not.toContain(secret)
    expect(problems).toEqual([])
  })
})
