/*
 * POST {base_url}/publications runs the pipeline (manage_options, PRO with api_webhooks).
 * The public files the dane.gov.pl harvester fetches are served at /dane-gov/: dataset.xml,
 * dataset.md5 (the portal looks for the XML's URL with .md5 instead of .xml) and every published
 * day's CSV, answering GET and HEAD with Content-Type, ETag and Last-Modified.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'

import { HostError } from '../host/errors.js'
import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { httpDate, ifNoneMatchMatches } from '../host/http/conditional.js'
import { DateString, errorResponses } from '../host/http/schemas.js'
import { requireEntitlement } from '../licensing/require-entitlement.js'
import { XML_NAME } from './publication-store.js'
import { MD5_NAME, PUBLIC_PATH, publicationStore, publish, todayInWarsaw } from './publication-service.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]

export async function publicationRoutes(app: FastifyInstance): Promise<void> {
  app.post(
    '/publications',
    {
      preHandler: [requireCapability('manage_options'), requireEntitlement('api_webhooks')],
      schema: {
        tags: ['publication'],
        summary: 'Publish the official daily file for a date through the atomic pipeline',
        security,
        body: Type.Optional(Type.Object({ date: Type.Optional(DateString) }, { additionalProperties: false })),
        response: {
          200: Type.Object({ status: Type.Literal('published'), date: Type.String() }, { additionalProperties: true }),
          ...errorResponses(400, 401, 403, 409, 422),
        },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const date = (request.body as { date?: string } | undefined)?.date ?? todayInWarsaw(app.ctx)
      return publish(app.ctx, { date, trigger: 'api', actor: actorOf(principal) })
    },
  )
}

async function sendPublicFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: string,
  contentType: string,
  etag: string,
  modified: Date,
): Promise<FastifyReply> {
  reply.header('Content-Type', contentType)
  reply.header('ETag', `"${etag}"`)
  reply.header('Last-Modified', httpDate(modified))
  reply.header('Cache-Control', 'no-cache')
  const inm = request.headers['if-none-match']
  if (typeof inm === 'string' && ifNoneMatchMatches(inm, `"${etag}"`)) return reply.code(304).send()
  return reply.send(await fs.readFile(file))
}

export async function publicFileRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    `${PUBLIC_PATH}/:file`,
    {
      schema: {
        tags: ['publication'],
        summary: 'Published files for the dane.gov.pl harvester: dataset.xml, dataset.md5 and the daily CSVs',
        params: Type.Object({ file: Type.String({ maxLength: 300 }) }),
      },
    },
    async (request, reply) => {
      const { file } = request.params as { file: string }
      const store = publicationStore(app.ctx)
      const manifest = await store.currentManifest()
      const notFound = () => new HostError('dg_file_not_found', 'No published file has this name.', 404)
      if (!manifest) throw notFound()
      const modified = new Date(manifest.created_at)
      const dir = store.versionDir(manifest.version)
      if (file === XML_NAME)
        return sendPublicFile(
          request,
          reply,
          path.join(dir, XML_NAME),
          'application/xml; charset=utf-8',
          manifest.xml_md5,
          modified,
        )
      if (file === MD5_NAME || file === `${XML_NAME}.md5`)
        return sendPublicFile(
          request,
          reply,
          path.join(dir, MD5_NAME),
          'text/plain; charset=utf-8',
          manifest.xml_md5,
          modified,
        )
      const day = manifest.days.find((d) => d.file_name === file)
      if (!day) throw notFound()
      return sendPublicFile(request, reply, store.csvPath(day.md5), 'text/csv; charset=utf-8', day.md5, modified)
    },
  )
}
