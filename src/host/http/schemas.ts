import { Type } from 'typebox'

export const HostErrorSchema = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    data: Type.Object({ status: Type.Integer() }, { additionalProperties: true }),
  },
  { $id: 'HostError', description: 'Host-style error (contract 7): branch on `code` and the HTTP status.' },
)

export const PluginErrorSchema = Type.Object(
  { error: Type.String(), feature: Type.Optional(Type.String()) },
  {
    $id: 'PluginError',
    additionalProperties: true,
    description: 'Plugin-style error (contract 7): branch on `error` and the HTTP status.',
  },
)

const hostError = Type.Ref('HostError')
const hostOrPluginError = Type.Union([Type.Ref('HostError'), Type.Ref('PluginError')])

/** Error responses for the OpenAPI description; the bodies are produced by the error handler. */
export function errorResponses(...statuses: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {}
  for (const status of statuses)
    out[status] = status === 403 || status === 409 || status === 422 || status === 503 ? hostOrPluginError : hostError
  return out
}

export const DateString = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Calendar date YYYY-MM-DD' })
