/*
 * Fetches a source's file over https with limits: size (the import's own), time (one deadline for
 * every hop), redirects (followed by hand, each hop checked), content type. The address guard
 * refuses every address that is not public unicast (address-ranges.ts, the same classifier that
 * refuses such a literal when a source is entered), for the first address and every redirect,
 * both as written and after DNS resolution (the check runs in the socket's own lookup, so the
 * address checked is the address connected to), unless an administrator allowed that host.
 * Configured headers (a token) go to the source's own origin only, never to a redirect elsewhere.
 * Nothing here logs a header's value.
 */
import { createHash } from 'node:crypto'
import dns from 'node:dns'
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import https from 'node:https'
import type net from 'node:net'
import tls from 'node:tls'

import { explainNetworkError } from '../host/http/network-errors.js'
import { classifyAddress, isPrivateAddress, privateAllowed } from './address-ranges.js'

export interface FetchLimits {
  maxBytes: number
  timeoutMs: number
  maxRedirects: number
}

export const DEFAULT_FETCH_LIMITS: Omit<FetchLimits, 'maxBytes'> = { timeoutMs: 60_000, maxRedirects: 5 }

export interface SourceRequest {
  url: string
  headers: Record<string, string>
  /** Hosts (`host` or `host:port`) allowed to be private or loopback addresses. */
  privateHosts: readonly string[]
  etag?: string | null
  lastModified?: string | null
  /** PEM trusted for this source besides the usual authorities (a self-signed server). */
  ca?: string | null
  limits: FetchLimits
  /** Where the body is written. */
  target: string
}

export type FetchedFile =
  | { kind: 'not_modified'; status: number }
  | {
      kind: 'fetched'
      status: number
      bytes: number
      sha256: string
      etag: string | null
      lastModified: string | null
      contentType: string | null
      format: 'csv' | 'xlsx'
    }

export type SourceFetchCode =
  | 'source_address_refused'
  | 'source_private_address'
  | 'source_unreachable'
  | 'source_timeout'
  | 'source_http_error'
  | 'source_too_many_redirects'
  | 'source_too_large'
  | 'source_content_type'

export class SourceFetchError extends Error {
  constructor(
    readonly code: SourceFetchCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'SourceFetchError'
  }
}

/** Why an address is refused, in both languages. */
export interface UrlRefusal {
  pl: string
  en: string
}

export const URL_REQUIRED: UrlRefusal = { pl: 'Podaj adres pliku.', en: 'required' }

/** An address an administrator may give a source: https, no credentials in it. */
export function checkSourceUrl(raw: string): URL | UrlRefusal {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return {
      pl: 'To nie jest pełny adres: podaj go razem z „https://”.',
      en: 'not an absolute address',
    }
  }
  if (url.protocol !== 'https:')
    return {
      pl: 'Pobierane są tylko adresy https (szyfrowane). Podaj adres zaczynający się od „https://”.',
      en: 'only https addresses are fetched',
    }
  if (url.username || url.password)
    return {
      pl: 'Nie wpisuj loginu ani hasła w adresie: podaj je jako nagłówek (np. Authorization).',
      en: 'put credentials in a header, not in the address',
    }
  return url
}

const ACCEPTED_TYPES = new Set([
  'text/csv',
  'text/plain',
  'text/comma-separated-values',
  'application/csv',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/octet-stream',
  'binary/octet-stream',
  'application/download',
  'application/force-download',
])

const REDIRECTS = new Set([301, 302, 303, 307, 308])

function guardedLookup(url: URL, privateHosts: readonly string[]): net.LookupFunction {
  const allowed = privateAllowed(url, privateHosts)
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) return callback(error, '', 0)
      const refused = addresses.find((a) => isPrivateAddress(a.address))
      if (refused && !allowed)
        return callback(
          Object.assign(new Error(`${hostname} resolves to a private address`), {
            code: 'EPRIVATEADDRESS',
            address: refused.address,
          }),
          '',
          0,
        )
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses)
      const first = addresses[0]
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0)
      callback(null, first.address, first.family)
    })
  }
}

function checkHop(url: URL, privateHosts: readonly string[]): void {
  if (url.protocol !== 'https:')
    throw new SourceFetchError('source_address_refused', `${url.origin}: only https addresses are fetched`, {
      origin: url.origin,
    })
  const literal = classifyAddress(url.hostname)
  if (literal && !literal.public && !privateAllowed(url, privateHosts))
    throw new SourceFetchError('source_private_address', `${url.origin} is a private or loopback address`, {
      origin: url.origin,
    })
}

/**
 * An agent of its own for a source that trusts a certificate: an agent's options win over a
 * request's, and a pooled connection must never be shared with a request that does not trust it.
 */
function trustingAgent(ca: string | null | undefined): https.Agent | undefined {
  return ca ? new https.Agent({ ca: [...tls.rootCertificates, ca], keepAlive: false }) : undefined
}

function requestOnce(
  url: URL,
  headers: Record<string, string>,
  privateHosts: readonly string[],
  signal: AbortSignal,
  agent: https.Agent | undefined,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = https.request(url, {
      method: 'GET',
      headers,
      lookup: guardedLookup(url, privateHosts),
      signal,
      ...(agent ? { agent } : {}),
    })
    request.on('response', resolve)
    request.on('error', reject)
    request.end()
  })
}

