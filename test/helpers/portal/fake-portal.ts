/*
 * A local stand-in for the public dane.gov.pl API (version 1.4), enough for the preflight's
 * `verify_portal`: JSON:API bodies (`data`, `meta`, `links`) for
 *   GET /1.4/datasets?q=…&per_page=…            full-text search (every word of q in the title)
 *   GET /1.4/datasets/{id}                       one dataset
 *   GET /1.4/datasets/{id}/resources?sort=…      its resources (sort by data_date/created, ±)
 *   GET /1.4/resources/{id}                      one resource
 * The version may also come in the X-API-VERSION header on paths without /1.4. Tests set the
 * datasets, can make it answer 503 (`mode = 'error'`) or cut connections (`mode = 'drop'`), and
 * read the requests it received, or take it down (connection refused) and up again.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeResource {
  id: number
  /** data_date, YYYY-MM-DD */
  date: string
  title?: string
  link?: string
}

export interface FakeDataset {
  id: number
  title: string
  /** The harvester source URL (our dataset.xml). */
  sourceUrl?: string
  resources: FakeResource[]
}

export interface FakePortalRequest {
  method: string
  path: string
  query: Record<string, string>
  apiVersion: string | undefined
  acceptLanguage: string | undefined
}

export interface FakePortal {
  url: string
  datasets: FakeDataset[]
  mode: 'ok' | 'error' | 'drop'
  requests: FakePortalRequest[]
  /** Replaces the datasets. */
  set(datasets: FakeDataset[]): void
  /** Stops listening (connections are refused) until up(); the URL stays the same. */
  down(): Promise<void>
  up(): Promise<void>
  close(): Promise<void>
}

const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)

export async function startFakePortal(): Promise<FakePortal> {
  const portal: Omit<FakePortal, 'url' | 'close' | 'down' | 'up'> = {
    datasets: [],
    mode: 'ok',
    requests: [],
    set(datasets) {
      this.datasets = datasets
    },
  }

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake-portal')
    const version = request.headers['x-api-version']
    portal.requests.push({
      method: request.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      apiVersion: Array.isArray(version) ? version[0] : version,
      acceptLanguage: request.headers['accept-language'],
    })
    if (portal.mode === 'drop') {
      request.socket.destroy()
      return
    }
    const base = `http://${request.headers.host ?? 'localhost'}`
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/vnd.api+json; charset=utf-8', 'x-api-version': '1.4' })
      response.end(JSON.stringify(body))
    }
    if (portal.mode === 'error')
      return send(503, { errors: [{ status: '503', code: 'service_unavailable', title: 'Service Unavailable' }] })
    if (request.method !== 'GET') return send(405, { errors: [{ status: '405', title: 'Method Not Allowed' }] })
    const notFound = () => send(404, { errors: [{ status: '404', code: '404_not_found', title: '404 Not Found' }] })

    let path = url.pathname
    if (path.startsWith('/1.4/')) path = path.slice(4)
    else if (version !== '1.4') return notFound()

    const datasetJson = (d: FakeDataset) => ({
      id: String(d.id),
      type: 'dataset',
      attributes: {
        title: d.title,
        notes: `<p>${d.title}</p>`,
        slug: words(d.title).join('-'),
        update_frequency: 'daily',
        created: '2025-10-01T08:00:00Z',
        modified: `${
          d.resources
            .map((r) => r.date)
            .sort()
            .at(-1) ?? '2025-10-01'
        }T05:51:00Z`,
        verified: `${
          d.resources
            .map((r) => r.date)
            .sort()
            .at(-1) ?? '2025-10-01'
        }T05:51:00Z`,
        categories: [{ id: 'ECON', title: 'Gospodarka i finanse' }],
        source: d.sourceUrl
          ? {
              title: `Źródło ${d.title}`,
              type: 'xml',
              url: d.sourceUrl,
              update_frequency: 'codziennie',
              last_import_timestamp: `${
                d.resources
                  .map((r) => r.date)
                  .sort()
                  .at(-1) ?? '2025-10-01'
              }T05:50:12Z`,
            }
          : null,
        has_high_value_data: true,
      },
      relationships: {
        institution: { data: { id: '9001', type: 'institution' } },
        resources: {
          links: { related: `${base}/1.4/datasets/${d.id}/resources` },
          meta: { count: d.resources.length },
        },
      },
      links: { self: `${base}/1.4/datasets/${d.id},${words(d.title).join('-')}` },
    })
    const resourceJson = (d: FakeDataset, r: FakeResource) => ({
      id: String(r.id),
      type: 'resource',
      attributes: {
        title: r.title ?? `${d.title.replace(/ w \d{4} r\.$/, '')} ${r.date}`,
        description: `Ceny ofertowe udostępnione ${r.date}.`,
        format: 'csv',
        created: `${r.date}T05:51:00Z`,
        modified: `${r.date}T05:51:00Z`,
        verified: `${r.date}T05:51:00Z`,
        data_date: r.date,
        link: r.link ?? `https://ceny.example.pl/dane-gov/plik-${r.date}.csv`,
        file_url: `${base}/media/resources/${r.date.replace(/-/g, '')}/plik-${r.date}.csv`,
        download_url: `${base}/resources/${r.id}/file`,
        file_size: 20480,
        special_signs: ['X'],
      },
      relationships: { dataset: { data: { id: String(d.id), type: 'dataset' } } },
      links: { self: `${base}/1.4/resources/${r.id}` },
    })
    const page = <T>(items: T[]) => {
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 25) || 25)
      const number = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1)
      return {
        data: items.slice((number - 1) * perPage, number * perPage),
        meta: { count: items.length, language: 'pl', params: Object.fromEntries(url.searchParams) },
        links: { self: `${base}/1.4${path}${url.search}` },
        jsonapi: { version: '1.0' },
      }
    }

    let match: RegExpExecArray | null
    if (path === '/datasets') {
      const q = words(url.searchParams.get('q') ?? '')
      const found = portal.datasets.filter((d) => {
        const title = new Set(words(d.title))
        return q.every((w) => title.has(w))
      })
      return send(200, page(found.map(datasetJson)))
    }
    if ((match = /^\/datasets\/(\d+)(?:,[\w-]*)?$/.exec(path))) {
      const d = portal.datasets.find((x) => String(x.id) === match![1])
      return d ? send(200, { data: datasetJson(d), jsonapi: { version: '1.0' } }) : notFound()
    }
    if ((match = /^\/datasets\/(\d+)(?:,[\w-]*)?\/resources$/.exec(path))) {
      const d = portal.datasets.find((x) => String(x.id) === match![1])
      if (!d) return notFound()
      const sort = url.searchParams.get('sort') ?? '-created'
      const descending = sort.startsWith('-')
      const resources = [...d.resources].sort((a, b) =>
        descending ? b.date.localeCompare(a.date) : a.date.localeCompare(b.date),
      )
      return send(200, page(resources.map((r) => resourceJson(d, r))))
    }
    if ((match = /^\/resources\/(\d+)$/.exec(path))) {
      for (const d of portal.datasets) {
        const r = d.resources.find((x) => String(x.id) === match![1])
        if (r) return send(200, { data: resourceJson(d, r), jsonapi: { version: '1.0' } })
      }
    }
    return notFound()
  })

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve()
      server.closeAllConnections()
      server.close(() => resolve())
    })
  await listen(0)
  const { port } = server.address() as AddressInfo
  return Object.assign(portal as FakePortal, {
    url: `http://127.0.0.1:${port}`,
    down: stop,
    up: () => listen(port),
    close: stop,
  })
}
