/*
 * The example website back end (examples/website) against the service with the demo catalog and
 * the example extension: its pages show what the catalog says, its filters ask the catalog the
 * contract's questions, a repeat view costs the catalog only 304s, a 429 stops every call until
 * Retry-After, an unreachable catalog gives a friendly page, and nothing it sends to a browser
 * holds the application password or the catalog's address.
 */
import net from 'node:net'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { CatalogClient } from '../../src/catalog/client.js'
import { updateOffer } from '../../src/editor/offer-editor-service.js'
import { hideServiceAddress } from '../../examples/website/src/catalog-gateway.js'
import { readOfferFilters, zlotyToGrosze } from '../../examples/website/src/offer-filters.js'
import { setOption } from '../../src/host/options/options.js'
import {
  type DemoService,
  type RunningWebsite,
  startDemoService,
  startExampleWebsite,
} from '../helpers/servers/example-website.js'
import { TEST_DIALECTS } from '../helpers/databases.js'

/** The text of each cell of the offer table's rows (header cell first). */
function tableRows(page: string): string[][] {
  const body = /<table class="offers">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? ''
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) =>
      (cell[1] ?? '')
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  )
}

const TABLE = { title: 0, investment: 1, type: 2, rooms: 3, floor: 4, area: 5, price: 6, priceM2: 7, status: 8 }

describe('offer filters as the visitor types them', () => {
  it('turns złoty into grosze and Polish decimals into the catalog’s, and names what it cannot read', () => {
    expect(zlotyToGrosze('450 000')).toBe(45_000_000)
    expect(zlotyToGrosze('450000,5')).toBe(45_000_050)
    expect(zlotyToGrosze('1 040 040,00 zł')).toBe(104_004_000)
    expect(zlotyToGrosze('dużo')).toBeUndefined()
    const filters = readOfferFilters(
      new URLSearchParams(
        'pokoje=3&pietro=-1&pow_od=45,5&pow_do=80&cena_do=900 000&status=available&typ=dom&szukaj= A/1 &sortuj=area&kolejnosc=malejaco&strona=2',
      ),
      { perPage: 20 },
    )
    expect(filters.query).toEqual({
      per_page: 20,
      rooms: 3,
      floor: -1,
      area_min: '45.5',
      area_max: '80',
      price_max: 90_000_000,
      status: 'available',
      type: 'dom',
      search: 'A/1',
      orderby: 'area',
      order: 'DESC',
      page: 2,
    })
    const wrong = readOfferFilters(new URLSearchParams('pokoje=trzy&cena_od=abc&status=whatever'), { perPage: 20 })
    expect(wrong.query).toEqual({ per_page: 20, orderby: 'price', order: 'ASC', page: 1 })
    expect(wrong.problems).toEqual([
      'Liczba pokoi musi być liczbą całkowitą.',
      'Cena od: podaj kwotę w złotych, np. 450 000.',
    ])
  })

  it('rewrites the catalog’s address in any answer: its files go through /media/, elsewhere it is cut out', () => {
    const answer = {
      image: 'http://127.0.0.1:8080/uploads/a.jpg',
      url: 'https://www.example.pl/oferty/x-1/',
      media: { gallery: [{ url: 'HTTP://127.0.0.1:8080/uploads/b.png?v=2' }] },
      note: 'see http://127.0.0.1:8080/wp-json',
      list: ['127.0.0.1:8080', 'other'],
    }
    hideServiceAddress(answer, '127.0.0.1:8080')
    expect(answer).toEqual({
      image: '/media/uploads/a.jpg',
      url: 'https://www.example.pl/oferty/x-1/',
      media: { gallery: [{ url: '/media/uploads/b.png?v=2' }] },
      note: 'see http:///wp-json',
      list: ['', 'other'],
    })
  })
})

