// @ts-check
/*
 * Starts the website: settings from the environment (checked, with plain messages), the catalog
 * gateway and the HTTP server. server.js calls it; tests and the benchmark call it in-process.
 */
import http from 'node:http'

import { CatalogGateway } from './catalog-gateway.js'
import { createSite } from './site.js'

export class SettingsError extends Error {}

/**
 * @typedef {object} WebsiteSettings
 * @property {string} catalogUrl `{base_url}` of the catalog, e.g. http://127.0.0.1:8080/wp-json/dg/v2
 * @property {string} user
 * @property {string} password
 * @property {string} host
 * @property {number} port
 * @property {number} freshSeconds
 */

/**
 * @param {NodeJS.ProcessEnv} env
 * @returns {WebsiteSettings}
 */
export function readSettings(env) {
  const catalogUrl = (env.DG_CATALOG_URL ?? '').trim().replace(/\/+$/, '')
  if (!/^https?:\/\/[^\s/]+/.test(catalogUrl))
    throw new SettingsError(
      'DG_CATALOG_URL must be the catalog\'s base address, e.g. http://127.0.0.1:8080/wp-json/dg/v2 (the "API base URL" npm run demo prints)',
    )
  const password = env.DG_APP_PASSWORD ?? ''
  if (password.replace(/\s+/g, '') === '')
    throw new SettingsError(
      "DG_APP_PASSWORD must be the application password of the website's catalog reader (npm run demo prints one)",
    )
  const port = Number(env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new SettingsError('PORT must be a port number')
  const freshSeconds = Number(env.CATALOG_FRESH_SECONDS ?? 0)
  if (!Number.isFinite(freshSeconds) || freshSeconds < 0 || freshSeconds > 3600)
    throw new SettingsError('CATALOG_FRESH_SECONDS must be between 0 and 3600')
  return {
    catalogUrl,
    user: env.DG_CATALOG_USER || 'website',
    password,
    host: env.HOST || '127.0.0.1',
    port,
    freshSeconds,
  }
}

/** One JSON line per event on stderr; never the password, the Authorization header or a visitor's data. */
/** @param {Record<string, unknown>} line */
export function logLine(line) {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`)
}

/**
 * @param {WebsiteSettings} settings
 * @param {{ log?: (line: Record<string, unknown>) => void }} [options]
 */
export async function startWebsite(settings, options = {}) {
  const log = options.log ?? logLine
  const catalog = new CatalogGateway({
    baseUrl: settings.catalogUrl,
    user: settings.user,
    password: settings.password,
    freshSeconds: settings.freshSeconds,
  })
  const server = http.createServer(createSite({ catalog, log }))
  server.keepAliveTimeout = 10_000
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(settings.port, settings.host, () => resolve(undefined))
  })
  const address = /** @type {import('node:net').AddressInfo} */ (server.address())
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
  return {
    url,
    catalog,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve(undefined))
      }),
  }
}
