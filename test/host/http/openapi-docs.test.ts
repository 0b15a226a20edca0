/*
 * The interactive API documentation: Swagger UI, shipped in the swagger-ui-dist package and served
 * by the service itself (no CDN), renders {base_url}/openapi.json. Every operation the document
 * lists has a summary, a description and an example, so the page answers "what does this do and
 * what does a call look like" for each one.
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { OPERATION_DOCS } from '../../../src/openapi-examples.js'
import { startTestApp, type TestEnv } from '../../helpers/test-app.js'

// ajv-formats ships CommonJS with a default export property
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020
const DOCUMENT_URI = 'https://dg.test/openapi.json'
/** A JSON pointer segment inside a URI fragment. */
const segment = (text: string) => encodeURIComponent(text.replaceAll('~', '~0').replaceAll('/', '~1'))

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const
const SOURCE = fileURLToPath(new URL('../../../src/', import.meta.url))

describe('interactive API documentation', () => {
  let env: TestEnv
  beforeAll(async () => {
    env = await startTestApp('sqlite')
  })
  afterAll(async () => {
    await env?.app.close()
    await env?.database.cleanup()
  })

  it('serves Swagger UI at {base_url}/docs from the package, with no asset from another host', async () => {
    const page = await env.app.inject({ method: 'GET', url: '/wp-json/dg/v2/docs/' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/text\/html/)
    expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//)
    const bundle = await env.app.inject({ method: 'GET', url: '/wp-json/dg/v2/docs/static/swagger-ui-bundle.js' })
    expect(bundle.statusCode).toBe(200)
    expect(bundle.body.length).toBeGreaterThan(100_000)
    const document = await env.app.inject({
      method: 'GET',
      url: '/wp-json/dg/v2/docs/json',
      headers: { host: 'ceny.example.pl:8080' },
    })
    expect(document.json().servers).toEqual([{ url: 'http://ceny.example.pl:8080', description: expect.any(String) }])
    expect(Object.keys(document.json().paths)).toContain('/wp-json/dg/v2/status')
  })

  it('gives every operation of the OpenAPI document a summary, a description and an example', async () => {
    const document = (await env.app.inject({ method: 'GET', url: '/wp-json/dg/v2/openapi.json' })).json()
    const lacking: string[] = []
    let operations = 0
    for (const [path, item] of Object.entries<Record<string, Record<string, unknown>>>(document.paths)) {
      for (const method of METHODS) {
        const operation = item[method]
        if (!operation) continue
        operations++
        const missing = [
          typeof operation.summary === 'string' && operation.summary.length > 5 ? null : 'summary',
          typeof operation.description === 'string' && operation.description.length > 20 ? null : 'description',
          /"examples?":/.test(JSON.stringify(operation)) ? null : 'example',
        ].filter(Boolean)
        if (missing.length) lacking.push(`${method.toUpperCase()} ${path}: ${missing.join(', ')}`)
      }
    }
    expect(operations).toBeGreaterThan(40)
    expect(lacking).toEqual([])
  })

  it('hands the document the entries of every *-examples.ts file beside the routes', async () => {
    const files = readdirSync(SOURCE, { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('-examples.ts'),
    )
    expect(files.length).toBeGreaterThan(10)
    const missing: string[] = []
    for (const file of files) {
      const tables = Object.values(await import(pathToFileURL(path.join(SOURCE, file)).href))
      expect(tables.length, file).toBeGreaterThan(0)
      for (const table of tables as Array<Record<string, unknown>>) {
        for (const [operation, docs] of Object.entries(table)) {
          if (OPERATION_DOCS[operation] !== docs) missing.push(`${file}: ${operation}`)
        }
      }
    }
    expect(missing).toEqual([])
  })

  it('places every example of the *-examples.ts files, and each validates against the schema it illustrates', async () => {
    const document = (await env.app.inject({ method: 'GET', url: '/wp-json/dg/v2/openapi.json' })).json()
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false })
    addFormats(ajv)
    ajv.addSchema(document, DOCUMENT_URI)
    const problems: string[] = []
    const check = (where: string, pointer: string[], example: unknown) => {
      const validate = ajv.getSchema(`${DOCUMENT_URI}#/${pointer.map(segment).join('/')}`)
      if (!validate) return problems.push(`${where}: no schema to illustrate`)
      if (!validate(example)) problems.push(`${where}: ${JSON.stringify(validate.errors?.slice(0, 3))}`)
    }
    for (const [key, docs] of Object.entries(OPERATION_DOCS)) {
      const [method = '', path = ''] = key.split(' ')
      const operation = document.paths[path]?.[method.toLowerCase()]
      if (!operation) {
        problems.push(`${key}: no such operation`)
        continue
      }
      const base = ['paths', path, method.toLowerCase()]
      if (docs.request !== undefined)
        check(`${key} request`, [...base, 'requestBody', 'content', 'application/json', 'schema'], docs.request)
      if (docs.response) {
        const { status, mediaType = 'application/json', body } = docs.response
        check(`${key} ${status}`, [...base, 'responses', String(status), 'content', mediaType, 'schema'], body)
      }
      for (const name of Object.keys(docs.parameters ?? {})) {
        const index = (operation.parameters ?? []).findIndex((parameter: { name: string }) => parameter.name === name)
        if (index < 0) problems.push(`${key}: no parameter ${name}`)
        else check(`${key} ${name}`, [...base, 'parameters', String(index), 'schema'], docs.parameters?.[name])
      }
    }
    expect(problems).toEqual([])
  })
})
