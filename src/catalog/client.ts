/*
 * Typed client for the catalog, for a website back end (server to server; never ship the
 * application password to a browser). It pages through collections, keeps ETags and answers from
 * its cache on 304, and waits `Retry-After` on 429 (never less: a longer wait than it accepts is
 * thrown with `retryAfterSeconds`). Dependency-free: it uses the global fetch.
 *
 *   import { CatalogClient } from 'dg-offers/client'
 *   const catalog = new CatalogClient({ baseUrl: 'https://dg.example.pl/wp-json/dg/v2', user: 'website', password: process.env.DG_APP_PASSWORD! })
 *   for await (const offer of catalog.allProperties({ status: 'available', orderby: 'price', order: 'ASC' })) { ... }
 */

export interface CatalogOffer {
  id: number
  title: string
  code: string
  offer_kind: 'property' | 'standalone_part'
  property_type: string
  is_standalone_part: boolean
  offer_type_label: string
  url: string
  status: string
  status_label: string
  area: string
  area_label: string
  rooms: string
  floor: string
  building: string
  price: string
  price_cents: number
  price_m2: string
  price_m2_cents: number
  price_date: string
  price_m2_date: string
  variant: string
  variant_label: string
  variant_components: string[]
  image: string
  gallery: number[]
  investment_id: number
  investment_title: string
  modified: string
  [extra: string]: unknown
}

export interface MediaItem {
  id: number
  url: string
  title: string
  alt: string
  mime_type: string
}

export interface CatalogPropertyDetail {
  offer: CatalogOffer
  components: Array<{
    group: string
    description: string
    price: string
    date: string
    relation: string
    requirement: string
    variant: string
    legal_title: string
  }>
  contact: { developer_name: string; phone: string; email: string; sales_office_address: string }
  media: { thumbnail: MediaItem | null; gallery: MediaItem[]; documents: MediaItem[] }
  price: { cents: number; formatted: string; valid_from: string }
  custom_meta: Record<string, unknown>
}

export interface CatalogInvestment {
  id: number
  title: string
  slug: string
  url: string
  excerpt: string
  location: Record<string, string>
  image: string
  offers_count: number
  modified: string
  content?: string
  context?: Record<string, unknown>
  media?: { thumbnail: MediaItem | null; gallery: MediaItem[] }
  documents?: MediaItem[]
  visibility?: string
  custom_meta?: Record<string, unknown>
}

export interface PriceHistoryItem {
  record_type: string
  price_type: string
  valid_from: string
  recorded_at: string
  before: { cents: number | null; formatted: string }
  after: { cents: number | null; formatted: string }
  label: string
  reason: string
  correction: boolean
  /** Valid from a day after today (Europe/Warsaw): announced, not in force yet. */
  announced: boolean
}

export interface CatalogDiscovery {
  api_version: string
  plugin_version: string
  contract: { id: string; valid_until: string }
  resources: { investments: string; properties: string }
  extension_options: Record<string, unknown>
}

export interface PropertyQuery {
  investment?: number
  status?: 'available' | 'reserved' | 'sold' | 'unavailable' | 'archived'
  offer_kind?: 'property' | 'standalone_part'
  type?: string
  rooms?: number
  floor?: number
  area_min?: string
  area_max?: string
  price_min?: number
  price_max?: number
  search?: string
  modified_after?: string
  orderby?: 'modified' | 'title' | 'price' | 'area'
  order?: 'ASC' | 'DESC'
  page?: number
  per_page?: number
  _fields?: string
}

export interface Page<T> {
  items: T[]
  total: number
  totalPages: number
  page: number
  /** True when the answer came from the client's cache after a 304. */
  fromCache: boolean
}

