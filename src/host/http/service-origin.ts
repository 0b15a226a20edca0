/*
 * The origin (scheme, host and port) a request reached, for addresses the service writes into its
 * answers: the OpenAPI document's `servers`, the catalog's discovery resources and its Link header.
 */
import type { AddressInfo } from 'node:net'

import type { FastifyRequest } from 'fastify'

import { mountPathOf } from './mount-path.js'

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/

/**
 * The origin the request reached, as the client sees it, with the company's path prefix when
 * several companies share the host name (mount-path.ts) (X-Forwarded-Proto and -Host count only
 * from trusted proxies); the configured listening address when the Host header is no valid
 * authority (any client can send one: a name with other characters, or a port above 65535, made
 * `new URL` throw and the catalog answer 500, as did a garbage X-Forwarded-Proto).
 */
export function serviceOrigin(request: FastifyRequest): string {
  const host = request.host
  const match = HOST.exec(host)
  // X-Forwarded-Proto of a trusted proxy is taken as it comes: anything but https is read as http
  const scheme = request.protocol === 'https' ? 'https' : 'http'
  if (match && (match[1] === undefined || Number(match[1]) <= 65_535))
    return `${scheme}://${host}${mountPathOf(request)}`
  const { host: listen, port } = request.server.ctx.config
  const address = listen === '0.0.0.0' || listen === '::' ? '127.0.0.1' : listen
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}${mountPathOf(request)}`
}

/**
 * The service's public address as configured, for addresses that outlive the request (a stored
 * media URL) or that decide trust (the login's Origin check): DG_PANEL_URL with its path, else the
 * listening address. Never a request's Host header, which any client chooses.
 */
export function configuredServiceBase(
  config: { panelUrl: string | undefined; host: string; port: number },
  /** The socket the server is bound to (`server.address()`): its port when the configured one is 0. */
  bound?: AddressInfo | string | null,
): string {
  if (config.panelUrl) return config.panelUrl
  const address = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  const port = bound !== null && typeof bound === 'object' ? bound.port : config.port
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`
}
