/*
 * A local https server (the test certificate of test/fixtures/tls) serving a price list that a
 * test changes day by day, with an ETag it can honour or ignore, and the answers a broken source
 * gives: an HTTP error, a web page instead of a file, a redirect elsewhere. It records each
 * request's path and headers, so a test sees what the service sent.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import path from 'node:path'

const TLS_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'tls')

/** The column assignment of the price lists these tests serve, and their header line. */
export const SOURCE_MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  prop_rooms: 'Pokoje',
  prop_floor: 'Piętro',
  price_total: 'Cena',
  price_total_from: 'Cena od',
  proj_city: 'Miasto',
}
export const SOURCE_HEADER = 'Inwestycja;ID lokalu;Numer;Rodzaj;Status;Powierzchnia;Pokoje;Piętro;Cena;Cena od;Miasto'

export interface SourceFileServer {
  origin: string
  port: number
  /** The file served at /prices.csv. */
  content: string
  honourEtag: boolean
  /** Where /redirect sends the client. */
  redirectTo: string
  requests: Array<{ path: string; headers: Record<string, string | string[] | undefined> }>
  close(): Promise<void>
}

export async function startSourceFileServer(): Promise<SourceFileServer> {
  const cert = fs.readFileSync(path.join(TLS_DIR, 'localhost-cert.pem'))
  const key = fs.readFileSync(path.join(TLS_DIR, 'localhost-key.pem'))
  https.globalAgent.options.ca = [cert]
  const state: SourceFileServer = {
    origin: '',
    port: 0,
    content: '',
    honourEtag: true,
    redirectTo: '',
    requests: [],
    close: async () => undefined,
  }
  const server = https.createServer({ cert, key }, (request, response) => {
    const url = request.url ?? '/'
    state.requests.push({ path: url, headers: { ...request.headers } })
    if (url === '/prices.csv') {
      const etag = `"${createHash('sha256').update(state.content).digest('hex').slice(0, 16)}"`
      if (state.honourEtag && request.headers['if-none-match'] === etag) {
        response.writeHead(304, { etag }).end()
        return
      }
      response.writeHead(200, { 'content-type': 'text/csv; charset=utf-8', ...(state.honourEtag ? { etag } : {}) })
      response.end(state.content)
      return
    }
    if (url === '/redirect') {
      response.writeHead(302, { location: state.redirectTo }).end()
      return
    }
    if (url === '/page') {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>Zaloguj się</p>')
      return
    }
    response.writeHead(500, { 'content-type': 'text/plain' }).end('internal error')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  state.port = port
  state.origin = `https://127.0.0.1:${port}`
  state.close = () =>
    new Promise<void>((resolve) => {
      https.globalAgent.destroy()
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return state
}
