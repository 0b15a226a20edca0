/*
 * The website component in Debian's Chromium (playwright-core, never a downloaded browser) on a
 * developer's static page of ANOTHER origin answered with a strict Content-Security-Policy (scripts
 * and requests to the service only, no inline style, Trusted Types required), against the real
 * service: an investment made through the editor's REST write path, its public prices enabled for
 * the page's origin. Checked as a visitor would: the table lists exactly the units on offer with
 * their prices, parking spaces and storage rooms sold on their own among them as in the official
 * file, each unit once, filters narrow it and the live region says how many, sorting by price
 * (aria-sort), the history dialog by keyboard (table, the parts' price changes, chart, Escape, focus
 * back), a price change in the editor visible after revalidation, the publication's statuses
 * followed, the endpoint switched off → "Ceny nie są teraz dostępne", English, and axe-core finds
 * no serious or critical violation. On SQLite and PostgreSQL.
 * Set DG_EMBED_SCREENSHOTS=<folder> to keep screenshots (docs/screenshots/embed/ holds a set).
 */
import fs from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import path from 'node:path'

import type { FastifyInstance } from 'fastify'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { SERVICE_VERSION } from '../../src/version.js'
import { TEST_DIALECTS } from '../helpers/databases.js'
import { type EmbedSite, embedPage, startEmbedSite } from '../helpers/servers/embed-site.js'
import { createTestUser, grantProLicense } from '../helpers/factories.js'
import { chromiumPresent, launchChromium } from '../helpers/panel-browser.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'

