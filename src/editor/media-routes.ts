/*
 * Media endpoints of the editor (administrator) and the public files they serve:
 *   GET/POST  {base_url}/offers/{id}/media, {base_url}/investments/{id}/media   list / upload (multipart `file`)
 *   GET/PATCH/DELETE {base_url}/media/{id}                                     read / title, alt, position / remove
 *   GET       /dg-media/{file}                                                 the uploaded file, for anyone
 * The gallery and the main image are chosen by PATCHing the offer or investment (`gallery`,
 * `thumbnail_id`). Files are served with headers that keep a browser from reading them as anything
 * else than what they are: the type the content was found to be, nosniff, a sandboxing CSP, and
 * PDFs only as downloads.
 */
import { createReadStream } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'

import { HostError, PluginError } from '../host/errors.js'
import { requireInScope } from '../host/auth/scope.js'
import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { ifNoneMatchMatches } from '../host/http/responses/conditional.js'
import { errorResponse, errorResponses, noBody, RowId } from '../host/http/schemas.js'
import { configuredServiceBase } from '../host/http/service-origin.js'
import { type MediaOwner, selectAttachmentByFile } from './editor-repository.js'
import { MEDIA_FILE_NAME, mediaDir } from './media-files.js'
import { deleteMedia, getMedia, listMedia, MEDIA_PATH, type Upload, updateMedia, uploadMedia } from './media-service.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const readGuard = [requireCapability('dg_read_all')]
const writeGuard = [requireCapability('dg_edit_catalog')]
const IdParams = Type.Object({ id: RowId() })

const UploadBody = {
  content: {
    'multipart/form-data': {
      schema: Type.Object(
        {
          file: Type.String({
            format: 'binary',
            contentMediaType: 'application/octet-stream',
            description:
              'A JPEG, PNG or WebP image or a PDF document, recognised by its content (not its name); at most DG_MEDIA_MAX_BYTES (10 MiB)',
          }),
          title: Type.Optional(Type.String({ description: 'Default: the file name' })),
          alt: Type.Optional(Type.String({ description: 'Text alternative of an image' })),
          position: Type.Optional(Type.String({ description: 'Order among the documents (default: last)' })),
        },
        { required: ['file'] },
      ),
    },
  },
}

const MediaPatchBody = Type.Object(
  {
    title: Type.Optional(Type.String()),
    alt: Type.Optional(Type.String()),
    position: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
)

const invalid = errorResponse(422, Type.Ref('EditorValidationFailed'))

/** The multipart form of an upload: one file (field `file`), held in memory up to the size limit. */
async function receiveUpload(request: FastifyRequest): Promise<Upload> {
  const limit = request.server.ctx.config.mediaMaxBytes
  if (!request.isMultipart())
    throw new PluginError('invalid_upload', 400, {
      message: 'Send the file as multipart/form-data, in the field "file".',
    })
  const fields: Record<string, string> = {}
  let content: Buffer | undefined
  let fileName = ''
  try {
    for await (const part of request.parts({ limits: { fileSize: limit, files: 1, fields: 10 } })) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || content) {
          await part.toBuffer().catch(() => undefined)
          throw new PluginError('invalid_upload', 400, { message: 'Send exactly one file, in the field "file".' })
        }
        content = await part.toBuffer()
        fileName = part.filename || 'plik'
      } else if (typeof part.value === 'string') fields[part.fieldname] = part.value
    }
  } catch (error) {
    if (error instanceof PluginError) throw error
    const code = (error as { code?: string }).code
    if (code === 'FST_REQ_FILE_TOO_LARGE' || code === 'FST_FILES_LIMIT') {
      const en = `The file is larger than the limit of ${limit} bytes (DG_MEDIA_MAX_BYTES); nothing was stored.`
      const pl = `Plik jest większy niż dopuszczalne ${limit} bajtów (DG_MEDIA_MAX_BYTES); niczego nie zapisano.`
      throw new PluginError('file_too_large', 413, { message: en, message_en: en, message_pl: pl })
    }
    throw new PluginError('invalid_upload', 400, { message: 'The multipart body could not be read.' })
  }
  if (!content || content.length === 0)
    throw new PluginError('invalid_upload', 400, { message: 'The multipart body has no file in the field "file".' })
  return { content, fileName, fields }
}

