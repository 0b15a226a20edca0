// @ts-check
/*
 * The website's only way to the catalog: the package's CatalogClient (server to server, HTTP Basic
 * with the application password), plus what a busy website needs around it:
 * - revalidation: the client keeps each answer with its ETag and sends If-None-Match, so a repeat
 *   view costs the service a 304 (optionally, `freshSeconds` serves an answer younger than that
 *   without asking at all);
 * - one request at a time per address: visitors asking for the same page at once share one call;
 * - Retry-After: after a 429 nothing is sent to the service until the wait is over, for every
 *   visitor (a short wait is waited out once by the client; a longer one is not shortened);
 * - errors as a few kinds the pages can explain (unavailable, busy, not found, refused), with the
 *   details kept for the server's log, never for the browser.
 */
import { CatalogApiError, CatalogClient } from 'dg-offers/client'

/** The service cannot be reached or answered 5xx: the pages say "temporarily unavailable". */
export class CatalogUnavailableError extends Error {}

/** The service asked to wait (429 Retry-After): the pages say "try again in N s". */
export class CatalogBusyError extends Error {
  /**
   * @param {number} retryAfterSeconds
   * @param {string} message
   */
  constructor(retryAfterSeconds, message) {
    super(message)
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/** 404 from the catalog: the offer or investment is not published (any more). */
export class CatalogNotFoundError extends Error {}

/** 400/401/403: a request this website should not have made, or its account is wrong (see the log). */
export class CatalogRefusedError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message)
    this.status = status
    this.code = code
  }
}

/**
 * @typedef {object} GatewayOptions
 * @property {string} baseUrl `{base_url}` of the service, e.g. http://127.0.0.1:8080/wp-json/dg/v2
 * @property {string} user the catalog reader's login
 * @property {string} password its application password
 * @property {number} [freshSeconds] answers younger than this are served without asking (default 0: always revalidate)
 * @property {number} [timeoutMs] longest wait for one catalog call (default 5000)
 * @property {number} [maxWaitSeconds] longest Retry-After waited out inside a page request (default 2)
 * @property {typeof fetch} [fetch]
 * @property {() => number} [now]
 */

export class CatalogGateway {
  /** Catalog calls sent, and how the service answered them. */
  stats = { calls: 0, ok: 0, notModified: 0, rateLimited: 0, failed: 0 }

  /** @type {Map<string, Promise<unknown>>} */
  #inFlight = new Map()
  /** @type {Map<string, { at: number, value: unknown }>} */
  #fresh = new Map()
  #blockedUntil = 0
  #client
  #freshMs
  #now
  #origin
  #host

