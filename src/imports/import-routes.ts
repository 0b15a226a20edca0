/*
 * POST /imports/offer: multipart (file, mode, mapping) previews; form-encoded (job_id,
 * confirm_archiving) with an Idempotency-Key executes. POST /imports/offer/headers reads a file's
 * header row (for the column assignment) and writes nothing. GET /imports/{id} returns the job
 * record. Reading a job needs `dg_read_all`, the rest `dg_import`; all need the `bulk_import`
 * entitlement.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import { receiveMultipartForm } from '../host/http/multipart-upload.js'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'

import { assertOwnJob, scopeOf } from '../host/auth/scope.js'
import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { errorResponse, errorResponses, withDefault } from '../host/http/schemas.js'
import { PluginError } from '../host/errors.js'
import { requireEntitlement } from '../licensing/require-entitlement.js'
import { executeOfferImport } from './execution/execute-offer-import.js'
import { getImportJob } from './import-job-view.js'
import { findImportJob } from './import-jobs-repository.js'
import { parseMapping, parseMode } from './import-mapping.js'
import { previewOfferFileHeaders } from './offer-file-headers.js'
import { previewOfferImport } from './preview-offer-import.js'
import {
  OFFER_IMPORT_SCHEMAS,
  OfferExecuteResponse,
  OfferFileHeadersBody,
  OfferFileHeadersResponse,
  OfferFileUnreadableSchema,
  OfferImportBody,
  OfferImportHeaders,
  OfferImportInvalidSchema,
  OfferPreviewResponse,
} from './schemas.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]

function parseBoolean(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 'yes' || value === 'on'
}

/** The two 200 shapes, as Fastify's serializer compiler takes them (its cache is keyed by the object). */
const PREVIEW_ANSWER = OfferPreviewResponse as unknown as Record<string, unknown>
const EXECUTE_ANSWER = OfferExecuteResponse as unknown as Record<string, unknown>

/** Serializes the 200 answer with the one shape the handler knows it has (see the preview's note). */
function answerAs(reply: FastifyReply, shape: Record<string, unknown>): void {
  // with a serializer of its own, Fastify leaves the content type to the handler
  reply.serializer(reply.compileSerializationSchema(shape, '200')).type('application/json; charset=utf-8')
}

