/*
 * The OpenAPI document against the service itself (see test/helpers/openapi-responses.ts): the
 * integrations' operations, called for real — the catalog, offer and report imports, the property
 * webhook, publication and its files, the public prices and the website component.
 */
import fs from 'node:fs'
import path from 'node:path'

import { beforeAll, expect, it } from 'vitest'

import { SERVICE_VERSION } from '../../../src/version.js'
import { multipart } from '../../helpers/multipart.js'
import {
  ADMINISTRATION_OPERATION,
  contractOperations,
  documentedCalls,
  type Json,
  type OpenApiDocument,
  V2,
} from '../../helpers/openapi-responses.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'
import { deliveryHeaders } from '../../helpers/webhook.js'

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
const REAL_REPORT = fs.readFileSync(path.join(import.meta.dirname, '../../fixtures/official/real-report-example.xlsx'))
/** The official template's rows as the report of one entity: its name, KRS and NIP in every row. */
const templateReportOf = (entity: { name: string; krs: string; nip: string }) =>
  Buffer.from(
    fs
      .readFileSync(
        path.join(import.meta.dirname, '../../fixtures/official/Wcorcowy_zakres_danych_dotyczących_cen_mieszkań.csv'),
        'utf8',
      )
      .split('\n')
      .map((line, index) => {
        if (index === 0 || line === '') return line
        const cells = line.split(';')
        cells[0] = entity.name
        cells[2] = entity.krs
        cells[4] = entity.nip
        return cells.join(';')
      })
      .join('\n'),
    'utf8',
  )
const IMPORT_MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
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
  proj_city: 'Miasto',
}
const IMPORT_HEADER =
  'Inwestycja;ID lokalu;Numer;Rodzaj;Status;Powierzchnia;Pokoje;Piętro;Cena m2;Cena m2 od;Cena;Cena od;Miasto'