/** A source's own remedy for an untrusted certificate: the panel, not the service's environment. */
const SOURCE_CERTIFICATE_TEXT = {
  message_pl:
    'Certyfikat TLS serwera źródła jest nieważny lub niezaufany (wygasł, jest wystawiony na inną nazwę albo przez nieznany urząd). ' +
    'Sprawdź adres. Jeśli serwer używa certyfikatu z podpisem własnym lub firmowego urzędu certyfikacji, wklej ten certyfikat (PEM) ' +
    'w ustawieniach źródła, w polu „Zaufany certyfikat serwera”.',
  message_en:
    'The source server’s TLS certificate is invalid or untrusted (expired, issued for another name or by an unknown authority). ' +
    'Check the address. If the server uses a self-signed certificate or a company’s own authority, paste that certificate (PEM) ' +
    'in the source’s settings, under “Trusted server certificate”.',
}

function describeNetworkError(error: unknown, url: URL, signal: AbortSignal): SourceFetchError {
  if (signal.aborted)
    return new SourceFetchError('source_timeout', `${url.origin}: no complete answer in time`, {
      network: explainNetworkError('ETIMEDOUT'),
    })
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EPRIVATEADDRESS')
    return new SourceFetchError('source_private_address', `${url.origin} resolves to a private or loopback address`, {
      origin: url.origin,
    })
  const network = explainNetworkError(error, { assumeNetwork: true })
  return new SourceFetchError('source_unreachable', `${url.origin}: ${code ?? (error as Error).message}`, {
    origin: url.origin,
    reason: code ?? 'network_error',
    network: network?.code === 'network_certificate' ? { ...network, ...SOURCE_CERTIFICATE_TEXT } : network,
  })
}

/** Fetches the file into `target`; a 304 (the validators matched) answers `not_modified`. */
export async function fetchSourceFile(request: SourceRequest): Promise<FetchedFile> {
  const signal = AbortSignal.timeout(request.limits.timeoutMs)
  const agent = trustingAgent(request.ca)
  try {
    return await fetchHops(request, signal, agent)
  } finally {
    agent?.destroy()
  }
}

async function fetchHops(
  request: SourceRequest,
  signal: AbortSignal,
  agent: https.Agent | undefined,
): Promise<FetchedFile> {
  const origin = new URL(request.url).origin
  let url = new URL(request.url)
  for (let hop = 0; ; hop++) {
    checkHop(url, request.privateHosts)
    const headers: Record<string, string> = {
      'user-agent': 'dg-offers-sources',
      accept: 'text/csv, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, */*;q=0.5',
      ...(url.origin === origin ? request.headers : {}),
    }
    if (hop === 0 && request.etag) headers['if-none-match'] = request.etag
    if (hop === 0 && request.lastModified) headers['if-modified-since'] = request.lastModified
    let response: IncomingMessage
    try {
      response = await requestOnce(url, headers, request.privateHosts, signal, agent)
    } catch (error) {
      throw describeNetworkError(error, url, signal)
    }
    const status = response.statusCode ?? 0
    if (REDIRECTS.has(status)) {
      response.resume()
      const location = response.headers.location
      if (!location) throw new SourceFetchError('source_http_error', `${url.origin} redirected without an address`)
      if (hop >= request.limits.maxRedirects)
        throw new SourceFetchError('source_too_many_redirects', `more than ${request.limits.maxRedirects} redirects`)
      url = new URL(location, url)
      continue
    }
    if (status === 304) {
      response.resume()
      return { kind: 'not_modified', status }
    }
    if (status < 200 || status >= 300) {
      response.resume()
      throw new SourceFetchError('source_http_error', `${url.origin} answered HTTP ${status}`, { status })
    }
    const contentType = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() || null
    if (contentType !== null && !ACCEPTED_TYPES.has(contentType)) {
      response.resume()
      throw new SourceFetchError(
        'source_content_type',
        `${url.origin} answered ${contentType}, not a CSV or XLSX file`,
        { content_type: contentType },
      )
    }
    const declared = Number(response.headers['content-length'])
    if (Number.isFinite(declared) && declared > request.limits.maxBytes) {
      response.resume()
      throw new SourceFetchError('source_too_large', `the file has ${declared} bytes`, {
        bytes: declared,
        max_bytes: request.limits.maxBytes,
      })
    }
    return await receiveBody(response, request, url, signal, {
      status,
      contentType,
      etag: typeof response.headers.etag === 'string' ? response.headers.etag : null,
      lastModified: typeof response.headers['last-modified'] === 'string' ? response.headers['last-modified'] : null,
    })
  }
}

async function receiveBody(
  response: IncomingMessage,
  request: SourceRequest,
  url: URL,
  signal: AbortSignal,
  head: { status: number; contentType: string | null; etag: string | null; lastModified: string | null },
): Promise<FetchedFile> {
  const hash = createHash('sha256')
  const out = createWriteStream(request.target)
  let bytes = 0
  let first = Buffer.alloc(0)
  try {
    for await (const chunk of response) {
      const data = chunk as Buffer
      bytes += data.length
      if (bytes > request.limits.maxBytes) {
        response.destroy()
        throw new SourceFetchError('source_too_large', `the file is larger than ${request.limits.maxBytes} bytes`, {
          max_bytes: request.limits.maxBytes,
        })
      }
      if (first.length < 512) first = Buffer.concat([first, data]).subarray(0, 512)
      hash.update(data)
      if (!out.write(data)) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
    }
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
  } catch (error) {
    out.destroy()
    await rm(request.target, { force: true })
    if (error instanceof SourceFetchError) throw error
    throw describeNetworkError(error, url, signal)
  }
  const text = first.toString('latin1').trimStart().toLowerCase()
  if (text.startsWith('<!doctype html') || text.startsWith('<html')) {
    await rm(request.target, { force: true })
    throw new SourceFetchError('source_content_type', `${url.origin} answered a web page, not a CSV or XLSX file`, {
      content_type: head.contentType ?? 'text/html',
    })
  }
  const format = first.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) ? 'xlsx' : 'csv'
  return { kind: 'fetched', ...head, bytes, sha256: hash.digest('hex'), format }
}
