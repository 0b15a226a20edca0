/*
 * The one place where errors become HTTP responses. Domain code throws HostError or PluginError;
 * framework errors (schema validation, unparseable bodies, unknown routes) are mapped to the
 * host style. A database that cannot be reached (or cannot confirm the work) is 503
 * `database_unavailable` with Retry-After (docs/decisions/errors-and-logs.md), on every route. Anything unexpected is
 * logged with its stack and answered with a generic 500 that reveals nothing.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

import { isDatabaseUnavailable } from '../db/dialect.js'
import { HostError, PluginError } from '../errors.js'
import { localizeMessages, requestLanguage } from './responses/localize-messages.js'
import { setSecurityHeaders } from './security-headers.js'

interface AjvIssue {
  instancePath?: string
  schemaPath?: string
  message?: string
  keyword?: string
  params?: Record<string, unknown>
}

function paramName(issue: AjvIssue, context: string | undefined): string {
  const missing = issue.params?.missingProperty
  if (typeof missing === 'string') return missing
  const additional = issue.params?.additionalProperty
  if (typeof additional === 'string') return additional
  const path = (issue.instancePath ?? '').replace(/^\//, '').split('/')[0]
  return path || context || 'body'
}

/**
 * The values a value could have taken, when it failed an `enum` or a union of constants (what a
 * TypeBox union of literals compiles to). Ajv reports such a union as one `const` failure per
 * branch and then the `anyOf`; the values are listed only when every branch was a constant, since
 * a union that also allows, say, any integer has no list to give.
 */
function allowedValues(issue: AjvIssue, issues: readonly AjvIssue[]): unknown[] | undefined {
  if (issue.keyword === 'enum' && Array.isArray(issue.params?.allowedValues))
    return issue.params.allowedValues as unknown[]
  if (issue.keyword !== 'anyOf' || issue.schemaPath === undefined) return undefined
  const branchPath = `${issue.schemaPath}/`
  const branches = issues.filter((other) => other.schemaPath?.startsWith(branchPath))
  if (branches.length === 0) return undefined
  const values: unknown[] = []
  for (const branch of branches) {
    if (branch.instancePath !== issue.instancePath) return undefined
    if (branch.keyword === 'const') values.push(branch.params?.allowedValue)
    else if (branch.keyword === 'enum' && Array.isArray(branch.params?.allowedValues))
      values.push(...(branch.params.allowedValues as unknown[]))
    else return undefined
  }
  return values
}

function describeIssue(name: string, issue: AjvIssue, issues: readonly AjvIssue[]): string {
  if (issue.keyword === 'required') return `${name} is a required parameter.`
  if (issue.keyword === 'additionalProperties') return `${name} is not a known parameter.`
  const values = allowedValues(issue, issues)
  if (values !== undefined) return `${name} must be one of ${values.map((value) => String(value)).join(', ')}.`
  return `${name} ${issue.message ?? 'is not valid'}.`
}

function validationError(error: FastifyError & { validation: AjvIssue[]; validationContext?: string }): HostError {
  const params: Record<string, string> = {}
  // Ajv lists a union's failed branches ("must be equal to constant") before the union itself, so
  // the issues that can name the allowed values are taken first
  const ordered = [
    ...error.validation.filter((issue) => allowedValues(issue, error.validation) !== undefined),
    ...error.validation,
  ]
  for (const issue of ordered) {
    const name = paramName(issue, error.validationContext)
    if (params[name]) continue
    params[name] = describeIssue(name, issue, error.validation)
  }
  const names = Object.keys(params)
  if (error.validationContext === 'body' && names.length === 0) params.body = 'The request body is not valid.'
  const missingOnly = error.validation.every((issue) => issue.keyword === 'required')
  return missingOnly
    ? new HostError('rest_missing_callback_param', 400, `Missing parameter(s): ${names.join(', ')}`, { params })
    : new HostError(
        'rest_invalid_param',
        // the reasons too, so that a client that shows only the message still says what to send
        400,
        `Invalid parameter(s): ${names.join(', ')}. ${Object.values(params).join(' ')}`,
        { params },
      )
}

