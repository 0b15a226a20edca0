/*
 * The admin panel (docs/operations/admin-panel.md): static HTML, CSS and ES modules served by this process at
 * /dg-admin/. The panel holds no server logic of its own; every action is a call to the public REST
 * endpoints with the session cookie and X-WP-Nonce, so it can never skip their validation.
 *
 * The files are read once at start into a fixed table and a request can only name an entry of that
 * table, so no path from the URL ever reaches the file system (no traversal, no directory listing).
 * They are read from src/admin-panel/assets resolved from this module's URL, which is the same
 * folder two levels up from src/admin-panel/ (tsx, vitest) and from dist/admin-panel/ (built), so
 * the build needs no copy step (like resources/ for the XSD).
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { baseUrl } from '../config.js'
import { ifNoneMatchMatches } from '../host/http/responses/conditional.js'
import { HostError } from '../host/errors.js'
import { etagOf, type Handbook, loadHandbook, SEARCH_URL } from './handbook/handbook-pages.js'

export const ADMIN_PANEL_PATH = '/dg-admin'

export const ADMIN_PANEL_ASSETS_DIR = fileURLToPath(new URL('../../src/admin-panel/assets/', import.meta.url))

/**
 * Scripts and styles only from this origin, no inline code, API calls only to this origin, and
 * never framed (clickjacking of the rotate and publish buttons).
 */
export const ADMIN_PANEL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}

interface Asset {
  body: Buffer
  contentType: string
  etag: string
}

/**
 * Browser builds of the panel's libraries, served from their npm packages under fixed names, so
 * that `npm install` is the only build step: the price-history chart (uPlot, about 50 kB).
 */
const VENDOR_FILES: Readonly<Record<string, string>> = {
  'uplot.js': 'uplot/dist/uPlot.iife.min.js',
  'uplot.css': 'uplot/dist/uPlot.min.css',
}

const INDEX = 'index.html'
/** Replaced in index.html by the REST base URL, so the panel follows DG_REST_PREFIX. */
const REST_BASE_PLACEHOLDER = '__DG_REST_BASE__'
/** Replaced in index.html by where the help links point (DG_HANDBOOK_URL or the served handbook). */
const HANDBOOK_PLACEHOLDER = '__DG_HANDBOOK_BASE__'

/** The operator handbook (docs/operator/) as HTML pages, served beside the panel for its help links. */
export const HANDBOOK_PATH = `${ADMIN_PANEL_PATH}/podrecznik`

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/**
 * The panel's files by the name a URL gives them: `app.js` at the top, `views/view-audit.js` one
 * folder down (the views and the editor have folders of their own; deeper folders are not served).
 */
function loadAssets(restBase: string, handbookBase: string): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  const add = (folder: string, entry: fs.Dirent) => {
    const contentType = CONTENT_TYPES[path.extname(entry.name)]
    if (!entry.isFile() || !contentType) return
    const name = folder ? `${folder}/${entry.name}` : entry.name
    let body = fs.readFileSync(path.join(ADMIN_PANEL_ASSETS_DIR, name))
    if (name === INDEX)
      body = Buffer.from(
        body
          .toString('utf8')
          .replaceAll(REST_BASE_PLACEHOLDER, escapeAttribute(restBase))
          .replaceAll(HANDBOOK_PLACEHOLDER, escapeAttribute(handbookBase)),
      )
    assets.set(name, { body, contentType, etag: etagOf(body) })
  }
  for (const entry of fs.readdirSync(ADMIN_PANEL_ASSETS_DIR, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      const folder = path.join(ADMIN_PANEL_ASSETS_DIR, entry.name)
      for (const inner of fs.readdirSync(folder, { withFileTypes: true })) add(entry.name, inner)
    } else add('', entry)
  }
  const resolve = createRequire(import.meta.url).resolve
  for (const [name, file] of Object.entries(VENDOR_FILES)) {
    const body = fs.readFileSync(resolve(file))
    assets.set(name, { body, contentType: CONTENT_TYPES[path.extname(name)]!, etag: etagOf(body) })
  }
  if (!assets.has(INDEX)) throw new Error(`admin panel: ${INDEX} is missing from ${ADMIN_PANEL_ASSETS_DIR}`)
  return assets
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  reply
    .header('Content-Type', asset.contentType)
    .header('Content-Security-Policy', ADMIN_PANEL_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Frame-Options', 'DENY')
    .header('Cross-Origin-Opener-Policy', 'same-origin')
    // revalidated on every load, so a new version of the service never runs with old scripts
    .header('Cache-Control', 'no-cache')
    .header('ETag', asset.etag)
  const inm = request.headers['if-none-match']
  if (typeof inm === 'string' && ifNoneMatchMatches(inm, asset.etag)) return reply.code(304).send()
  return reply.send(asset.body)
}