  /** @param {GatewayOptions} options */
  constructor(options) {
    const fetchImpl = options.fetch ?? fetch
    const timeoutMs = options.timeoutMs ?? 5000
    this.#freshMs = (options.freshSeconds ?? 0) * 1000
    this.#now = options.now ?? Date.now
    this.#host = new URL(options.baseUrl).host
    this.#origin = new URL(options.baseUrl).origin
    /** @type {typeof fetch} */
    const countingFetch = async (input, init) => {
      this.stats.calls++
      try {
        const response = await fetchImpl(input, { ...init, signal: AbortSignal.timeout(timeoutMs) })
        if (response.status === 304) this.stats.notModified++
        else if (response.status === 429) this.stats.rateLimited++
        else if (response.ok) this.stats.ok++
        else this.stats.failed++
        return response
      } catch (error) {
        this.stats.failed++
        throw error
      }
    }
    this.#client = new CatalogClient({
      baseUrl: options.baseUrl,
      user: options.user,
      password: options.password,
      cacheSize: 5000,
      maxRateLimitRetries: 1,
      maxRetryAfterSeconds: options.maxWaitSeconds ?? 2,
      fetch: countingFetch,
    })
  }

  discovery() {
    return this.#call('discovery', [], () => this.#client.discovery())
  }

  /** @param {Parameters<CatalogClient['investments']>[0]} query */
  investments(query) {
    return this.#call('investments', [query], () => this.#client.investments(query))
  }

  /** @param {number} id */
  investment(id) {
    return this.#call('investment', [id], () => this.#client.investment(id))
  }

  /** @param {import('dg-offers/client').PropertyQuery} query */
  properties(query) {
    return this.#call('properties', [query], () => this.#client.properties(query))
  }

  /** @param {number} id */
  property(id) {
    return this.#call('property', [id], () => this.#client.property(id))
  }

  /** @param {number} id */
  priceHistory(id) {
    return this.#call('priceHistory', [id], () => this.#client.priceHistory(id))
  }

  /**
   * @param {number} id
   * @param {{ page?: number, per_page?: number }} query
   */
  related(id, query) {
    return this.#call('related', [id, query], () => this.#client.related(id, query))
  }

  /**
   * @template T
   * @param {string} name
   * @param {unknown[]} args
   * @param {() => Promise<T>} send
   * @returns {Promise<T>}
   */
  async #call(name, args, send) {
    const key = `${name}:${JSON.stringify(args)}`
    const now = this.#now()
    const fresh = this.#fresh.get(key)
    if (fresh && now - fresh.at < this.#freshMs) return /** @type {T} */ (fresh.value)
    const pending = this.#inFlight.get(key)
    if (pending) return /** @type {Promise<T>} */ (pending)
    if (now < this.#blockedUntil) {
      const wait = Math.ceil((this.#blockedUntil - now) / 1000)
      throw new CatalogBusyError(wait, `the catalog asked to wait; ${wait} s left`)
    }
    const request = send()
      .then((value) => {
        hideServiceAddress(value, this.#host)
        if (this.#freshMs > 0) this.#remember(key, value)
        return value
      })
      .catch((error) => {
        throw this.#explain(error)
      })
      .finally(() => this.#inFlight.delete(key))
    this.#inFlight.set(key, request)
    return request
  }

  /**
   * @param {string} key
   * @param {unknown} value
   */
  #remember(key, value) {
    this.#fresh.delete(key)
    this.#fresh.set(key, { at: this.#now(), value })
    if (this.#fresh.size > 5000) {
      const oldest = this.#fresh.keys().next()
      if (!oldest.done) this.#fresh.delete(oldest.value)
    }
  }

  /** The service's origin: files it serves are fetched through this website's /media/ (see site.js). */
  get serviceOrigin() {
    return this.#origin
  }

  /** @param {unknown} error */
  #explain(error) {
    if (error instanceof CatalogApiError) {
      if (error.status === 429) {
        const wait = Math.max(1, error.retryAfterSeconds ?? 60)
        this.#blockedUntil = Math.max(this.#blockedUntil, this.#now() + wait * 1000)
        return new CatalogBusyError(wait, `429 ${error.code}: the catalog asked to wait ${wait} s`)
      }
      if (error.status === 404) return new CatalogNotFoundError(`404 ${error.code}`)
      if (error.status >= 500) return new CatalogUnavailableError(`${error.status} ${error.code}`, { cause: error })
      return new CatalogRefusedError(error.status, error.code, `${error.status} ${error.code}: ${error.message}`)
    }
    // a network failure or the timeout: fetch's own message may name the service's address,
    // which stays in the cause (for the server's log), never in what a page shows
    return new CatalogUnavailableError('the catalog could not be reached', { cause: error })
  }
}

/**
 * Rewrites, in place, every text of a catalog answer that holds the service's address: the address
 * of a file the service serves (an uploaded image, a document) becomes this website's /media/ path,
 * and the address anywhere else is cut out. The browser then never learns where the catalog is,
 * whatever a field holds. Idempotent: a rewritten answer (the client's cached copy, after a 304)
 * holds nothing more to rewrite.
 * @param {unknown} value
 * @param {string} host the service's host and port, e.g. 127.0.0.1:8080
 */
export function hideServiceAddress(value, host) {
  if (Array.isArray(value)) {
    const list = /** @type {unknown[]} */ (value)
    for (let i = 0; i < list.length; i++) {
      const item = list[i]
      if (typeof item === 'string') list[i] = withoutHost(item, host)
      else hideServiceAddress(item, host)
    }
  } else if (typeof value === 'object' && value !== null) {
    const record = /** @type {Record<string, unknown>} */ (value)
    for (const [key, item] of Object.entries(record)) {
      if (typeof item === 'string') record[key] = withoutHost(item, host)
      else hideServiceAddress(item, host)
    }
  }
}

/**
 * @param {string} text
 * @param {string} host
 */
function withoutHost(text, host) {
  if (!text.toLowerCase().includes(host.toLowerCase())) return text
  const url = /^https?:\/\/([^/?#]+)([/?#].*)?$/i.exec(text)
  if (url && url[1]?.toLowerCase() === host.toLowerCase()) return `/media${url[2]?.startsWith('/') ? url[2] : '/'}`
  return text.replace(new RegExp(host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '')
}
