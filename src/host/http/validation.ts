/*
 * Two JSON-schema validators: query strings, path parameters and headers arrive as text, so they
 * are coerced to the declared types ("20" → 20); JSON bodies are validated as sent, so a number
 * where the contract wants a string (an amount, a password) is refused instead of converted.
 */
import { Ajv, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
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

function buildValidator(externalSchemas: Record<string, unknown>) {
  const forBodies = createAjv(false)
  const forText = createAjv('array')
  for (const schema of Object.values(externalSchemas)) {
    forBodies.addSchema(schema as object)
    forText.addSchema(schema as object)
  }
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? forBodies : forText).compile(schema)
}

export const schemaController: FastifyServerOptions['schemaController'] = {
  compilersFactory: { buildValidator: buildValidator as unknown as ValidatorFactory },
}
