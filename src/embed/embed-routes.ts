/*
 * The website component (docs/integration/website-component.md): one classic script, served as
 * written from src/embed/assets/ (no build step a release could miss), under a URL naming the
 * service's version. That URL's content never changes, so it is cached for a year as immutable; a
 * page naming another version, or `latest`, is sent to the current one with a short-lived redirect.
 *
 * The script is public and static: any origin may load it (CORS `*`, CORP cross-origin), it sets
 * and reads no cookie, and the global no-store policy does not apply because the route chooses its
 * own Cache-Control.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib'
import { fileURLToPath } from 'node:url'

import { Type } from 'typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'

import { baseUrl } from '../config.js'
import { ifNoneMatchMatches } from '../host/http/responses/conditional.js'
import { errorResponses, noBody } from '../host/http/schemas.js'
import { SERVICE_VERSION } from '../version.js'

export const EMBED_SCRIPT_NAME = 'dg-prices.js'

/** Resolved from this module's URL: the same folder from src/embed/ (tsx, vitest) and dist/embed/. */
export const EMBED_SCRIPT_FILE = fileURLToPath(new URL(`../../src/embed/assets/${EMBED_SCRIPT_NAME}`, import.meta.url))

/** How long a browser or proxy may keep the redirect to the current version (a new release moves it). */
const REDIRECT_MAX_AGE_SECONDS = 300

/** The script's path below `{base_url}` for a version. */
export function embedScriptPath(version: string = SERVICE_VERSION): string {
  return `/embed/${version}/${EMBED_SCRIPT_NAME}`
}

/** The full URL of the current script on a service whose public origin is `origin` (no trailing slash). */
export function embedScriptUrl(origin: string, restBase: string): string {
  return `${origin}${restBase}${embedScriptPath()}`
}

interface Representation {
  body: Buffer
  etag: string
  encoding?: 'br' | 'gzip'
}

/** The script as it is, and compressed once at start (it is static): no proxy setting needed. */
function loadScript(): Representation[] {
  const body = fs.readFileSync(EMBED_SCRIPT_FILE)
  const tag = createHash('sha256').update(body).digest('base64url').slice(0, 27)
  return [
    {
      body: brotliCompressSync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }),
      etag: `"${tag}-br"`,
      encoding: 'br',
    },
    { body: gzipSync(body, { level: 9 }), etag: `"${tag}-gz"`, encoding: 'gzip' },
    { body, etag: `"${tag}"` },
  ]
}

/** The first representation the client accepts (Accept-Encoding without q-values of 0), else the plain one. */
function representationFor(representations: Representation[], acceptEncoding: string | undefined): Representation {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((item) => item.trim().toLowerCase())
      .filter((item) => !/;\s*q=0(\.0*)?$/.test(item))
      .map((item) => item.split(';')[0]),
  )
  return (
    representations.find((r) => r.encoding !== undefined && accepted.has(r.encoding)) ??
    representations[representations.length - 1]!
  )
}

export async function embedRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const representations = loadScript()
  const currentPath = `${baseUrl(app.ctx.config)}${embedScriptPath()}`

  app.get(
    `/embed/:version/${EMBED_SCRIPT_NAME}`,
    {
      schema: {
        operationId: 'getEmbedScript',
        tags: ['website'],
        summary: 'The website component: one script defining <dg-offer-table>, <dg-offer-card> and <dg-price-history>',
        database: false,
        params: Type.Object({
          version: Type.String({
            maxLength: 40,
            description: `The service's version (${SERVICE_VERSION}); any other value, such as latest, is redirected to it`,
          }),
        }),
        response: {
          200: {
            description:
              'The script (GET); HEAD answers the same headers without it. Immutable for a year, with ETag; any origin may load it.',
            content: {
              'text/javascript': { schema: Type.String({ description: 'The component script' }) },
            },
          },
          302: Type.Null({ description: 'Another version, or latest: Location names the current version’s script' }),
          304: noBody({ description: 'Not modified (If-None-Match)' }),
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      const { version } = request.params
      reply
        .header('Access-Control-Allow-Origin', '*')
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header('Referrer-Policy', 'no-referrer')
      if (version !== SERVICE_VERSION)
        return reply
          .code(302)
          .header('Location', currentPath)
          .header('Cache-Control', `public, max-age=${REDIRECT_MAX_AGE_SECONDS}`)
          .send()
      const script = representationFor(representations, request.headers['accept-encoding'])
      reply
        .header('Content-Type', 'text/javascript; charset=utf-8')
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .header('Vary', 'Accept-Encoding')
        .header('ETag', script.etag)
      const inm = request.headers['if-none-match']
      if (typeof inm === 'string' && ifNoneMatchMatches(inm, script.etag)) return reply.code(304).send()
      if (script.encoding) reply.header('Content-Encoding', script.encoding)
      return reply.send(script.body)
    },
  )
}
