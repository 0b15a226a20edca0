/*
 * POST {base_url}/publications runs the pipeline (manage_options, PRO with api_webhooks).
 * The public files the dane.gov.pl harvester fetches are served at /dane-gov/: dataset.xml,
 * dataset.md5 (the portal looks for the XML's URL with .md5 instead of .xml) and every published
 * day's CSV, answering GET and HEAD with Content-Type, ETag and Last-Modified.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'

import { HostError } from '../host/errors.js'
import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { httpDate, ifNoneMatchMatches } from '../host/http/responses/conditional.js'
import { DateString, errorResponses, noBody } from '../host/http/schemas.js'
import { requireEntitlement } from '../licensing/require-entitlement.js'
import { datasetByKey, datasetStore } from './daily-file/datasets.js'
import { MD5_NAME, PUBLIC_PATH, type PublicationStore, publicationStore, XML_NAME } from './publication-store.js'
import { publish } from './publishing/publish.js'
import { todayInWarsaw } from '../host/warsaw-day.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]

export async function publicationRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  app.post(
    '/publications',
    {
      preHandler: [requireCapability('dg_publish'), requireEntitlement('api_webhooks')],
      schema: {
        operationId: 'createPublication',
        tags: ['publication'],
        summary: 'Publish the official daily file for a date through the atomic pipeline',
        security,
        body: Type.Optional(
          Type.Object(
            {
              date: Type.Optional(DateString),
              developer_id: Type.Optional(
                Type.Integer({
                  minimum: 1,
                  description:
                    'The developer entity whose dataset is published (each entity has its own); default the publishing developer',
                }),
              ),
            },
            { additionalProperties: false },
          ),
        ),
        response: {
          200: Type.Ref('PublicationOutcome'),
          ...errorResponses(400, 401, 403, 409, 422),
        },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const body = request.body
      const date = body?.date ?? todayInWarsaw(app.ctx)
      return publish(app.ctx, {
        date,
        trigger: 'api',
        actor: actorOf(principal),
        developerId: body?.developer_id ?? null,
      })
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
  const inm = request.headers['if-none-match']
  const notModified = typeof inm === 'string' && ifNoneMatchMatches(inm, `"${etag}"`)
  const body = notModified ? undefined : await readPublished(request, file)
  reply.header('Content-Type', contentType)
  reply.header('ETag', `"${etag}"`)
  reply.header('Last-Modified', httpDate(modified))
  reply.header('Cache-Control', 'no-cache')
  if (notModified) return reply.code(304).send()
  return reply.send(body)
}

/*
 * A file the current version lists but the data directory lacks (deleted or lost on the server)
 * is a documented 404 of its own, not a 500: the harvester is told the file is not there, and the
 * operator finds it in the log and in the nightly audit (audit_file_missing), and restores it.
 */
async function readPublished(request: FastifyRequest, file: string): Promise<Buffer> {
  try {
    return await fs.readFile(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    request.log.error({ file: path.basename(file) }, 'a published file is missing from the data directory')
    throw new HostError(
      'dg_published_file_missing',
      404,
      'This file is published but missing on the server; its operator restores it from the backup.',
    )
  }
}

/*
 * Longest file name served. A day's file is named after the developer's legal name (up to 300
 * characters, so a name of 350 and more), and Fastify's router refused path parameters over 100
 * characters with a 414 of its own: a company with a long full name published files the
 * harvester could not fetch. The router's limit (app.ts) is the same number.
 */
export const PUBLIC_NAME_MAX = 1000

export async function publicFileRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    `${PUBLIC_PATH}/:file`,
    {
      schema: {
        operationId: 'getPublicFile',
        tags: ['publication'],
        summary: 'Published files for the dane.gov.pl harvester: dataset.xml, dataset.md5 and the daily CSVs',
        // served from the files alone, so the harvester gets them while the database is away
        database: false,
        params: Type.Object({ file: Type.String({ maxLength: PUBLIC_NAME_MAX }) }),
        response: {
          200: {
            description: 'The file (GET); HEAD answers the same headers without it. Carries ETag and Last-Modified.',
            content: {
              'application/xml': { schema: Type.String({ description: 'dataset.xml, the harvester XML' }) },
              'text/plain': { schema: Type.String({ description: 'dataset.md5: lowercase MD5 of dataset.xml' }) },
              'text/csv': { schema: Type.String({ description: 'A published day’s CSV' }) },
            },
          },
          304: noBody({ description: 'Not modified (If-None-Match)' }),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request, reply) => {
      const { file } = request.params
      return servePublished(request, reply, publicationStore(app.ctx), file)
    },
  )

  app.get(
    `${PUBLIC_PATH}/:dataset/:file`,
    {
      schema: {
        operationId: 'getDatasetPublicFile',
        tags: ['publication'],
        summary:
          'The files of another developer entity’s dataset (d{developer id}): dataset.xml, dataset.md5 and its daily CSVs',
        params: Type.Object({
          dataset: Type.String({ maxLength: 20 }),
          file: Type.String({ maxLength: PUBLIC_NAME_MAX }),
        }),
        response: {
          200: {
            description: 'The file (GET); HEAD answers the same headers without it. Carries ETag and Last-Modified.',
            content: {
              'application/xml': { schema: Type.String({ description: 'dataset.xml, the harvester XML' }) },
              'text/plain': { schema: Type.String({ description: 'dataset.md5: lowercase MD5 of dataset.xml' }) },
              'text/csv': { schema: Type.String({ description: 'A published day’s CSV' }) },
            },
          },
          304: noBody({ description: 'Not modified (If-None-Match)' }),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request, reply) => {
      const params = request.params
      const dataset = await datasetByKey(app.ctx, params.dataset)
      if (!dataset) throw new HostError('dg_file_not_found', 404, 'No published file has this name.')
      return servePublished(request, reply, datasetStore(app.ctx, dataset), params.file)
    },
  )
}

async function servePublished(
  request: FastifyRequest,
  reply: FastifyReply,
  store: PublicationStore,
  file: string,
): Promise<FastifyReply> {
  const manifest = await store.currentManifest()
  const notFound = () => new HostError('dg_file_not_found', 404, 'No published file has this name.')
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
  // a day file never changes, nor does the time it was published (not the latest publication's)
  const published = day.published_at ? new Date(day.published_at) : modified
  return sendPublicFile(request, reply, store.csvPath(day.md5), 'text/csv; charset=utf-8', day.md5, published)
}
