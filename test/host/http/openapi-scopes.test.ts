/*
 * Every operation of the OpenAPI document, called by operators limited to some developer entities
 * and investments (docs/decisions/roles-and-capabilities.md, "Scope") with ids outside their
 * scope: each operation that names an offer, investment, developer entity, medium, import job or
 * source answers 403 rest_forbidden_scope, whether the object is in its path or its body; lists
 * answer, filtered; the rest is not the scope's concern. An object outside the scope that exists
 * is refused with 403 (its existence is not hidden: ids are sequential, and the refusal tells the
 * operator why); one that does not exist answers the operation's own 404. The table below is this
 * suite's own statement of the rule: an operation added without a line here fails the suite.
 */
import { beforeAll, expect, it } from 'vitest'

import { createTestUser, grantProLicense, type TestUser } from '../../helpers/factories.js'
import { contractOperations, type OpenApiDocument, V2 } from '../../helpers/openapi-responses.js'
import { API, previewOffers, type ScopedCatalog, seedScopedCatalog } from '../../helpers/scoped-catalog.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

interface Fixture extends ScopedCatalog {
  /** A medium of investment C. */
  mediaC: number
  /** An offer import previewed by the administrator. */
  otherImport: string
  /** A price change of investment C previewed by the administrator. */
  otherPriceChange: string
  /** A report job of the administrator's. */
  otherReport: string
}

type Call = {
  /** Replaces {id} in the path. */
  id?: (f: Fixture) => number | string
  body?: (f: Fixture) => unknown
  form?: (f: Fixture) => string
  headers?: Record<string, string>
}

/**
 * What the scope does to an operation, for an operator limited to investment A of developer entity 1
 * (user-scopes.test.ts covers one limited to a developer entity):
 *   - a Call: refused 403 rest_forbidden_scope when called with the ids outside the scope it names;
 *   - 'list': answers, filtered to the scope (user-scopes.test.ts checks the contents);
 *   - 'whole': what concerns the whole catalog (a new entity, sources, global settings): 403 whatever the ids;
 *   - 'free': not about any object of the catalog (the caller's own work, templates, reading a file's header);
 *   - 'admin': needs manage_options or dg_read_administration, which an operator never has.
 */
type Rule = Call | 'list' | 'whole' | 'free' | 'admin'

const offerC: Call = { id: (f) => f.offerC }
const investmentC: Call = { id: (f) => f.c }
const mediaC: Call = { id: (f) => f.mediaC }
const FLAT = {
  prop_no: 'Z1',
  prop_type: 'mieszkanie',
  property_status: 'available',
  prop_area: '40.00',
  price_total: '400000.00',
}
const PRICE_CHANGE = { percent: '3', rounding: 'grosz', valid_from: '2026-11-20', reason: 'Podwyżka' }

