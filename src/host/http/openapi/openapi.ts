/*
 * The machine-readable contract: an OpenAPI 3.1 document generated from the route
 * schemas themselves, so it cannot drift from what the server validates and returns.
 *
 * Two things the route schemas cannot say through Fastify are added here:
 * - `documented`: request parts Fastify must not validate itself, described for the document
 *   only. Multipart bodies are streams the handler reads part by part, form bodies of the import
 *   routes are read by the handler, and the webhook's headers must be answered 401 invalid_auth
 *   (docs/integration/webhook.md), never 400, when missing or malformed, and its raw body must reach the verifier
 *   untouched.
 * - `servers`: the address the document was fetched from, so that a client generated from it
 *   calls the same service.
 * - the refusals every route shares: 400/413/415 of a body Fastify reads, and 503
 *   database_unavailable on every route but those marked `database: false`.
 * - each operation's description (where its route gives none) and examples, kept in each
 *   feature's `*-examples.ts` so that the route files stay about what the server validates, and
 *   handed over by buildApp (see operation-docs.ts).
 */
import swagger, { type SwaggerTransform, type SwaggerTransformObject } from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import type { TSchema } from 'typebox'

import { API_VERSION, SERVICE_VERSION } from '../../../version.js'
import type { OperationDocs, OperationDocsByRoute } from './operation-docs.js'
import { errorResponse } from '../schemas.js'
import { serviceOrigin } from '../service-origin.js'

/** A request body by media type, as in an OpenAPI Request Body Object. */
export interface DocumentedBody {
  content: Record<string, { schema: TSchema }>
}

export interface DocumentedRequest {
  /** The request body, in the document only. */
  body?: DocumentedBody
  /** Replaces the route's `headers` schema in the document (required headers, their patterns). */
  headers?: TSchema
}

declare module 'fastify' {
  interface FastifySchema {
    /** Request parts described in the OpenAPI document only; Fastify does not validate them. */
    documented?: DocumentedRequest
    /** False on a route that never touches the database (so it never answers 503 database_unavailable). */
    database?: false
  }
}

/** Methods whose body Fastify parses before the route runs. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/*
 * Fastify reads the body of these methods before any route code, whatever the route expects: a
 * body that does not parse (or holds a `__proto__` key) is 400, one of a type no parser takes 415
 * and one over the body limit 413, on every such route (found by the fuzz suite: routes without
 * a body of their own listed none of them, and only the imports listed 413).
 */
function withBodyRefusals(route: { method: string | string[] }, response: unknown): unknown {
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  if (!methods.some((method) => BODY_METHODS.has(method)) || response === null || typeof response !== 'object')
    return response
  const statuses = response as Record<string, unknown>
  const refusals = Object.fromEntries(
    [400, 413, 415].map((status) => [status, statuses[status] ?? errorResponse(status)]),
  )
  return { ...statuses, ...refusals }
}

/*
 * A route that reads or writes the database answers 503 database_unavailable when it cannot be
 * reached (src/host/http/error-handler.ts), whatever the route's own code does.
 */
function withDatabaseRefusal(database: false | undefined, response: unknown): unknown {
  if (database === false || response === null || typeof response !== 'object') return response
  const statuses = response as Record<string, unknown>
  return { ...statuses, 503: statuses[503] ?? errorResponse(503) }
}

/*
 * HTTP Basic is a sign-in attempt each time the instance has not verified the password before:
 * the sign-in throttle answers 429 too_many_login_attempts (with Retry-After) on every route that
 * takes an application password.
 */
function withSignInThrottle(security: unknown, response: unknown): unknown {
  const basic = Array.isArray(security) && security.some((scheme) => scheme && 'applicationPassword' in scheme)
  if (!basic || response === null || typeof response !== 'object') return response
  const statuses = response as Record<string, unknown>
  return { ...statuses, 429: statuses[429] ?? errorResponse(429) }
}