export async function mediaRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const actor = async (request: FastifyRequest) => actorOf(await requirePrincipal(request))

  for (const owner of ['offers', 'investments'] as const) {
    const ownerOf = (id: number): MediaOwner => (owner === 'offers' ? { offerId: id } : { investmentId: id })
    const name = owner === 'offers' ? 'Offer' : 'Investment'

    app.get(
      `/${owner}/:id/media`,
      {
        preHandler: [...readGuard, requireInScope(owner === 'offers' ? 'offer' : 'investment')],
        schema: {
          operationId: `editorList${name}Media`,
          tags: ['editor'],
          summary: `Images and documents of an ${name.toLowerCase()} (documents by position)`,
          security,
          params: IdParams,
          response: { 200: Type.Array(Type.Ref('EditorMedia')), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => listMedia(app.ctx, ownerOf(request.params.id)),
    )

    app.post(
      `/${owner}/:id/media`,
      {
        preHandler: [...writeGuard, requireInScope(owner === 'offers' ? 'offer' : 'investment')],
        schema: {
          operationId: `editorUpload${name}Media`,
          tags: ['editor'],
          summary: `Upload an image (JPEG, PNG, WebP) or a PDF document of an ${name.toLowerCase()}`,
          description:
            'The type is judged by the content; anything else is 415 unsupported_media_type, an image that does not decode 422 invalid_image, a file over DG_MEDIA_MAX_BYTES 413 file_too_large. ' +
            `Images are stored without their metadata (EXIF, GPS) and get a preview. Place an image with PATCH /${owner}/{id} (gallery, thumbnail_id).`,
          security,
          params: IdParams,
          documented: { body: UploadBody },
          response: {
            201: Type.Ref('EditorMedia'),
            ...errorResponses(400, 401, 403, 404, 413, 415),
            422: invalid,
          },
        },
      },
      async (request, reply) => {
        const principal = await actor(request)
        const owned = ownerOf(request.params.id)
        const upload = await receiveUpload(request)
        const view = await uploadMedia(
          app.ctx,
          principal,
          owned,
          upload,
          configuredServiceBase(app.ctx.config, app.server.address()),
        )
        return reply.code(201).send(view)
      },
    )
  }

  app.get(
    '/media/:id',
    {
      preHandler: [...readGuard, requireInScope('media')],
      schema: {
        operationId: 'editorGetMedia',
        tags: ['editor'],
        summary: 'An image or document',
        security,
        params: IdParams,
        response: { 200: Type.Ref('EditorMedia'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getMedia(app.ctx, request.params.id),
  )

  app.patch(
    '/media/:id',
    {
      preHandler: [...writeGuard, requireInScope('media')],
      schema: {
        operationId: 'editorUpdateMedia',
        tags: ['editor'],
        summary: 'Change the title, text alternative or position of an image or document',
        security,
        params: IdParams,
        body: MediaPatchBody,
        response: { 200: Type.Ref('EditorMedia'), ...errorResponses(400, 401, 403, 404), 422: invalid },
      },
    },
    async (request) => updateMedia(app.ctx, await actor(request), request.params.id, request.body),
  )

  app.delete(
    '/media/:id',
    {
      preHandler: [...writeGuard, requireInScope('media')],
      schema: {
        operationId: 'editorDeleteMedia',
        tags: ['editor'],
        summary: 'Remove an image or document (409 media_in_use while it is a main image or in a gallery)',
        security,
        params: IdParams,
        response: { 204: noBody({ description: 'Removed' }), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await deleteMedia(app.ctx, await actor(request), request.params.id)
      return reply.code(204).send()
    },
  )
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  pdf: 'application/pdf',
}

/** A file name for Content-Disposition: the title's ASCII letters, the full title in `filename*`. */
function downloadName(title: string, ext: string): string {
  const base = title.replace(/\.pdf$/i, '').trim() || 'dokument'
  const ascii = base
    .normalize('NFKD')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/["\\;]/g, '')
    .trim()
  return `attachment; filename="${ascii || 'dokument'}.${ext}"; filename*=UTF-8''${encodeURIComponent(`${base}.${ext}`)}`
}

async function serveMediaFile(app: FastifyInstance, file: string, request: FastifyRequest, reply: FastifyReply) {
  const match = MEDIA_FILE_NAME.exec(file)
  const notFound = () => new HostError('dg_file_not_found', 404, 'No media file has this name.')
  if (!match) throw notFound()
  const target = path.join(mediaDir(app.ctx.config.dataDir), file)
  const stat = await fs.stat(target).catch(() => undefined)
  if (!stat?.isFile()) throw notFound()
  const ext = file.slice(file.lastIndexOf('.') + 1)
  // names are never reused: a file's bytes never change, so its name is its version
  const etag = `"${file}"`
  reply.header('Content-Type', CONTENT_TYPES[ext] ?? 'application/octet-stream')
  reply.header('X-Content-Type-Options', 'nosniff')
  reply.header('Content-Security-Policy', "default-src 'none'; img-src 'self'; sandbox")
  reply.header('Cross-Origin-Resource-Policy', 'cross-origin')
  reply.header('Referrer-Policy', 'no-referrer')
  reply.header('Cache-Control', 'public, max-age=31536000, immutable')
  reply.header('ETag', etag)
  if (ext === 'pdf') {
    const attachment = await selectAttachmentByFile(app.ctx.db, file)
    reply.header('Content-Disposition', downloadName(attachment?.title ?? 'dokument', ext))
  } else reply.header('Content-Disposition', 'inline')
  const inm = request.headers['if-none-match']
  if (typeof inm === 'string' && ifNoneMatchMatches(inm, etag)) return reply.code(304).send()
  reply.header('Content-Length', stat.size)
  return reply.send(createReadStream(target))
}

/** The uploaded files, for anyone who has their address (the catalog's `image`, `media`, documents). */
export async function mediaFileRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    `${MEDIA_PATH}/:file`,
    {
      schema: {
        operationId: 'getMediaFile',
        tags: ['editor'],
        summary: 'An uploaded image or PDF document (names are random and never reused)',
        params: Type.Object({ file: Type.String({ maxLength: 64 }) }),
        response: {
          200: {
            description:
              'The file (GET); HEAD answers the same headers without it. nosniff, a sandboxing CSP; PDFs as downloads (Content-Disposition: attachment)',
            content: {
              'image/jpeg': { schema: Type.String({ format: 'binary' }) },
              'image/png': { schema: Type.String({ format: 'binary' }) },
              'image/webp': { schema: Type.String({ format: 'binary' }) },
              'application/pdf': { schema: Type.String({ format: 'binary' }) },
            },
          },
          304: noBody({ description: 'Not modified (If-None-Match)' }),
          ...errorResponses(400, 404),
        },
      },
    },
    (request, reply) => serveMediaFile(fastify, request.params.file, request, reply),
  )
}
