/*
 * The OpenAPI document against the service itself: a suite calls documented operations for real
 * (`call`), and each answer must be documented for its path, method and status, with its media
 * type, and its body must validate against the schema the document gives for it. A second, closed
 * reading of the document (an object schema that does not say otherwise allows no undocumented
 * property) catches fields a service added without documenting them.
 *
 * The suites of test/host/http/openapi-responses-*.test.ts share the contract's operations between
 * them: the administration's (ADMINISTRATION_OPERATION) and the integrations' (all the others), and
 * each checks that it called every operation of its share.
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { LightMyRequestResponse } from 'fastify'
import { beforeAll, expect } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { createTestUser, basicAuth, type TestUser } from './factories.js'
import type { TestEnv } from './test-app.js'

// ajv-formats ships CommonJS with a default export property
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

export const V2 = '/wp-json/dg/v2'
const DOCUMENT_URI = 'https://dg.test/openapi.json'

export type Json = Record<string, unknown>
export interface OpenApiDocument {
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

/**
 * The operations the administration suite calls (the admin panel's: sessions, users and the audit
 * log, the editor and its media, scheduled sources, alerts, the licence, exports and the bulk price
 * change, the platform's companies), as "method template"; the integrations suite calls every other operation of the contract.
 */
export const ADMINISTRATION_OPERATION =
  /^[a-z]+ \/wp-json\/dg\/v2\/(session(\/.*)?|status|users(\/.*)?|audit(\/.*)?|custom-fields|investments(\/\{id\}(\/media)?)?|offers(\/.*)?|media\/\{id\}|sources(\/.*)?|source-runs(\/.*)?|alerts\/.*|mail\/.*|license|imports\/template|platform\/.*)$/

/**
 * The operations of the contract (REST namespaces and published files) as "method template", and
 * the operationId of every operation of the document.
 */
export function contractOperations(document: OpenApiDocument): { operations: string[]; ids: string[] } {
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
  return { operations, ids }
}

/** What a suite calls the service with; everything but the functions and `called` is set in beforeAll. */
export interface DocumentedCalls {
  env: TestEnv
  document: OpenApiDocument
  admin: TestUser
  /** Authorization of the demo's catalog reader. */
  reader: string
  adminLogin: { login: string; password: string }
  webhookSecret: string
  /** "method template" of every operation called so far. */
  called: Set<string>
  /**
   * Sends a request to a documented operation and checks the answer against the document:
   * the status is documented, the media type is one the document gives, the body validates.
   */
  call: (
    method: string,
    template: string,
    options?: {
      params?: Record<string, string | number>
      query?: Record<string, string>
      headers?: Record<string, string>
      payload?: string | Buffer | Json
    },
  ) => Promise<LightMyRequestResponse>
  /** The validators of a JSON answer: as the document says, and closed (no undocumented property). */
  bodyValidators: (method: string, template: string, status: number) => [ValidateFunction, ValidateFunction]
  asAdmin: (headers?: Record<string, string>) => Record<string, string>
  /** The test clock, in Unix seconds. */
  now: () => number
}

/** Sets the demo up on the suite's app before its tests and reads and checks the document. */
export function documentedCalls(getEnv: () => TestEnv): DocumentedCalls {
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
    adminLogin = { login: demo.admin.login, password: demo.admin.password }
    webhookSecret = demo.webhook_secret
    admin = await createTestUser(env.ctx, 'administrator')
    const response = await env.app.inject({ method: 'GET', url: `${V2}/openapi.json` })
    expect(response.statusCode).toBe(200)
    document = response.json()
    const checked = await new Validator().validate(document as unknown as Json)
    expect(checked.errors ?? []).toEqual([])
    validators = responseValidators(document)
    Object.assign(calls, { env, document, admin, reader, adminLogin, webhookSecret })
  })

  const calls = { called, call, bodyValidators, asAdmin, now } as Omit<
    DocumentedCalls,
    'env' | 'document' | 'admin' | 'reader' | 'adminLogin' | 'webhookSecret'
  > as DocumentedCalls
  return calls
}
