import { type TSchema, Type } from 'typebox'

export const HostErrorSchema = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    data: Type.Object(
      {
        status: Type.Integer(),
        params: Type.Optional(
          Type.Object(
            {},
            {
              additionalProperties: Type.String(),
              description: 'rest_invalid_param / rest_missing_callback_param: parameter → reason',
            },
          ),
        ),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'HostError', description: 'Host-style error: branch on `code` and the HTTP status.' },
)

export const PluginErrorSchema = Type.Object(
  {
    error: Type.String(),
    feature: Type.Optional(Type.String({ description: 'The missing entitlement, with pro_feature_required' })),
    message: Type.Optional(Type.String({ description: 'Explanation for people; never branch on it' })),
  },
  {
    $id: 'PluginError',
    additionalProperties: true,
    description: 'Plugin-style error: branch on `error` and the HTTP status.',
  },
)

/** What each error status means (docs/integration/api.md). */
const STATUS_MEANINGS: Readonly<Record<number, string>> = {
  400: 'Malformed request',
  401: 'Missing or wrong authentication',
  403: 'Missing capability, PRO, entitlement or HTTPS',
  404: 'The resource or job does not exist',
  409: 'Operation in progress, recovery needed, or key bound to other input',
  413: 'The body or the file is too large',
  415: 'Unsupported Content-Type',
  422: 'Business validation error',
  429: 'Rate limit; honour Retry-After',
  503: 'State, lock or limit cannot be safely confirmed',
}

/**
 * The error response of one status. The error handler may answer any status in either shape of
 * the API (host `{code, message, data}` or plugin `{error, …}`), so both are documented;
 * `specific` adds the schemas of bodies a route gives in more detail (they come first).
 */
export function errorResponse(status: number, ...specific: TSchema[]): TSchema {
  return Type.Union([...specific, Type.Ref('HostError'), Type.Ref('PluginError')], {
    description: `${STATUS_MEANINGS[status] ?? 'Error'}: a host-style {code, message, data: {status}} or a plugin-style {error, …} body. Branch on the status and on code/error, never on the message.`,
  })
}

/** Error responses for the OpenAPI description; the bodies are produced by the error handler. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {}
  for (const status of statuses) out[status] = errorResponse(status)
  return out
}

/**
 * The id of a stored row, as a path or query value. JSON Schema's integer admits 1e308, which
 * PostgreSQL refuses with an error of its own (a 500 found by the fuzz suite): ids stay in the
 * range of an integer column.
 */
export const RowId = (options: { description?: string } = {}) =>
  Type.Integer({ minimum: 1, maximum: 2_147_483_647, ...options })

export const DateString = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Calendar date YYYY-MM-DD' })

/** A string schema with a fixed list of values (`Type.Enum` leaves the type out). */
export function stringEnum<T extends string>(values: readonly T[], options: Record<string, unknown> = {}) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options })
}

/**
 * An optional parameter with a default: left out of `required` like any optional one, yet always
 * set once validated (Ajv fills the default in), so the handler's inferred type has it.
 */
export function withDefault<T extends TSchema>(schema: T): T {
  if (!('default' in schema)) throw new Error('withDefault: the schema has no default')
  // the optional marker stays on the schema (not in its JSON); only the inferred type is the set value's
  return Type.Optional(schema) as TSchema as T
}

/**
 * A 204 or 304 answer: no body. Typed as any schema so that the handler's `reply.code(204).send()`
 * sends nothing at all (a `null` payload would be serialized).
 */
export const noBody = (options: { description?: string } = {}): TSchema => Type.Null(options)
