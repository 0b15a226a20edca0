/*
 * Every operation of the OpenAPI document, called as an operator and as an auditor: 403 exactly
 * where the role lacks the capability the operation needs, and never where it has it. The tables
 * below are this suite's own statement of the roles (docs/security.md), not a copy of the service's:
 * an operation added without a line here fails the suite, so every new route says who may use it.
 */
import { beforeAll, expect, it } from 'vitest'

import { createTestUser, type TestUser } from '../../helpers/factories.js'
import { contractOperations, type OpenApiDocument, V2 } from '../../helpers/openapi-responses.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

type Role = 'dg_operator' | 'dg_auditor'

/** What each role holds (docs/security.md, "Roles"). */
const ROLE_CAPABILITIES: Record<Role, string[]> = {
  dg_operator: ['dg_read_all', 'dg_edit_catalog', 'dg_import', 'dg_publish'],
  dg_auditor: ['dg_read_all', 'dg_read_administration'],
}

/** The capability each operation of the REST namespace needs, as "method path" after the namespace. */
const OPERATION_CAPABILITY: Record<string, string> = {
  // the administration: users, secrets, alert and e-mail channels, the licence, site options
  'get /users': 'dg_read_administration',
  'post /users': 'manage_options',
  'get /users/{id}': 'dg_read_administration',
  'patch /users/{id}': 'manage_options',
  'put /users/{id}/password': 'manage_options',
  'get /users/{id}/application-passwords': 'dg_read_administration',
  'post /users/{id}/application-passwords': 'manage_options',
  'delete /users/{id}/application-passwords/{uuid}': 'manage_options',
  'get /webhook-secret': 'manage_options',
  'post /webhook-secret/rotate': 'manage_options',
  'get /alerts/settings': 'dg_read_administration',
  'put /alerts/settings': 'manage_options',
  'post /alerts/test': 'manage_options',
  'get /mail/settings': 'manage_options',
  'put /mail/settings': 'manage_options',
  'post /mail/test': 'manage_options',
  'get /mail/outbox': 'manage_options',
  'get /license': 'dg_read_all',
  'put /license': 'manage_options',
  'get /site-options': 'dg_read_all',
  'put /site-options/{name}': 'manage_options',
  'get /legacy-generate/settings': 'dg_read_all',
  'put /legacy-generate/settings': 'manage_options',
  // the platform's companies, on the first company's address only
  'get /platform/tenants': 'manage_options',
  'post /platform/tenants': 'manage_options',
  'get /platform/tenants/{slug}': 'manage_options',
  'patch /platform/tenants/{slug}': 'manage_options',
  'delete /platform/tenants/{slug}': 'manage_options',
  'post /platform/tenants/{slug}/suspend': 'manage_options',
  'post /platform/tenants/{slug}/resume': 'manage_options',
  'post /platform/tenants/{slug}/export': 'manage_options',
  // reading what the panel shows
  'get /status': 'dg_read_all',
  'get /dashboard': 'dg_read_all',
  'get /audit': 'dg_read_all',
  'get /audit/actions': 'dg_read_all',
  'get /publications': 'dg_read_all',
  'get /publications/{id}': 'dg_read_all',
  'get /publication/audit': 'dg_read_all',
  'get /publication/settings': 'dg_read_all',
  'get /developers': 'dg_read_all',
  'get /developers/{id}': 'dg_read_all',
  'get /investments/{id}/location': 'dg_read_all',
  'get /custom-fields': 'dg_read_all',
  'get /investments': 'dg_read_all',
  'get /investments/{id}': 'dg_read_all',
  'get /investments/{id}/media': 'dg_read_all',
  'get /investments/{id}/public-prices': 'dg_read_all',
  'get /offers': 'dg_read_all',
  'get /offers/{id}': 'dg_read_all',
  'get /offers/{id}/media': 'dg_read_all',
  'get /offers/{id}/price-history': 'dg_read_all',
  'get /media/{id}': 'dg_read_all',
  'get /offers/export': 'dg_read_all',
  'get /imports/template': 'dg_read_all',
  'get /imports/{id}': 'dg_read_all',
  'get /sources': 'dg_read_all',
  'get /sources/{id}': 'dg_read_all',
  'get /source-runs': 'dg_read_all',
  'get /source-runs/{id}': 'dg_read_all',
  // editing the catalog
  'post /investments': 'dg_edit_catalog',
  'patch /investments/{id}': 'dg_edit_catalog',
  'delete /investments/{id}': 'dg_edit_catalog',
  'post /investments/{id}/media': 'dg_edit_catalog',
  'put /investments/{id}/public-prices': 'dg_edit_catalog',
  'put /investments/{id}/location': 'dg_edit_catalog',
  'post /offers': 'dg_edit_catalog',
  'patch /offers/{id}': 'dg_edit_catalog',
  'post /offers/{id}/archive': 'dg_edit_catalog',
  'post /offers/{id}/restore': 'dg_edit_catalog',
  'post /offers/{id}/components': 'dg_edit_catalog',
  'patch /offers/{id}/components/{component_id}': 'dg_edit_catalog',
  'delete /offers/{id}/components/{component_id}': 'dg_edit_catalog',
  'post /offers/{id}/media': 'dg_edit_catalog',
  'patch /media/{id}': 'dg_edit_catalog',
  'delete /media/{id}': 'dg_edit_catalog',
  'post /developers': 'dg_edit_catalog',
  'put /developers/{id}': 'dg_edit_catalog',
  'post /offers/price-change/preview': 'dg_edit_catalog',
  'post /offers/price-change/execute': 'dg_edit_catalog',
  // imports and scheduled sources
  'post /imports/offer': 'dg_import',
  'post /imports/offer/headers': 'dg_import',
  'post /imports/report': 'dg_import',
  'post /sources': 'dg_import',
  // fetching an address the request gives is an administrator's act
  'post /sources/preview-headers': 'dg_import',
  'patch /sources/{id}': 'dg_import',
  'delete /sources/{id}': 'dg_import',
  'post /sources/{id}/run': 'dg_import',
  'post /source-runs/{id}/apply': 'dg_import',
  'post /source-runs/{id}/reject': 'dg_import',
  // publishing
  'post /publications': 'dg_publish',
  'post /publications/preflight': 'dg_publish',
  'put /publication/settings': 'dg_publish',
}

