/*
 * The OpenAPI document against the service itself: every documented operation is called for
 * real, and each answer must be documented for its path, method and status, with its media type,
 * and its body must validate against the schema the document gives for it. A second, closed
 * reading of the document (an object schema that does not say otherwise allows no undocumented
 * property) catches fields a service added without documenting them.
 */
import fs from 'node:fs'
import path from 'node:path'

import { Validator } from '@seriousme/openapi-schema-validator'
import sharp from 'sharp'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { LightMyRequestResponse } from 'fastify'
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../../src/demo/demo-setup.js'
import { SERVICE_VERSION } from '../../../src/version.js'
import { createTestUser, basicAuth, type TestUser } from '../../helpers/factories.js'
import { multipart } from '../../helpers/multipart.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'
import { deliveryHeaders } from '../../helpers/webhook.js'

// ajv-formats ships CommonJS with a default export property
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

const V2 = '/wp-json/dg/v2'
const DOCUMENT_URI = 'https://dg.test/openapi.json'
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

type Json = Record<string, unknown>
interface OpenApiDocument {
  openapi: string
  servers?: Array<{ url: string }>
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, { content?: Json }> }>>
  components: Json
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'])

/** A copy where every object schema that lists properties and says nothing else allows no other. */
function closed<T>(value: T): T {
  if (Array.isArray(value)) return value.map(closed) as T
  if (value === null || typeof value !== 'object') return value
  const out: Json = {}
  for (const [key, child] of Object.entries(value)) out[key] = closed(child)
  if (out.properties && typeof out.properties === 'object' && !('additionalProperties' in out))
    out.additionalProperties = false
  return out as T
}

/** A JSON pointer segment inside a URI fragment. */
const segment = (text: string) => encodeURIComponent(text.replaceAll('~', '~0').replaceAll('/', '~1'))

function responseValidators(document: OpenApiDocument) {
  const ajv = (doc: OpenApiDocument) => {
    const instance = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false })
    addFormats(instance)
    instance.addSchema(doc as unknown as Json, DOCUMENT_URI)
    return instance
  }
  const open = ajv(document)
  const strict = ajv(closed(document))
  const cache = new Map<string, [ValidateFunction, ValidateFunction]>()
  return (pointer: string): [ValidateFunction, ValidateFunction] => {
    let found = cache.get(pointer)
    if (!found) {
      const ref = { $ref: `${DOCUMENT_URI}#${pointer}` }
      found = [open.compile(ref), strict.compile(ref)]
      cache.set(pointer, found)
    }
    return found
  }
}

