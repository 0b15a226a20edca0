/*
 * Which statuses each endpoint documents, read from the OpenAPI description the service itself
 * publishes (generated from the schemas its routes validate and answer with): a response whose
 * status an endpoint does not document counts as an error of the service, whatever its body.
 */
import { jsonOf, keepAliveAgent, timedRequest } from './http-client.js'

export type DocumentedStatuses = (method: string, path: string) => ReadonlySet<number> | undefined

interface OpenApiDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>>
}

/** `/catalog/properties/{id}` → a pattern for `/catalog/properties/123`. */
function templatePattern(template: string): RegExp {
  const literal = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${literal.join('[^/]+')}$`)
}

export async function loadDocumentedStatuses(origin: string, restBase: string): Promise<DocumentedStatuses> {
  const response = await timedRequest(keepAliveAgent(), origin, { path: `${restBase}/openapi.json` })
  const document = jsonOf<OpenApiDocument>(response)
  if (response.status !== 200 || !document?.paths) throw new Error(`no OpenAPI description at ${restBase}/openapi.json`)
  const routes: Array<{ method: string; pattern: RegExp; statuses: Set<number> }> = []
  for (const [template, operations] of Object.entries(document.paths)) {
    const full = template
    for (const [method, operation] of Object.entries(operations)) {
      const statuses = new Set(Object.keys(operation.responses ?? {}).map(Number))
      routes.push({ method: method.toUpperCase(), pattern: templatePattern(full), statuses })
    }
  }
  return (method, path) => {
    const bare = path.split('?')[0] ?? path
    return routes.find((route) => route.method === method && route.pattern.test(bare))?.statuses
  }
}
