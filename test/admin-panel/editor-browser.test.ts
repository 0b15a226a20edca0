/*
 * The catalog editor's panel sections driven in Debian's Chromium (playwright-core, never a
 * downloaded browser), as a sales operator uses them: find an offer by search and filters, record
 * a price change with its date and reason (the catalog's price history then shows it), set the type
 * of an offer an integration sent without one, add a parking space to a flat, meet a stale edit
 * and save over it, see a refused value at its field, edit an investment, archive and restore, and
 * switch the panel to English. Set DG_PANEL_SCREENSHOTS=<folder> to keep screenshots (the ones in
 * docs/screenshots/editor/ come from `DG_PANEL_SCREENSHOTS=docs/screenshots/editor`).
 *
 * SQLite only, as the panel's other browser suite: the panel adds no storage code of its own; the
 * requests it makes are replayed on both databases by editor-panel-requests.test.ts.
 */
import fs from 'node:fs'
import path from 'node:path'

import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { parse } from 'csv-parse/sync'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { warsawDate } from '../../src/host/warsaw-day.js'
import { OFFICIAL_COLUMN_INDEX as COL } from '../../src/publication/daily-file/official-columns.js'
import { publicationStore } from '../../src/publication/publication-store.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { handbookShot } from '../helpers/handbook-screenshots.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'
import { deliver } from '../helpers/webhook.js'
import { chromiumPresent, launchChromium, openPage } from '../helpers/panel-browser.js'

const SCREENSHOTS = process.env.DG_PANEL_SCREENSHOTS
const API = '/wp-json/dg/v2'

const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
)

/** A condition the page reaches after a request: the default second is too short on a busy machine. */
const poll = <T>(check: () => T | Promise<T>) => expect.poll(check, { timeout: 10_000 })

/** Text as a reader sees it: non-breaking spaces (amounts) as spaces. */
const plain = (text: string | null) => (text ?? '').replace(/[\u00a0\u202f]/g, ' ')

