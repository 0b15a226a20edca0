/*
 * A small HTTP/1.1 client for the load scripts: keep-alive connections through an agent the caller
 * owns (one per simulated client), the time of each request from its start to the end of its body,
 * and a network failure (refused, reset, timed out) as status 0 with its code instead of a throw,
 * so that a killed instance counts as what a client sees.
 */
import http from 'node:http'
import { performance } from 'node:perf_hooks'

export interface TimedResponse {
  /** 0 when the request failed before a response (see `error`). */
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
  /** performance.now() when the request started and when its body had arrived (or it failed). */
  start: number
  end: number
  ms: number
  error?: string
}

export interface TimedRequest {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: Buffer | string
  /** Milliseconds without progress before the request is given up (default 60 s). */
  timeoutMs?: number
}

export function keepAliveAgent(maxSockets = 1): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets })
}

export function timedRequest(agent: http.Agent, origin: string, options: TimedRequest): Promise<TimedResponse> {
  const start = performance.now()
  const url = new URL(options.path, origin)
  return new Promise((resolve) => {
    let settled = false
    const done = (response: Omit<TimedResponse, 'start' | 'end' | 'ms'>) => {
      if (settled) return
      settled = true
      const end = performance.now()
      resolve({ ...response, start, end, ms: end - start })
    }
    const request = http.request(
      url,
      {
        agent,
        method: options.method ?? 'GET',
        headers: {
          ...options.headers,
          ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }),
        },
        timeout: options.timeoutMs ?? 60_000,
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () =>
          done({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        )
        response.on('error', (error: NodeJS.ErrnoException) =>
          done({ status: 0, headers: {}, body: Buffer.alloc(0), error: error.code ?? error.message }),
        )
      },
    )
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })))
    request.on('error', (error: NodeJS.ErrnoException) =>
      done({ status: 0, headers: {}, body: Buffer.alloc(0), error: error.code ?? error.message }),
    )
    request.end(options.body)
  })
}

/** The JSON body of a response, or undefined when it is not JSON. */
export function jsonOf<T = Record<string, unknown>>(response: TimedResponse): T | undefined {
  try {
    return JSON.parse(response.body.toString('utf8')) as T
  } catch {
    return undefined
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
