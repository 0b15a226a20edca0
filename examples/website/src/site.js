// @ts-check
/*
 * The website's HTTP handler (node:http): routes, pages, and what every answer carries.
 * - Every page is rendered on the server from catalog answers; the browser never talks to the
 *   catalog, never receives its address or the application password.
 * - Pages carry a weak ETag of their HTML: a browser's repeat view of an unchanged page is a 304,
 *   and the catalog calls behind it are 304s too (see catalog-gateway.js).
 * - When the catalog cannot answer, the visitor gets a friendly page in Polish (503, with
 *   Retry-After when the catalog asked to wait) and the server's log gets the reason.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Readable } from 'node:stream'

import {
  CatalogBusyError,
  CatalogNotFoundError,
  CatalogRefusedError,
  CatalogUnavailableError,
} from './catalog-gateway.js'
import { html } from './html.js'
import { readOfferFilters } from './offer-filters.js'
import { investmentList, investmentPage } from './pages/investments.js'
import { layout, messagePage } from './pages/layout.js'
import { offerCard } from './pages/offer-card.js'
import { filterForm, offerGrid, offerTable, pager, viewSwitch } from './pages/offers.js'

const STYLESHEET = readFileSync(new URL('../public/site.css', import.meta.url))
const STYLESHEET_ETAG = `"${createHash('sha256').update(STYLESHEET).digest('base64url').slice(0, 16)}"`

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; img-src 'self' https: http: data:; style-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
}

/** Today in Europe/Warsaw, YYYY-MM-DD: the catalog's dates are Warsaw dates. */
function warsawToday() {
  return new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Warsaw' }).format(new Date())
}

class NotFound extends Error {}

const MEDIA_TYPES = /^(image\/(jpeg|png|webp|gif|avif)|application\/pdf)(;|$)/i

/**
 * A file the service serves (an upload the catalog points at), passed through so that its address
 * stays on the server. Only images and PDF documents, without this website's credentials.
 * @param {string} target
 * @param {import('node:http').IncomingMessage} request
 * @param {import('node:http').ServerResponse} response
 */
async function proxyMedia(target, request, response) {
  // aborted (not just cancelled) when the file is refused, so that its connection is closed
  // instead of being read to its end
  const refuse = new AbortController()
  try {
    const upstream = await fetch(target, {
      headers: request.headers['if-none-match'] ? { 'if-none-match': String(request.headers['if-none-match']) } : {},
      signal: AbortSignal.any([refuse.signal, AbortSignal.timeout(10_000)]),
      redirect: 'error',
    })
    const type = upstream.headers.get('content-type') ?? ''
    const passed = /** @type {Record<string, string>} */ ({ 'x-content-type-options': 'nosniff' })
    for (const name of ['etag', 'last-modified', 'cache-control', 'content-length']) {
      const value = upstream.headers.get(name)
      if (value) passed[name] = value
    }
    if (upstream.status === 304) {
      response.writeHead(304, passed)
      response.end()
      return
    }
    if (!upstream.ok || !MEDIA_TYPES.test(type) || !upstream.body) {
      refuse.abort()
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
      response.end('Nie znaleziono pliku.')
      return
    }
    response.writeHead(200, { ...passed, 'content-type': type })
    if (request.method === 'HEAD') {
      refuse.abort()
      response.end()
      return
    }
    Readable.fromWeb(/** @type {import('node:stream/web').ReadableStream} */ (upstream.body)).pipe(response)
  } catch {
    if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' })
    response.end()
  }
}

/**
 * @typedef {object} SiteOptions
 * @property {import('./catalog-gateway.js').CatalogGateway} catalog
 * @property {(line: Record<string, unknown>) => void} [log]
 */

/**
 * @param {SiteOptions} options
 * @returns {(request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => void}
 */