export class CatalogApiError extends Error {
  constructor(
    readonly status: number,
    /** `code` (host style) or `error` (plugin style) (docs/integration/api.md). */
    readonly code: string,
    message: string,
    readonly body: unknown,
    /** For a 429 (or 503) that carried `Retry-After`: how many seconds to wait before asking again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
    this.name = 'CatalogApiError'
  }
}

export interface CatalogClientOptions {
  /** `{base_url}`, e.g. https://dg.example.pl/wp-json/dg/v2 */
  baseUrl: string
  user: string
  /** Application password, with or without spaces. */
  password: string
  /** Answers kept for revalidation (default 500). */
  cacheSize?: number
  /** How many times a 429 is waited out before giving up (default 3). */
  maxRateLimitRetries?: number
  /**
   * Longest wait accepted from Retry-After, in seconds (default 120). A 429 that asks for a
   * longer wait is not retried early: it is thrown at once, with `retryAfterSeconds`.
   */
  maxRetryAfterSeconds?: number
  fetch?: typeof fetch
  sleep?: (ms: number) => Promise<void>
}

interface CachedResponse {
  etag: string
  body: unknown
  headers: { total: number; totalPages: number }
}

type Query = Record<string, string | number | undefined>

/** `Retry-After` as seconds: delta-seconds, or an HTTP date (RFC 9110 10.2.3); undefined when absent or unreadable. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined
  if (/^\d+$/.test(header.trim())) return Number(header.trim())
  const at = Date.parse(header)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000))
}

export class CatalogClient {
  readonly #base: string
  readonly #authorization: string
  readonly #cache = new Map<string, CachedResponse>()
  readonly #cacheSize: number
  readonly #maxRetries: number
  readonly #maxRetryAfter: number
  readonly #fetch: typeof fetch
  readonly #sleep: (ms: number) => Promise<void>

  constructor(options: CatalogClientOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '')
    this.#authorization = `Basic ${Buffer.from(`${options.user}:${options.password.replace(/\s+/g, '')}`).toString('base64')}`
    this.#cacheSize = options.cacheSize ?? 500
    this.#maxRetries = options.maxRateLimitRetries ?? 3
    this.#maxRetryAfter = options.maxRetryAfterSeconds ?? 120
    this.#fetch = options.fetch ?? fetch
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)))
  }

  discovery(): Promise<CatalogDiscovery> {
    return this.#getBody('/catalog', {})
  }

  investments(
    query: { page?: number; per_page?: number; search?: string; _fields?: string } = {},
  ): Promise<Page<CatalogInvestment>> {
    return this.#getPage('/catalog/investments', query)
  }

  investment(id: number, fields?: string): Promise<CatalogInvestment> {
    return this.#getBody(`/catalog/investments/${id}`, { _fields: fields })
  }

  properties(query: PropertyQuery = {}): Promise<Page<CatalogOffer>> {
    return this.#getPage('/catalog/properties', query as Query)
  }

  /** Every offer matching the query, fetching page after page. */
  async *allProperties(query: Omit<PropertyQuery, 'page'> = {}): AsyncGenerator<CatalogOffer> {
    for (let page = 1; ; page++) {
      const result = await this.properties({ per_page: 100, ...query, page })
      yield* result.items
      if (page >= result.totalPages) return
    }
  }

  property(id: number, fields?: string): Promise<CatalogPropertyDetail> {
    return this.#getBody(`/catalog/properties/${id}`, { _fields: fields })
  }

  priceHistory(id: number): Promise<{ property_id: number; items: PriceHistoryItem[] }> {
    return this.#getBody(`/catalog/properties/${id}/price-history`, {})
  }

  related(id: number, query: { page?: number; per_page?: number; _fields?: string } = {}): Promise<Page<CatalogOffer>> {
    return this.#getPage(`/catalog/properties/${id}/related`, query)
  }

  async #getBody<T>(path: string, query: Query): Promise<T> {
    return (await this.#request(path, query)).body as T
  }

  async #getPage<T>(path: string, query: Query): Promise<Page<T>> {
    const response = await this.#request(path, query)
    return {
      items: response.body as T[],
      total: response.headers.total,
      totalPages: response.headers.totalPages,
      page: Number(query.page ?? 1),
      fromCache: response.fromCache,
    }
  }

  async #request(path: string, query: Query): Promise<CachedResponse & { fromCache: boolean }> {
    const url = new URL(`${this.#base}${path}`)
    for (const [name, value] of Object.entries(query))
      if (value !== undefined && value !== '') url.searchParams.set(name, String(value))
    const key = url.toString()
    const cached = this.#cache.get(key)
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { authorization: this.#authorization, accept: 'application/json' }
      if (cached) headers['if-none-match'] = cached.etag
      const response = await this.#fetch(key, { headers })
      if (response.status === 304 && cached) return { ...cached, fromCache: true }
      const retryAfter = retryAfterSeconds(response.headers.get('retry-after'))
      if (response.status === 429 && attempt < this.#maxRetries && (retryAfter ?? 1) <= this.#maxRetryAfter) {
        await response.body?.cancel()
        await this.#sleep(Math.max(1, retryAfter ?? 1) * 1000)
        continue
      }
      const text = await response.text()
      let body: unknown = null
      try {
        body = text ? JSON.parse(text) : null
      } catch {
        body = text
      }
      if (!response.ok) {
        const fields = (body ?? {}) as { code?: string; error?: string; message?: string }
        throw new CatalogApiError(
          response.status,
          fields.code ?? fields.error ?? 'http_error',
          fields.message ?? fields.error ?? `HTTP ${response.status}`,
          body,
          retryAfter,
        )
      }
      const entry: CachedResponse = {
        etag: response.headers.get('etag') ?? '',
        body,
        headers: {
          total: Number(response.headers.get('x-wp-total') ?? 0),
          totalPages: Number(response.headers.get('x-wp-totalpages') ?? 0),
        },
      }
      if (entry.etag) this.#remember(key, entry)
      return { ...entry, fromCache: false }
    }
  }

  #remember(key: string, entry: CachedResponse): void {
    this.#cache.delete(key)
    this.#cache.set(key, entry)
    if (this.#cache.size > this.#cacheSize) {
      const oldest = this.#cache.keys().next()
      if (!oldest.done) this.#cache.delete(oldest.value)
    }
  }
}