const SCOPE_RULES: Record<string, Rule> = {
  // the administration
  'get /users': 'admin',
  'post /users': 'admin',
  'get /users/{id}': 'admin',
  'patch /users/{id}': 'admin',
  'put /users/{id}/password': 'admin',
  'get /users/{id}/application-passwords': 'admin',
  'post /users/{id}/application-passwords': 'admin',
  'delete /users/{id}/application-passwords/{uuid}': 'admin',
  'get /webhook-secret': 'admin',
  'post /webhook-secret/rotate': 'admin',
  'get /alerts/settings': 'admin',
  'put /alerts/settings': 'admin',
  'post /alerts/test': 'admin',
  'get /mail/settings': 'admin',
  'put /mail/settings': 'admin',
  'post /mail/test': 'admin',
  'get /mail/outbox': 'admin',
  'put /license': 'admin',
  'put /site-options/{name}': 'admin',
  'put /legacy-generate/settings': 'admin',
  // not about an object of the catalog
  'get /license': 'free',
  'get /site-options': 'free',
  'get /legacy-generate/settings': 'free',
  'get /status': 'free',
  'get /dashboard': 'free',
  'get /audit': 'free',
  'get /audit/actions': 'free',
  'get /publications': 'free',
  'get /publications/{id}': 'free',
  'get /publication/audit': 'free',
  'get /publication/settings': 'free',
  'get /custom-fields': 'free',
  'get /imports/template': 'free',
  'post /imports/offer/headers': 'free',
  // lists, filtered to the scope
  'get /developers': 'list',
  'get /investments': 'list',
  'get /offers': 'list',
  'get /offers/export': 'list',
  'get /sources': 'list',
  'get /source-runs': 'list',
  // one object named in the path
  'get /developers/{id}': { id: (f) => f.dev2 },
  'put /developers/{id}': { id: (f) => f.dev1, body: () => ({ name: 'Zmieniona' }) },
  'get /investments/{id}': investmentC,
  'patch /investments/{id}': investmentC,
  'delete /investments/{id}': investmentC,
  'get /investments/{id}/location': investmentC,
  'put /investments/{id}/location': investmentC,
  'get /investments/{id}/media': investmentC,
  'post /investments/{id}/media': investmentC,
  'get /investments/{id}/public-prices': investmentC,
  'put /investments/{id}/public-prices': investmentC,
  'get /offers/{id}': offerC,
  'patch /offers/{id}': offerC,
  'post /offers/{id}/archive': offerC,
  'post /offers/{id}/restore': offerC,
  'get /offers/{id}/price-history': offerC,
  'post /offers/{id}/components': offerC,
  'patch /offers/{id}/components/{component_id}': offerC,
  'delete /offers/{id}/components/{component_id}': offerC,
  'get /offers/{id}/media': offerC,
  'post /offers/{id}/media': offerC,
  'get /media/{id}': mediaC,
  'patch /media/{id}': mediaC,
  'delete /media/{id}': mediaC,
  'get /imports/{id}': { id: (f) => f.otherImport },
  // one object named in the body
  'post /investments': { body: (f) => ({ title: 'Nowa', developer_id: f.dev1 }) },
  'post /offers': { body: (f) => ({ ...FLAT, investment_id: f.c }) },
  'post /offers/price-change/preview': { body: (f) => ({ ...PRICE_CHANGE, investment: f.c }) },
  'post /offers/price-change/execute': {
    body: (f) => ({ job_id: f.otherPriceChange, reason: 'Podwyżka' }),
    headers: { 'idempotency-key': 'scope-matrix-price-change' },
  },
  'post /imports/offer': {
    form: (f) => `job_id=${f.otherImport}`,
    headers: { 'idempotency-key': 'scope-matrix-import' },
  },
  'post /imports/report': { form: (f) => `job_id=${f.otherReport}&confirm=true&date=2026-11-20` },
  'post /publications': { body: (f) => ({ developer_id: f.dev1 }) },
  'post /publications/preflight': { body: (f) => ({ developer_id: f.dev1 }) },
  // the whole catalog
  'post /developers': 'whole',
  'put /publication/settings': 'whole',
  'post /sources': 'whole',
  'post /sources/preview-headers': 'whole',
  'get /sources/{id}': 'whole',
  'patch /sources/{id}': 'whole',
  'delete /sources/{id}': 'whole',
  'post /sources/{id}/run': 'whole',
  'get /source-runs/{id}': 'whole',
  'post /source-runs/{id}/apply': 'whole',
  'post /source-runs/{id}/reject': 'whole',
}

/** The catalog, called by a reader limited to investment A. */
const CATALOG_RULES: Record<string, Rule> = {
  'get /catalog': 'free',
  'get /catalog/investments': 'list',
  'get /catalog/properties': 'list',
  'get /catalog/investments/{id}': investmentC,
  'get /catalog/properties/{id}': offerC,
  'get /catalog/properties/{id}/price-history': offerC,
  'get /catalog/properties/{id}/related': offerC,
}

/**
 * Operations no user's scope concerns: the caller's own session, what anyone may read, what a key or
 * signature authenticates, and the deployment's companies (the platform's, above any one catalog).
 */
const NOT_SCOPED =
  /^([a-z]+ \/(session(\/.*)?|openapi\.json|public\/.*|embed\/.*|webhooks\/properties|platform\/.*)|[a-z]+ \/wp-json\/dg\/v1\/.*|[a-z]+ \/dane-gov\/.*)$/

function keyOf(operation: string): string {
  const [method, template = ''] = operation.split(' ')
  return template.startsWith(V2) ? `${method} ${template.slice(V2.length)}` : operation
}