export function createSite({ catalog, log = () => undefined }) {
  /** Site options of the extension, when one is loaded (extension_options of /catalog). */
  async function siteOptions() {
    const discovery = await catalog.discovery()
    const options = discovery.extension_options ?? {}
    return {
      banner: typeof options.promo_banner === 'string' ? options.promo_banner : '',
      showPricePerM2: options.show_price_per_m2 !== false,
    }
  }

  async function home() {
    const [options, investments] = await Promise.all([siteOptions(), catalog.investments({ per_page: 100 })])
    return layout({
      title: 'Inwestycje',
      active: 'inwestycje',
      banner: options.banner,
      body: investmentList({ investments: investments.items }),
    })
  }

  /**
   * @param {URLSearchParams} params
   * @param {string} path
   * @param {number} [investment] the investment page's own list
   */
  async function offerList(params, path, investment) {
    const filters = readOfferFilters(params, { perPage: 20, ...(investment ? { investment } : {}) })
    if (filters.view === 'siatka') filters.query.per_page = 12
    const [options, investments, page] = await Promise.all([
      siteOptions(),
      investment ? Promise.resolve({ items: [] }) : catalog.investments({ per_page: 100 }),
      catalog.properties(filters.query),
    ])
    const { form, view } = filters
    const body = html`${filters.problems.length > 0
      ? html`<ul class="problems" role="alert">
          ${filters.problems.map((p) => html`<li>${p}</li>`)}
        </ul>`
      : ''}
    ${filterForm({ form, investments: investments.items, path, fixedInvestment: investment !== undefined })}
    ${viewSwitch({ form, path, view })}
    ${page.items.length === 0
      ? html`<p class="empty">Żadna oferta nie spełnia tych warunków.</p>`
      : view === 'siatka'
        ? offerGrid({ offers: page.items, showPricePerM2: options.showPricePerM2 })
        : offerTable({ offers: page.items, form, path, showPricePerM2: options.showPricePerM2 })}
    ${pager({ page: filters.page, totalPages: page.totalPages, total: page.total, form, path })}`
    return { body, options }
  }

  /** @param {URLSearchParams} params */
  async function offersPage(params) {
    const { body, options } = await offerList(params, '/oferty')
    return layout({
      title: 'Oferty',
      active: 'oferty',
      banner: options.banner,
      body: html`<h1>Oferty</h1>
        ${body}`,
    })
  }

  /**
   * @param {number} id
   * @param {URLSearchParams} params
   */
  async function investment(id, params) {
    const [detail, list] = await Promise.all([catalog.investment(id), offerList(params, `/inwestycje/${id}`, id)])
    return layout({
      title: detail.title,
      active: 'inwestycje',
      banner: list.options.banner,
      body: investmentPage({ investment: detail, offers: list.body }),
    })
  }

  /** @param {number} id */
  async function offer(id) {
    const [options, detail, history, related] = await Promise.all([
      siteOptions(),
      catalog.property(id),
      catalog.priceHistory(id),
      catalog.related(id, { page: 1, per_page: 6 }),
    ])
    return layout({
      title: detail.offer.title,
      active: 'oferty',
      banner: options.banner,
      body: offerCard({
        detail,
        history: history.items,
        related: related.items,
        showPricePerM2: options.showPricePerM2,
        today: warsawToday(),
      }),
    })
  }

  /**
   * @param {string} path
   * @param {URLSearchParams} params
   */
  async function route(path, params) {
    if (path === '/') return home()
    if (path === '/oferty' || path === '/oferty/') return offersPage(params)
    // /oferty/123 and the catalog's permalinks /oferty/{investment}/{code}-123/
    const offerId = /^\/oferty\/(?:(\d+)|[^/]+\/[^/]*?-(\d+))\/?$/.exec(path)
    if (offerId) return offer(Number(offerId[1] ?? offerId[2]))
    const investmentId = /^\/inwestycje\/(\d+)\/?$/.exec(path)
    if (investmentId) return investment(Number(investmentId[1]), params)
    throw new NotFound(path)
  }

  /**
   * @param {import('node:http').ServerResponse} response
   * @param {number} status
   * @param {string} body
   * @param {Record<string, string>} [headers]
   */
  function send(response, status, body, headers = {}) {
    response.writeHead(status, {
      ...SECURITY_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      ...headers,
    })
    response.end(body)
  }

  /**
   * @param {unknown} error
   * @param {string} path
   * @returns {{ status: number, body: string, headers?: Record<string, string> }}
   */
  function failure(error, path) {
    if (error instanceof NotFound || error instanceof CatalogNotFoundError)
      return {
        status: 404,
        body: messagePage({
          title: 'Nie znaleziono',
          message: 'Tej strony nie ma albo oferta nie jest już prezentowana.',
          hint: 'Zobacz aktualne oferty na liście.',
        }).text,
      }
    if (error instanceof CatalogBusyError) {
      log({ level: 'warn', msg: 'catalog asked to wait', path, retryAfterSeconds: error.retryAfterSeconds })
      return {
        status: 503,
        headers: { 'retry-after': String(error.retryAfterSeconds) },
        body: messagePage({
          title: 'Chwileczkę',
          message: 'W tej chwili odwiedza nas bardzo wiele osób.',
          hint: `Spróbuj ponownie za ${error.retryAfterSeconds} s.`,
        }).text,
      }
    }
    if (error instanceof CatalogRefusedError && error.status === 400)
      return {
        status: 400,
        body: messagePage({
          title: 'Nie ma takiej strony wyników',
          message: 'Zmień filtry albo wróć do pierwszej strony.',
        }).text,
      }
    // the catalog is down, unreachable, or refuses this website's account: the visitor cannot fix
    // it, the operator can (the log says which)
    const reason =
      error instanceof CatalogUnavailableError || error instanceof CatalogRefusedError
        ? error.message
        : 'unexpected error'
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined
    log({
      level: 'error',
      msg: 'page failed',
      path,
      reason,
      ...(cause ? { cause } : {}),
      ...(error instanceof Error && reason === 'unexpected error' ? { stack: error.stack } : {}),
    })
    return {
      status: 503,
      headers: { 'retry-after': '30' },
      body: messagePage({
        title: 'Oferty są chwilowo niedostępne',
        message: 'Nie możemy teraz pokazać aktualnych ofert i cen. Pracujemy nad tym.',
        hint: 'Spróbuj ponownie za kilka minut albo zadzwoń do biura sprzedaży.',
      }).text,
    }
  }

  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://website.invalid')
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(response, 405, 'Metoda niedozwolona', { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
      return
    }
    if (url.pathname === '/static/site.css') {
      if (request.headers['if-none-match'] === STYLESHEET_ETAG) {
        response.writeHead(304, { etag: STYLESHEET_ETAG, 'cache-control': 'public, max-age=3600' })
        response.end()
        return
      }
      response.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': 'text/css; charset=utf-8',
        etag: STYLESHEET_ETAG,
        'cache-control': 'public, max-age=3600',
      })
      response.end(request.method === 'HEAD' ? undefined : STYLESHEET)
      return
    }
    if (url.pathname.startsWith('/media/')) {
      void proxyMedia(`${catalog.serviceOrigin}${url.pathname.slice('/media'.length)}${url.search}`, request, response)
      return
    }
    route(url.pathname, url.searchParams).then(
      (page) => {
        const body = page.text
        const etag = `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
        const headers = { etag, 'cache-control': 'private, no-cache' }
        const known = String(request.headers['if-none-match'] ?? '')
          .split(',')
          .map((tag) => tag.trim())
        if (known.includes(etag)) {
          response.writeHead(304, headers)
          response.end()
          return
        }
        send(response, 200, request.method === 'HEAD' ? '' : body, headers)
      },
      (error) => {
        const { status, body, headers } = failure(error, url.pathname)
        send(response, status, request.method === 'HEAD' ? '' : body, headers)
      },
    )
  }
}
