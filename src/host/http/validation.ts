/*
 * Compiled request validators and response serializers, shared by every app instance in the
 * process. Route schemas are module constants, so an app built a second time (tests, the CLI,
 * the demo) reuses the compiled code instead of spending a second compiling it again.
 *
 * Two JSON-schema validators: query strings, path parameters and headers arrive as text, so they
 * are coerced to the declared types ("20" → 20); JSON bodies are validated as sent, so a number
 * where the contract wants a string (an amount, a password) is refused instead of converted.
 */
import { Ajv, type Options, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

// ajv-formats ships CommonJS with a default export property
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

function createAjv(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false })
  addFormats(ajv)
  return ajv
}

type ValidatorFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>['buildValidator']

const forBodies = createAjv(false)
const forText = createAjv('array')
// by the schema's text: routes build some schemas afresh, so one shape arrives as many objects
const bodyValidators = new Map<string, ValidateFunction>()
const textValidators = new Map<string, ValidateFunction>()

function addShared(ajv: Ajv, schema: object): void {
  const id = (schema as { $id?: unknown }).$id
  if (typeof id === 'string') {
    const known = ajv.getSchema(id)
    // the same $id with another shape would be a programming error; the first one would win silently
    if (known && known.schema !== schema && JSON.stringify(known.schema) !== JSON.stringify(schema)) {
      throw new Error(`two different shared schemas are named ${id}`)
    }
    if (known) return
  }
  ajv.addSchema(schema)
}

function buildValidator(externalSchemas: Record<string, unknown>) {
  for (const schema of Object.values(externalSchemas)) {
    addShared(forBodies, schema as object)
    addShared(forText, schema as object)
  }
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) => {
    const ajv = httpPart === 'body' ? forBodies : forText
    const validators = ajv === forBodies ? bodyValidators : textValidators
    const key = JSON.stringify(schema)
    let validate = validators.get(key)
    if (!validate) {
      validate = ajv.compile(schema)
      validators.set(key, validate)
    }
    return validate
  }
}

type SerializerFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>['buildSerializer']
type Serialize = (data: unknown) => string

const compileSerializer = SerializerSelector()
// keyed by the shared schemas and options, then by the response schema's text: routes build
// their error responses afresh, so the same shape arrives as many objects
const serializers = new Map<string, Map<string, Serialize>>()

function buildSerializer(externalSchemas: Record<string, unknown>, serializerOpts: unknown) {
  const compile = compileSerializer(externalSchemas, serializerOpts as Parameters<typeof compileSerializer>[1])
  const context = `${JSON.stringify(externalSchemas)}|${JSON.stringify(serializerOpts ?? {})}`
  const known = serializers.get(context) ?? new Map<string, Serialize>()
  serializers.set(context, known)
  return (route: Parameters<typeof compile>[0]): Serialize => {
    const key = JSON.stringify(route.schema)
    let serialize = known.get(key)
    if (!serialize) {
      serialize = compile(route) as Serialize
      known.set(key, serialize)
    }
    return serialize
  }
}

export const schemaController: FastifyServerOptions['schemaController'] = {
  compilersFactory: {
    buildValidator: buildValidator as unknown as ValidatorFactory,
    buildSerializer: buildSerializer as unknown as SerializerFactory,
  },
}
