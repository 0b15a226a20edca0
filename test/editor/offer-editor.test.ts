/*
 * The offer editor over REST, as an operator (or a CRM script) uses it: every write goes through
 * the shared write path, so what it changes shows where a user looks — the catalog, its price
 * history, the next daily file — and what it refuses leaves nothing behind.
 */
import fs from 'node:fs/promises'

import { parse } from 'csv-parse/sync'
import { beforeAll, describe, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { validateOfferRow } from '../../src/offers/validation/validate-offer-row.js'
import { OFFICIAL_COLUMN_INDEX } from '../../src/publication/daily-file/official-columns.js'
import { publicationStore } from '../../src/publication/publication-store.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { deliveryHeaders } from '../helpers/webhook.js'

const API = '/wp-json/dg/v2'
const COL = OFFICIAL_COLUMN_INDEX

type Json = Record<string, unknown>

describeEachDatabase('offer editor', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let reader: TestUser
  let webhookSecret: string
  let investmentId: number
  let day = 20

  const call = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as Json }),
      headers: { authorization: admin.authorization, ...headers },
    })
  const catalog = (url: string) =>
    env.app.inject({ method: 'GET', url: `${API}/catalog${url}`, headers: { authorization: reader.authorization } })
  const countRows = async (table: 'price_history' | 'audit_log' | 'offers' | 'offer_components') =>
    Number(
      (
        await env.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  /** Publishes the next day and returns the rows of its CSV (header left out). */
  async function publishNextDay(): Promise<string[][]> {
    day++
    const date = `2026-11-${day}`
    env.clock.set(`${date}T10:00:00Z`)
    const published = await call('POST', '/publications', { date })
    expect(published.statusCode, published.body).toBe(200)
    const manifest = await publicationStore(env.ctx).currentManifest()
    const entry = manifest?.days.filter((d) => d.date === date).at(-1)
    const csv = await fs.readFile(publicationStore(env.ctx).csvPath(entry?.md5 ?? ''))
    return parse(csv, { delimiter: ';', from_line: 2 }) as string[][]
  }

  async function createFlat(fields: Json = {}): Promise<Json> {
    const created = await call('POST', '/offers', {
      investment_id: investmentId,
      prop_no: `E/${Math.random().toString(36).slice(2, 8)}`,
      prop_type: 'mieszkanie',
      property_status: 'available',
      prop_area: '50.00',
      prop_rooms: 2,
      price_m2: '10000.00',
      price_m2_from: '2026-11-01',
      price_total: '500000.00',
      price_total_from: '2026-11-01',
      ...fields,
    })
    expect(created.statusCode, created.body).toBe(201)
    return created.json()
  }

  beforeAll(async () => {
    env = getEnv()
    const demo = await setUpDemo(env.ctx)
    webhookSecret = demo.webhook_secret
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select('id')
      .where('host_status', '=', 'publish')
      .orderBy('id')
      .executeTakeFirstOrThrow()
    investmentId = investment.id
  })

  describe('reads', () => {
    it('lists offers of every host status with the catalog’s filters, paged, and reads one with its version', async () => {
      const list = await call('GET', '/offers?per_page=5&orderby=code&order=ASC')
      expect(list.statusCode, list.body).toBe(200)
      expect(list.json()).toHaveLength(5)
      const total = Number(list.headers['x-wp-total'])
      expect(total).toBe(await countRows('offers'))
      expect(Number(list.headers['x-wp-totalpages'])).toBe(Math.ceil(total / 5))

      const drafts = await call('GET', '/offers?host_status=draft&per_page=100')
      expect(drafts.statusCode).toBe(200)
      for (const offer of drafts.json() as Json[]) expect(offer.host_status).toBe('draft')

      const first = (list.json() as Json[])[0] as Json
      const read = await call('GET', `/offers/${first.id as number}`)
      expect(read.statusCode).toBe(200)
      expect(read.headers.etag).toBe(read.json().version)
      expect(read.json()).toMatchObject({ id: first.id, prop_no: first.prop_no, version: first.version })

      expect((await call('GET', '/offers/999999')).statusCode).toBe(404)
      expect((await call('GET', '/offers?orderby=nonsense')).statusCode).toBe(400)
      const unauthenticated = await env.app.inject({ method: 'GET', url: `${API}/offers` })
      expect(unauthenticated.statusCode).toBe(401)
      const asReader = await env.app.inject({
        method: 'GET',
        url: `${API}/offers`,
        headers: { authorization: reader.authorization },
      })
      expect(asReader.statusCode).toBe(403)
    })
  })

  describe('writes', () => {
    it('creates a flat with a parking space, shown by the catalog with both first prices in its history', async () => {
      const flat = await createFlat({
        reason: 'Nowa oferta',
        components: [
          {
            kind: 'parking_space',
            designation: 'MP-90',
            price: '40000.00',
            price_from: '2026-11-02',
            legal_title: 'odrębna własność',
            relation: 'przynależne do lokalu',
          },
        ],
      })
      expect(flat).toMatchObject({
        offer_kind: 'property',
        prop_type: 'mieszkanie',
        qualified: true,
        title: `Mieszkanie ${flat.prop_no as string}`,
        price_total: '500000.00',
        components: [
          {
            kind: 'parking_space',
            group: 'part',
            kind_label: 'Miejsce postojowe',
            designation: 'MP-90',
            price: '40000.00',
            price_from: '2026-11-02',
            legal_title: 'odrębna własność',
          },
        ],
      })
      const detail = await catalog(`/properties/${flat.id as number}`)
      expect(detail.statusCode).toBe(200)
      expect(detail.json().components).toEqual([
        expect.objectContaining({
          group: 'part',
          price: '40 000,00 zł',
          date: '02.11.2026',
          legal_title: 'odrębna własność',
        }),
      ])
      const history = (await catalog(`/properties/${flat.id as number}/price-history`)).json()
      expect(history.items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            record_type: 'first',
            price_type: 'total',
            after: { cents: 50_000_000, formatted: '500 000,00 zł' },
            reason: 'Nowa oferta',
          }),
          expect.objectContaining({ record_type: 'first', price_type: 'component', valid_from: '2026-11-02' }),
        ]),
      )
    })

    it('a price change takes its date, reason and correction flag: the catalog’s history and the next daily file show it', async () => {
      const flat = await createFlat()
      const changed = await call(
        'PATCH',
        `/offers/${flat.id as number}`,
        {
          price_total: '520000.00',
          price_m2: '10400.00',
          price_total_from: '2026-11-15',
          price_m2_from: '2026-11-15',
          reason: 'Podwyżka cennika',
        },
        { 'if-match': flat.version as string },
      )
      expect(changed.statusCode, changed.body).toBe(200)
      expect(changed.json()).toMatchObject({ price_total: '520000.00', price_total_from: '2026-11-15' })
      expect(changed.headers.etag).toBe(changed.json().version)
      expect(changed.json().version).not.toBe(flat.version)

      const corrected = await call(
        'PATCH',
        `/offers/${flat.id as number}`,
        {
          price_total: '519000.00',
          price_m2: '10380.00',
          price_total_from: '2026-11-16',
          price_m2_from: '2026-11-16',
          reason: 'Błąd w cenniku',
          correction: true,
        },
        { 'if-match': changed.json().version },
      )
      expect(corrected.statusCode, corrected.body).toBe(200)

      const history = (await catalog(`/properties/${flat.id as number}/price-history`)).json().items as Json[]
      const totals = history.filter((item) => item.price_type === 'total')
      expect(totals).toEqual([
        expect.objectContaining({ record_type: 'first', after: expect.objectContaining({ cents: 50_000_000 }) }),
        expect.objectContaining({
          record_type: 'change',
          valid_from: '2026-11-15',
          before: expect.objectContaining({ cents: 50_000_000 }),
          after: { cents: 52_000_000, formatted: '520 000,00 zł' },
          reason: 'Podwyżka cennika',
          correction: false,
        }),
        expect.objectContaining({
          record_type: 'correction',
          valid_from: '2026-11-16',
          after: expect.objectContaining({ cents: 51_900_000 }),
          reason: 'Błąd w cenniku',
          correction: true,
        }),
      ])
      const own = (await call('GET', `/offers/${flat.id as number}/price-history`)).json()
      expect(own.items.filter((item: Json) => item.price_type === 'total').map((item: Json) => item.channel)).toEqual([
        'editor',
        'editor',
        'editor',
      ])

      const rows = await publishNextDay()
      const row = rows.find((r) => r[COL.property_code] === flat.prop_no)
      expect(row?.[COL.price_total]).toBe('519000.00')
      expect(row?.[COL.price_total_from]).toBe('2026-11-16')
      expect(row?.[COL.price_m2]).toBe('10380.00')
    })

    it('a stale If-Match gets 409 with the current values, and nothing is written', async () => {
      const flat = await createFlat()
      const first = await call(
        'PATCH',
        `/offers/${flat.id as number}`,
        { prop_rooms: 3 },
        { 'if-match': flat.version as string },
      )
      expect(first.statusCode).toBe(200)
      const before = { history: await countRows('price_history'), audit: await countRows('audit_log') }

      const stale = await call(
        'PATCH',
        `/offers/${flat.id as number}`,
        { price_total: '1.00', prop_rooms: 9 },
        { 'if-match': flat.version as string },
      )
      expect(stale.statusCode).toBe(409)
      const body = stale.json()
      expect(body).toMatchObject({ error: 'edit_conflict', version: first.json().version, current: first.json() })
      expect(stale.headers.etag).toBe(first.json().version)
      expect(body.message).toBe(body.message_pl)
      // the same with the version in the body
      const staleBody = await call('PATCH', `/offers/${flat.id as number}`, { prop_rooms: 9, version: flat.version })
      expect(staleBody.statusCode).toBe(409)

      expect((await call('GET', `/offers/${flat.id as number}`)).json()).toEqual(first.json())
      expect(await countRows('price_history')).toBe(before.history)
      expect(await countRows('audit_log')).toBe(before.audit)

      const unnamed = await call('PATCH', `/offers/${flat.id as number}`, { prop_rooms: 9 })
      expect(unnamed.statusCode).toBe(428)
      expect(unnamed.json().error).toBe('precondition_required')
    })

    it('operators saving the same version at once: one change is kept, every other gets 409', async () => {
      const flat = await createFlat()
      const save = (rooms: number) =>
        call('PATCH', `/offers/${flat.id as number}`, { prop_rooms: rooms }, { 'if-match': flat.version as string })
      const answers = await Promise.all([3, 4, 5, 6, 7, 8, 9, 10].map(save))
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409])
      const kept = answers.find((a) => a.statusCode === 200)?.json()
      expect((await call('GET', `/offers/${flat.id as number}`)).json()).toMatchObject({
        prop_rooms: kept.prop_rooms,
        version: kept.version,
      })
    })

    it('an import, a webhook event and then the editor: the editor’s stale version is refused after the webhook’s write', async () => {
      const flat = await createFlat({ source_property_id: 'CRM-77' })
      const investment = (await call('GET', `/investments/${investmentId}`)).json()
      let sourceInvestment = investment.source_id as string | null
      if (!sourceInvestment) {
        const set = await call(
          'PATCH',
          `/investments/${investmentId}`,
          { source_id: 'INV-EDITOR' },
          { 'if-match': investment.version },
        )
        expect(set.statusCode, set.body).toBe(200)
        sourceInvestment = 'INV-EDITOR'
      }
      const event = JSON.stringify({
        source_investment_id: sourceInvestment,
        source_property_id: 'CRM-77',
        property_status: 'reserved',
      })
      const delivered = await env.app.inject({
        method: 'POST',
        url: `${API}/webhooks/properties`,
        payload: event,
        headers: deliveryHeaders({
          body: event,
          key: 'editor-conflict-1',
          secret: webhookSecret,
          timestamp: Math.floor(env.clock.now().getTime() / 1000),
        }),
      })
      expect(delivered.statusCode, delivered.body).toBe(202)
      const stale = await call(
        'PATCH',
        `/offers/${flat.id as number}`,
        { property_status: 'sold' },
        { 'if-match': flat.version as string },
      )
      expect(stale.statusCode).toBe(409)
      expect(stale.json().current.property_status).toBe('reserved')
    })

    it('bad input: 422 with every field’s issue, the import’s codes and messages, localized; nothing written', async () => {
      const flat = await createFlat()
      const before = { history: await countRows('price_history'), offers: await countRows('offers') }
      const bad = { price_total: '12,5,0', prop_rooms: 'many', property_status: 'nieznany', host_status: 'hidden' }
      const refused = await call('PATCH', `/offers/${flat.id as number}`, bad, { 'if-match': flat.version as string })
      expect(refused.statusCode).toBe(422)
      const body = refused.json()
      expect(body.error).toBe('validation_failed')
      const imported = validateOfferRow(
        {
          source_investment_id: 'x',
          source_property_id: 'y',
          price_total: '12,5,0',
          prop_rooms: 'many',
          property_status: 'nieznany',
        },
        { row: 1, mode: 'patch' },
      ).errors
      for (const error of imported)
        expect(body.issues).toContainEqual({
          field: error.field,
          code: error.code,
          message: error.message_pl,
          message_pl: error.message_pl,
          message_en: error.message_en,
        })
      expect(body.issues.map((i: Json) => i.field)).toContain('host_status')

      const english = await call('PATCH', `/offers/${flat.id as number}`, bad, {
        'if-match': flat.version as string,
        'accept-language': 'en',
      })
      expect(english.json().issues[0].message).toBe(english.json().issues[0].message_en)
      expect(english.json().message).toBe(english.json().message_en)

      const inconsistent = await call(
        'PATCH',
        `/offers/${flat.id as number}`,
        { price_total: '900000.00' },
        { 'if-match': flat.version as string },
      )
      expect(inconsistent.statusCode).toBe(422)
      expect(inconsistent.json().issues).toEqual([
        expect.objectContaining({ field: 'price_total', code: 'inconsistent_price' }),
      ])

      const noType = await call('POST', '/offers', { investment_id: investmentId, prop_no: 'X/1' })
      expect(noType.statusCode).toBe(422)
      expect(noType.json().issues).toEqual([expect.objectContaining({ field: 'prop_type', code: 'required' })])
      const unknownKey = await call('POST', '/offers', {
        investment_id: investmentId,
        prop_no: 'X/1',
        proj_city: 'Poznań',
      })
      expect(unknownKey.statusCode).toBe(400)
      expect(
        (await call('POST', '/offers', { investment_id: 999999, prop_no: 'X/1', prop_type: 'dom' })).json().issues,
      ).toEqual([expect.objectContaining({ field: 'investment_id', code: 'not_found' })])
      expect(await countRows('price_history')).toBe(before.history)
      expect(await countRows('offers')).toBe(before.offers)
    })

    it('each rule of the editor’s own fields and components: a stable code on the field sent', async () => {
      const flat = await createFlat()
      const cases: Array<[Json, string, string]> = [
        [{ prop_type: 'lokal użytkowy' }, 'prop_type', 'invalid_enum'],
        [{ prop_type: 'mieszkanie', offer_kind: 'standalone_part' }, 'offer_kind', 'inconsistent_offer_kind'],
        [{ offer_kind: 'part' }, 'offer_kind', 'invalid_enum'],
        [{ prop_rooms: -1 }, 'prop_rooms', 'negative_not_allowed'],
        [{ prop_floor: 500 }, 'prop_floor', 'out_of_range'],
        [{ price_total: 123.45 }, 'price_total', 'invalid_decimal'],
        [{ price_total_from: '2026-02-30' }, 'price_total_from', 'invalid_date'],
        [{ prop_no: null }, 'prop_no', 'not_clearable'],
        [{ title: '' }, 'title', 'required'],
        [{ title: 'x'.repeat(256) }, 'title', 'too_long'],
        [{ building: 'x'.repeat(101) }, 'building', 'too_long'],
        [{ host_status: 'hidden' }, 'host_status', 'invalid_enum'],
        [{ custom_meta: { nieznane: 1 } }, 'custom_meta.nieznane', 'invalid_meta'],
        [{ reason: 'x'.repeat(501) }, 'reason', 'too_long'],
        [{ gallery: [1, 1] }, 'gallery', 'invalid_type'],
        [{ thumbnail_id: 999999 }, 'thumbnail_id', 'not_own_image'],
      ]
      for (const [body, field, code] of cases) {
        const refused = await call('PATCH', `/offers/${flat.id as number}`, body, {
          'if-match': flat.version as string,
        })
        expect([refused.statusCode, refused.json().issues], JSON.stringify(body)).toEqual([
          422,
          [expect.objectContaining({ field, code })],
        ])
      }
      // a value of the wrong JSON type is a malformed request, refused by the route's schema
      for (const [body, field] of [
        [{ correction: 'yes' }, 'correction'],
        [{ title: 5 }, 'title'],
        [{ gallery: 'x' }, 'gallery'],
        [{ proj_city: 'Poznań' }, 'proj_city'],
      ] as Array<[Json, string]>) {
        const refused = await call('PATCH', `/offers/${flat.id as number}`, body, {
          'if-match': flat.version as string,
        })
        expect([refused.statusCode, refused.json().code, Object.keys(refused.json().data.params)]).toEqual([
          400,
          'rest_invalid_param',
          [field],
        ])
      }
      const components: Array<[Json, string, string]> = [
        [{ kind: 'balkon' }, 'kind', 'invalid_enum'],
        [{ group: 'part' }, 'kind_label', 'required'],
        [{ designation: 'X' }, 'kind', 'required'],
        [{ kind: 'garage', group: 'appurtenant_room' }, 'group', 'inconsistent_group'],
        [{ kind: 'garage', price: 'abc' }, 'price', 'invalid_decimal'],
        [{ kind: 'garage', price: '1000.00', price_from: '30.02.2026' }, 'price_from', 'invalid_date'],
        [{ kind: 'garage', position: -3 }, 'position', 'negative_not_allowed'],
      ]
      for (const [body, field, code] of components) {
        const refused = await call('POST', `/offers/${flat.id as number}/components`, body, {
          'if-match': flat.version as string,
        })
        expect([refused.statusCode, refused.json().issues], JSON.stringify(body)).toEqual([
          422,
          [expect.objectContaining({ field, code })],
        ])
      }
      const missing = await call(
        'PATCH',
        `/offers/${flat.id as number}/components/999999`,
        { price: '1.00' },
        {
          'if-match': flat.version as string,
        },
      )
      expect(missing.json().issues).toEqual([expect.objectContaining({ code: 'component_not_found' })])
      // nothing of it was written
      expect((await call('GET', `/offers/${flat.id as number}`)).json()).toEqual(flat)
    })

    it('the editor takes a standalone part by its Polish name; the webhook refuses the same word', async () => {
      const garage = await call('POST', '/offers', {
        investment_id: investmentId,
        prop_no: 'G-7',
        prop_type: 'Garaż',
        price_total: '60000.00',
        price_total_from: '2026-11-01',
      })
      expect(garage.statusCode, garage.body).toBe(201)
      expect(garage.json()).toMatchObject({ offer_kind: 'standalone_part', prop_type: 'garage', title: 'Garaż G-7' })
      const event = JSON.stringify({ source_investment_id: 'INV-X', source_property_id: 'G-7', prop_type: 'Garaż' })
      const refused = await env.app.inject({
        method: 'POST',
        url: `${API}/webhooks/properties`,
        payload: event,
        headers: deliveryHeaders({
          body: event,
          key: 'editor-garage-1',
          secret: webhookSecret,
          timestamp: Math.floor(env.clock.now().getTime() / 1000),
        }),
      })
      expect(refused.statusCode).toBe(422)
      expect(refused.json().issues).toEqual([
        expect.objectContaining({ field: 'prop_type', code: 'prop_type_not_allowed' }),
      ])
    })

    it('withdraws a price sent as null, with the date sent beside it', async () => {
      const flat = await createFlat()
      // a withdrawal on a published day would change that day's file: it is dated today
      const today = env.clock.now().toISOString().slice(0, 10)
      const withdrawn = await call(
        'PATCH',
        `/offers/${flat.id as number}`,
        { price_m2: null, price_m2_from: today, reason: 'Tylko cena całkowita' },
        { 'if-match': flat.version as string },
      )
      expect(withdrawn.statusCode, withdrawn.body).toBe(200)
      expect(withdrawn.json()).toMatchObject({ price_m2: null, price_m2_from: null, price_total: '500000.00' })
      const history = (await catalog(`/properties/${flat.id as number}/price-history`)).json().items as Json[]
      expect(history.filter((item) => item.price_type === 'm2').at(-1)).toMatchObject({
        record_type: 'withdrawal',
        valid_from: today,
        before: { cents: 1_000_000, formatted: '10 000,00 zł' },
        after: { cents: null, formatted: '' },
        reason: 'Tylko cena całkowita',
      })
      const dateAlone = await call(
        'PATCH',
        `/offers/${flat.id as number}`,
        { price_total_from: null },
        { 'if-match': withdrawn.json().version },
      )
      expect(dateAlone.statusCode).toBe(422)
      expect(dateAlone.json().issues).toEqual([
        expect.objectContaining({ field: 'price_total_from', code: 'required' }),
      ])
    })

    it('archives an offer (out of the catalog, prices withdrawn) and restores it (back, prices entered again)', async () => {
      const flat = await createFlat()
      const archived = await call(
        'POST',
        `/offers/${flat.id as number}/archive`,
        { reason: 'Wycofana ze sprzedaży' },
        { 'if-match': flat.version as string },
      )
      expect(archived.statusCode, archived.body).toBe(200)
      expect(archived.json()).toMatchObject({ property_status: 'archived', host_status: 'private' })
      expect((await catalog(`/properties/${flat.id as number}`)).statusCode).toBe(404)

      // no body at all: the version is enough
      const restored = await env.app.inject({
        method: 'POST',
        url: `${API}/offers/${flat.id as number}/restore`,
        headers: { authorization: admin.authorization, 'if-match': archived.json().version },
      })
      expect(restored.statusCode, restored.body).toBe(200)
      expect(restored.json()).toMatchObject({
        property_status: 'available',
        host_status: 'publish',
        price_total: '500000.00',
      })
      const history = (await catalog(`/properties/${flat.id as number}/price-history`)).json().items as Json[]
      expect(
        history.filter((i) => i.price_type === 'total').map((i) => [i.record_type, (i.after as Json).cents]),
      ).toEqual([
        ['first', 50_000_000],
        ['withdrawal', null],
        ['change', 50_000_000],
      ])
      expect(history.find((i) => i.record_type === 'withdrawal')?.reason).toBe('Wycofana ze sprzedaży')
    })

    it('an offer sent without a type is listed as without type, and typed in the editor it enters the daily file', async () => {
      const investment = (await call('GET', `/investments/${investmentId}`)).json()
      const event = JSON.stringify({
        source_investment_id: investment.source_id ?? 'INV-EDITOR',
        source_property_id: 'UNTYPED-1',
        prop_no: 'U/1',
        property_status: 'available',
        price_total: '300000.00',
        price_total_from: '2026-11-10',
      })
      const delivered = await env.app.inject({
        method: 'POST',
        url: `${API}/webhooks/properties`,
        payload: event,
        headers: deliveryHeaders({
          body: event,
          key: 'editor-untyped-1',
          secret: webhookSecret,
          timestamp: Math.floor(env.clock.now().getTime() / 1000),
        }),
      })
      expect(delivered.statusCode, delivered.body).toBe(202)
      const untyped = (await call('GET', '/offers?without_type=true&search=U%2F1')).json() as Json[]
      expect(untyped).toHaveLength(1)
      const offer = untyped[0] as Json
      expect(offer).toMatchObject({ prop_type: '', qualified: false, title: 'Oferta U/1' })
      expect((await publishNextDay()).map((r) => r[COL.property_code])).not.toContain('U/1')

      const typed = await call(
        'PATCH',
        `/offers/${offer.id as number}`,
        { prop_type: 'mieszkanie' },
        { 'if-match': offer.version as string },
      )
      expect(typed.statusCode, typed.body).toBe(200)
      expect(typed.json()).toMatchObject({ prop_type: 'mieszkanie', qualified: true, title: 'Mieszkanie U/1' })
      expect((await call('GET', '/offers?without_type=true&search=U%2F1')).json()).toEqual([])
      const row = (await publishNextDay()).find((r) => r[COL.property_code] === 'U/1')
      expect(row?.[COL.property_type]).toBe('Lokal mieszkalny')
      expect(row?.[COL.price_total]).toBe('300000.00')
    })
  })

  describe('components and standalone parts in the official file', () => {
    it('a component’s price is in the flat’s row; a second one gets a row of its own; a standalone part is its own row', async () => {
      const flat = await createFlat({ price_combined: '560000.00', price_combined_from: '2026-11-01' })
      // parts added to a unit already on record are priced from today: the published days stay as they were
      const today = env.clock.now().toISOString().slice(0, 10)
      const withSpace = await call(
        'POST',
        `/offers/${flat.id as number}/components`,
        { kind: 'parking_space', designation: 'MP-91', price: '45000.00', price_from: today },
        { 'if-match': flat.version as string },
      )
      expect(withSpace.statusCode, withSpace.body).toBe(201)
      const withRoom = await call(
        'POST',
        `/offers/${flat.id as number}/components`,
        { kind: 'storage_room', designation: 'KL-91', price: '15000.00', price_from: today },
        { 'if-match': withSpace.json().version },
      )
      expect(withRoom.statusCode, withRoom.body).toBe(201)
      const withGarage = await call(
        'POST',
        `/offers/${flat.id as number}/components`,
        { kind: 'garage', designation: 'G-91', price: '60000.00', price_from: today },
        { 'if-match': withRoom.json().version },
      )
      expect(withGarage.statusCode, withGarage.body).toBe(201)
      const storage = await call('POST', '/offers', {
        investment_id: investmentId,
        prop_no: 'KL-S1',
        prop_type: 'storage_room',
        offer_kind: 'standalone_part',
        prop_area: '4.50',
        price_total: '18000.00',
        price_total_from: '2026-11-05',
      })
      expect(storage.statusCode, storage.body).toBe(201)
      expect(storage.json()).toMatchObject({
        offer_kind: 'standalone_part',
        prop_type: 'storage_room',
        title: 'Komórka lokatorska KL-S1',
      })

      const rows = await publishNextDay()
      const flatRows = rows.filter((r) => r[COL.property_code] === flat.prop_no)
      expect(flatRows).toHaveLength(2)
      const [main, extra] = flatRows as [string[], string[]]
      expect([
        main[COL.part_kind],
        main[COL.part_designation],
        main[COL.part_price],
        main[COL.part_price_from],
      ]).toEqual(['Miejsce postojowe', 'MP-91', '45000.00', today])
      expect([main[COL.room_kind], main[COL.room_designation], main[COL.room_price]]).toEqual([
        'Komórka lokatorska',
        'KL-91',
        '15000.00',
      ])
      expect([
        extra[COL.part_kind],
        extra[COL.part_designation],
        extra[COL.part_price],
        extra[COL.price_total],
      ]).toEqual(['Garaż', 'G-91', '60000.00', 'X'])
      const part = rows.find((r) => r[COL.room_designation] === 'KL-S1')
      expect(part?.[COL.property_type]).toBe('X')
      expect(part?.[COL.room_price]).toBe('18000.00')
      expect(part?.[COL.room_price_from]).toBe('2026-11-05')

      // a component's price change and its removal are history records of the offer
      const spaceId = (withGarage.json().components as Json[]).find((c) => c.designation === 'MP-91')?.id as number
      const repriced = await call(
        'PATCH',
        `/offers/${flat.id as number}/components/${spaceId}`,
        { price: '47000.00', price_from: env.clock.now().toISOString().slice(0, 10), reason: 'Nowy cennik miejsc' },
        { 'if-match': withGarage.json().version },
      )
      expect(repriced.statusCode, repriced.body).toBe(200)
      const removed = await env.app.inject({
        method: 'DELETE',
        url: `${API}/offers/${flat.id as number}/components/${spaceId}?reason=Sprzedane%20osobno`,
        headers: { authorization: admin.authorization, 'if-match': repriced.json().version },
      })
      expect(removed.statusCode, removed.body).toBe(200)
      expect((removed.json().components as Json[]).map((c) => c.designation)).toEqual(['KL-91', 'G-91'])
      const history = (await call('GET', `/offers/${flat.id as number}/price-history`)).json().items as Json[]
      expect(
        history
          .filter((i) => i.component_id === spaceId)
          .map((i) => [i.record_type, (i.after as Json).cents, i.reason]),
      ).toEqual([
        ['first', 4_500_000, ''],
        ['change', 4_700_000, 'Nowy cennik miejsc'],
        ['withdrawal', null, 'Sprzedane osobno'],
      ])

      const refused = await call(
        'POST',
        `/offers/${storage.json().id as number}/components`,
        { kind: 'garage', price: '1.00' },
        { 'if-match': storage.json().version },
      )
      expect(refused.statusCode).toBe(422)
      expect(refused.json().issues[0].code).toBe('components_not_allowed')
    })
  })

  describe('one write path', () => {
    it('an editor write and an import of the same offer give the same stored values and history', async () => {
      const investment = (await call('GET', `/investments/${investmentId}`)).json()
      const source = (investment.source_id as string | null) ?? 'INV-EDITOR'
      const header = 'Inwestycja;ID;Numer;Rodzaj;Status;Powierzchnia;Pokoje;Piętro;Cena m2;Cena m2 od;Cena;Cena od'
      const mapping = {
        source_investment_id: 'Inwestycja',
        source_property_id: 'ID',
        prop_no: 'Numer',
        prop_type: 'Rodzaj',
        property_status: 'Status',
        prop_area: 'Powierzchnia',
        prop_rooms: 'Pokoje',
        prop_floor: 'Piętro',
        price_m2: 'Cena m2',
        price_m2_from: 'Cena m2 od',
        price_total: 'Cena',
        price_total_from: 'Cena od',
      }
      const importRows = async (rows: string[], key: string) => {
        const file = multipart(
          { mode: 'patch', mapping: JSON.stringify(mapping) },
          { name: 'oferty.csv', content: `${header}\n${rows.join('\n')}\n` },
        )
        const preview = await call('POST', '/imports/offer', file.payload, file.headers)
        expect(preview.statusCode, preview.body).toBe(200)
        const executed = await env.app.inject({
          method: 'POST',
          url: `${API}/imports/offer`,
          payload: `job_id=${preview.json().id as string}&confirm_archiving=false`,
          headers: {
            authorization: admin.authorization,
            'content-type': 'application/x-www-form-urlencoded',
            'idempotency-key': key,
          },
        })
        expect(executed.statusCode, executed.body).toBe(200)
      }
      await importRows(
        [`${source};SAME-1;S/1;mieszkanie;wolne;61,20;3;-1;9 500,00;2026-11-02;581 400,00;2026-11-02`],
        'editor-same-1',
      )
      // the change is dated today: an earlier day's file may be published already
      const today = env.clock.now().toISOString().slice(0, 10)
      await importRows(
        [`${source};SAME-1;S/1;mieszkanie;rezerwacja;61,20;3;-1;9 600,00;${today};587 520,00;${today}`],
        'editor-same-2',
      )

      const created = await call('POST', '/offers', {
        investment_id: investmentId,
        source_property_id: 'SAME-2',
        prop_no: 'S/1',
        prop_type: 'mieszkanie',
        property_status: 'wolne',
        prop_area: '61,20',
        prop_rooms: '3',
        prop_floor: '-1',
        price_m2: '9 500,00',
        price_m2_from: '2026-11-02',
        price_total: '581 400,00',
        price_total_from: '2026-11-02',
      })
      expect(created.statusCode, created.body).toBe(201)
      const changed = await call(
        'PATCH',
        `/offers/${created.json().id as number}`,
        {
          property_status: 'rezerwacja',
          price_m2: '9 600,00',
          price_m2_from: today,
          price_total: '587 520,00',
          price_total_from: today,
        },
        { 'if-match': created.json().version },
      )
      expect(changed.statusCode, changed.body).toBe(200)

      const stored = async (sourceId: string) => {
        const offer = await env.ctx.db
          .selectFrom('offers')
          .selectAll()
          .where('investment_id', '=', investmentId)
          .where('source_property_id', '=', sourceId)
          .executeTakeFirstOrThrow()
        const history = await env.ctx.db
          .selectFrom('price_history')
          .select(['price_type', 'record_type', 'before_cents', 'after_cents', 'valid_from', 'reason', 'correction'])
          .where('offer_id', '=', offer.id)
          .orderBy('id')
          .execute()
        const { id: _id, source_property_id: _source, created_at: _created, modified_at: _modified, ...values } = offer
        return { values, history }
      }
      expect(await stored('SAME-2')).toEqual(await stored('SAME-1'))
    })
  })
})
