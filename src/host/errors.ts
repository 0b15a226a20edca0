/**
 * The two error shapes of the API (docs/integration/api.md), decided here and nowhere else:
 * - host style `{code, message, data: {status, ...}}` (WordPress REST conventions),
 * - plugin style `{error, feature?, ...}`.
 * Clients branch on the HTTP status and on `code`/`error`, never on the message text.
 * Both constructors take the code first and the HTTP status second, then what the body adds.
 */

export type ResponseHeaders = Record<string, string | number>

export class HostError extends Error {
  readonly code: string
  readonly status: number
  readonly data: Record<string, unknown>
  readonly headers: ResponseHeaders

  constructor(
    code: string,
    status: number,
    message: string,
    data: Record<string, unknown> = {},
    headers: ResponseHeaders = {},
  ) {
    super(message)
    this.name = 'HostError'
    this.code = code
    this.status = status
    this.data = data
    this.headers = headers
  }

  toBody(): { code: string; message: string; data: Record<string, unknown> } {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.data } }
  }
}

export class PluginError extends Error {
  readonly error: string
  readonly status: number
  readonly extra: Record<string, unknown>
  readonly headers: ResponseHeaders

  constructor(error: string, status: number, extra: Record<string, unknown> = {}, headers: ResponseHeaders = {}) {
    super(error)
    this.name = 'PluginError'
    this.error = error
    this.status = status
    this.extra = extra
    this.headers = headers
  }

  toBody(): Record<string, unknown> {
    return { error: this.error, ...this.extra }
  }
}

export const notLoggedIn = (): HostError => new HostError('rest_not_logged_in', 401, 'You are not currently logged in.')

export const forbidden = (code = 'rest_forbidden'): HostError =>
  new HostError(code, 403, 'Sorry, you are not allowed to do that.')

export const proFeatureRequired = (feature: string): PluginError =>
  new PluginError('pro_feature_required', 403, { feature })

export const invalidParam = (param: string, reason: string): HostError =>
  new HostError('rest_invalid_param', 400, `Invalid parameter(s): ${param}`, { params: { [param]: reason } })

export const notFound = (code: string, message: string): HostError => new HostError(code, 404, message)