for (const dialect of TEST_DIALECTS) {
  describe(`example website against the demo catalog [${dialect}]`, () => {
    let service: DemoService
    let site: RunningWebsite
    let api: CatalogClient
    const served: string[] = []
    const view = async (path: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${site.url}${path}`, { headers })
      const body = await response.text()
      served.push(body, JSON.stringify([...response.headers]))
      // markup with its whitespace folded: what a page says, whatever the template's line breaks
      const text = body.replace(/\s+/g, ' ').replace(/> </g, '><')
      return { status: response.status, text, headers: response.headers }
    }

    beforeAll(async () => {
      service = await startDemoService(dialect, { env: { DG_CATALOG_RATE_LIMIT: '100000' } })
      site = await startExampleWebsite({ baseUrl: service.catalogUrl, password: service.password })
      api = new CatalogClient({ baseUrl: service.catalogUrl, user: 'website', password: service.password })
    })
    afterAll(async () => {
      await site?.close()
      await service?.close()
    })

    it('lists the investments and the offers in Polish, prices and statuses exactly as the catalog gives them', async () => {
      const home = await view('/')
      expect(home.status).toBe(200)
      expect(home.text).toContain('<html lang="pl">')
      for (const investment of (await api.investments({ per_page: 100 })).items)
        expect(home.text).toContain(investment.title)

      const offers = await view('/oferty')
      const rows = tableRows(offers.text)
      const expected = await api.properties({ per_page: 20, orderby: 'price', order: 'ASC' })
      expect(rows.map((r) => r[TABLE.title])).toEqual(expected.items.map((o) => o.title))
      expect(rows.map((r) => r[TABLE.price])).toEqual(expected.items.map((o) => o.price))
      expect(rows.map((r) => r[TABLE.priceM2])).toEqual(expected.items.map((o) => o.price_m2 || '—'))
      expect(rows.map((r) => r[TABLE.area])).toEqual(expected.items.map((o) => o.area_label || '—'))
      expect(rows.map((r) => r[TABLE.status])).toEqual(expected.items.map((o) => o.status_label))
      expect(offers.text).toContain(`${expected.total} ofert`)
    })

    it('asks the catalog exactly the filters the visitor chose, with its sorting', async () => {
      const page = await view(
        '/oferty?pokoje=2&cena_od=500 000&cena_do=1 100 000&status=available&typ=mieszkanie&sortuj=area&kolejnosc=malejaco',
      )
      const rows = tableRows(page.text)
      const expected = await api.properties({
        rooms: 2,
        price_min: 50_000_000,
        price_max: 110_000_000,
        status: 'available',
        type: 'mieszkanie',
        orderby: 'area',
        order: 'DESC',
        per_page: 20,
      })
      expect(expected.items.length).toBeGreaterThan(1)
      expect(rows.map((r) => r[TABLE.title])).toEqual(expected.items.map((o) => o.title))
      for (const row of rows) {
        expect(row[TABLE.rooms]).toBe('2')
        expect(row[TABLE.status]).toBe('Dostępne')
      }

      const floorAndArea = tableRows((await view('/oferty?pietro=0&pow_od=45&pow_do=70,5&sortuj=title')).text)
      const expectedFloor = await api.properties({
        floor: 0,
        area_min: '45',
        area_max: '70.5',
        orderby: 'title',
        order: 'ASC',
        per_page: 20,
      })
      expect(floorAndArea.map((r) => r[TABLE.title])).toEqual(expectedFloor.items.map((o) => o.title))
      expect(floorAndArea.every((r) => r[TABLE.floor] === 'parter')).toBe(true)

      const search = tableRows((await view('/oferty?szukaj=MP')).text)
      expect(search.length).toBeGreaterThan(0)
      expect(search.every((r) => /MP/.test(r[TABLE.title] ?? ''))).toBe(true)

      const grid = await view('/oferty?widok=siatka&typ=dom')
      const cards = [...grid.text.matchAll(/<li class="offer-card" data-offer-id="(\d+)"/g)].map((m) => Number(m[1]))
      expect(cards).toEqual(
        (await api.properties({ type: 'dom', orderby: 'price', order: 'ASC', per_page: 12 })).items.map((o) => o.id),
      )

      const wrong = await view('/oferty?pokoje=trzy')
      expect(wrong.status).toBe(200)
      expect(wrong.text).toContain('Liczba pokoi musi być liczbą całkowitą.')
    })

    it('shows the offer card: price, components, contact, custom fields, the price history as a table and a chart, related offers', async () => {
      const offer = (await api.properties({ search: 'A/1.01', per_page: 20 })).items.find(
        (o) => o.investment_title === 'Zielone Tarasy',
      )
      expect(offer).toBeDefined()
      const id = offer!.id
      const [detail, history, related] = await Promise.all([
        api.property(id),
        api.priceHistory(id),
        api.related(id, { per_page: 6 }),
      ])
      const card = await view(`/oferty/${id}`)
      expect(card.status).toBe(200)
      expect(card.text).toContain(`<p class="price-main" id="offer-price">${detail.offer.price}</p>`)
      expect(card.text).toContain(`Cena obowiązuje od ${detail.offer.price_date}`)
      expect(card.text).toContain(detail.offer.rooms_label as string)
      for (const component of detail.components) expect(card.text).toContain(component.price)
      expect(card.text).toContain(detail.contact.developer_name.replace('.', '.'))
      const historyRows = /<table class="price-history">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(card.text)?.[1] ?? ''
      const cells = [...historyRows.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
        [...(row[1] ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) =>
          (c[1] ?? '')
            .replace(/<[^>]+>/g, '')
            .replace(/\s+/g, ' ')
            .trim(),
        ),
      )
      expect(cells).toEqual(
        history.items.map((item) => [
          item.valid_from,
          item.recorded_at,
          `${item.label}${item.correction ? ' (korekta)' : ''}${item.announced ? ' (zapowiedziana)' : ''}`,
          item.before.formatted || '—',
          item.after.formatted || '—',
          item.reason || '—',
        ]),
      )
      const totals = history.items.filter((i) => i.price_type === 'total' && !i.announced)
      expect(totals.length).toBeGreaterThan(1)
      expect([...card.text.matchAll(/<circle class="dot"/g)]).toHaveLength(totals.length)
      expect(card.text).toContain('<svg')
      for (const total of totals) expect(card.text).toContain(`${total.valid_from}: ${total.after.formatted}`)
      for (const other of related.items) expect(card.text).toContain(`data-offer-id="${other.id}"`)

      const permalink = new URL(detail.offer.url).pathname
      expect((await view(permalink)).status).toBe(200)
      expect((await view('/oferty/999999')).status).toBe(404)
    })

    it('lists a price announced for a later day as announced, out of the chart, while the card shows the price in force', async () => {
      const offer = (await api.properties({ search: 'A/1.02', per_page: 20 })).items.find(
        (o) => o.investment_title === 'Zielone Tarasy',
      )!
      const today = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Warsaw' }).format(service.env.clock.now())
      const later = new Date(Date.parse(`${today}T12:00:00Z`) + 8 * 86_400_000).toISOString().slice(0, 10)
      const before = await api.property(offer.id)
      const price = (cents: number) => (cents / 100).toFixed(2)
      const m2 = (before.offer.price_m2_cents as number) + 10_000
      await updateOffer(
        service.env.ctx,
        { type: 'system' },
        offer.id,
        {
          price_m2: price(m2),
          price_m2_from: later,
          price_total: price(Math.round(m2 * Number(before.offer.area))),
          price_total_from: later,
          reason: 'Nowy cennik',
        },
        '*',
      )
      const history = (await api.priceHistory(offer.id)).items
      const announced = history.filter((item) => item.announced)
      expect(announced.map((item) => [item.price_type, item.valid_from]).sort()).toEqual([
        ['m2', later],
        ['total', later],
      ])
      expect(history.filter((item) => !item.announced).every((item) => item.valid_from <= today)).toBe(true)
      const card = await view(`/oferty/${offer.id}`)
      expect(card.text).toContain(`<p class="price-main" id="offer-price">${before.offer.price}</p>`)
      const rows = /<table class="price-history">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(card.text)?.[1] ?? ''
      const marked = [...rows.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
        .map((row) => row[1] ?? '')
        .filter((row) => row.includes('(zapowiedziana)'))
      expect(marked).toHaveLength(2)
      for (const row of marked) expect(row).toContain(`<td>${later}</td>`)
      // the chart ends at today's price: no point, no label for the announced day
      const chart = /<figure class="price-chart">[\s\S]*?<\/figure>/.exec(card.text)?.[0] ?? ''
      expect(chart).toContain('<svg')
      expect(chart).not.toContain(later)
    })

    it('shows custom fields and site options the extension registered', async () => {
      await setOption(service.env.ctx, 'dg_ext_promo_banner', '  Rabat 5%   na lokale z ogródkiem ')
      const investment = (await api.investments({ search: 'Zielone', per_page: 5 })).items[0]!
      const page = await view(`/inwestycje/${investment.id}`)
      expect(page.text).toContain('<p class="banner" role="note">Rabat 5% na lokale z ogródkiem</p>')
      expect(page.text).toContain('<dt>Klasa energetyczna</dt><dd>A</dd>')
      expect(page.text).toContain('<dt>Termin oddania</dt><dd>2027-Q2</dd>')
    })

    it('escapes catalog text: a title with markup is shown as text', async () => {
      const [first] = (await api.properties({ per_page: 1, orderby: 'title', order: 'ASC' })).items
      await service.env.ctx.db
        .updateTable('offers')
        .set({ title: '<script>alert("x")</script> A&B' })
        .where('id', '=', first!.id)
        .execute()
      const card = await view(`/oferty/${first!.id}`)
      expect(card.text).not.toContain('<script>alert')
      expect(card.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; A&amp;B')
      expect(card.headers.get('content-security-policy')).toContain("default-src 'none'")
    })

    it('answers a repeat view with the catalog’s 304s, and a browser’s repeat view with its own 304', async () => {
      const path = '/oferty?sortuj=title&strona=2'
      const first = await view(path)
      expect(first.status).toBe(200)
      const before = { ...site.catalog.stats }
      const again = await view(path)
      expect(again.text).toBe(first.text)
      const calls = site.catalog.stats.calls - before.calls
      expect(calls).toBeGreaterThan(0)
      expect(site.catalog.stats.notModified - before.notModified).toBe(calls)

      const browser = await view(path, { 'if-none-match': String(first.headers.get('etag')) })
      expect(browser.status).toBe(304)
      expect(browser.text).toBe('')

      await setOption(service.env.ctx, 'dg_ext_promo_banner', 'Nowy baner')
      const changed = await view(path, { 'if-none-match': String(first.headers.get('etag')) })
      expect(changed.status).toBe(200)
      expect(changed.text).toContain('Nowy baner')
    })

    it('shows a file the catalog serves itself through its own /media/ path', async () => {
      const origin = new URL(service.catalogUrl).origin
      const offer = (await api.properties({ search: 'A/1.01', per_page: 20 })).items.find(
        (o) => o.investment_title === 'Zielone Tarasy',
      )!
      const [photo] = (await api.property(offer.id)).media.gallery
      await service.env.ctx.db
        .updateTable('attachments')
        .set({ url: `${origin}/wp-json/dg/v2/openapi.json` })
        .where('id', '=', photo!.id)
        .execute()
      const card = await view(`/oferty/${offer.id}`)
      expect(card.text).toContain('<img src="/media/wp-json/dg/v2/openapi.json"')
      // only images and documents pass: the catalog's JSON does not
      const proxied = await fetch(`${site.url}/media/wp-json/dg/v2/openapi.json`)
      expect(proxied.status).toBe(404)
      served.push(await proxied.text())
    })

    it('never sends the application password or the catalog’s address to a browser', async () => {
      await view('/static/site.css')
      const spaced = service.password.replace(/(.{4})/g, '$1 ').trim()
      const basic = Buffer.from(`website:${service.password}`).toString('base64')
      const { host } = new URL(service.catalogUrl)
      expect(served.length).toBeGreaterThan(20)
      for (const text of served) {
        for (const secret of [service.password, spaced, basic, host]) expect(text).not.toContain(secret)
      }
    })
  })
}

describe('example website when the catalog cannot answer', () => {
  it('shows a friendly page in Polish when the catalog is unreachable, without its address', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo
        probe.close(() => resolve(free))
      })
    })
    const site = await startExampleWebsite({
      baseUrl: `http://127.0.0.1:${port}/wp-json/dg/v2`,
      password: 'abcd efgh ijkl mnop qrst uvwx',
    })
    try {
      for (const path of ['/', '/oferty', '/oferty/3', '/inwestycje/1']) {
        const response = await fetch(`${site.url}${path}`)
        const text = await response.text()
        expect(response.status).toBe(503)
        expect(response.headers.get('retry-after')).toBe('30')
        expect(text).toContain('Oferty są chwilowo niedostępne')
        expect(text).not.toContain(String(port))
        expect(text).not.toContain('abcd')
      }
      // the server's log says why, for the operator
      expect(site.log[0]).toMatchObject({ level: 'error', reason: 'the catalog could not be reached' })
      expect(String(site.log[0]?.cause)).toMatch(/ECONNREFUSED|fetch failed/)
    } finally {
      await site.close()
    }
  })

  for (const dialect of TEST_DIALECTS) {
    it(`honours Retry-After: after a 429 no page asks the catalog until the wait is over [${dialect}]`, async () => {
      const service = await startDemoService(dialect, { env: { DG_CATALOG_RATE_LIMIT: '5' } })
      // the service's clock at the start of its rate-limit minute: the 429 asks for the whole minute
      service.env.clock.set(new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString())
      let now = Date.now()
      const site = await startExampleWebsite({
        baseUrl: service.catalogUrl,
        password: service.password,
        now: () => now,
      })
      try {
        let busy: Response | undefined
        for (let i = 0; i < 6 && !busy; i++) {
          const response = await fetch(`${site.url}/oferty?strona=1&n=${i}`)
          if (response.status === 503) busy = response
          else await response.text()
        }
        expect(busy).toBeDefined()
        const wait = Number(busy!.headers.get('retry-after'))
        expect(wait).toBeGreaterThan(55)
        expect(wait).toBeLessThanOrEqual(60)
        const text = await busy!.text()
        expect(text).toContain('W tej chwili odwiedza nas bardzo wiele osób.')
        expect(text).toContain(`Spróbuj ponownie za ${wait} s.`)
        expect(site.catalog.stats.rateLimited).toBe(1)

        const callsWhileBlocked = site.catalog.stats.calls
        for (const path of ['/', '/oferty', '/oferty/1']) expect((await fetch(`${site.url}${path}`)).status).toBe(503)
        expect(site.catalog.stats.calls).toBe(callsWhileBlocked)

        // the wait is over (on the website's clock and on the service's)
        now += (wait + 1) * 1000
        service.env.clock.advance((wait + 1) * 1000)
        expect((await fetch(`${site.url}/`)).status).toBe(200)
        expect(site.catalog.stats.calls).toBeGreaterThan(callsWhileBlocked)
      } finally {
        await site.close()
        await service.close()
      }
    })
  }
})
