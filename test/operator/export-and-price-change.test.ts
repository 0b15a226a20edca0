/*
 * The catalog leaves and comes back in the import's own columns: an export (CSV and XLSX, filtered
 * as the editor's table) and the import template preview through the import as "no changes"; a
 * bulk price change of one investment (+3% from a date, totals rounded to whole złoty) is
 * previewed before → after per offer and executed through the one write path as a single import
 * run, with its price history records and an audit entry carrying the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { FIELD_LABELS_PL } from '../../src/offers/validation/row-errors.js'
import { TEST_DIALECTS } from '../helpers/databases.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
/** The field each header names: a Polish header, or the field's own (technical) name. */
const fieldOf = (header: string) =>
  Object.entries(FIELD_LABELS_PL).find(([, polish]) => polish === header)?.[0] ?? header

for (const dialect of TEST_DIALECTS) {
  describe(`export, template and bulk price change [${dialect}]`, () => {
    let env: TestEnv
    let admin: TestUser

    beforeAll(async () => {
      env = await startTestApp(dialect)
      await setUpDemo(env.ctx)
      admin = await createTestUser(env.ctx, 'administrator')
    })
    afterAll(async () => {
      await env?.app.close()
      await env?.database.cleanup()
    })

    const get = (url: string) =>
      env.app.inject({ method: 'GET', url: `${API}${url}`, headers: { authorization: admin.authorization } })
    const preview = async (name: string, content: Buffer, header: string) => {
      const mapping = Object.fromEntries(header.split(';').map((c) => [fieldOf(c), c]))
      const form = multipart({ mode: 'patch', mapping: JSON.stringify(mapping) }, { name, content })
      return env.app.inject({
        method: 'POST',
        url: `${API}/imports/offer`,
        headers: { authorization: admin.authorization, ...form.headers },
        payload: form.payload,
      })
    }

    it('exports the offers as CSV and XLSX that the import previews as unchanged, every one', async () => {
      const csv = await get('/offers/export?format=csv')
      expect(csv.statusCode, csv.body).toBe(200)
      expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8')
      expect(csv.headers['content-disposition']).toBe('attachment; filename="oferty.csv"')
      const text = csv.rawPayload.toString('utf8').replace(/^\uFEFF/, '')
      const [header = '', ...rows] = text.trim().split('\r\n')
      expect(header.split(';').slice(0, 3)).toEqual([
        'Identyfikator inwestycji',
        'Identyfikator oferty',
        'Oznaczenie lokalu',
      ])
      const properties = await env.ctx.db
        .selectFrom('offers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('offer_kind', '=', 'property')
        .where('source_property_id', 'is not', null)
        .executeTakeFirstOrThrow()
      expect(rows.length).toBe(Number(properties.n))
      expect(rows.length).toBeGreaterThan(5)
      expect(Number(csv.headers['x-dg-left-out'])).toBeGreaterThanOrEqual(0)

      const fromCsv = await preview('oferty.csv', csv.rawPayload, header)
      expect(fromCsv.statusCode, fromCsv.body).toBe(200)
      expect(fromCsv.json().preview.counts).toMatchObject({ create: 0, update: 0, unchanged: rows.length })

      const xlsx = await get('/offers/export?format=xlsx')
      expect(xlsx.headers['content-type']).toBe(XLSX_TYPE)
      const fromXlsx = await preview('oferty.xlsx', xlsx.rawPayload, header)
      expect(fromXlsx.statusCode, fromXlsx.body).toBe(200)
      expect(fromXlsx.json().preview.counts).toMatchObject({ create: 0, update: 0, unchanged: rows.length })

      // filtered as the table: one investment, one status
      const investment = await env.ctx.db.selectFrom('investments').select('id').orderBy('id').executeTakeFirstOrThrow()
      const filtered = await get(`/offers/export?format=csv&investment=${investment.id}&status=available`)
      const filteredRows = filtered.rawPayload.toString('utf8').trim().split('\r\n').slice(1)
      const expected = await env.ctx.db
        .selectFrom('offers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('investment_id', '=', investment.id)
        .where('status', '=', 'available')
        .where('offer_kind', '=', 'property')
        .executeTakeFirstOrThrow()
      expect(filteredRows.length).toBe(Number(expected.n))
      expect(filteredRows.every((row) => row.split(';')[4] === 'wolne')).toBe(true)
      const searched = await get('/offers/export?format=csv&search=%25_%5C')
      expect(searched.statusCode).toBe(200)
      expect(searched.rawPayload.toString('utf8').trim().split('\r\n')).toHaveLength(1)
      const byCode = await get('/offers/export?format=csv&search=A%2F1')
      const found = byCode.rawPayload.toString('utf8').trim().split('\r\n').slice(1)
      expect(found.length).toBeGreaterThan(0)
      expect(found.every((row) => row.split(';')[2]?.includes('A/1'))).toBe(true)
    })

    it('exports with the technical names on request, which the import also previews as unchanged', async () => {
      const csv = await get('/offers/export?format=csv&columns=technical')
      expect(csv.statusCode, csv.body).toBe(200)
      const [header = '', ...rows] = csv.rawPayload
        .toString('utf8')
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n')
      expect(header.split(';').slice(0, 3)).toEqual(['source_investment_id', 'source_property_id', 'prop_no'])
      const statuses = new Set(rows.map((row) => row.split(';')[4]))
      expect(
        [...statuses].every((s) => ['available', 'reserved', 'sold', 'unavailable', 'archived'].includes(s ?? '')),
      ).toBe(true)
      const fromCsv = await preview('oferty.csv', csv.rawPayload, header)
      expect(fromCsv.json().preview.counts).toMatchObject({ create: 0, update: 0, unchanged: rows.length })
      const xlsx = await get('/offers/export?format=xlsx&columns=technical')
      const fromXlsx = await preview('oferty.xlsx', xlsx.rawPayload, header)
      expect(fromXlsx.json().preview.counts).toMatchObject({ create: 0, update: 0, unchanged: rows.length })
      const template = await get('/imports/template?format=csv&columns=technical')
      expect(
        template.rawPayload
          .toString('utf8')
          .replace(/^\uFEFF/, '')
          .trim(),
      ).toBe(header)
      expect((await get('/offers/export?format=csv&columns=english')).statusCode).toBe(400)
    })

    it('gives an import template in the import’s columns: unfilled it is said to be empty, filled with the catalog it changes nothing', async () => {
      const csv = await get('/imports/template?format=csv')
      expect(csv.statusCode).toBe(200)
      expect(csv.headers['content-disposition']).toBe('attachment; filename="szablon-importu.csv"')
      const header = csv.rawPayload
        .toString('utf8')
        .replace(/^\uFEFF/, '')
        .trim()
      const exported = (await get('/offers/export?format=csv')).rawPayload.toString('utf8').replace(/^\uFEFF/, '')
      const [exportHeader = '', ...rows] = exported.trim().split('\r\n')
      expect(header).toBe(exportHeader)
      const xlsx = await get('/imports/template?format=xlsx')
      expect(xlsx.headers['content-disposition']).toBe('attachment; filename="szablon-importu.xlsx"')
      const empty = await preview('szablon-importu.xlsx', xlsx.rawPayload, header)
      expect(empty.statusCode).toBe(422)
      expect(empty.json().preview.errors[0]).toMatchObject({ code: 'file_empty' })
      // the operator fills the template with rows (here: the catalog as it is)
      const filled = Buffer.from(`\uFEFF${[header, ...rows].join('\r\n')}\r\n`, 'utf8')
      const answer = await preview('szablon-wypelniony.csv', filled, header)
      expect(answer.statusCode, answer.body).toBe(200)
      expect(answer.json().preview.counts).toMatchObject({ create: 0, update: 0, unchanged: rows.length })
    })

    it('changes the prices of one investment by +3% from a date, rounded to whole złoty, as one import run', async () => {
      const investment = await env.ctx.db
        .selectFrom('investments')
        .innerJoin('offers', 'offers.investment_id', 'investments.id')
        .select(['investments.id', 'investments.title'])
        .where('offers.price_total_cents', 'is not', null)
        .where('offers.offer_kind', '=', 'property')
        .orderBy('investments.id')
        .executeTakeFirstOrThrow()
      const before = await env.ctx.db
        .selectFrom('offers')
        .select(['id', 'code', 'area', 'price_total_cents'])
        .where('investment_id', '=', investment.id)
        .where('offer_kind', '=', 'property')
        .where('price_total_cents', 'is not', null)
        .where('status', '=', 'available')
        .execute()
      const notOnSale = await env.ctx.db
        .selectFrom('offers')
        .select(['id', 'status'])
        .where('investment_id', '=', investment.id)
        .where('offer_kind', '=', 'property')
        .where('price_total_cents', 'is not', null)
        .where('status', 'in', ['reserved', 'sold', 'unavailable'])
        .execute()
      expect(notOnSale.map((o) => o.status)).toContain('sold')
      const post = (url: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
        env.app.inject({
          method: 'POST',
          url: `${API}${url}`,
          headers: { authorization: admin.authorization, ...headers },
          payload,
        })

      const refused = await post('/offers/price-change/preview', {
        investment: investment.id,
        percent: 'trzy',
        rounding: 'zloty',
        valid_from: '2027-01-01',
        reason: 'Waloryzacja',
      })
      expect(refused.statusCode).toBe(422)
      expect(refused.json().issues[0]).toMatchObject({ field: 'percent' })

      const planned = await post('/offers/price-change/preview', {
        investment: investment.id,
        percent: '3',
        rounding: 'zloty',
        valid_from: '2027-01-01',
        reason: 'Waloryzacja cen od nowego roku',
      })
      expect(planned.statusCode, planned.body).toBe(200)
      const body = planned.json()
      expect(body).toMatchObject({ valid: true, valid_from: '2027-01-01', rounding: 'zloty', percent: '3' })
      expect(body.rounding_rule.pl).toContain('pełnego złotego')
      // by default only the units on sale: a sold flat keeps the price it was sold at
      expect(body.statuses).toEqual(['available'])
      expect(body.lines).toHaveLength(before.length)
      const lineIds = (body.lines as Array<{ offer_id: number }>).map((l) => l.offer_id)
      for (const offer of notOnSale) expect(lineIds).not.toContain(offer.id)

      for (const line of body.lines as Array<{
        offer_id: number
        before_total: string
        after_total: string
        after_m2: string
        area: string
        designation: string
        investment_title: string
      }>) {
        const offer = before.find((o) => o.id === line.offer_id)!
        const expectedCents = Math.round((offer.price_total_cents! * 1.03) / 100) * 100
        expect(line.after_total).toBe(`${expectedCents / 100}.00`)
        expect(line.designation).toBe(offer.code)
        expect(line.investment_title).toBe(investment.title)
      }
      // nothing written by the preview
      const unchanged = await env.ctx.db
        .selectFrom('offers')
        .select('price_total_cents')
        .where('id', '=', before[0]!.id)
        .executeTakeFirstOrThrow()
      expect(unchanged.price_total_cents).toBe(before[0]!.price_total_cents)

      const done = await post(
        '/offers/price-change/execute',
        { job_id: body.job_id, reason: 'Waloryzacja cen od nowego roku' },
        { 'idempotency-key': 'price-change-0001' },
      )
      expect(done.statusCode, done.body).toBe(200)
      expect(done.json().result).toMatchObject({ status: 'completed', updated: before.length })
      const runId = done.json().result.run_id as number
      const after = await env.ctx.db
        .selectFrom('offers')
        .select(['id', 'price_total_cents', 'price_total_from'])
        .where(
          'id',
          'in',
          before.map((o) => o.id),
        )
        .execute()
      for (const offer of after) {
        const old = before.find((o) => o.id === offer.id)!
        expect(offer.price_total_cents).toBe(Math.round((old.price_total_cents! * 1.03) / 100) * 100)
        expect(offer.price_total_from).toBe('2027-01-01')
      }
      const history = await env.ctx.db
        .selectFrom('price_history')
        .selectAll()
        .where('run_id', '=', runId)
        .where('price_type', '=', 'total')
        .execute()
      expect(history).toHaveLength(before.length)
      expect(history.every((h) => h.valid_from === '2027-01-01')).toBe(true)
      // the operator's reason is on every record the run wrote (the total's and the price per m²'s),
      // as the editor's price change keeps its own
      const runRecords = await env.ctx.db.selectFrom('price_history').selectAll().where('run_id', '=', runId).execute()
      expect(runRecords.length).toBeGreaterThanOrEqual(before.length * 2)
      expect(runRecords.map((h) => h.reason)).toEqual(runRecords.map(() => 'Waloryzacja cen od nowego roku'))
      const shown = await get(`/offers/${before[0]!.id}/price-history`)
      expect(shown.statusCode, shown.body).toBe(200)
      const shownItems = shown.json().items as Array<{ valid_from: string; reason: string; price_type: string }>
      expect(shownItems.filter((i) => i.valid_from === '2027-01-01').map((i) => i.reason)).toEqual(
        expect.arrayContaining(['Waloryzacja cen od nowego roku']),
      )
      expect(
        shownItems
          .filter((i) => i.valid_from === '2027-01-01')
          .every((i) => i.reason === 'Waloryzacja cen od nowego roku'),
      ).toBe(true)
      const audit = await env.ctx.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'offers.price_change')
        .execute()
      expect(audit).toHaveLength(1)
      expect(JSON.parse(audit[0]!.details ?? '{}')).toMatchObject({
        reason: 'Waloryzacja cen od nowego roku',
        run_id: runId,
        updated: before.length,
      })

      const replay = await post(
        '/offers/price-change/execute',
        { job_id: body.job_id, reason: 'x' },
        { 'idempotency-key': 'price-change-0001' },
      )
      expect(replay.json().replayed).toBe(true)
      expect(
        await env.ctx.db.selectFrom('audit_log').selectAll().where('action', '=', 'offers.price_change').execute(),
      ).toHaveLength(1)

      // the operator may widen it on purpose: every offer of the chosen statuses
      const widened = await post('/offers/price-change/preview', {
        investment: investment.id,
        statuses: ['available', 'reserved', 'sold', 'unavailable'],
        percent: '3',
        rounding: 'zloty',
        valid_from: '2027-01-01',
        reason: 'Waloryzacja cen od nowego roku',
      })
      expect(widened.statusCode, widened.body).toBe(200)
      expect(widened.json().lines).toHaveLength(before.length + notOnSale.length)
      const emptyStatuses = await post('/offers/price-change/preview', {
        investment: investment.id,
        statuses: [],
        percent: '3',
        rounding: 'zloty',
        valid_from: '2027-01-01',
        reason: 'Waloryzacja',
      })
      expect(emptyStatuses.statusCode).toBe(400)
    })
  })
}