describe.skipIf(!chromiumPresent)('catalog editor in the admin panel [sqlite]', () => {
  let env: TestEnv
  let browser: Browser
  let page: Page
  let origin: string
  let adminPassword: string
  let reader: TestUser
  let yesterday: string
  const problems: string[] = []

  const shot = async (name: string) => {
    if (!SCREENSHOTS) return
    fs.mkdirSync(SCREENSHOTS, { recursive: true })
    // from the top: the sticky bar would otherwise be drawn in the middle of a full-page shot
    await page.evaluate('window.scrollTo(0, 0)')
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
  }
  const api = async (method: 'GET' | 'PATCH' | 'POST', url: string, payload?: unknown, headers = {}) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      headers: { authorization: reader.authorization, ...headers },
    })
  const offerByCode = async (code: string, investmentSource = 'demo-zielone-tarasy') => {
    const row = await env.ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .selectAll('offers')
      .where('offers.code', '=', code)
      .where('investments.source_id', '=', investmentSource)
      .executeTakeFirstOrThrow()
    return row
  }
  const openOffer = async (id: number) => {
    await page.goto(`${origin}/dg-admin/#/oferty/${id}`)
    await page.locator('#offer-form').waitFor()
  }
  /** Waits for the confirmation, then clears it so that it does not cover the next screenshot. */
  const toastSays = async (text: string) => {
    await poll(async () => plain(await page.textContent('#toasts'))).toContain(text)
    await page.evaluate("document.getElementById('toasts')?.replaceChildren()")
  }

  beforeAll(async () => {
    env = await startTestApp('sqlite')
    // the browser keeps the session cookie until its Expires, which the server computes from its clock
    env.clock.set(new Date().toISOString())
    yesterday = warsawDate(new Date(env.clock.now().getTime() - 24 * 3600 * 1000))
    const demo = await setUpDemo(env.ctx)
    adminPassword = demo.admin.password
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    // custom fields as an extension of the deployment registers them (the demo's exposure among them)
    env.ctx.meta.register('dg_property', 'exposure', {
      type: 'string',
      showInRest: true,
      label: 'Ekspozycja',
      description: 'Strony świata, na które wychodzą okna',
    })
    env.ctx.meta.register('dg_investment', 'liczba_pieter', {
      type: 'integer',
      showInRest: true,
      label: 'Liczba pięter',
    })
    // an offer the webhook sent without a type: to be qualified in the panel
    const event = JSON.stringify({
      source_investment_id: 'demo-zielone-tarasy',
      source_property_id: 'CRM-U-7',
      prop_no: 'U/7',
      property_status: 'available',
      price_total: '310000.00',
      price_total_from: yesterday,
    })
    const delivered = await deliver(env.app, {
      body: event,
      key: 'panel-untyped-7',
      secret: demo.webhook_secret,
      timestamp: Math.floor(env.clock.now().getTime() / 1000),
    })
    expect(delivered.statusCode, delivered.body).toBe(202)

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

  it('logs in and finds an offer by search and filters in a paged table', async () => {
    await page.goto(`${origin}/dg-admin/`)
    await page.fill('#login', 'admin')
    await page.fill('#password', adminPassword)
    await page.click('button[type=submit]')
    await page.locator('#nav').waitFor()
    await page.click('#nav a[data-route=oferty]')
    await page.locator('#offers-table tbody tr').first().waitFor()
    // the untyped offer is announced and flagged
    await page.locator('#untyped-notice .alert').waitFor()
    expect(await page.textContent('#untyped-notice')).toContain('Oferty bez rodzaju: 1')
    await shot('01-offers')

    const investment = await env.ctx.db
      .selectFrom('investments')
      .select('id')
      .where('source_id', '=', 'demo-zielone-tarasy')
      .executeTakeFirstOrThrow()
    await page.selectOption('#filter-investment', String(investment.id))
    await page.fill('#filter-search', 'A/0.01')
    await poll(() => page.locator('#offers-table tbody tr').count()).toBe(1)
    const row = page.locator('#offers-table tbody tr').first()
    expect(await row.getAttribute('data-code')).toBe('A/0.01')
    expect(plain(await row.textContent())).toContain('944 680,00 zł')
    // the filters are kept in the address, so "back" returns to this list
    expect(page.url()).toContain('search=A%2F0.01')
    await shot('02-offers-filtered')

    // sorted by the server: price descending puts the dearest first
    await page.fill('#filter-search', '')
    await page.selectOption('#filter-investment', '')
    await page.click('#offers-table th button[data-sort=price]')
    await page.click('#offers-table th button[data-sort=price]')
    await poll(() => page.getAttribute('#offers-table th:has(button[data-sort=price])', 'aria-sort')).toBe('descending')
    const prices = await page.locator('#offers-table tbody tr td.num:nth-child(7)').allTextContents()
    const cents = prices.map(
      (text) =>
        Number(
          plain(text)
            .replace(/[^0-9,]/g, '')
            .replace(',', '.'),
        ) || 0,
    )
    expect(cents).toEqual([...cents].sort((a, b) => b - a))
  })

  it('records a price change with its date and reason; the history table and the catalog show it', async () => {
    const offer = await offerByCode('A/0.01')
    await page.goto(`${origin}/dg-admin/#/oferty?search=A%2F0.01`)
    await page.click(`#offers-table a.offer-link[data-id="${offer.id}"]`)
    await page.locator('#price-form').waitFor()
    expect(await page.inputValue('#price-price_total')).toBe('944 680,00')

    // the total typed alone: the price per m² is computed from the area and shown before saving,
    // with the rounding rule; nothing is written until the operator saves
    await page.fill('#price-price_total', '971 800,00')
    expect(await page.inputValue('#price-price_m2')).toBe('21 500,00')
    expect(plain(await page.textContent('#price-computed'))).toBe(
      plain('Cena za m² obliczona: 971 800,00 zł ÷ 45,20 m² = 21 500,00 zł/m².'),
    )
    expect(await page.textContent('#price-rounding-rule')).toContain('do pełnego grosza, połowa grosza w górę')
    // the other way round: a price per m² gives the total, rounded to the grosz
    await page.fill('#price-price_m2', '21 333,33')
    expect(await page.inputValue('#price-price_total')).toBe('964 266,52')
    expect(await page.getAttribute('#price-price_total', 'class')).toContain('computed')
    await page.fill('#price-price_total', '971 800,00')
    await page.fill('#price-from', yesterday)
    await page.fill('#price-reason', 'Cennik grudniowy')
    expect((await offerByCode('A/0.01')).price_total_cents).toBe(offer.price_total_cents)
    await shot('03-price-computed')
    await handbookShot(page, 'editor/03-price-computed')
    // an amount the panel cannot read computes nothing, and the server refuses it at its field
    await page.fill('#price-price_total', '971.800,00')
    await page.click('#save-prices')
    const totalField = page.locator('#price-form .field[data-field~="price_total"]')
    await poll(() => totalField.getAttribute('class')).toContain('has-error')
    expect(await totalField.locator('.field-error').textContent()).toMatch(/Cena/)
    expect((await offerByCode('A/0.01')).price_total_cents).toBe(offer.price_total_cents)
    await shot('03-price-refused-at-field')
    await handbookShot(page, 'editor/03-price-refused-at-field')
    await page.fill('#price-price_total', '971 800,00')
    await page.click('#save-prices')
    await toastSays('Zapisano zmianę ceny')
    expect((await offerByCode('A/0.01')).price_total_cents).toBe(97_180_000)
    const history = page.locator('#price-history tbody tr')
    await poll(() => history.count()).toBe(4)
    const newest = plain(await history.first().textContent())
    expect(newest).toContain('zmiana ceny')
    expect(newest).toContain('Cennik grudniowy')
    expect(newest).toContain(yesterday.split('-').reverse().join('.'))
    expect(plain(await page.textContent('#price-history'))).toContain('971 800,00 zł')
    expect(plain(await page.textContent('#price-history'))).toContain('944 680,00 zł')
    // the same history as a chart (uPlot): the total as steps, today's amount in the legend
    await page.locator('#price-chart canvas').waitFor()
    await poll(async () => plain(await page.textContent('#price-chart .u-legend'))).toMatch(
      /Cena całkowita:?\s*971 800,00 zł/,
    )
    await shot('04-price-changed')
    await handbookShot(page, 'editor/04-price-changed')

    const catalog = (await api('GET', `/catalog/properties/${offer.id}/price-history`)).json()
    expect(catalog.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          record_type: 'change',
          price_type: 'total',
          valid_from: yesterday,
          before: expect.objectContaining({ cents: offer.price_total_cents }),
          after: expect.objectContaining({ cents: 97_180_000 }),
          reason: 'Cennik grudniowy',
        }),
      ]),
    )
  })

  it('sets the type of an offer sent without one, after which it is no longer flagged', async () => {
    await page.click('#nav a[data-route=oferty]')
    await page.click('#show-untyped')
    await poll(() => page.locator('#offers-table tbody tr').count()).toBe(1)
    expect(await page.locator('#offers-table tbody tr [data-unqualified]').count()).toBe(1)
    await page.click('#offers-table a.offer-link')
    await page.locator('#qualify').waitFor()
    await shot('05-untyped-offer')

    await page.selectOption('#qualify-type', 'mieszkanie')
    await page.click('#qualify-submit')
    await toastSays('Ustawiono rodzaj oferty')
    await poll(() => page.locator('#qualify').count()).toBe(0)
    expect(await page.textContent('#offer-heading')).toBe('Mieszkanie U/7')
    const stored = await offerByCode('U/7')
    expect(stored.property_type).toBe('mieszkanie')
    await page.click('#nav a[data-route=oferty]')
    await page.locator('#offers-table tbody tr').first().waitFor()
    expect(await page.locator('#untyped-notice .alert').count()).toBe(0)
  })

  it('adds a parking space with its price to a flat', async () => {
    const flat = await offerByCode('A/0.01')
    await openOffer(flat.id)
    await page.click('#add-component')
    await page.selectOption('#component-kind', 'parking_space')
    await page.fill('#component-designation', 'MP-12')
    await page.fill('#component-price', '45 000,00')
    await page.fill('#component-price_from', yesterday)
    await page.fill('#component-legal_title', 'odrębna własność')
    await page.fill('#component-relation', 'przynależne do lokalu')
    await shot('06-component-form')
    await page.click('#save-component')
    await toastSays('Dodano element')
    const row = page.locator('#components tbody tr')
    await poll(() => row.count()).toBe(1)
    const text = plain(await row.first().textContent())
    expect(text).toContain('Miejsce postojowe')
    expect(text).toContain('MP-12')
    expect(text).toContain('45 000,00 zł')
    await poll(async () => plain(await page.textContent('#price-history'))).toContain('Miejsce postojowe MP-12')
    await shot('07-component-added')
    await handbookShot(page, 'editor/07-component-added')

    const detail = (await api('GET', `/catalog/properties/${flat.id}`)).json()
    expect(detail.components).toEqual([
      expect.objectContaining({ price: '45 000,00 zł', legal_title: 'odrębna własność' }),
    ])
  })

  it('shows a price entered ahead as announced beside the price in force, and fills column 42 in one click', async () => {
    const flat = await offerByCode('A/0.01')
    const tomorrow = warsawDate(new Date(env.clock.now().getTime() + 24 * 3600 * 1000))
    await openOffer(flat.id)
    await page.fill('#price-price_total', '1 075 760,00')
    await page.fill('#price-price_m2', '23 800,00')
    await page.fill('#price-from', tomorrow)
    await page.fill('#price-reason', 'Cennik od jutra')
    await page.click('#save-prices')
    await toastSays('Zapisano zmianę ceny')
    // the hint says what is in force now and what is announced
    const totalHint = plain(await page.textContent('#price-form .field[data-field~="price_total"]'))
    expect(totalHint).toContain(`teraz ${plain('971 800,00')}`)
    expect(totalHint).toContain(`1 075 760,00 zł od ${tomorrow.split('-').reverse().join('.')} (zapowiedziana)`)
    await poll(async () => plain(await page.textContent('#price-history tbody tr'))).toContain('(zapowiedziana)')
    // the catalog (and the website) keeps the price in force until tomorrow
    expect((await api('GET', `/catalog/properties/${flat.id}`)).json().offer.price_cents).toBe(97_180_000)
    await shot('07b-price-announced')
    await handbookShot(page, 'editor/07b-price-announced')

    // column 42: the total plus the parking space, in one click
    await page.click('#compute-combined-price')
    expect(await page.inputValue('#price-price_combined')).toBe('1 120 760,00')
    expect(plain(await page.textContent('#price-combined-computed'))).toMatch(/Cena łączna = 1 075 760,00 zł/)
    await shot('07c-combined-computed')
  })

  it('creates a storage room sold on its own; the day’s file shows it and the flat’s parking space', async () => {
    await page.click('#nav a[data-route=oferty]')
    await page.click('#new-offer')
    await page.locator('#new-offer-form').waitFor()
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select('id')
      .where('source_id', '=', 'demo-zielone-tarasy')
      .executeTakeFirstOrThrow()
    await page.selectOption('#new-investment_id', String(investment.id))
    await page.selectOption('#new-prop_type', 'storage_room')
    await page.fill('#new-prop_no', 'KL-P1')
    await page.fill('#new-prop_area', '4,5')
    await page.fill('#new-price_total', '18 000')
    await page.fill('#new-price_from', yesterday)
    await shot('08-new-storage-room')
    await page.click('#create-offer')
    await page.locator('#offer-form').waitFor()
    expect(await page.textContent('#offer-heading')).toBe('Komórka lokatorska KL-P1')
    expect(plain(await page.textContent('#components-card'))).toContain('część sprzedawana osobno')

    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    const date = warsawDate(env.clock.now())
    const admin = await createTestUser(env.ctx, 'administrator')
    const published = await env.app.inject({
      method: 'POST',
      url: `${API}/publications`,
      payload: { date },
      headers: { authorization: admin.authorization },
    })
    expect(published.statusCode, published.body).toBe(200)
    const manifest = await publicationStore(env.ctx).currentManifest()
    const entry = manifest?.days.filter((d) => d.date === date).at(-1)
    const rows = parse(fs.readFileSync(publicationStore(env.ctx).csvPath(entry?.md5 ?? '')), {
      delimiter: ';',
      from_line: 2,
    }) as string[][]
    const flat = rows.find((r) => r[COL.property_code] === 'A/0.01' && r[COL.part_designation] === 'MP-12')
    expect([flat?.[COL.part_kind], flat?.[COL.part_price], flat?.[COL.part_price_from]]).toEqual([
      'Miejsce postojowe',
      '45000.00',
      yesterday,
    ])
    const room = rows.find((r) => r[COL.room_designation] === 'KL-P1')
    expect([room?.[COL.room_price], room?.[COL.room_price_from]]).toEqual(['18000.00', yesterday])
  })

  it('changes a part’s price with a reason, and removes a part after a confirmation (its price withdrawn)', async () => {
    const flat = await offerByCode('A/0.01')
    await openOffer(flat.id)
    await page.click('#components tbody tr:has-text("MP-12") button.edit-component')
    await page.locator('#component-form').waitFor()
    expect(await page.inputValue('#component-price')).toBe('45 000,00')
    await page.fill('#component-price', '47 000,00')
    await page.fill('#component-reason', 'Nowy cennik miejsc')
    await page.click('#save-component')
    await toastSays('Zapisano element')
    await poll(async () => plain(await page.textContent('#components'))).toContain('47 000,00 zł')

    // a storage room added by mistake, then removed: its price is withdrawn in the history
    await page.click('#add-component')
    await page.selectOption('#component-kind', 'storage_room')
    await page.fill('#component-designation', 'KL-9')
    await page.fill('#component-price', '12 000')
    await page.click('#save-component')
    await toastSays('Dodano element')
    await page.click('#components tbody tr:has-text("KL-9") button.delete-component')
    await page.locator('#confirm-dialog[open]').waitFor()
    await page.fill('#remove-component-reason', 'Dodana przez pomyłkę')
    await page.click('#confirm-ok')
    await toastSays('Usunięto element')
    await poll(() => page.locator('#components tbody tr:has-text("KL-9")').count()).toBe(0)
    const history = (await api('GET', `/catalog/properties/${flat.id}/price-history`)).json().items as Array<{
      record_type: string
      price_type: string
      reason: string
      after: { cents: number | null }
    }>
    expect(history).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ record_type: 'change', price_type: 'component', reason: 'Nowy cennik miejsc' }),
        expect.objectContaining({
          record_type: 'withdrawal',
          price_type: 'component',
          reason: 'Dodana przez pomyłkę',
          after: expect.objectContaining({ cents: null }),
        }),
      ]),
    )
  })

  it('uploads images and a PDF, orders the gallery and picks the main image; a renamed text file is refused', async () => {
    const flat = await offerByCode('A/0.01')
    await openOffer(flat.id)
    const image = (background: string) =>
      sharp({ create: { width: 800, height: 600, channels: 3, background } })
        .jpeg()
        .toBuffer()
    await page.setInputFiles('#media-file', [
      { name: 'salon.jpg', mimeType: 'image/jpeg', buffer: await image('#3a7fb0') },
      { name: 'kuchnia.jpg', mimeType: 'image/jpeg', buffer: await image('#c9773a') },
      { name: 'prospekt.pdf', mimeType: 'application/pdf', buffer: PDF },
      { name: 'zdjecie.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('<script>alert(1)</script>') },
    ])
    await toastSays('Dodano zdjęcia do galerii')
    const items = page.locator('#gallery li.gallery-item')
    await poll(() => items.count()).toBe(2)
    expect(await items.nth(0).locator('.gallery-title').textContent()).toBe('salon')
    expect(await items.nth(0).getAttribute('class')).toContain('main')
    expect(plain(await page.textContent('#documents'))).toContain('prospekt')
    const refused = page.locator('#upload-list li.upload-failed')
    expect(await refused.getAttribute('data-file')).toBe('zdjecie.jpg')
    expect(await refused.textContent()).toContain('nie jest obrazem JPEG, PNG lub WebP')
    // the previews load from the service under the panel's CSP (lazily: once in view)
    await items.nth(0).scrollIntoViewIfNeeded()
    await poll(() =>
      items
        .nth(0)
        .locator('img')
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0)
    await shot('09-media')

    // "kuchnia" first (the keyboard's way of dragging), then made the main image
    await items.nth(1).locator('button.move-earlier').click()
    await toastSays('Zmieniono kolejność')
    await poll(() => items.nth(0).locator('.gallery-title').textContent()).toBe('kuchnia')
    await items.nth(0).locator('button.make-main').click()
    await toastSays('Ustawiono zdjęcie główne')
    // and by dragging: "salon" dropped on the first place, then back
    await items.nth(1).dragTo(items.nth(0))
    await toastSays('Zmieniono kolejność')
    await poll(() => items.nth(0).locator('.gallery-title').textContent()).toBe('salon')
    await items.nth(1).dragTo(items.nth(0))
    await toastSays('Zmieniono kolejność')
    await poll(() => items.nth(0).locator('.gallery-title').textContent()).toBe('kuchnia')
    const stored = await offerByCode('A/0.01')
    const [kitchen, salon] = JSON.parse(stored.gallery) as [number, number]
    expect(stored.thumbnail_id).toBe(kitchen)

    const detail = (await api('GET', `/catalog/properties/${flat.id}`)).json()
    expect(detail.media.gallery.map((item: { id: number }) => item.id)).toEqual([kitchen, salon])
    expect(detail.media.thumbnail).toMatchObject({ id: kitchen, title: 'kuchnia' })
    const summary = (await api('GET', `/catalog/properties?search=A%2F0.01&per_page=100`)).json()
    expect(summary.find((item: { id: number }) => item.id === flat.id)?.gallery).toEqual([kitchen, salon])
    expect(detail.media.documents).toEqual([
      expect.objectContaining({ title: 'prospekt', mime_type: 'application/pdf' }),
    ])
  })

  it('shows a stale edit with the values stored meanwhile, and saves the change over them', async () => {
    const flat = await offerByCode('A/0.01')
    await openOffer(flat.id)
    // another operator (here: a script) changes the offer while the form is open
    const other = await env.app.inject({
      method: 'PATCH',
      url: `${API}/offers/${flat.id}`,
      payload: { building: 'B', variant: 'z tarasem' },
      headers: { authorization: (await createTestUser(env.ctx, 'administrator')).authorization, 'if-match': '*' },
    })
    expect(other.statusCode, other.body).toBe(200)

    await page.fill('#offer-building', 'C')
    await page.click('#save-offer')
    const conflict = page.locator('#edit-conflict')
    await conflict.waitFor()
    const rows = plain(await conflict.textContent())
    expect(rows).toContain('Ktoś zmienił te dane w międzyczasie')
    expect(await conflict.locator('tr:has(th:text("Budynek")) td.mine').textContent()).toBe('C')
    expect(await conflict.locator('tr:has(th:text("Budynek")) td.current').textContent()).toBe('B')
    // what the other operator changed and this one did not touch is named too
    expect(plain(await conflict.locator('tr:has(th:text("Wariant"))').textContent())).toContain('z tarasem')
    expect((await offerByCode('A/0.01')).building).toBe('B')
    await shot('10-stale-edit')
    await handbookShot(page, 'editor/10-stale-edit')

    await page.click('#conflict-reapply')
    await toastSays('Zapisano dane oferty')
    const stored = await offerByCode('A/0.01')
    expect(stored.building).toBe('C')
    // what the other operator changed and this one did not touch stays
    expect(stored.variant).toBe('z tarasem')
    expect(await page.inputValue('#offer-variant')).toBe('z tarasem')
  })

  it('renders a hostile title as text; saves a registered custom field', async () => {
    const flat = await offerByCode('A/0.01')
    await openOffer(flat.id)
    const payload = '<img src=x onerror="window.__xss=1">Mieszkanie'
    await page.fill('#offer-title', payload)
    // a registered custom field, by its label
    expect(await page.textContent('#offer-form .field[data-field~="custom_meta.exposure"] label')).toContain(
      'Ekspozycja',
    )
    await page.fill('#offer-meta-exposure', 'S-W')
    await page.click('#save-offer')
    await toastSays('Zapisano dane oferty')
    expect(await page.textContent('#offer-heading')).toBe(payload)
    expect(await page.locator('#offer-heading img').count()).toBe(0)
    expect(JSON.parse((await offerByCode('A/0.01')).custom_meta)).toMatchObject({ exposure: 'S-W' })
    await page.click('#nav a[data-route=oferty]')
    await page.locator('#offers-table tbody tr').first().waitFor()
    expect(await page.locator('#offers-table img').count()).toBe(0)
    expect(await page.evaluate('window.__xss')).toBeUndefined()
  })

  it('archives an offer after a confirmation and restores it', async () => {
    const offer = await offerByCode('B/1.01')
    await openOffer(offer.id)
    await page.click('#archive-offer')
    await page.locator('#confirm-dialog[open]').waitFor()
    expect(await page.textContent('#confirm-title')).toContain('B/1.01')
    await page.fill('#archive-reason', 'Wycofana ze sprzedaży')
    await shot('11-archive-confirm')
    await page.click('#confirm-ok')
    await toastSays('Zarchiwizowano ofertę')
    expect((await offerByCode('B/1.01')).status).toBe('archived')
    await page.locator('#restore-offer').waitFor()
    await page.click('#restore-offer')
    await page.click('#confirm-ok')
    await toastSays('Przywrócono ofertę')
    expect((await offerByCode('B/1.01')).status).toBe('available')
  })

  it('edits an investment’s location and custom field, refusing a wrong postal code and a wrong number at their fields', async () => {
    await page.click('#nav a[data-route=inwestycje]')
    await page.locator('#investments-table tbody tr').first().waitFor()
    await shot('12-investments')
    await page.click('#investments-table a.investment-link:text("Zielone Tarasy")')
    await page.locator('#investment-form').waitFor()
    await page.fill('#investment-postal_code', '0-123')
    await page.fill('#investment-meta-liczba_pieter', 'sześć')
    await page.click('#save-investment')
    const floors = page.locator('#investment-form .field[data-field~="custom_meta.liczba_pieter"]')
    await poll(() => floors.getAttribute('class')).toContain('has-error')
    expect(await floors.locator('.field-error').textContent()).toContain('liczbę całkowitą')
    const postal = page.locator('#investment-form .field[data-field~="location.postal_code"]')
    await poll(() => postal.getAttribute('class')).toContain('has-error')
    expect(await postal.locator('.field-error').textContent()).toMatch(/kod pocztowy/i)
    await shot('13-investment-refused')
    await page.fill('#investment-postal_code', '02-495')
    await page.fill('#investment-meta-liczba_pieter', '6')
    await page.fill('#investment-street', 'ul. Zielona 7')
    await page.click('#save-investment')
    await toastSays('Zapisano inwestycję')
    const stored = await env.ctx.db
      .selectFrom('investments')
      .select(['loc_postal_code', 'loc_street'])
      .where('source_id', '=', 'demo-zielone-tarasy')
      .executeTakeFirstOrThrow()
    expect(stored).toEqual({ loc_postal_code: '02-495', loc_street: 'ul. Zielona 7' })
    const id = (
      await env.ctx.db
        .selectFrom('investments')
        .select('id')
        .where('source_id', '=', 'demo-zielone-tarasy')
        .executeTakeFirstOrThrow()
    ).id
    const catalog = await api('GET', `/catalog/investments/${id}`)
    expect(catalog.json().custom_meta).toMatchObject({ liczba_pieter: 6 })
  })

  it('switches to English: labels, amounts and the server’s field messages', async () => {
    const flat = await offerByCode('A/0.01')
    await openOffer(flat.id)
    await page.click('#language-switch')
    await poll(() => page.textContent('#nav a[data-route=oferty]')).toBe('Offers')
    await page.locator('#offer-form').waitFor()
    await page.locator('#price-history').waitFor()
    const text = plain(await page.textContent('.page'))
    expect(text).toContain('Price history')
    expect(text).toContain('Parts and rooms')
    expect(text).toContain('price change')
    expect(await page.textContent('#language-switch')).toBe('Polski')
    await page.fill('#price-price_total', 'dużo')
    await page.click('#save-prices')
    const field = page.locator('#price-form .field[data-field~="price_total"] .field-error')
    await poll(() => field.isVisible()).toBe(true)
    expect(await field.textContent()).toMatch(/price_total/)
    await shot('14-english')

    // the choice is remembered, and Polish comes back with one click
    await page.reload()
    await poll(() => page.textContent('#nav a[data-route=oferty]')).toBe('Offers')
    await page.click('#language-switch')
    await poll(() => page.textContent('#nav a[data-route=oferty]')).toBe('Oferty')
    expect(problems).toEqual([])
  })
})
