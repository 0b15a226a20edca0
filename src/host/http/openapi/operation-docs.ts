/*
 * What each operation of the OpenAPI document does and what a call of it looks like. Each feature
 * keeps these beside its routes (its `*-examples.ts`) and src/openapi-examples.ts hands them all to
 * the document (openapi.ts), which cannot import a feature. The descriptions are those of routes
 * whose own schema gives none; the examples are answers (and requests) of the service itself,
 * shortened to two items per list, and the document test validates each against its schema.
 */

/** An example answer of an operation: its status, media type (JSON unless said) and body. */
export interface ResponseExample {
  status: number
  mediaType?: string
  body: unknown
}

export interface OperationDocs {
  /** What the operation does, who may call it and its notable refusals (replaces the route's own). */
  description?: string
  /** An example JSON request body. */
  request?: unknown
  response?: ResponseExample
  /** Example values of path, query or header parameters, by name. */
  parameters?: Record<string, string>
}

/** By "METHOD path", the path as the document writes it. */
export type OperationDocsByRoute = Record<string, OperationDocs>

/** One table of every part's entries; an operation described by two parts is a mistake caught here. */
export function mergeOperationDocs(parts: readonly OperationDocsByRoute[]): OperationDocsByRoute {
  const merged: OperationDocsByRoute = {}
  for (const part of parts) {
    for (const [operation, docs] of Object.entries(part)) {
      if (Object.hasOwn(merged, operation)) throw new Error(`${operation} is described twice`)
      merged[operation] = docs
    }
  }
  return merged
}