const FRAMEWORK_ERRORS: Record<string, [code: string, status: number, message: string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: ['rest_invalid_json', 400, 'The request body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['rest_invalid_json', 400, 'The request body is empty but the content type is JSON.'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['rest_payload_too_large', 413, 'The request body is too large.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    'rest_unsupported_media_type',
    415,
    'The content type of the request body is not supported here.',
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    'rest_invalid_content_length',
    400,
    'The Content-Length header does not match the body.',
  ],
  FST_ERR_BAD_URL: ['rest_invalid_url', 400, 'The request URL is malformed.'],
  FST_ERR_MAX_PARAM_LENGTH: ['rest_invalid_url', 400, 'A segment of the request URL is too long.'],
  FST_ERR_ASYNC_CONSTRAINT: ['rest_invalid_request', 400, 'The request could not be routed.'],
}

/** The database could not be reached or could not confirm the work: retry later. */
function databaseUnavailable(): HostError {
  return new HostError(
    'database_unavailable',
    503,
    'The database cannot be reached right now; nothing was confirmed. Retry shortly.',
    {},
    { 'Retry-After': 5 },
  )
}

export function toHttpError(error: unknown): HostError | PluginError | null {
  if (error instanceof HostError || error instanceof PluginError) return error
  if (isDatabaseUnavailable(error)) return databaseUnavailable()
  const fastifyError = error as FastifyError & { validation?: AjvIssue[]; validationContext?: string }
  if (Array.isArray(fastifyError.validation)) {
    return validationError(fastifyError as FastifyError & { validation: AjvIssue[] })
  }
  const known = fastifyError.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined
  if (known) return new HostError(known[0], known[1], known[2])
  if (error instanceof SyntaxError && (fastifyError.statusCode === 400 || 'body' in error)) {
    return new HostError('rest_invalid_json', 400, 'The request body is not valid JSON.')
  }
  const status = fastifyError.statusCode
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new HostError('rest_bad_request', status, 'The request is malformed.')
  }
  return null
}

export function sendError(reply: FastifyReply, error: HostError | PluginError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
  // serialized here, not by the route's response schema: either error shape may answer any status
  const body = localizeMessages(error.toBody(), requestLanguage(reply.request))
  return reply.code(error.status).type('application/json; charset=utf-8').send(JSON.stringify(body))
}

/*
 * The router's own refusals (a path with a broken percent escape, a path parameter over the
 * router's length limit) never reach the error handler: without this, Fastify answered them with
 * a body of its own (`{"error":"Bad Request","code":"FST_ERR_BAD_URL",…}`, and 414 for a long
 * parameter) instead of the API's two error shapes, and without the security headers. Passed to Fastify as
 * `frameworkErrors` (app.ts).
 */
export function frameworkErrorAnswer(
  production: boolean,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return function answerFrameworkError(error, request, reply) {
    const mapped = toHttpError(error) ?? new HostError('rest_invalid_request', 400, 'The request could not be routed.')
    request.log.info(
      { code: mapped instanceof HostError ? mapped.code : mapped.error, status: mapped.status },
      'request refused',
    )
    // the onSend hooks do not run for the router's refusals: the headers every answer carries
    setSecurityHeaders(reply, production)
    void sendError(reply, mapped)
  }
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
    const mapped = toHttpError(error)
    if (mapped instanceof HostError && mapped.code === 'database_unavailable') {
      // the cause (the driver's message, never a connection string) for the operator
      request.log.warn({ err: error, code: mapped.code, status: mapped.status }, 'database unavailable')
      return sendError(reply, mapped)
    }
    if (mapped) {
      request.log.info(
        { code: mapped instanceof HostError ? mapped.code : mapped.error, status: mapped.status },
        'request refused',
      )
      return sendError(reply, mapped)
    }
    request.log.error({ err: error }, 'unexpected error')
    return sendError(
      reply,
      new HostError('internal_error', 500, 'The server could not complete the request. The error has been logged.'),
    )
  })

  app.setNotFoundHandler(function handleNotFound(_request: FastifyRequest, reply: FastifyReply) {
    return sendError(
      reply,
      new HostError('rest_no_route', 404, 'No route was found matching the URL and request method.'),
    )
  })
}