/*
 * Read once per process: every company of a platform (src/tenancy) serves the same files, and the
 * handbook's pages and screenshots are several megabytes.
 */
const loadedAssets = new Map<string, Map<string, Asset>>()
let loadedHandbook: Handbook | undefined

function sharedAssets(restBase: string, handbookBase: string): Map<string, Asset> {
  const key = `${restBase}\n${handbookBase}`
  let assets = loadedAssets.get(key)
  if (assets === undefined) loadedAssets.set(key, (assets = loadAssets(restBase, handbookBase)))
  return assets
}

export async function adminPanelRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  // relative to /dg-admin/, so that a company served under a path prefix (/t/{slug}/) reaches its own API
  const assets = sharedAssets(`..${baseUrl(app.ctx.config)}`, app.ctx.config.handbookUrl ?? 'podrecznik/')
  const index = assets.get(INDEX)!
  const hidden = { hide: true }

  // relative module URLs in index.html need the trailing slash
  app.get(ADMIN_PANEL_PATH, { schema: hidden }, async (_request, reply) =>
    reply.code(301).header('Location', `${ADMIN_PANEL_PATH}/`).send(),
  )
  app.get(`${ADMIN_PANEL_PATH}/`, { schema: hidden }, async (request, reply) => sendAsset(request, reply, index))
  const serve = (name: string, request: FastifyRequest, reply: FastifyReply) => {
    const asset = assets.get(name)
    if (!asset) throw new HostError('dg_file_not_found', 404, 'No admin-panel file has this name.')
    return sendAsset(request, reply, asset)
  }
  app.get<{ Params: { file: string } }>(`${ADMIN_PANEL_PATH}/:file`, { schema: hidden }, async (request, reply) =>
    serve(request.params.file, request, reply),
  )
  app.get<{ Params: { folder: string; file: string } }>(
    `${ADMIN_PANEL_PATH}/:folder/:file`,
    { schema: hidden },
    async (request, reply) => {
      const { folder, file } = request.params
      return serve(`${folder}/${file}`, request, reply)
    },
  )
  handbookRoutes(fastify, (loadedHandbook ??= loadHandbook()))
}

/**
 * The handbook (src/admin-panel/handbook/): its pages, the documents they link to and their
 * images by URL, `szukaj?q=` searching its text, and the `.md` names the help links use (and
 * DG_HANDBOOK_URL's copies keep) sent on to the pages.
 */
function handbookRoutes(app: FastifyInstance, handbook: Handbook): void {
  const hidden = { hide: true }
  const sendHtml = (request: FastifyRequest, reply: FastifyReply, html: string) => {
    const body = Buffer.from(html)
    return sendAsset(request, reply, { body, contentType: 'text/html; charset=utf-8', etag: etagOf(body) })
  }
  app.get(HANDBOOK_PATH, { schema: hidden }, async (_request, reply) =>
    reply.code(301).header('Location', `${HANDBOOK_PATH}/`).send(),
  )
  app.get<{ Querystring: { q?: string } }>(
    `${HANDBOOK_PATH}/${SEARCH_URL}`,
    { schema: { ...hidden, querystring: Type.Object({ q: Type.Optional(Type.String({ maxLength: 200 })) }) } },
    async (request, reply) => sendHtml(request, reply, handbook.searchPage(request.query.q ?? '')),
  )
  app.get<{ Params: { '*': string } }>(`${HANDBOOK_PATH}/*`, { schema: hidden }, async (request, reply) => {
    const name = request.params['*'] || 'index.html'
    const file = handbook.files.get(name)
    if (file) return sendAsset(request, reply, file)
    const page = /^([\w-]+)\.md$/.exec(name)
    if (page && handbook.files.has(page[1] === 'README' ? 'index.html' : `${page[1]}.html`))
      return reply
        .code(301)
        .header('Location', page[1] === 'README' ? './' : `${page[1]}.html`)
        .send()
    // the page's relative links follow the address as the browser sees it (%2F is no folder to it)
    const asSent = request.url.split('?')[0]!.slice(HANDBOOK_PATH.length + 1)
    return sendHtml(request, reply.code(404), handbook.notFoundPage(asSent))
  })
}
