/*
 * A small outgoing HTTP(S) client for the preflight: fetches a URL with a hard deadline, follows
 * a few redirects, hashes the body as it streams (MD5, as the harvester does) and keeps only the
 * first bytes in memory. Network failures become an HttpProbeError with a reason, never an
 * unhandled error. TLS is verified with Node's trust store (NODE_EXTRA_CA_CERTS adds a private CA;
 * the tests add theirs to https.globalAgent).
 */
import { createHash } from 'node:crypto'
import http from 'node:http'
import https from 'node:https'

import { SERVICE_VERSION } from '../../version.js'

export type HttpProbeFailure = 'timeout' | 'network' | 'invalid_url' | 'too_many_redirects' | 'too_large'

export class HttpProbeError extends Error {
  constructor(
    readonly reason: HttpProbeFailure,
    message: string,
  ) {
    super(message)
    this.name = 'HttpProbeError'
  }
}

export interface HttpProbeOptions {
  method?: 'GET' | 'HEAD'
  /** Deadline for the whole exchange, redirects included. */
  timeoutMs: number
  headers?: Record<string, string>
  /** How many body bytes to keep in `body` (the rest is only hashed). */
  keepBytes?: number
  /** Refuse bodies larger than this. */
  maxBytes?: number
  maxRedirects?: number
}

export interface HttpProbeResult {
  /** The final URL after redirects. */
  url: string
  status: number
  contentType: string
  /** Lowercase hex MD5 of the whole body. */
  md5: string
  bytes: number
  /** The first `keepBytes` bytes of the body. */
  body: Buffer
}

const USER_AGENT = `dg-offers/${SERVICE_VERSION} (preflight)`

type Answer = HttpProbeResult & { location: string | undefined }

function requestOnce(url: URL, options: HttpProbeOptions, deadline: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http
    const keepBytes = options.keepBytes ?? 0
    const maxBytes = options.maxBytes ?? 512 * 1024 * 1024
    let settled = false
    // the reason we cut the exchange ourselves wins over the socket errors that follow the cut
    let cutReason: HttpProbeError | undefined
    const finish = (error: Error | null, result?: Answer) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      const failure = cutReason ?? error
      if (failure) reject(failure instanceof HttpProbeError ? failure : new HttpProbeError('network', failure.message))
      else resolve(result as Answer)
    }
    const cut = (error: HttpProbeError) => {
      cutReason ??= error
      request.destroy(error)
    }
    const request = client.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: { 'user-agent': USER_AGENT, accept: '*/*', ...options.headers },
      },
      (response) => {
        const hash = createHash('md5')
        const kept: Buffer[] = []
        let keptLength = 0
        let bytes = 0
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length
          if (bytes > maxBytes) {
            cut(new HttpProbeError('too_large', `${url.href}: the body is larger than ${maxBytes} bytes`))
            return
          }
          hash.update(chunk)
          if (keptLength < keepBytes) {
            const part = chunk.subarray(0, keepBytes - keptLength)
            kept.push(part)
            keptLength += part.length
          }
        })
        response.on('error', (error) => finish(error))
        response.on('aborted', () => finish(new HttpProbeError('network', `${url.href}: the connection was cut`)))
        response.on('end', () =>
          finish(null, {
            url: url.href,
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            md5: hash.digest('hex'),
            bytes,
            body: Buffer.concat(kept),
            location: response.headers.location,
          }),
        )
      },
    )
    const timer = setTimeout(
      () => cut(new HttpProbeError('timeout', `${url.href}: no complete answer in time`)),
      Math.max(1, deadline - Date.now()),
    )
    request.on('error', (error) => finish(error))
    request.end()
  })
}

/** Fetches `target`; throws HttpProbeError on network failures, never on an HTTP status. */
export async function probeUrl(target: string, options: HttpProbeOptions): Promise<HttpProbeResult> {
  let url: URL
  try {
    url = new URL(target)
  } catch {
    throw new HttpProbeError('invalid_url', `"${target}" is not a URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new HttpProbeError('invalid_url', `"${target}" is not an http(s) URL`)
  const deadline = Date.now() + options.timeoutMs
  const maxRedirects = options.maxRedirects ?? 3
  for (let hop = 0; ; hop++) {
    const { location, ...result } = await requestOnce(url, options, deadline)
    if (![301, 302, 303, 307, 308].includes(result.status) || !location) return result
    if (hop >= maxRedirects)
      throw new HttpProbeError('too_many_redirects', `${target}: more than ${maxRedirects} redirects`)
    url = new URL(location, url)
  }
}