describeEachDatabase('OpenAPI document against real responses', (getEnv) => {
  let env: TestEnv
  let document: OpenApiDocument
  let validators: ReturnType<typeof responseValidators>
  let admin: TestUser
  let reader: string
  let adminLogin: { login: string; password: string }
  let webhookSecret: string
  const called = new Set<string>()

  /**
   * Sends a request to a documented operation and checks the answer against the document:
   * the status is documented, the media type is one the document gives, the body validates.
   */
  async function call(
    method: string,
    template: string,
    options: {
      params?: Record<string, string | number>
      query?: Record<string, string>
      headers?: Record<string, string>
      payload?: string | Buffer | Json
    } = {},
  ): Promise<LightMyRequestResponse> {
    let url = template
    for (const [name, value] of Object.entries(options.params ?? {}))
      url = url.replace(`{${name}}`, encodeURIComponent(String(value)))
    const response = await env.app.inject({
      method: method.toUpperCase() as 'GET',
      url,
      ...(options.query ? { query: options.query } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.payload !== undefined ? { payload: options.payload } : {}),
    })
    const where = `${method.toUpperCase()} ${template} → ${response.statusCode}`
    const operation = document.paths[template]?.[method]
    expect(operation, `${method.toUpperCase()} ${template} is documented`).toBeDefined()
    called.add(`${method} ${template}`)
    const documented = operation?.responses[String(response.statusCode)]
    expect(documented, `${where} is documented (body: ${response.body.slice(0, 300)})`).toBeDefined()
    if (!documented?.content) {
      expect(response.body, `${where} has no body`).toBe('')
      return response
    }
    const mediaType = String(response.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
    expect(Object.keys(documented.content), `${where}: media type`).toContain(mediaType)
    if (mediaType !== 'application/json') return response
    const [open, strict] = bodyValidators(method, template, response.statusCode)
    const body: unknown = response.json()
    expect(open(body) ? [] : open.errors, `${where}: body against the document`).toEqual([])
    expect(strict(body) ? [] : strict.errors, `${where}: no undocumented property`).toEqual([])
    return response
  }

  /** The validators of a JSON answer: as the document says, and closed (no undocumented property). */
  const bodyValidators = (method: string, template: string, status: number) =>
    validators(
      '/' +
        ['paths', template, method, 'responses', String(status), 'content', 'application/json', 'schema']
          .map(segment)
          .join('/'),
    )

  const asAdmin = (headers: Record<string, string> = {}) => ({ authorization: admin.authorization, ...headers })
  const now = () => Math.floor(env.clock.now().getTime() / 1000)

  beforeAll(async () => {
    env = getEnv()
    const demo = await setUpDemo(env.ctx)
    reader = basicAuth(demo.reader.login, demo.reader.application_password)
    adminLogin = demo.admin
    webhookSecret = demo.webhook_secret
    admin = await createTestUser(env.ctx, 'administrator')
    const response = await env.app.inject({ method: 'GET', url: `${V2}/openapi.json` })
    expect(response.statusCode).toBe(200)
    document = response.json()
    const checked = await new Validator().validate(document as unknown as Json)
    expect(checked.errors ?? []).toEqual([])
    validators = responseValidators(document)
  })

  it('liveness, the admin-panel session and the status', async () => {
    expect((await call('get', '/healthz')).statusCode).toBe(200)
    expect((await call('get', `${V2}/session`)).statusCode).toBe(401)
    expect(
      (await call('post', `${V2}/session`, { payload: { login: adminLogin.login, password: 'wrong-password' } }))
        .statusCode,
    ).toBe(401)
    expect((await call('post', `${V2}/session`, { payload: { login: '' } })).statusCode).toBe(400)
    const login = await call('post', `${V2}/session`, { payload: adminLogin })
    expect(login.statusCode).toBe(200)
    const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ')
    const session = await call('get', `${V2}/session`, { headers: { cookie } })
    expect(session.statusCode).toBe(200)
    expect((await call('delete', `${V2}/session`, { headers: { cookie } })).statusCode).toBe(401)
    const nonce = (session.json() as { nonce: string }).nonce
    const own = `${V2}/session/password`
    const asSession = { cookie, 'x-wp-nonce': nonce }
    expect((await call('put', own, { payload: { current_password: 'x', password: 'y' } })).statusCode).toBe(401)
    expect(
      (await call('put', own, { headers: asSession, payload: { current_password: 'wrong-one', password: 'y' } }))
        .statusCode,
    ).toBe(403)
    expect(
      (
        await call('put', own, {
          headers: asSession,
          payload: { current_password: adminLogin.password, password: 'y' },
        })
      ).statusCode,
    ).toBe(400)
    const changed = await call('put', own, {
      headers: asSession,
      payload: { current_password: adminLogin.password, password: adminLogin.password },
    })
    expect(changed.statusCode).toBe(200)
    // password reset by e-mail: not offered without SMTP; a link's token that is no link is refused
    const reset = `${V2}/session/password-reset`
    expect((await call('get', reset)).json()).toMatchObject({ available: false })
    expect((await call('post', reset, { payload: { login: adminLogin.login } })).statusCode).toBe(409)
    expect(
      (await call('post', `${reset}/confirm`, { payload: { token: 'x'.repeat(43), password: 'dlugie-haslo-2026' } }))
        .statusCode,
    ).toBe(400)
    // login CSRF: another site's page, or a form body, is refused before anything is checked
    expect(
      (await call('post', `${V2}/session`, { headers: { origin: 'https://evil.example' }, payload: adminLogin }))
        .statusCode,
    ).toBe(403)
    expect(
      (
        await call('post', `${V2}/session`, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `login=${adminLogin.login}&password=x`,
        })
      ).statusCode,
    ).toBe(415)
    expect((await call('delete', `${V2}/session`, { headers: { cookie, 'x-wp-nonce': nonce } })).statusCode).toBe(204)

    expect((await call('get', `${V2}/status`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/status`)).statusCode).toBe(401)
    expect((await call('get', `${V2}/status`, { headers: { authorization: reader } })).statusCode).toBe(403)
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

  it('the catalog editor: investments, offers, components, price history, versions and refusals', async () => {
    expect((await call('get', `${V2}/custom-fields`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/custom-fields`, { headers: { authorization: reader } })).statusCode).toBe(403)
    const created = await call('post', `${V2}/investments`, {
      headers: asAdmin(),
      payload: { title: 'Inwestycja OpenAPI', location: { city: 'Poznań', postal_code: '61-001' } },
    })
    expect(created.statusCode).toBe(201)
    const investment = created.json() as { id: number; version: string }
    expect((await call('post', `${V2}/investments`, { headers: asAdmin(), payload: { title: '' } })).statusCode).toBe(
      422,
    )
    expect(
      (await call('get', `${V2}/investments`, { query: { search: 'OpenAPI' }, headers: asAdmin() })).statusCode,
    ).toBe(200)
    const one = (id: number) => ({ params: { id }, headers: asAdmin() })
    expect((await call('get', `${V2}/investments/{id}`, one(investment.id))).statusCode).toBe(200)
    expect((await call('get', `${V2}/investments/{id}`, one(999_999))).statusCode).toBe(404)
    const changed = await call('patch', `${V2}/investments/{id}`, {
      params: { id: investment.id },
      headers: asAdmin({ 'if-match': investment.version }),
      payload: { excerpt: 'Zmieniona' },
    })
    expect(changed.statusCode).toBe(200)
    const stale = { params: { id: investment.id }, headers: asAdmin({ 'if-match': investment.version }) }
    expect((await call('patch', `${V2}/investments/{id}`, { ...stale, payload: { excerpt: 'x' } })).statusCode).toBe(
      409,
    )
    expect(
      (await call('patch', `${V2}/investments/{id}`, { ...one(investment.id), payload: { excerpt: 'x' } })).statusCode,
    ).toBe(428)

    const flat = await call('post', `${V2}/offers`, {
      headers: asAdmin(),
      payload: {
        investment_id: investment.id,
        prop_no: 'OA/1',
        prop_type: 'mieszkanie',
        price_total: '400000.00',
        price_total_from: '2026-11-01',
        components: [{ kind: 'parking_space', designation: 'MP-1', price: '30000.00' }],
      },
    })
    expect(flat.statusCode).toBe(201)
    const offer = flat.json() as { id: number; version: string; components: Array<{ id: number }> }
    expect(
      (
        await call('post', `${V2}/offers`, {
          headers: asAdmin(),
          payload: { investment_id: investment.id, prop_no: 'x' },
        })
      ).statusCode,
    ).toBe(422)
    expect(
      (await call('get', `${V2}/offers`, { query: { without_type: 'false' }, headers: asAdmin() })).statusCode,
    ).toBe(200)
    expect((await call('get', `${V2}/offers`, { query: { per_page: '500' }, headers: asAdmin() })).statusCode).toBe(400)
    expect((await call('get', `${V2}/offers/{id}`, one(offer.id))).statusCode).toBe(200)
    expect((await call('get', `${V2}/offers/{id}`, one(999_999))).statusCode).toBe(404)
    expect((await call('get', `${V2}/offers/{id}/price-history`, one(offer.id))).statusCode).toBe(200)
    expect((await call('get', `${V2}/offers/{id}/price-history`, one(999_999))).statusCode).toBe(404)

    const versioned = (version: string) => ({ params: { id: offer.id }, headers: asAdmin({ 'if-match': version }) })
    const repriced = await call('patch', `${V2}/offers/{id}`, {
      ...versioned(offer.version),
      payload: { price_total: '410000.00', reason: 'Cennik' },
    })
    expect(repriced.statusCode).toBe(200)
    let version = (repriced.json() as { version: string }).version
    expect(
      (await call('patch', `${V2}/offers/{id}`, { ...versioned(offer.version), payload: { prop_rooms: 2 } }))
        .statusCode,
    ).toBe(409)
    expect(
      (await call('patch', `${V2}/offers/{id}`, { ...one(offer.id), payload: { prop_rooms: 2 } })).statusCode,
    ).toBe(428)
    expect(
      (await call('patch', `${V2}/offers/{id}`, { ...versioned(version), payload: { prop_rooms: 'many' } })).statusCode,
    ).toBe(422)

    const component = { params: { id: offer.id, component_id: offer.components[0]?.id ?? 0 } }
    const added = await call('post', `${V2}/offers/{id}/components`, {
      ...versioned(version),
      payload: { kind: 'storage_room', designation: 'KL-1', price: '9000.00' },
    })
    expect(added.statusCode).toBe(201)
    version = (added.json() as { version: string }).version
    expect(
      (await call('post', `${V2}/offers/{id}/components`, { ...versioned(version), payload: { price: 'x' } }))
        .statusCode,
    ).toBe(422)
    const updated = await call('patch', `${V2}/offers/{id}/components/{component_id}`, {
      ...component,
      headers: asAdmin({ 'if-match': version }),
      payload: { price: '31000.00' },
    })
    expect(updated.statusCode).toBe(200)
    version = (updated.json() as { version: string }).version
    const removed = await call('delete', `${V2}/offers/{id}/components/{component_id}`, {
      ...component,
      headers: asAdmin({ 'if-match': version }),
    })
    expect(removed.statusCode).toBe(200)
    version = (removed.json() as { version: string }).version
    expect(
      (
        await call('delete', `${V2}/offers/{id}/components/{component_id}`, {
          ...component,
          headers: asAdmin({ 'if-match': version }),
        })
      ).statusCode,
    ).toBe(422)

    const archived = await call('post', `${V2}/offers/{id}/archive`, { ...versioned(version), payload: {} })
    expect(archived.statusCode).toBe(200)
    const restored = await call('post', `${V2}/offers/{id}/restore`, {
      ...versioned((archived.json() as { version: string }).version),
      payload: {},
    })
    expect(restored.statusCode).toBe(200)
    expect((await call('post', `${V2}/offers/{id}/archive`, { ...versioned(version), payload: {} })).statusCode).toBe(
      409,
    )

    const investmentNow = (await call('get', `${V2}/investments/{id}`, one(investment.id))).json() as {
      version: string
    }
    const withOffers = { params: { id: investment.id }, headers: asAdmin({ 'if-match': investmentNow.version }) }
    expect((await call('delete', `${V2}/investments/{id}`, withOffers)).statusCode).toBe(409)
    const empty = (
      await call('post', `${V2}/investments`, { headers: asAdmin(), payload: { title: 'Pusta inwestycja' } })
    ).json() as { id: number; version: string }
    expect(
      (
        await call('delete', `${V2}/investments/{id}`, {
          params: { id: empty.id },
          headers: asAdmin({ 'if-match': empty.version }),
        })
      ).statusCode,
    ).toBe(204)
  })

  it('users, application passwords and the audit log, with their refusals', async () => {
    const readerAuth = { headers: { authorization: reader } }
    expect((await call('get', `${V2}/users`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/users`, readerAuth)).statusCode).toBe(403)
    const created = await call('post', `${V2}/users`, {
      headers: asAdmin(),
      payload: { login: 'openapi.user', email: 'openapi.user@example.test', role: 'dg_catalog_reader' },
    })
    expect(created.statusCode).toBe(201)
    const userId = (created.json() as { user: { id: number } }).user.id
    expect(
      (await call('post', `${V2}/users`, { headers: asAdmin(), payload: { login: '!', email: 'x', role: 'x' } }))
        .statusCode,
    ).toBe(422)
    expect((await call('post', `${V2}/users`, { headers: asAdmin(), payload: { login: 'x' } })).statusCode).toBe(400)
    const one = { params: { id: userId }, headers: asAdmin() }
    expect((await call('get', `${V2}/users/{id}`, one)).statusCode).toBe(200)
    expect((await call('get', `${V2}/users/{id}`, { ...one, params: { id: 999999 } })).statusCode).toBe(404)
    expect((await call('patch', `${V2}/users/{id}`, { ...one, payload: { disabled: true } })).statusCode).toBe(200)
    expect((await call('patch', `${V2}/users/{id}`, { ...one, payload: { role: 'root' } })).statusCode).toBe(422)
    expect(
      (
        await call('patch', `${V2}/users/{id}`, {
          params: { id: admin.id },
          headers: asAdmin(),
          payload: { disabled: true },
        })
      ).statusCode,
    ).toBe(409)
    const setPassword = `${V2}/users/{id}/password`
    expect((await call('put', setPassword, { ...one, payload: {} })).statusCode).toBe(200)
    expect((await call('put', setPassword, { ...one, payload: { password: 'short' } })).statusCode).toBe(400)
    expect((await call('put', setPassword, { ...one, params: { id: 999999 }, payload: {} })).statusCode).toBe(404)
    expect((await call('put', setPassword, { params: { id: userId }, payload: {} })).statusCode).toBe(401)
    expect((await call('put', setPassword, { ...readerAuth, params: { id: userId }, payload: {} })).statusCode).toBe(
      403,
    )
    const passwords = `${V2}/users/{id}/application-passwords`
    const issued = await call('post', passwords, { ...one, payload: { name: 'openapi' } })
    expect(issued.statusCode).toBe(201)
    expect((await call('post', passwords, { ...one, payload: { name: 'openapi' } })).statusCode).toBe(422)
    expect((await call('get', passwords, one)).statusCode).toBe(200)
    const uuid = (issued.json() as { uuid: string }).uuid
    const revoke = `${V2}/users/{id}/application-passwords/{uuid}`
    expect((await call('delete', revoke, { params: { id: userId, uuid }, headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('delete', revoke, { params: { id: userId, uuid }, headers: asAdmin() })).statusCode).toBe(404)

    expect((await call('get', `${V2}/audit`, { headers: asAdmin(), query: { per_page: '5' } })).statusCode).toBe(200)
    expect((await call('get', `${V2}/audit`, { headers: asAdmin(), query: { channel: 'x' } })).statusCode).toBe(400)
    expect((await call('get', `${V2}/audit`, readerAuth)).statusCode).toBe(403)
    expect((await call('get', `${V2}/audit/actions`, { headers: asAdmin() })).statusCode).toBe(200)

    // sign-in protection: the sixth wrong password in a row is slowed down
    for (let i = 0; i < 6; i++)
      await env.app.inject({
        method: 'POST',
        url: `${V2}/session`,
        payload: { login: 'openapi.user', password: `wrong-${i}` },
      })
    const slowed = await call('post', `${V2}/session`, { payload: { login: 'openapi.user', password: 'whatever' } })
    expect(slowed.statusCode).toBe(429)
  })

  it('the editor’s media: uploads, refusals, list, read, change, removal and the served file', async () => {
    const offerId = (await env.ctx.db.selectFrom('offers').select('id').executeTakeFirstOrThrow()).id
    const investmentId = (await env.ctx.db.selectFrom('investments').select('id').executeTakeFirstOrThrow()).id
    const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#000' } })
      .png()
      .toBuffer()
    const upload = (template: string, id: number, name: string, content: Buffer, type: string) => {
      const body = multipart({ title: name }, { name, content, type })
      return call('post', template, { params: { id }, payload: body.payload, headers: asAdmin(body.headers) })
    }
    const image = await upload(`${V2}/offers/{id}/media`, offerId, 'plan.png', png, 'image/png')
    expect(image.statusCode).toBe(201)
    expect(
      (await upload(`${V2}/offers/{id}/media`, offerId, 'x.png', Buffer.from('not an image'), 'image/png')).statusCode,
    ).toBe(415)
    expect((await upload(`${V2}/offers/{id}/media`, 999_999, 'plan.png', png, 'image/png')).statusCode).toBe(404)
    const pdf = await upload(
      `${V2}/investments/{id}/media`,
      investmentId,
      'prospekt.pdf',
      Buffer.from('%PDF-1.4\n%%EOF\n'),
      'application/pdf',
    )
    expect(pdf.statusCode).toBe(201)
    expect(
      (
        await upload(
          `${V2}/investments/{id}/media`,
          investmentId,
          'x.jpg',
          Buffer.from([0xff, 0xd8, 0xff, 1]),
          'image/jpeg',
        )
      ).statusCode,
    ).toBe(422)
    for (const [template, id] of [
      [`${V2}/offers/{id}/media`, offerId],
      [`${V2}/investments/{id}/media`, investmentId],
    ] as const) {
      expect((await call('get', template, { params: { id }, headers: asAdmin() })).statusCode).toBe(200)
      expect((await call('get', template, { params: { id: 999_999 }, headers: asAdmin() })).statusCode).toBe(404)
    }
    const media = image.json() as { id: number; url: string; preview_url: string }
    const one = (id: number) => ({ params: { id }, headers: asAdmin() })
    expect((await call('get', `${V2}/media/{id}`, one(media.id))).statusCode).toBe(200)
    expect((await call('get', `${V2}/media/{id}`, one(999_999))).statusCode).toBe(404)
    expect((await call('patch', `${V2}/media/{id}`, { ...one(media.id), payload: { alt: 'Rzut' } })).statusCode).toBe(
      200,
    )
    expect(
      (await call('patch', `${V2}/media/{id}`, { ...one(media.id), payload: { title: 'x'.repeat(300) } })).statusCode,
    ).toBe(422)
    const file = new URL(media.url).pathname.replace('/dg-media/', '')
    const served = await call('get', '/dg-media/{file}', { params: { file } })
    expect(served.statusCode).toBe(200)
    expect(
      (await call('get', '/dg-media/{file}', { params: { file }, headers: { 'if-none-match': `"${file}"` } }))
        .statusCode,
    ).toBe(304)
    expect((await call('get', '/dg-media/{file}', { params: { file: 'nothing.jpg' } })).statusCode).toBe(404)
    const pdfFile = new URL((pdf.json() as { url: string }).url).pathname.replace('/dg-media/', '')
    expect((await call('get', '/dg-media/{file}', { params: { file: pdfFile } })).statusCode).toBe(200)

    const offer = (await call('get', `${V2}/offers/{id}`, one(offerId))).json() as { version: string }
    const placed = await call('patch', `${V2}/offers/{id}`, {
      params: { id: offerId },
      headers: asAdmin({ 'if-match': offer.version }),
      payload: { gallery: [media.id] },
    })
    expect(placed.statusCode).toBe(200)
    expect((await call('delete', `${V2}/media/{id}`, one(media.id))).statusCode).toBe(409)
    expect((await call('delete', `${V2}/media/{id}`, one((pdf.json() as { id: number }).id))).statusCode).toBe(204)
    expect((await call('delete', `${V2}/media/{id}`, one(999_999))).statusCode).toBe(404)
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

  it('scheduled sources: add, list, show, change, run (an unreachable source), runs, a run, refused decisions, removal', async () => {
    const payload = {
      name: 'Źródło',
      url: 'https://127.0.0.1:1/prices.csv',
      headers: { Authorization: 'Bearer x' },
      mapping: { source_investment_id: 'Inwestycja', source_property_id: 'ID lokalu' },
      private_hosts: ['127.0.0.1:1'],
    }
    const created = await call('post', `${V2}/sources`, { headers: asAdmin(), payload })
    expect(created.statusCode).toBe(201)
    expect(
      (await call('post', `${V2}/sources`, { headers: asAdmin(), payload: { ...payload, url: 'ftp://x' } })).statusCode,
    ).toBe(400)
    const one = { params: { id: (created.json() as { id: number }).id }, headers: asAdmin() }
    expect((await call('get', `${V2}/sources`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/sources/{id}`, one)).statusCode).toBe(200)
    expect((await call('get', `${V2}/sources/{id}`, { ...one, params: { id: 999_999 } })).statusCode).toBe(404)
    expect((await call('patch', `${V2}/sources/{id}`, { ...one, payload: { stale_after_days: 5 } })).statusCode).toBe(
      200,
    )
    const ran = await call('post', `${V2}/sources/{id}/run`, one)
    expect(ran.statusCode).toBe(200)
    expect(
      (await call('get', `${V2}/source-runs`, { headers: asAdmin(), query: { outcome: 'failed' } })).statusCode,
    ).toBe(200)
    const run = { params: { id: (ran.json() as { id: number }).id }, headers: asAdmin() }
    expect((await call('get', `${V2}/source-runs/{id}`, run)).statusCode).toBe(200)
    expect((await call('post', `${V2}/source-runs/{id}/apply`, run)).statusCode).toBe(409)
    expect((await call('post', `${V2}/source-runs/{id}/reject`, { ...run, params: { id: 999_999 } })).statusCode).toBe(
      404,
    )
    expect((await call('delete', `${V2}/sources/{id}`, one)).statusCode).toBe(200)
  })

  it('the operator’s settings: alert channels, a test alert and the licence', async () => {
    const readerAuth = { headers: { authorization: reader } }
    const alerts = `${V2}/alerts/settings`
    expect((await call('get', alerts, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', alerts, readerAuth)).statusCode).toBe(403)
    expect((await call('post', `${V2}/alerts/test`, { headers: asAdmin(), payload: {} })).statusCode).toBe(400)
    expect((await call('put', alerts, { headers: asAdmin(), payload: { webhook: { url: 'x' } } })).statusCode).toBe(422)
    expect((await call('put', alerts, { headers: asAdmin(), payload: { other: 1 } })).statusCode).toBe(400)
    const saved = await call('put', alerts, {
      headers: asAdmin(),
      payload: { webhook: { url: 'http://127.0.0.1:9/hook', secret: 's'.repeat(40) } },
    })
    expect(saved.statusCode).toBe(200)
    const test = await call('post', `${V2}/alerts/test`, { headers: asAdmin(), payload: {} })
    expect(test.statusCode).toBe(200)
    expect(test.json()).toMatchObject({ state: 'failed' })
    expect((await call('get', `${V2}/license`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/license`, readerAuth)).statusCode).toBe(403)
    expect(
      (await call('put', `${V2}/license`, { headers: asAdmin(), payload: { plan: 'gold', entitlements: [] } }))
        .statusCode,
    ).toBe(400)
    const installed = await call('put', `${V2}/license`, {
      headers: asAdmin(),
      payload: { plan: 'pro', entitlements: ['api_webhooks', 'bulk_import', 'publishing_gov'], valid_until: null },
    })
    expect(installed.statusCode).toBe(200)
    for (const format of ['csv', 'xlsx']) {
      expect((await call('get', `${V2}/offers/export`, { headers: asAdmin(), query: { format } })).statusCode).toBe(200)
      expect((await call('get', `${V2}/imports/template`, { headers: asAdmin(), query: { format } })).statusCode).toBe(
        200,
      )
    }
    expect(
      (await call('get', `${V2}/offers/export`, { headers: asAdmin(), query: { format: 'pdf' } })).statusCode,
    ).toBe(400)
    expect((await call('get', `${V2}/imports/template`, readerAuth)).statusCode).toBe(403)
    const investment = await env.ctx.db.selectFrom('investments').select('id').orderBy('id').executeTakeFirstOrThrow()
    const change = {
      investment: investment.id,
      percent: '2',
      rounding: 'zloty',
      valid_from: '2027-01-01',
      reason: 'test',
    }
    expect(
      (
        await call('post', `${V2}/offers/price-change/preview`, {
          headers: asAdmin(),
          payload: { ...change, percent: 'x' },
        })
      ).statusCode,
    ).toBe(422)
    const planned = await call('post', `${V2}/offers/price-change/preview`, { headers: asAdmin(), payload: change })
    expect(planned.statusCode).toBe(200)
    const done = await call('post', `${V2}/offers/price-change/execute`, {
      headers: asAdmin({ 'idempotency-key': 'openapi-price-change-1' }),
      payload: { job_id: (planned.json() as { job_id: string }).job_id, reason: 'test' },
    })
    expect(done.statusCode).toBe(200)
    expect(
      (
        await call('post', `${V2}/offers/price-change/execute`, {
          headers: asAdmin({ 'idempotency-key': 'openapi-price-change-2' }),
          payload: { job_id: 'f'.repeat(32), reason: 'test' },
        })
      ).statusCode,
    ).toBe(404)
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

  it('calls every operation of the contract (REST namespaces and published files); every operation has a unique operationId', () => {
    const operations: string[] = []
    const ids: string[] = []
    for (const [template, item] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(item)) {
        if (!HTTP_METHODS.has(method)) continue
        ids.push(operation.operationId ?? `(none: ${method} ${template})`)
        // the operations endpoints (/healthz and the like) are the machine's, not the contract's
        if (template.startsWith('/wp-json/') || template.startsWith('/dane-gov/'))
          operations.push(`${method} ${template}`)
      }
    expect(operations.length).toBeGreaterThan(25)
    expect(operations.filter((operation) => !called.has(operation))).toEqual([])
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id))).toEqual([])
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([])
  })
})