const V2 = '/wp-json/dg/v2'
const SCREENSHOTS = process.env.DG_EMBED_SCREENSHOTS
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
/** Polish amounts group with a no-break space; the tests read them with plain spaces. */
const plain = (text: string | null) =>
  (text ?? '')
    .replace(/\u00a0/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()

interface Unit {
  prop_no: string
  prop_type?: string
  prop_area?: string
  prop_rooms?: number
  prop_floor: number
  property_status: string
  price_m2?: string
  price_total: string
  from: string
  components?: unknown[]
}

// the units of the investment; A/3.01 is sold, so it is not on offer and never shown
const UNITS: Unit[] = [
  {
    prop_no: 'A/1.01',
    prop_area: '54.30',
    prop_rooms: 3,
    prop_floor: 1,
    property_status: 'available',
    price_m2: '11500.00',
    price_total: '624450.00',
    from: '2026-09-15',
    components: [
      { kind: 'parking_space', designation: 'P-12', price: '40000.00', price_from: '2026-09-15' },
      {
        group: 'other_payment',
        kind_label: 'Opłata rezerwacyjna',
        description: 'Opłata rezerwacyjna',
        price: '5000.00',
        price_from: '2026-09-15',
      },
    ],
  },
  {
    prop_no: 'A/1.02',
    prop_area: '38.10',
    prop_rooms: 2,
    prop_floor: 1,
    property_status: 'available',
    price_m2: '12500.00',
    price_total: '476250.00',
    from: '2026-10-01',
  },
  {
    prop_no: 'A/2.01',
    prop_area: '72.00',
    prop_rooms: 4,
    prop_floor: 2,
    property_status: 'reserved',
    price_m2: '11000.00',
    price_total: '792000.00',
    from: '2026-10-01',
  },
  {
    prop_no: 'A/2.02',
    prop_area: '54.30',
    prop_rooms: 3,
    prop_floor: 2,
    property_status: 'available',
    price_m2: '11800.00',
    price_total: '640740.00',
    from: '2026-10-01',
  },
  {
    prop_no: 'A/0.01',
    prop_area: '30.00',
    prop_rooms: 1,
    prop_floor: 0,
    property_status: 'available',
    price_m2: '13000.00',
    price_total: '390000.00',
    from: '2026-10-01',
  },
  {
    prop_no: 'A/3.01',
    prop_area: '80.00',
    prop_rooms: 4,
    prop_floor: 3,
    property_status: 'sold',
    price_m2: '10000.00',
    price_total: '800000.00',
    from: '2026-10-01',
  },
  // parts sold on their own: rows of their own in the official file, so units of the table
  {
    prop_no: 'MP 5',
    prop_type: 'parking_space',
    prop_floor: -1,
    property_status: 'available',
    price_total: '45000.00',
    from: '2026-10-01',
  },
  {
    prop_no: 'KL 7',
    prop_type: 'storage_room',
    prop_floor: -1,
    property_status: 'reserved',
    price_total: '24000.00',
    from: '2026-10-01',
  },
]
const ON_OFFER = UNITS.filter((u) => u.property_status !== 'sold').length
const ALL_ON_OFFER = ['A/0.01', 'A/1.01', 'A/1.02', 'A/2.01', 'A/2.02', 'KL 7', 'MP 5']

for (const dialect of TEST_DIALECTS)
  describe.skipIf(!chromiumPresent)(`website component on another origin under a strict CSP [${dialect}]`, () => {
    let env: TestEnv
    let app: FastifyInstance
    let site: EmbedSite
    let browser: Browser
    let page: Page
    let serviceOrigin: string
    let authorization: string
    let investmentId: number
    const offerIds = new Map<string, number>()
    const problems: string[] = []

    const api = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: unknown, headers = {}) => {
      const response = await app.inject({
        method,
        url: `${V2}${url}`,
        headers: { authorization, ...headers },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      })
      if (response.statusCode >= 300) throw new Error(`${method} ${url} → ${response.statusCode} ${response.body}`)
      return response
    }

    const shot = async (name: string, target: Page = page) => {
      if (!SCREENSHOTS) return
      fs.mkdirSync(SCREENSHOTS, { recursive: true })
      await target.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
    }

    /** A page of the site in a fresh browser context (its own HTTP cache), with CSP violations recorded. */
    const open = async (pathName: string, width = 1280, prepare?: (target: Page) => Promise<void>) => {
      const fresh = await browser.newContext({ viewport: { width, height: 900 }, locale: 'pl-PL' })
      await fresh.addInitScript({
        content: `window.cspViolations = []
document.addEventListener('securitypolicyviolation', (event) =>
  window.cspViolations.push(event.violatedDirective + ' ' + event.blockedURI))`,
      })
      const opened = await fresh.newPage()
      opened.setDefaultTimeout(10_000)
      opened.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
      opened.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
          problems.push(`console: ${message.text()}`)
      })
      if (prepare) await prepare(opened)
      await opened.goto(`${site.origin}${pathName}`)
      return { context: fresh, page: opened }
    }

    const table = (target: Page = page) => target.locator('dg-offer-table')
    const rowDesignations = (target: Page = page) =>
      table(target)
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-unit')))
    const violations = (target: Page = page) => target.evaluate<string[]>('window.cspViolations')

    beforeAll(async () => {
      env = await startTestApp(dialect)
      app = env.app
      env.clock.set('2026-11-28T09:00:00.000Z')
      await grantProLicense(env.ctx)
      authorization = (await createTestUser(env.ctx, 'administrator')).authorization
      const investment = await api('POST', '/investments', {
        title: 'Osiedle Nad Wartą',
        location: { city: 'Poznań', street: 'Nadbrzeżna', building_no: '5' },
      })
      investmentId = (investment.json() as { id: number }).id
      for (const unit of UNITS) {
        const { from, ...fields } = unit
        const created = await api('POST', '/offers', {
          investment_id: investmentId,
          prop_type: 'mieszkanie',
          ...fields,
          ...(fields.price_m2 ? { price_m2_from: from } : {}),
          price_total_from: from,
        })
        offerIds.set(unit.prop_no, (created.json() as { id: number }).id)
      }
      // A/1.01's price changed on 1 November: its history holds two records; its parking space's
      // price changed the same day; a new price list is announced for 6 December
      await changePrice('A/1.01', { price_m2: '12000.00', price_total: '651600.00', from: '2026-11-01' })
      await changePartPrice('A/1.01', { price: '42000.00', price_from: '2026-11-01' })
      await changePrice('A/1.01', { price_m2: '12500.00', price_total: '678750.00', from: '2026-12-06' })

      await app.listen({ port: 0, host: '127.0.0.1' })
      const address = app.server.address()
      if (!address || typeof address === 'string') throw new Error('not listening')
      serviceOrigin = `http://127.0.0.1:${address.port}`
      const scriptUrl = `${serviceOrigin}${V2}/embed/${SERVICE_VERSION}/dg-prices.js`
      const elements = `<dg-offer-table investment="${investmentId}"></dg-offer-table>
<h2>Lokal A/1.01</h2>
<dg-offer-card investment="${investmentId}" unit="A/1.01"></dg-offer-card>
<p>Historia lokalu A/2.02: <dg-price-history investment="${investmentId}" unit="A/2.02"></dg-price-history></p>`
      site = await startEmbedSite(serviceOrigin, {
        '/': embedPage({ scriptUrl, body: elements }),
        '/en': embedPage({ scriptUrl, lang: 'en', body: elements.replaceAll('investment=', 'lang="en" investment=') }),
        '/latest': embedPage({
          scriptUrl: `${serviceOrigin}${V2}/embed/latest/dg-prices.js`,
          body: `<dg-offer-table investment="${investmentId}"></dg-offer-table>`,
        }),
      })
      await api('PUT', `/investments/${investmentId}/public-prices`, {
        enabled: true,
        allowed_origins: [site.origin],
      })
      browser = await launchChromium(null)
      ;({ page } = await open('/'))
    })

    afterAll(async () => {
      await browser?.close()
      await site?.close()
      await app?.close()
      await env?.database.cleanup()
    })

    async function changePrice(unit: string, price: { price_m2: string; price_total: string; from: string }) {
      const id = offerIds.get(unit)
      const read = await api('GET', `/offers/${id}`)
      await api(
        'PATCH',
        `/offers/${id}`,
        {
          price_m2: price.price_m2,
          price_m2_from: price.from,
          price_total: price.price_total,
          price_total_from: price.from,
          reason: 'Nowy cennik',
        },
        { 'if-match': read.headers.etag as string },
      )
    }

    async function changePartPrice(unit: string, price: { price: string; price_from: string }) {
      const id = offerIds.get(unit)
      const read = await api('GET', `/offers/${id}`)
      const [component] = (read.json() as { components: Array<{ id: number }> }).components
      await api(
        'PATCH',
        `/offers/${id}/components/${component?.id}`,
        { ...price, reason: 'Nowy cennik miejsc' },
        { 'if-match': read.headers.etag as string },
      )
    }

    it('shows every unit on offer once with its prices, styled by the page, without a CSP violation', async () => {
      await expect.poll(() => rowDesignations()).toHaveLength(ON_OFFER)
      expect(await rowDesignations()).toEqual(ALL_ON_OFFER)
      const first = table().locator('tr[data-unit="A/1.01"]')
      const text = plain(await first.textContent())
      expect(text).toContain('54,30 m²')
      expect(text).toContain('12 000,00 zł')
      expect(text).toContain('651 600,00 zł')
      expect(text).toContain('od 01.11.2026')
      expect(text).toContain('Miejsce postojowe P-12: 42 000,00 zł')
      // the price list announced for 6 December is not today's price
      expect(text).not.toContain('678 750,00 zł')
      // a part sold on its own: its type and total, no price per m², as in the official file
      const parking = plain(await table().locator('tr[data-unit="MP 5"]').textContent())
      expect(parking).toContain('Miejsce postojowe')
      expect(parking).toContain('45 000,00 zł')
      expect(plain(await table().locator('tr[data-unit="MP 5"] td[data-label="Cena za m²"]').textContent())).toBe('—')
      expect(plain(await table().locator('tr[data-unit="KL 7"]').textContent())).toContain('Komórka lokatorska')
      expect(text).toContain('Opłata rezerwacyjna: 5000,00 zł')
      expect(plain(await table().locator('caption').textContent())).toContain('Osiedle Nad Wartą, Poznań')
      expect(plain(await table().locator('caption').textContent())).toContain('28.11.2026')
      expect(plain(await table().locator('tr[data-unit="A/2.01"]').textContent())).toContain('Zarezerwowany')
      // the constructed style sheet applies under style-src 'self', and the page's custom property reaches inside
      const button = table().locator('tr[data-unit="A/1.01"] button')
      expect(await button.evaluate((b) => b.ownerDocument.defaultView!.getComputedStyle(b).backgroundColor)).toBe(
        'rgb(15, 118, 110)',
      )
      expect(
        await table()
          .locator('caption')
          .evaluate((c) => c.ownerDocument.defaultView!.getComputedStyle(c).color),
      ).toBe('rgb(15, 118, 110)')
      // the card and the lone history button of the same investment
      const card = plain(await page.locator('dg-offer-card article').textContent())
      expect(card).toContain('Lokal A/1.01')
      expect(card).toContain('651 600,00 zł')
      expect(card).toContain('3 pokoje')
      await expect.poll(() => page.locator('dg-price-history button').textContent()).toBe('Historia cen lokalu A/2.02')
      expect(await violations()).toEqual([])
      expect(problems).toEqual([])
      await shot(`table-pl-1280-${dialect}`)
    })

    it('narrows the table with the filters and announces the count in a live region', async () => {
      const count = table().locator('[role="status"]')
      expect(await count.getAttribute('aria-live')).toBe('polite')
      expect(plain(await count.textContent())).toBe(`Pokazano ${ON_OFFER} z ${ON_OFFER} lokali.`)
      await table().getByLabel('Liczba pokoi').selectOption('3')
      expect(await rowDesignations()).toEqual(['A/1.01', 'A/2.02'])
      expect(plain(await count.textContent())).toBe(`Pokazano 2 z ${ON_OFFER} lokali.`)
      await table().getByLabel('Cena do (zł)').fill('645000')
      expect(await rowDesignations()).toEqual(['A/2.02'])
      expect(plain(await count.textContent())).toBe(`Pokazano 1 z ${ON_OFFER} lokali.`)
      await table().getByLabel('Status').selectOption('reserved')
      expect(await rowDesignations()).toEqual([null])
      expect(plain(await table().locator('tbody').textContent())).toBe('Żaden lokal nie spełnia wybranych warunków.')
      await table().getByRole('button', { name: 'Wyczyść filtry' }).click()
      await expect.poll(() => rowDesignations()).toHaveLength(ON_OFFER)
      await table().getByLabel('Powierzchnia od (m²)').fill('50')
      await table().getByLabel('Piętro').selectOption('2')
      expect(await rowDesignations()).toEqual(['A/2.01', 'A/2.02'])
      await table().getByRole('button', { name: 'Wyczyść filtry' }).click()
      await expect.poll(() => rowDesignations()).toHaveLength(ON_OFFER)
    })

    it('lists page-size rows at a time with a button for more, the count saying how many are listed', async () => {
      const count = table().locator('[role="status"]')
      await table().evaluate((t) => t.setAttribute('page-size', '2'))
      await expect.poll(() => rowDesignations()).toEqual(['A/0.01', 'A/1.01'])
      expect(plain(await count.textContent())).toBe(`Pokazano ${ON_OFFER} z ${ON_OFFER} lokali. Na liście pierwsze 2.`)
      await table().getByRole('button', { name: 'Pokaż kolejne 2 lokale' }).click()
      expect(await rowDesignations()).toHaveLength(4)
      await table().getByRole('button', { name: 'Pokaż kolejne 2 lokale' }).click()
      expect(await rowDesignations()).toHaveLength(6)
      await table().getByRole('button', { name: 'Pokaż kolejny 1 lokal' }).click()
      expect(await rowDesignations()).toHaveLength(ON_OFFER)
      expect(plain(await count.textContent())).toBe(`Pokazano ${ON_OFFER} z ${ON_OFFER} lokali.`)
      expect(await table().locator('[part~="more-button"]').isHidden()).toBe(true)
      // focus lands on the last row's button, not on the page
      expect(await table().evaluate((t) => t.shadowRoot?.activeElement?.getAttribute('aria-label'))).toBe(
        'Historia cen lokalu MP 5',
      )
      await table().evaluate((t) => t.removeAttribute('page-size'))
      await expect.poll(() => rowDesignations()).toHaveLength(ON_OFFER)
    })

    it('sorts by total price both ways and says so with aria-sort', async () => {
      const header = table().locator('th', { has: page.getByRole('button', { name: 'Cena całkowita' }) })
      expect(await header.getAttribute('aria-sort')).toBeNull()
      expect(await table().locator('th[aria-sort]').count()).toBe(1)
      await header.getByRole('button').click()
      expect(await header.getAttribute('aria-sort')).toBe('ascending')
      expect(await table().locator('th[aria-sort]').count()).toBe(1)
      const ascending = ['KL 7', 'MP 5', 'A/0.01', 'A/1.02', 'A/2.02', 'A/1.01', 'A/2.01']
      expect(await rowDesignations()).toEqual(ascending)
      await header.getByRole('button').click()
      expect(await header.getAttribute('aria-sort')).toBe('descending')
      expect(await rowDesignations()).toEqual([...ascending].reverse())
    })

    it('opens the price history by keyboard: a dialog with the table and the chart, closed by Escape', async () => {
      const opener = table()
        .locator('tr[data-unit="A/1.01"]')
        .getByRole('button', { name: 'Historia cen lokalu A/1.01' })
      await opener.focus()
      await page.keyboard.press('Enter')
      const dialog = table().locator('dialog')
      await dialog.waitFor()
      expect(await dialog.evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(true)
      expect(await dialog.getAttribute('aria-labelledby')).toBeTruthy()
      expect(plain(await dialog.locator('h2').textContent())).toBe('Historia cen lokalu A/1.01')
      // focus is inside the dialog, on its close button
      expect(await table().evaluate((t) => t.shadowRoot?.activeElement?.textContent)).toBe('Zamknij')
      const rowsOf = (selector: string) =>
        dialog
          .locator(selector)
          .evaluateAll((rows) =>
            rows.map((row) => [...row.children].map((cell) => (cell.textContent ?? '').replace(/\u00a0/g, ' '))),
          )
      // the unit's prices up to today: the price list announced for 6 December is not there yet
      expect(await rowsOf('table[part="history-table"] tbody tr')).toEqual([
        ['01.11.2026', '12 000,00 zł', '651 600,00 zł'],
        ['15.09.2026', '11 500,00 zł', '624 450,00 zł'],
      ])
      // and each price change of the parking space sold with it, with its date
      expect(plain(await dialog.locator('table.parts-history caption').textContent())).toBe(
        'Historia cen części i pomieszczeń',
      )
      expect(await rowsOf('table.parts-history tbody tr')).toEqual([
        ['Miejsce postojowe P-12', '01.11.2026', '42 000,00 zł'],
        ['15.09.2026', '40 000,00 zł'],
      ])
      const chart = dialog.locator('svg[role="img"]')
      expect(plain(await chart.getAttribute('aria-label'))).toBe(
        'Wykres ceny całkowitej: 1 zmiana, od 624 450,00 zł (15.09.2026) do 651 600,00 zł (01.11.2026).',
      )
      expect(await chart.locator('circle').count()).toBe(2)
      // a step line: one horizontal run, one step up, then flat to the day of the prices
      expect(await chart.locator('path').getAttribute('d')).toMatch(/^M[\d.]+,[\d.]+H[\d.]+V[\d.]+H[\d.]+$/)
      await shot(`history-pl-1280-${dialect}`)
      await runAxe(page, 'the open history dialog')
      await page.keyboard.press('Escape')
      await expect.poll(() => dialog.count()).toBe(0)
      expect(await table().evaluate((t) => t.shadowRoot?.activeElement?.getAttribute('aria-label'))).toBe(
        'Historia cen lokalu A/1.01',
      )
    })

    it('passes axe-core without a serious or critical violation, and lays out for a 390 px phone', async () => {
      await runAxe(page, 'the table, the card and the history button')
      const phone = await open('/', 390)
      await expect.poll(() => rowDesignations(phone.page)).toHaveLength(ON_OFFER)
      // narrow: one card per unit, each value labelled by its column
      const cell = phone.page.locator('dg-offer-table tr[data-unit="A/1.01"] td[data-label="Cena całkowita"]')
      expect(await cell.evaluate((td) => td.ownerDocument.defaultView!.getComputedStyle(td).display)).toBe('grid')
      const overflow = await phone.page.evaluate<number>('document.documentElement.scrollWidth')
      expect(overflow).toBeLessThanOrEqual(390)
      await runAxe(phone.page, 'the phone layout')
      expect(await violations(phone.page)).toEqual([])
      await shot(`table-pl-390-${dialect}`, phone.page)
      await phone.context.close()
    })

    it('shows a price changed in the editor after revalidation (304 while nothing changed)', async () => {
      // what the service itself answered (the browser shows a revalidated copy as 200 to the page)
      const statuses: number[] = []
      const revalidations: Array<string | undefined> = []
      app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
        if (!request.url?.includes('/public/investments/') || request.method !== 'GET') return
        response.on('finish', () => {
          statuses.push(response.statusCode)
          revalidations.push(request.headers['if-none-match'])
        })
      })
      await table().evaluate((t) => (t as unknown as { refresh(): Promise<void> }).refresh())
      expect(statuses).toEqual([304])
      expect(revalidations[0]).toMatch(/^(W\/)?"/)

      await changePrice('A/1.02', { price_m2: '12800.00', price_total: '487680.00', from: '2026-11-28' })
      await table().evaluate((t) => (t as unknown as { refresh(): Promise<void> }).refresh())
      expect(statuses).toEqual([304, 200])
      const row = plain(await table().locator('tr[data-unit="A/1.02"]').textContent())
      expect(row).toContain('487 680,00 zł')
      expect(row).toContain('od 28.11.2026')
      expect(row).not.toContain('476 250,00 zł')
      expect(problems).toEqual([])
    })

    it('follows the publication’s statuses: reserved units leave the table when the official file leaves them out', async () => {
      await updatePublicationSettings(env.ctx, { published_statuses: ['available'] }, { type: 'cli' })
      await table().evaluate((t) => (t as unknown as { refresh(): Promise<void> }).refresh())
      expect((await rowDesignations()).sort()).toEqual(['A/0.01', 'A/1.01', 'A/1.02', 'A/2.02', 'MP 5'])
      expect(await table().getByLabel('Status').locator('option').allTextContents()).toEqual(['Wszystkie', 'Dostępny'])
      await updatePublicationSettings(env.ctx, { published_statuses: ['available', 'reserved'] }, { type: 'cli' })
      await table().evaluate((t) => (t as unknown as { refresh(): Promise<void> }).refresh())
      expect((await rowDesignations()).sort()).toEqual(ALL_ON_OFFER)
      // flats and parts sold on their own in one list: the type filter narrows to one kind
      await table().getByLabel('Rodzaj').selectOption('parking_space')
      expect(await rowDesignations()).toEqual(['MP 5'])
      await table().getByRole('button', { name: 'Wyczyść filtry' }).click()
      await expect.poll(async () => (await rowDesignations()).sort()).toEqual(ALL_ON_OFFER)
    })

    it('shows each unit once even when an answer lists it twice', async () => {
      const other = await open('/', 1280, async (target) => {
        // a copy of a unit appended to the answer, as a proxy or cache could have merged two answers
        await target.route('**/public/investments/*/prices', async (route) => {
          const response = await route.fetch()
          const body = (await response.json()) as { units: Array<Record<string, unknown>> }
          const twice = body.units.find((unit) => unit.designation === 'A/1.01')
          await route.fulfill({ response, json: { ...body, units: [...body.units, { ...twice }] } })
        })
      })
      await expect.poll(() => rowDesignations(other.page)).toHaveLength(ON_OFFER)
      expect(await rowDesignations(other.page)).toEqual(ALL_ON_OFFER)
      expect(plain(await other.page.locator('dg-offer-table').getByRole('status').textContent())).toBe(
        `Pokazano ${ON_OFFER} z ${ON_OFFER} lokali.`,
      )
      await other.context.close()
    })

    it('loads through the latest address too, and says the prices are not available when the endpoint is off', async () => {
      const latest = await open('/latest')
      await expect.poll(() => rowDesignations(latest.page)).toHaveLength(ON_OFFER)
      await latest.context.close()

      await api('PUT', `/investments/${investmentId}/public-prices`, { enabled: false })
      const off = await open('/')
      const unavailable = off.page.locator('dg-offer-table').getByRole('status')
      await expect.poll(() => unavailable.textContent()).toBe('Ceny nie są teraz dostępne.')
      expect(await off.page.locator('dg-offer-card').getByRole('status').textContent()).toBe(
        'Ceny nie są teraz dostępne.',
      )
      // the rest of the page is whole
      expect(await off.page.locator('h1').textContent()).toBe('Osiedle Nad Wartą')
      expect(await off.page.locator('dg-offer-table table').count()).toBe(0)
      await shot(`unavailable-pl-1280-${dialect}`, off.page)
      await off.context.close()
      // a page already showing the prices keeps them when a revalidation fails
      await table().evaluate((t) => (t as unknown as { refresh(): Promise<void> }).refresh())
      expect(await rowDesignations()).toHaveLength(ON_OFFER)
      await api('PUT', `/investments/${investmentId}/public-prices`, { enabled: true, allowed_origins: [site.origin] })
      // a page on an origin the investment does not list cannot read the prices either
      await api('PUT', `/investments/${investmentId}/public-prices`, {
        enabled: true,
        allowed_origins: ['https://www.deweloper.example'],
      })
      const foreign = await open('/')
      await expect
        .poll(() => foreign.page.locator('dg-offer-table').getByRole('status').textContent())
        .toBe('Ceny nie są teraz dostępne.')
      await foreign.context.close()
      await api('PUT', `/investments/${investmentId}/public-prices`, { enabled: true, allowed_origins: [site.origin] })
      problems.length = 0
    })

    it('speaks English with lang="en"', async () => {
      const english = await open('/en')
      await expect.poll(() => rowDesignations(english.page)).toHaveLength(ON_OFFER)
      const target = english.page.locator('dg-offer-table')
      expect(plain(await target.getByRole('status').textContent())).toBe(`Showing ${ON_OFFER} of ${ON_OFFER} units.`)
      const row = plain(await target.locator('tr[data-unit="A/1.01"]').textContent())
      expect(row).toContain('PLN 651,600.00')
      expect(row).toContain('from 1 Nov 2026')
      expect(row).toContain('Parking space P-12: PLN 42,000.00')
      await target.getByLabel('Rooms').selectOption('3')
      expect(plain(await target.getByRole('status').textContent())).toBe(`Showing 2 of ${ON_OFFER} units.`)
      expect(plain(await english.page.locator('dg-offer-card article').textContent())).toContain('3 rooms')
      await target
        .locator('tr[data-unit="A/1.01"]')
        .getByRole('button', { name: 'Price history of unit A/1.01' })
        .click()
      expect(plain(await target.locator('dialog h2').textContent())).toBe('Price history of unit A/1.01')
      await runAxe(english.page, 'the English dialog')
      await shot(`history-en-1280-${dialect}`, english.page)
      await english.context.close()
    })

    /** axe-core, evaluated in the page (not a script tag: the page's policy admits none). */
    async function runAxe(target: Page, what: string) {
      await target.evaluate(AXE_SOURCE)
      const found = await target.evaluate<Array<{ id: string; impact: string; nodes: number }>>(
        `(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
          .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))()`,
      )
      const serious = found.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      expect(serious, `${what}: ${JSON.stringify(found)}`).toEqual([])
    }
  })