describeEachDatabase('OpenAPI document against real responses: integrations', (getEnv) => {
  const checked = documentedCalls(getEnv)
  const { call, asAdmin, called, bodyValidators, now } = checked
  let env: TestEnv
  let document: OpenApiDocument
  let reader: string
  let webhookSecret: string
  beforeAll(() => {
    ;({ env, document, reader, webhookSecret } = checked)
  })

  it('the catalog: discovery, lists, details, price history, related offers, 304, 400, 401 and 404', async () => {
    const auth = { authorization: reader }
    const discovery = await call('get', `${V2}/catalog`, { headers: auth })
    expect(discovery.statusCode).toBe(200)
    const etag = String(discovery.headers.etag)
    expect((await call('get', `${V2}/catalog`, { headers: { ...auth, 'if-none-match': etag } })).statusCode).toBe(304)
    expect((await call('get', `${V2}/catalog`)).statusCode).toBe(401)

    const investments = await call('get', `${V2}/catalog/investments`, { headers: auth })
    expect(investments.statusCode).toBe(200)
    const investmentId = (investments.json() as Array<{ id: number }>)[0]?.id ?? 0
    expect(
      (await call('get', `${V2}/catalog/investments/{id}`, { params: { id: investmentId }, headers: auth })).statusCode,
    ).toBe(200)
    expect(
      (await call('get', `${V2}/catalog/investments/{id}`, { params: { id: 999_999 }, headers: auth })).statusCode,
    ).toBe(404)

    const properties = await call('get', `${V2}/catalog/properties`, {
      query: { per_page: '5', orderby: 'price', order: 'ASC' },
      headers: auth,
    })
    expect(properties.statusCode).toBe(200)
    expect(
      (await call('get', `${V2}/catalog/properties`, { query: { per_page: '1000' }, headers: auth })).statusCode,
    ).toBe(400)
    const propertyId = (properties.json() as Array<{ id: number }>)[0]?.id ?? 0
    for (const template of [
      `${V2}/catalog/properties/{id}`,
      `${V2}/catalog/properties/{id}/price-history`,
      `${V2}/catalog/properties/{id}/related`,
    ]) {
      expect((await call('get', template, { params: { id: propertyId }, headers: auth })).statusCode).toBe(200)
      expect((await call('get', template, { params: { id: 999_999 }, headers: auth })).statusCode).toBe(404)
    }
  })

  it('publication settings, developer and location, with their refusals', async () => {
    expect((await call('get', `${V2}/publication/settings`, { headers: asAdmin() })).statusCode).toBe(200)
    const settings = await call('put', `${V2}/publication/settings`, {
      headers: asAdmin(),
      payload: { public_base_url: 'https://ceny.example.pl/dane-gov' },
    })
    expect(settings.statusCode).toBe(200)
    expect(
      (await call('put', `${V2}/publication/settings`, { headers: asAdmin(), payload: { public_base_url: 'ftp://x' } }))
        .statusCode,
    ).toBe(422)
    const developerId = (settings.json() as { developer_id: number | null }).developer_id ?? 1
    expect(
      (await call('get', `${V2}/developers/{id}`, { params: { id: developerId }, headers: asAdmin() })).statusCode,
    ).toBe(200)
    expect(
      (await call('get', `${V2}/developers/{id}`, { params: { id: 999_999 }, headers: asAdmin() })).statusCode,
    ).toBe(404)
    expect(
      (
        await call('put', `${V2}/developers/{id}`, {
          params: { id: developerId },
          headers: asAdmin(),
          payload: { nip: '1234567890' },
        })
      ).statusCode,
    ).toBe(422)
    expect(
      (await call('post', `${V2}/developers`, { headers: asAdmin(), payload: { name: 'Zły NIP', nip: '1234567890' } }))
        .statusCode,
    ).toBe(422)

    const investmentId = (await env.ctx.db.selectFrom('investments').select('id').executeTakeFirstOrThrow()).id
    expect(
      (await call('get', `${V2}/investments/{id}/location`, { params: { id: investmentId }, headers: asAdmin() }))
        .statusCode,
    ).toBe(200)
    expect(
      (
        await call('put', `${V2}/investments/{id}/location`, {
          params: { id: investmentId },
          headers: asAdmin(),
          payload: { postal_code: 'ABCDE' },
        })
      ).statusCode,
    ).toBe(422)
  })

  it('preflight, publication, the served files and legacy generate', async () => {
    const preflight = await call('post', `${V2}/publications/preflight`, { headers: asAdmin(), payload: {} })
    expect(preflight.statusCode).toBe(200)
    expect(
      (await call('post', `${V2}/publications/preflight`, { headers: asAdmin(), payload: { date: '2026-13-40' } }))
        .statusCode,
    ).toBe(400)
    expect((await call('post', `${V2}/publications/preflight`, { payload: {} })).statusCode).toBe(401)

    const published = await call('post', `${V2}/publications`, { headers: asAdmin(), payload: { date: '2026-11-20' } })
    expect(published.statusCode).toBe(200)

    const xml = await call('get', '/dane-gov/{file}', { params: { file: 'dataset.xml' } })
    expect(xml.statusCode).toBe(200)
    expect((await call('get', '/dane-gov/{file}', { params: { file: 'dataset.md5' } })).statusCode).toBe(200)
    const csv = (published.json() as { csv: { file_name: string } }).csv.file_name
    expect((await call('get', '/dane-gov/{file}', { params: { file: csv } })).statusCode).toBe(200)
    expect(
      (
        await call('get', '/dane-gov/{file}', {
          params: { file: 'dataset.xml' },
          headers: { 'if-none-match': String(xml.headers.etag) },
        })
      ).statusCode,
    ).toBe(304)
    expect((await call('get', '/dane-gov/{file}', { params: { file: 'nothing.csv' } })).statusCode).toBe(404)
    // another developer entity's dataset: none here, so its files are not found
    expect(
      (await call('get', '/dane-gov/{dataset}/{file}', { params: { dataset: 'd999', file: 'dataset.xml' } }))
        .statusCode,
    ).toBe(404)

    const legacy = '/wp-json/dg/v1/generate'
    expect((await call('get', legacy, { query: { date: '2026-11-20' } })).statusCode).toBe(401)
    expect(
      (await call('post', legacy, { query: { date: '2026-11-20' }, headers: { 'x-dg-webhook-key': webhookSecret } }))
        .statusCode,
    ).toBe(200)
    expect(
      (await call('get', legacy, { query: { date: '2026-02-30' }, headers: { 'x-dg-webhook-key': webhookSecret } }))
        .statusCode,
    ).toBe(400)
  })

  it('the report import: preview, invalid preview, job record, refused and accepted confirmation', async () => {
    const url = `${V2}/imports/report`
    const upload = (name: string, content: Buffer | string, type: string) => {
      const body = multipart({}, { name, content, type })
      return call('post', url, { payload: body.payload, headers: asAdmin(body.headers) })
    }
    const confirm = (fields: Record<string, string>) =>
      call('post', url, {
        payload: new URLSearchParams(fields).toString(),
        headers: asAdmin({ 'content-type': 'application/x-www-form-urlencoded' }),
      })

    // a report is published under the dataset of the developer it names, with that entity's name
    // and KRS: publish as the real report's company
    const entity = { name: 'MWRW Sp. z o.o.', krs: '0000942937', nip: '9721307957' }
    await env.ctx.db.updateTable('developers').set(entity).execute()
    // the real report's later rows carry other KRS numbers: refused, naming them
    const foreign = await upload('raport.xlsx', REAL_REPORT, XLSX_TYPE)
    expect(foreign.statusCode).toBe(422)
    expect(foreign.json()).toMatchObject({
      error: 'import_invalid',
      preview: { errors: [{ code: 'developer_mismatch' }, { code: 'developer_mismatch' }] },
    })
    // and its job, confirmed with the former confirmation parameter, is refused all the same
    const refused = await confirm({
      job_id: foreign.json().id,
      confirm: 'true',
      date: '2026-11-19',
      confirm_developer_mismatch: 'true',
    })
    expect(refused.statusCode).toBe(422)
    expect(refused.json()).toMatchObject({ error: 'developer_mismatch' })
    const preview = await upload('raport.csv', templateReportOf(entity), 'text/csv')
    expect(preview.statusCode, preview.body).toBe(200)
    const id = (preview.json() as { id: string }).id
    expect((await upload('raport.csv', 'a;b\n1;2\n', 'text/csv')).statusCode).toBe(422)
    expect((await confirm({ job_id: id, date: '2026-11-19' })).statusCode).toBe(422)
    expect((await confirm({ job_id: '0'.repeat(32), confirm: 'true', date: '2026-11-19' })).statusCode).toBe(404)
    expect((await call('get', `${V2}/imports/{id}`, { params: { id }, headers: asAdmin() })).statusCode).toBe(200)
    const confirmed = await confirm({ job_id: id, confirm: 'true', date: '2026-11-19' })
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    const again = await confirm({ job_id: id, confirm: 'true', date: '2026-11-19' })
    expect(again.statusCode).toBe(200)
    expect(again.json()).toMatchObject({ replayed: true })
    // a completed report job shows the publication outcome as its result
    expect((await call('get', `${V2}/imports/{id}`, { params: { id }, headers: asAdmin() })).statusCode).toBe(200)
  })

  it('the offer import: valid and invalid preview, execution, replay, job record and refusals', async () => {
    const url = `${V2}/imports/offer`
    const preview = (rows: string[]) => {
      const body = multipart(
        { mode: 'patch', mapping: JSON.stringify(IMPORT_MAPPING) },
        { name: 'oferty.csv', content: `${IMPORT_HEADER}\n${rows.join('\n')}\n` },
      )
      return call('post', url, { payload: body.payload, headers: asAdmin(body.headers) })
    }
    const execute = (jobId: string, key?: string) =>
      call('post', url, {
        payload: `job_id=${jobId}&confirm_archiving=false`,
        headers: asAdmin({
          'content-type': 'application/x-www-form-urlencoded',
          ...(key ? { 'idempotency-key': key } : {}),
        }),
      })

    const valid = await preview([
      'OA-INV;OA-1;A/1;mieszkanie;wolne;50,00;2;1;12 000,00;2026-05-01;600 000,00;2026-05-01;Poznań',
      'OA-INV;OA-2;A/2;dom;rezerwacja;60,50;3;-1;12000;2026-05-01;726000;2026-05-01;Poznań',
    ])
    expect(valid.statusCode).toBe(200)
    const id = (valid.json() as { id: string }).id
    const invalid = await preview([
      'OA-INV;OA-3;A/3;garaż;wolne;50,00;2;1;12 000,00;2026-05-01;999 000,00;2026-13-01;Poznań',
      'OA-INV;;A/4;mieszkanie;nieznany;abc;x;1;;;;;Poznań',
    ])
    expect(invalid.statusCode).toBe(422)
    expect((invalid.json() as { preview: { errors: unknown[] } }).preview.errors.length).toBeGreaterThan(0)
    const noMapping = multipart({ mode: 'patch', mapping: '{' }, { name: 'oferty.csv', content: IMPORT_HEADER })
    expect(
      (await call('post', url, { payload: noMapping.payload, headers: asAdmin(noMapping.headers) })).statusCode,
    ).toBe(400)

    expect((await execute(id)).statusCode).toBe(400)
    expect((await execute(id, 'openapi-import-1')).statusCode).toBe(200)
    const replay = await execute(id, 'openapi-import-1')
    expect(replay.statusCode).toBe(200)
    expect(replay.json()).toMatchObject({ replayed: true })
    expect((await execute((invalid.json() as { id: string }).id, 'openapi-import-2')).statusCode).toBe(422)
    expect((await execute(id, 'openapi-import-3')).statusCode).toBe(409)
    expect((await execute('f'.repeat(32), 'openapi-import-4')).statusCode).toBe(404)

    const job = await call('get', `${V2}/imports/{id}`, {
      params: { id },
      query: { page: '1', per_page: '1' },
      headers: asAdmin(),
    })
    expect(job.statusCode).toBe(200)
    expect(job.json()).toMatchObject({ status: 'completed', total_items: 2, items: [{ action: 'create' }] })
    expect(
      (await call('get', `${V2}/imports/{id}`, { params: { id: '0'.repeat(32) }, headers: asAdmin() })).statusCode,
    ).toBe(404)
    expect(
      (await call('get', `${V2}/imports/{id}`, { params: { id }, query: { page: '9' }, headers: asAdmin() }))
        .statusCode,
    ).toBe(400)

    // the header row before a preview: 200, a file it cannot read 422, no file 400
    const headersOf = (fields: Record<string, string>, file?: { name: string; content: Buffer | string }) => {
      const body = multipart(fields, file)
      return call('post', `${V2}/imports/offer/headers`, { payload: body.payload, headers: asAdmin(body.headers) })
    }
    const read = await headersOf({}, { name: 'oferty.csv', content: `${IMPORT_HEADER}\nOA-INV;OA-9\n` })
    expect(read.statusCode, read.body).toBe(200)
    expect(read.json()).toMatchObject({ format: 'csv', header_row: 1 })
    const workbook = await headersOf({}, { name: 'raport.xlsx', content: REAL_REPORT })
    expect(workbook.statusCode, workbook.body).toBe(200)
    expect(workbook.json()).toMatchObject({ format: 'xlsx' })
    const unreadable = await headersOf({ sheet: 'Brak' }, { name: 'raport.xlsx', content: REAL_REPORT })
    expect(unreadable.statusCode).toBe(422)
    expect(unreadable.json()).toMatchObject({ error: 'import_file_unreadable', reason: 'sheet_not_found' })
    expect((await headersOf({ sheet: 'Oferty' })).statusCode).toBe(400)
  })

  it('the property webhook: 202, replay 200, 401, 400 and 422; the webhook key', async () => {
    const url = `${V2}/webhooks/properties`
    const send = (payload: unknown, key: string, headers: Record<string, string> = {}) => {
      const body = typeof payload === 'string' ? payload : JSON.stringify(payload)
      return call('post', url, {
        payload: body,
        headers: { ...deliveryHeaders({ body, key, secret: webhookSecret, timestamp: now() }), ...headers },
      })
    }
    const offer = {
      source_investment_id: 'OA-WH',
      source_property_id: 'W1',
      prop_type: 'mieszkanie',
      prop_area: '50.00',
      prop_rooms: 2,
      price_m2: '10000.00',
      price_total: '500000.00',
      price_total_from: '2026-05-01',
      price_m2_from: '2026-05-01',
      property_status: null,
    }
    const accepted = await send(offer, 'openapi-event-1')
    expect(accepted.statusCode).toBe(202)
    // the checks bite: a changed type or an undocumented field is refused
    const [open, strict] = bodyValidators('post', url, 202)
    const body = accepted.json() as { result: Json }
    expect(open({ ...body, result: { ...body.result, run_id: String(body.result.run_id) } })).toBe(false)
    expect(open({ ...body, result: { ...body.result, created: undefined } })).toBe(false)
    expect(open({ ...body, extra: true })).toBe(true)
    expect(strict({ ...body, extra: true })).toBe(false)
    expect((await send(offer, 'openapi-event-1')).statusCode).toBe(200)
    expect((await send(offer, 'openapi-event-1', { 'x-dg-signature': '0'.repeat(64) })).statusCode).toBe(401)
    expect((await send({ ...offer, prop_no: 'W/1' }, 'openapi-event-1')).statusCode).toBe(409)
    expect((await send({ ...offer, prop_area: { value: 50 } }, 'openapi-event-2')).statusCode).toBe(422)
    expect((await send({ ...offer, prop_rooms: 'many', unknown: 'x' }, 'openapi-event-3')).statusCode).toBe(422)
    expect((await send('[1, 2]', 'openapi-event-4')).statusCode).toBe(400)
    expect((await send({ prop_no: 'x' }, 'openapi-event-5')).statusCode).toBe(400)

    expect((await call('get', `${V2}/webhook-secret`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/webhook-secret`, { headers: { authorization: reader } })).statusCode).toBe(403)
    expect((await call('post', `${V2}/webhook-secret/rotate`, { headers: asAdmin() })).statusCode).toBe(200)
  })

  it('publication history, dashboard, developer list and the legacy key switch', async () => {
    const readerAuth = { headers: { authorization: reader } }
    const list = await call('get', `${V2}/publications`, { headers: asAdmin(), query: { per_page: '3' } })
    expect(list.statusCode).toBe(200)
    expect((await call('get', `${V2}/publications`, { headers: asAdmin(), query: { status: 'x' } })).statusCode).toBe(
      400,
    )
    expect((await call('get', `${V2}/publications`, readerAuth)).statusCode).toBe(403)
    const first = (list.json() as { items: Array<{ id: number }> }).items[0]
    expect(first).toBeDefined()
    const one = { params: { id: first?.id ?? 1 }, headers: asAdmin() }
    expect((await call('get', `${V2}/publications/{id}`, one)).statusCode).toBe(200)
    expect((await call('get', `${V2}/publications/{id}`, { ...one, params: { id: 999999 } })).statusCode).toBe(404)
    expect((await call('get', `${V2}/dashboard`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/dashboard`, readerAuth)).statusCode).toBe(403)
    expect((await call('get', `${V2}/developers`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/publication/audit`, { headers: asAdmin() })).statusCode).toBe(200)
    const badDay = { headers: asAdmin(), query: { date: '2026-02-30' } }
    expect((await call('get', `${V2}/publication/audit`, badDay)).statusCode).toBe(400)
    expect((await call('get', `${V2}/publication/audit`, readerAuth)).statusCode).toBe(403)
    const legacy = `${V2}/legacy-generate/settings`
    expect((await call('get', legacy, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('put', legacy, { headers: asAdmin(), payload: { enabled: null } })).statusCode).toBe(200)
    expect((await call('put', legacy, { headers: asAdmin(), payload: { enabled: 'on' } })).statusCode).toBe(400)
    expect((await call('put', legacy, { ...readerAuth, payload: { enabled: true } })).statusCode).toBe(403)
    expect((await call('get', `${V2}/site-options`, { headers: asAdmin() })).statusCode).toBe(200)
    const option = `${V2}/site-options/{name}`
    const unknown = { params: { name: 'no_such_option' }, headers: asAdmin() }
    expect((await call('put', option, { ...unknown, payload: { value: 'x' } })).statusCode).toBe(404)
    expect((await call('put', option, { ...unknown, payload: { value: [1] } })).statusCode).toBe(400)
  })

  it('the public prices: settings and their refusals, the public answer, 304, 404 and the preflight', async () => {
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select('id')
      .where('host_status', '=', 'publish')
      .where('visibility', '=', 'public')
      .orderBy('id')
      .executeTakeFirstOrThrow()
    const settings = `${V2}/investments/{id}/public-prices`
    const publicPrices = `${V2}/public/investments/{id}/prices`
    const params = { id: investment.id }
    expect((await call('get', publicPrices, { params })).statusCode).toBe(404)
    expect((await call('get', settings, { params, headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', settings, { params, headers: { authorization: reader } })).statusCode).toBe(403)
    const refused = await call('put', settings, {
      params,
      headers: asAdmin(),
      payload: { allowed_origins: ['https://www.example.pl/ceny'] },
    })
    expect(refused.statusCode).toBe(422)
    const payload = { enabled: true, allowed_origins: ['https://www.example.pl'] }
    expect((await call('put', settings, { params, headers: asAdmin(), payload })).statusCode).toBe(200)
    const answered = await call('get', publicPrices, { params, headers: { origin: 'https://www.example.pl' } })
    expect(answered.statusCode).toBe(200)
    expect((answered.json() as { units: unknown[] }).units.length).toBeGreaterThan(0)
    const etag = String(answered.headers.etag)
    expect((await call('get', publicPrices, { params, headers: { 'if-none-match': etag } })).statusCode).toBe(304)
    const preflight = await call('options', publicPrices, {
      params,
      headers: { origin: 'https://www.example.pl', 'access-control-request-method': 'GET' },
    })
    expect(preflight.statusCode).toBe(204)
  })

  it('the website component: the current script, 304, and the redirect of latest', async () => {
    const script = `${V2}/embed/{version}/dg-prices.js`
    const answered = await call('get', script, { params: { version: SERVICE_VERSION } })
    expect(answered.statusCode).toBe(200)
    const revalidated = await call('get', script, {
      params: { version: SERVICE_VERSION },
      headers: { 'if-none-match': String(answered.headers.etag) },
    })
    expect(revalidated.statusCode).toBe(304)
    expect((await call('get', script, { params: { version: 'latest' } })).statusCode).toBe(302)
  })

  it('calls every operation of the contract (REST namespaces and published files) but the administration’s; every operation has a unique operationId', () => {
    const { operations, ids } = contractOperations(document)
    expect(operations.length).toBeGreaterThan(25)
    const integrations = operations.filter((operation) => !ADMINISTRATION_OPERATION.test(operation))
    expect(integrations.filter((operation) => !called.has(operation))).toEqual([])
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id))).toEqual([])
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([])
  })
})