export async function importRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const readGuard = [requireCapability('dg_read_all'), requireEntitlement('bulk_import')]
  const writeGuard = [requireCapability('dg_import'), requireEntitlement('bulk_import')]
  const uploadDir = path.join(app.ctx.config.dataDir, 'uploads')
  for (const schema of OFFER_IMPORT_SCHEMAS) app.addSchema(schema)

  // the body is a multipart form (read by the handler) or a form-encoded one, so it has no schema
  app.post<{ Body: Record<string, unknown> | undefined }>(
    '/imports/offer',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'importOffers',
        tags: ['imports'],
        summary:
          'Offer import: multipart preview (file, mode, mapping) or form-encoded execution (job_id, confirm_archiving, Idempotency-Key)',
        description:
          'Step 1, multipart: validates and plans the file, writes nothing to offers and answers {id, preview}; an invalid file answers 422 import_invalid with the job id and every error. ' +
          'Step 2, form-encoded with an Idempotency-Key header: commits the plan of a valid preview in one transaction and answers {id, result}; ' +
          'the same key again answers the stored result with replayed: true. 409 import_pending (Retry-After: 5), import_conflict, import_recovery_required. ' +
          'A user limited to some developer entities and investments: a file naming an investment outside them, or a new investment, is 403 rest_forbidden_scope for the whole file (nothing kept), and only its own previews may be executed.',
        security,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 200 })) }),
        documented: { body: OfferImportBody, headers: OfferImportHeaders },
        response: {
          200: Type.Union([OfferPreviewResponse, OfferExecuteResponse], {
            description: 'Preview {id, preview} or execution {id, result, replayed?}',
          }),
          ...errorResponses(400, 401, 403, 404, 409, 413),
          422: errorResponse(422, OfferImportInvalidSchema),
        },
      },
    },
    async (request, reply) => {
      const ctx = app.ctx
      const principal = await requirePrincipal(request)
      if (request.isMultipart()) {
        const form = await receiveMultipartForm(request, uploadDir, 'upload')
        if (!form.filePath)
          throw new PluginError('invalid_upload', 400, { message: 'The multipart body has no "file" field.' })
        const upload = { ...form, filePath: form.filePath }
        try {
          const mode = parseMode(upload.fields.mode)
          const mapping = parseMapping(upload.fields.mapping, ctx.meta)
          const outcome = await previewOfferImport(ctx, {
            actor: actorOf(principal),
            operator: { userId: principal.user.id, name: principal.user.login },
            filePath: upload.filePath,
            fileName: upload.fileName,
            mode,
            mapping,
            sheet: upload.fields.sheet,
          })
          if (!outcome.preview.valid)
            throw new PluginError('import_invalid', 422, { id: outcome.id, preview: outcome.preview })
          // The 200 answer is one of two shapes. Given the union, the serializer picks a shape by
          // validating the whole answer against it, 500 planned operations with every value, on
          // the event loop: 75 ms for a large file's preview, 170 ms the first time (compiling the
          // validator), and every catalog request of the instance waited. The handler knows the shape.
          answerAs(reply, PREVIEW_ANSWER)
          return outcome
        } finally {
          await fs.rm(upload.filePath, { force: true })
        }
      }
      const body = request.body ?? {}
      if (typeof body !== 'object' || typeof body.job_id !== 'string' || !/^[0-9a-f]{32}$/.test(body.job_id)) {
        throw new PluginError('invalid_job_id', 400, {
          message: 'Send job_id (32 hex characters) form-encoded, or a multipart preview with a file.',
        })
      }
      const header = request.headers['idempotency-key']
      const outcome = await executeOfferImport(ctx, {
        actor: actorOf(principal),
        jobId: body.job_id,
        idempotencyKey: Array.isArray(header) ? header[0] : header,
        confirmArchiving: parseBoolean(body.confirm_archiving),
      })
      if (outcome.replayed) reply.header('Idempotent-Replayed', 'true')
      // the execution's shape, for the same reason as the preview's (a union would compile the
      // preview's validator the first time an execution answers: 30-70 ms on the event loop)
      answerAs(reply, EXECUTE_ANSWER)
      return { id: outcome.id, result: outcome.result, ...(outcome.replayed ? { replayed: true } : {}) }
    },
  )

  // a multipart body, read by the handler: described for the document only
  app.post(
    '/imports/offer/headers',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'readOfferFileHeaders',
        tags: ['imports'],
        summary: "An offer file's header row and first rows, for the column assignment; writes nothing",
        security,
        documented: { body: OfferFileHeadersBody },
        response: {
          200: OfferFileHeadersResponse,
          ...errorResponses(400, 401, 403, 413),
          422: errorResponse(422, OfferFileUnreadableSchema),
        },
      },
    },
    async (request) => {
      await requirePrincipal(request)
      if (!request.isMultipart())
        throw new PluginError('invalid_upload', 400, { message: 'Send the file as multipart/form-data, field "file".' })
      const form = await receiveMultipartForm(request, uploadDir, 'upload')
      if (!form.filePath)
        throw new PluginError('invalid_upload', 400, { message: 'The multipart body has no "file" field.' })
      try {
        return await previewOfferFileHeaders(app.ctx, {
          filePath: form.filePath,
          fileName: form.fileName,
          sheet: form.fields.sheet,
        })
      } finally {
        await fs.rm(form.filePath, { force: true })
      }
    },
  )

  app.get(
    '/imports/:id',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'getImportJob',
        tags: ['imports'],
        summary: 'Import job record with its planned operations, paged',
        security,
        params: Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{32}$' }) }),
        querystring: Type.Object({
          page: withDefault(Type.Integer({ minimum: 1, default: 1 })),
          per_page: withDefault(Type.Integer({ minimum: 1, maximum: 200, default: 100 })),
        }),
        response: {
          200: Type.Ref('ImportJob'),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { id } = request.params
      const { page, per_page } = request.query
      const scope = await scopeOf(request)
      if (scope.restricted) {
        const job = await findImportJob(app.ctx.db, id)
        if (job) assertOwnJob(scope, job, (await requirePrincipal(request)).user.id)
      }
      return getImportJob(app.ctx, id, page, per_page)
    },
  )
}