describeEachDatabase('scopes over every operation of the OpenAPI document', (getEnv) => {
  let env: TestEnv
  let document: OpenApiDocument
  let admin: TestUser
  let salesA: TestUser
  let reader: TestUser
  let fixture: Fixture

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    salesA = await createTestUser(env.ctx, 'dg_operator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    const catalog = await seedScopedCatalog(env, admin, 'scope-matrix')
    const scope = async (user: TestUser, scope: { developers: number[]; investments: number[] }) =>
      expect(
        (
          await env.app.inject({
            method: 'PATCH',
            url: `${API}/users/${user.id}`,
            headers: { authorization: admin.authorization },
            payload: { scope },
          })
        ).statusCode,
      ).toBe(200)
    await scope(salesA, { developers: [], investments: [catalog.a] })
    await scope(reader, { developers: [], investments: [catalog.a] })
    const now = '2026-11-20T10:00:00.000Z'
    const media = await env.ctx.db
      .insertInto('attachments')
      .values({
        investment_id: catalog.c,
        offer_id: null,
        kind: 'document',
        title: 'Prospekt',
        url: 'https://example.test/prospekt.pdf',
        mime_type: 'application/pdf',
        alt: '',
        position: 0,
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const otherImport = (
      await previewOffers(env, admin, ['INV-C;C1;C1;mieszkanie;wolne;50,00;2;1;540 000,00;2026-11-01;Poznań'])
    ).json().id as string
    const priceChange = await env.app.inject({
      method: 'POST',
      url: `${API}/offers/price-change/preview`,
      headers: { authorization: admin.authorization },
      payload: { ...PRICE_CHANGE, investment: catalog.c },
    })
    expect(priceChange.statusCode, priceChange.body).toBe(200)
    const otherReport = 'ab'.repeat(16)
    await env.ctx.db
      .insertInto('import_jobs')
      .values({
        id: otherReport,
        type: 'report',
        mode: 'report',
        status: 'validated',
        operator_user_id: admin.id,
        operator_name: admin.login,
        file_name: 'raport.csv',
        file_sha256: '',
        file_format: 'csv',
        mapping: JSON.stringify({ csv_path: null, warnings: [], developer_id: catalog.dev1, price_dates: [] }),
        counters: '{}',
        errors: '[]',
        archive_scope: '{}',
        plan_digest: '',
        plan_revision: null,
        plan_today: null,
        plan_version: null,
        idempotency_key: null,
        run_token: null,
        run_id: null,
        result: null,
        failure: null,
        created_at: now,
        updated_at: now,
        started_at: null,
        finished_at: null,
        expires_at: '2099-01-01T00:00:00.000Z',
      })
      .execute()
    fixture = {
      ...catalog,
      mediaC: media.id,
      otherImport,
      otherPriceChange: priceChange.json().job_id as string,
      otherReport,
    }
    const response = await env.app.inject({ method: 'GET', url: `${V2}/openapi.json` })
    expect(response.statusCode).toBe(200)
    document = response.json()
  })

  function ruleOf(operation: string): { rule: Rule; catalog: boolean } | undefined {
    const key = keyOf(operation)
    if (NOT_SCOPED.test(key)) return { rule: 'free', catalog: false }
    if (key in CATALOG_RULES) return { rule: CATALOG_RULES[key] as Rule, catalog: true }
    const rule = SCOPE_RULES[key]
    return rule === undefined ? undefined : { rule, catalog: false }
  }

  it('states the scope rule of every operation of the document', () => {
    const { operations } = contractOperations(document)
    expect(operations.filter((operation) => ruleOf(operation) === undefined)).toEqual([])
    const known = new Set(operations.map(keyOf))
    expect(
      [...Object.keys(SCOPE_RULES), ...Object.keys(CATALOG_RULES)].filter(
        (key) => !known.has(key) && !key.includes('/mail/'),
      ),
    ).toEqual([])
  })

  it('answers 403 rest_forbidden_scope exactly where an operation names what is outside the scope', async () => {
    const wrong: string[] = []
    for (const operation of contractOperations(document).operations) {
      const found = ruleOf(operation)
      if (!found || found.rule === 'admin') continue
      const [method = 'get', template = ''] = operation.split(' ')
      const rule = found.rule
      const call: Call = typeof rule === 'object' ? rule : {}
      const user = found.catalog ? reader : salesA
      const url = template.replace(/\{(\w+)\}/g, (_whole, name: string) =>
        name === 'id' && call.id
          ? String(call.id(fixture))
          : name === 'uuid'
            ? '00000000-0000-4000-8000-000000000000'
            : name === 'name'
              ? 'no_such_option'
              : '999999',
      )
      const writes = method !== 'get' && method !== 'head'
      const form = call.form?.(fixture)
      const response = await env.app.inject({
        method: method.toUpperCase() as 'GET',
        url,
        headers: {
          authorization: user.authorization,
          ...(writes ? { 'if-match': '"0"' } : {}),
          ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
          ...call.headers,
        },
        ...(form !== undefined
          ? { payload: form }
          : writes
            ? { payload: (call.body?.(fixture) ?? {}) as Record<string, unknown> }
            : {}),
      })
      const body = response.body.startsWith('{') ? (response.json() as { code?: string }) : {}
      const refused = response.statusCode === 403 && body.code === 'rest_forbidden_scope'
      const expected = typeof rule === 'object' || rule === 'whole'
      if (refused !== expected)
        wrong.push(
          `${operation}: ${response.statusCode} ${body.code ?? ''} (expected ${expected ? 'rest_forbidden_scope' : 'no scope refusal'})`,
        )
    }
    expect(wrong).toEqual([])
  })

  it('reads inside the scope: the same operations with the scope’s own ids are not refused', async () => {
    const own: Fixture = { ...fixture, c: fixture.a, offerC: fixture.offerA }
    const wrong: string[] = []
    for (const operation of contractOperations(document).operations) {
      const found = ruleOf(operation)
      const [method = 'get', template = ''] = operation.split(' ')
      if (!found || method !== 'get' || typeof found.rule !== 'object') continue
      const call = found.rule
      if (
        !call.id ||
        template.includes('/imports/') ||
        template.includes('/media/') ||
        template.includes('/developers/')
      )
        continue
      const response = await env.app.inject({
        method: 'GET',
        url: template.replace('{id}', String(call.id(own))),
        headers: { authorization: (found.catalog ? reader : salesA).authorization },
      })
      if (response.statusCode === 403) wrong.push(`${operation}: ${response.statusCode} ${response.body.slice(0, 80)}`)
    }
    expect(wrong).toEqual([])
  })
})