const documentRequest: SwaggerTransform = ({ schema, url, route }) => {
  if (!schema) return { schema, url }
  const { documented, database, ...rest } = schema
  return {
    schema: {
      ...rest,
      ...(rest.response
        ? {
            response: withSignInThrottle(
              rest.security,
              withDatabaseRefusal(database, withBodyRefusals(route, rest.response)),
            ),
          }
        : {}),
      ...(documented?.headers ? { headers: documented.headers } : {}),
      ...(documented?.body ? { body: documented.body } : {}),
    },
    url,
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

type MediaTypes = Record<string, { example?: unknown }>
type Operation = {
  operationId?: string
  description?: string
  parameters?: Array<{ name: string; example?: unknown }>
  requestBody?: { content?: MediaTypes }
  responses?: Record<string, { content?: MediaTypes }>
}

/*
 * The descriptions and examples handed to registerOpenApi (see operation-docs.ts), on a copy of
 * the operation (@fastify/swagger may share parts of it between methods). An entry that names a
 * status, media type or parameter the operation does not have is a mistake the document test
 * reports.
 */
function withDocs(operation: Operation, docs: OperationDocs | undefined): Operation {
  if (!docs) return operation
  const documented = structuredClone(operation)
  if (docs.description) documented.description = docs.description
  const request = documented.requestBody?.content?.['application/json']
  if (docs.request !== undefined && request) request.example = docs.request
  if (docs.response) {
    const content = documented.responses?.[String(docs.response.status)]?.content
    const media = content?.[docs.response.mediaType ?? 'application/json']
    if (media) media.example = docs.response.body
  }
  for (const parameter of documented.parameters ?? []) {
    const example = docs.parameters?.[parameter.name]
    if (example !== undefined) parameter.example = example
  }
  return documented
}

/**
 * @fastify/swagger gives every method of a multi-method route (legacy generate: GET and POST) the
 * same operation object, so its operationId would not be unique: each method gets its own copy,
 * named `<operationId><Method>`. Then each operation gets its descriptions and examples.
 */
function finishOperations(
  documentObject: Parameters<SwaggerTransformObject>[0],
  operationDocs: OperationDocsByRoute,
): ReturnType<SwaggerTransformObject> {
  const document = 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation | undefined>>
  for (const item of Object.values(paths)) {
    for (const method of METHODS) {
      const operation = item[method]
      if (!operation) continue
      const shared = METHODS.filter((other) => item[other] === operation)
      if (shared.length > 1 && operation.operationId) {
        for (const other of shared) {
          item[other] = {
            ...operation,
            operationId: `${operation.operationId}${other[0]?.toUpperCase()}${other.slice(1)}`,
          }
        }
      }
    }
  }
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method]
      if (operation) item[method] = withDocs(operation, operationDocs[`${method.toUpperCase()} ${path}`])
    }
  }
  return document
}

/** `operationDocs`: every operation's description and examples, by "METHOD path". */
export async function registerOpenApi(app: FastifyInstance, operationDocs: OperationDocsByRoute): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Property-offer catalog, import, publication and webhook API',
        version: SERVICE_VERSION,
        description:
          `Contract ${API_VERSION}. Errors use the host shape {code, message, data:{status}} or the plugin shape {error, feature?}. ` +
          'A user who is not an administrator may be limited to some developer entities and investments (the `scope` of GET /users/{id}): its lists hold only those, and an operation on an offer, investment, developer entity, medium, import job or source outside them answers 403 rest_forbidden_scope, writing nothing.',
      },
      components: {
        securitySchemes: {
          applicationPassword: {
            type: 'http',
            scheme: 'basic',
            description: 'User login or e-mail and an application password',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'dg_session',
            description: 'Admin-panel session; requires X-WP-Nonce too',
          },
          restNonce: { type: 'apiKey', in: 'header', name: 'X-WP-Nonce' },
        },
      },
    },
    transform: documentRequest,
    transformObject: (documentObject) => finishOperations(documentObject, operationDocs),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, index) =>
        typeof json.$id === 'string' ? json.$id : `def-${index}`,
    },
  })
}

export async function openApiRoute(app: FastifyInstance): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true } }, async (request, reply) => {
    // the generated document is cached by @fastify/swagger and shared: it is not changed here
    const { openapi, info, ...rest } = app.swagger() as unknown as Record<string, unknown>
    const servers = [{ url: serviceOrigin(request), description: 'This service, as reached by this request' }]
    return reply.type('application/json; charset=utf-8').send({ openapi, info, servers, ...rest })
  })
}

/**
 * Swagger UI (shipped inside @fastify/swagger-ui: no CDN) at {base_url}/docs, rendering the same
 * document as /openapi.json with this request's address as its server, so "Try it out" calls the
 * service the page came from.
 */
export async function registerApiDocs(app: FastifyInstance, routePrefix: string): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix,
    uiConfig: { deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 },
    theme: { title: 'dg-offers API' },
    transformSpecification: (document, request) => ({
      ...document,
      servers: [{ url: serviceOrigin(request), description: 'This service, as reached by this request' }],
    }),
  })
}
