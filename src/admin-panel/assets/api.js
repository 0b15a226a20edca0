// The panel's only way to the server: the public REST API under {base_url}, authenticated by the
// session cookie (HttpOnly, set by POST /session) and the REST nonce in X-WP-Nonce.
import { language } from './i18n.js'

export class ApiError extends Error {
  /**
   * @param {number} status HTTP status, 0 when the server could not be reached
   * @param {string} code `code` (host style) or `error` (plugin style), docs/integration/api.md
   * @param {Record<string, unknown>} body the whole error body
   */
  constructor(status, code, body, message) {
    super(message || code)
    this.name = 'ApiError'
    this.status = status
    this.code = code
    this.body = body ?? {}
  }
}

function errorFrom(status, body) {
  const code =
    (body && typeof body === 'object' && (body.code || body.error)) ||
    (status === 0 ? 'network_error' : `http_${status}`)
  const message = body && typeof body === 'object' && typeof body.message === 'string' ? body.message : ''
  return new ApiError(status, String(code), body, message)
}

async function readBody(response) {
  const type = response.headers.get('content-type') || ''
  if (response.status === 204) return null
  if (type.includes('json')) {
    try {
      return await response.json()
    } catch (error) {
      // leaving a view aborts its requests, also while their body is read: that is no empty answer
      if (error?.name === 'AbortError') throw error
      return null
    }
  }
  return await response.text()
}

export class Api {
  /** @param {string} base e.g. /wp-json/dg/v2 */
  constructor(base) {
    this.base = base.replace(/\/+$/, '')
    this.nonce = null
    /**
     * Called when a request answers 401: the session ended (expired, logged out elsewhere).
     * @type {(error: ApiError) => void}
     */
    this.onSessionLost = () => {}
  }

  url(path) {
    return `${this.base}${path}`
  }

  headers(extra = {}) {
    // the server words its messages (field issues, conflicts) in the panel's language
    const headers = { Accept: 'application/json', 'Accept-Language': language(), ...extra }
    if (this.nonce) headers['X-WP-Nonce'] = this.nonce
    return headers
  }

  /**
   * @param {string} method
   * @param {string} path under the base URL
   * @param {{json?: unknown, form?: URLSearchParams, headers?: Record<string,string>, signal?: AbortSignal}} options
   * @returns {Promise<{status: number, body: any, headers: Headers}>}
   */
  async request(method, path, options = {}, retried = false) {
    /** @type {RequestInit & { headers: Record<string, string> }} */
    const init = { method, credentials: 'same-origin', headers: this.headers(options.headers), signal: options.signal }
    if (options.json !== undefined) {
      init.headers['Content-Type'] = 'application/json'
      init.body = JSON.stringify(options.json)
    } else if (options.form) {
      init.body = options.form
    }
    let response
    try {
      response = await fetch(this.url(path), init)
    } catch (error) {
      if (error?.name === 'AbortError') throw error
      throw new ApiError(0, 'network_error', {}, String(error?.message || error))
    }
    const body = await readBody(response)
    if (response.ok) return { status: response.status, body, headers: response.headers }
    const error = errorFrom(response.status, body)
    // the nonce rotates every half session lifetime: take a fresh one once and repeat
    if (error.code === 'rest_cookie_invalid_nonce' && !retried && (await this.refreshNonce()))
      return this.request(method, path, options, true)
    if (response.status === 401 && path !== '/session') this.onSessionLost(error)
    throw error
  }

  get(path, options) {
    return this.request('GET', path, options)
  }

  post(path, options) {
    return this.request('POST', path, options)
  }

  /** The current session's user and a fresh nonce, or null when not logged in. */
  async currentSession() {
    try {
      const { body } = await this.request('GET', '/session')
      this.nonce = body.nonce
      return body.user
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return null
      throw error
    }
  }

  async refreshNonce() {
    try {
      return (await this.currentSession()) !== null
    } catch {
      return false
    }
  }

  async login(login, password) {
    const { body } = await this.request('POST', '/session', { json: { login, password } })
    this.nonce = body.nonce
    return body.user
  }

  async logout() {
    try {
      await this.request('DELETE', '/session')
    } finally {
      this.nonce = null
    }
  }

  /**
   * A multipart upload with progress (fetch cannot report upload progress).
   * @param {string} path
   * @param {FormData} form
   * @param {(sent: number, total: number) => void} onProgress
   */
  async upload(path, form, onProgress, signal) {
    try {
      return await this.uploadOnce(path, form, onProgress, signal)
    } catch (error) {
      if (error instanceof ApiError && error.code === 'rest_cookie_invalid_nonce' && (await this.refreshNonce()))
        return this.uploadOnce(path, form, onProgress, signal)
      throw error
    }
  }

  uploadOnce(path, form, onProgress, signal) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest()
      xhr.open('POST', this.url(path))
      for (const [name, value] of Object.entries(this.headers())) xhr.setRequestHeader(name, value)
      xhr.responseType = 'text'
      xhr.upload.addEventListener('progress', (event) => {
        if (event.lengthComputable) onProgress(event.loaded, event.total)
      })
      xhr.addEventListener('load', () => {
        let body = null
        try {
          body = xhr.responseText ? JSON.parse(xhr.responseText) : null
        } catch {
          body = xhr.responseText
        }
        if (xhr.status >= 200 && xhr.status < 300) resolve({ status: xhr.status, body })
        else {
          const error = errorFrom(xhr.status, body)
          if (xhr.status === 401) this.onSessionLost(error)
          reject(error)
        }
      })
      xhr.addEventListener('error', () => reject(new ApiError(0, 'network_error', {}, 'network error')))
      xhr.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))
      signal?.addEventListener('abort', () => xhr.abort())
      xhr.send(form)
    })
  }
}