/**
 * Operations no role capability guards: the published catalog (its own capability, dg_read_catalog,
 * which neither role holds), what anyone may read, the caller's own session, and what a key or a
 * signature authenticates.
 */
const CATALOG = /^[a-z]+ \/catalog(\/|$)/
const NOT_ROLE_GUARDED =
  /^([a-z]+ \/(session(\/.*)?|openapi\.json|public\/.*|embed\/.*|webhooks\/properties)|[a-z]+ \/wp-json\/dg\/v1\/.*|[a-z]+ \/dane-gov\/.*)$/

/** What the operation needs after the namespace is taken off, or undefined when it is not in the tables. */
function requirement(operation: string): { capability: string | null; code: string } | undefined {
  const [method, template = ''] = operation.split(' ')
  const key = template.startsWith(V2) ? `${method} ${template.slice(V2.length)}` : operation
  if (CATALOG.test(key)) return { capability: 'dg_read_catalog', code: 'dg_catalog_forbidden' }
  if (NOT_ROLE_GUARDED.test(key)) return { capability: null, code: '' }
  const capability = OPERATION_CAPABILITY[key]
  return capability === undefined ? undefined : { capability, code: 'rest_forbidden' }
}

/** A value for each path parameter: one that names nothing, since only the guard's answer matters. */
const PARAMETER_VALUES: Record<string, string> = {
  uuid: '00000000-0000-4000-8000-000000000000',
  name: 'no_such_option',
  version: '1',
}

describeEachDatabase('roles over every operation of the OpenAPI document', (getEnv) => {
  let env: TestEnv
  let document: OpenApiDocument
  const users = {} as Record<Role, TestUser>

  beforeAll(async () => {
    env = getEnv()
    users.dg_operator = await createTestUser(env.ctx, 'dg_operator')
    users.dg_auditor = await createTestUser(env.ctx, 'dg_auditor')
    const response = await env.app.inject({ method: 'GET', url: `${V2}/openapi.json` })
    expect(response.statusCode).toBe(200)
    document = response.json()
  })

  it('lists every operation of the document in the tables', () => {
    const { operations } = contractOperations(document)
    expect(operations.filter((operation) => requirement(operation) === undefined)).toEqual([])
    // and the tables name no operation the document has not got
    const known = new Set(operations.map((operation) => operation.replace(` ${V2}`, ' ')))
    expect(Object.keys(OPERATION_CAPABILITY).filter((key) => !known.has(key) && !key.includes('/mail/'))).toEqual([])
  })

  for (const role of ['dg_operator', 'dg_auditor'] as const)
    it(`answers ${role} 403 exactly where the role lacks the capability`, async () => {
      const held = new Set(ROLE_CAPABILITIES[role])
      const wrong: string[] = []
      for (const operation of contractOperations(document).operations) {
        const needed = requirement(operation)
        if (!needed) continue
        const [method = 'get', template = ''] = operation.split(' ')
        const url = template.replace(/\{(\w+)\}/g, (_whole, name: string) => PARAMETER_VALUES[name] ?? '999999')
        const writes = method !== 'get' && method !== 'head'
        const response = await env.app.inject({
          method: method.toUpperCase() as 'GET',
          url,
          headers: { authorization: users[role].authorization, ...(writes ? { 'if-match': '"0"' } : {}) },
          ...(writes ? { payload: {} } : {}),
        })
        const body = response.body.startsWith('{') ? (response.json() as { code?: string }) : {}
        const refused =
          response.statusCode === 403 && (body.code === 'rest_forbidden' || body.code === 'dg_catalog_forbidden')
        const expected = needed.capability !== null && !held.has(needed.capability)
        if (refused !== expected || (expected && body.code !== needed.code))
          wrong.push(
            `${operation}: ${response.statusCode} ${body.code ?? ''} (expected ${expected ? needed.code : 'no refusal'})`,
          )
      }
      expect(wrong).toEqual([])
    })
})
