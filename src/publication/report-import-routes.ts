/*
 * POST {base_url}/imports/report (contract 4.4): multipart with `file` (and optionally `sheet`)
 * previews; form-encoded `job_id`, `confirm=true`, `date` publishes the previewed report through
 * the publication pipeline. `manage_options` for both; confirming is a publication execution and
 * also needs PRO with `api_webhooks`. The offer import's `bulk_import` does not apply: the report
 * import writes no offers.
 */
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'

import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'

import { PluginError } from '../host/errors.js'
import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { errorResponses } from '../host/http/schemas.js'
import { confirmReportImport, previewReportImport } from './report-import.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]

interface ReceivedForm {
  /** Absent when the multipart body carries no file: then it is a confirmation. */
  filePath?: string
  fileName: string
  fields: Record<string, string>
}

/** Streams the one file part to disk (the offer import's approach) and collects the text fields. */
async function receiveForm(request: FastifyRequest, uploadDir: string): Promise<ReceivedForm> {
  await fs.mkdir(uploadDir, { recursive: true })
  const fields: Record<string, string> = {}
  let filePath: string | undefined
  let fileName = ''
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || filePath) {
          await part.toBuffer().catch(() => undefined)
          throw new PluginError('invalid_upload', 400, { message: 'Send exactly one file, in the field "file".' })
        }
        filePath = path.join(uploadDir, `${randomBytes(12).toString('hex')}.upload`)
        fileName = part.filename || 'report'
        await pipeline(part.file, createWriteStream(filePath))
        if (part.file.truncated) {
          throw new PluginError('file_too_large', 413, {
            message: `The file is larger than the limit of ${request.server.ctx.config.importMaxBytes} bytes (DG_IMPORT_MAX_BYTES).`,
          })
        }
      } else if (typeof part.value === 'string') {
        fields[part.fieldname] = part.value
      }
    }
  } catch (error) {
    if (filePath) await fs.rm(filePath, { force: true })
    if (error instanceof PluginError) throw error
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
      throw new PluginError('file_too_large', 413, {
        message: 'The file is larger than the configured limit (DG_IMPORT_MAX_BYTES).',
      })
    throw new PluginError('invalid_upload', 400, { message: 'The multipart body could not be read.' })
  }
  return { ...(filePath ? { filePath } : {}), fileName, fields }
}

function parseBoolean(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 'yes' || value === 'on'
}

export async function reportImportRoutes(app: FastifyInstance): Promise<void> {
  const uploadDir = path.join(app.ctx.config.dataDir, 'uploads')

  app.post(
    '/imports/report',
    {
      preHandler: [requireCapability('manage_options')],
      schema: {
        tags: ['imports'],
        summary:
          'Official report import: multipart preview (file: the 58-column report, CSV or XLSX) or form-encoded confirmation (job_id, confirm=true, date)',
        description:
          'The preview converts the report to the canonical daily CSV and validates it; it never touches offers. ' +
          'The confirmation publishes that CSV as the file of `date` through the publication pipeline ' +
          '(PRO with api_webhooks; 409 while another publication runs). Missing confirmation: 422 ' +
          'report_confirmation_required; unknown job: 404 import_not_found; invalid preview: 422 import_invalid.',
        security,
        consumes: ['multipart/form-data', 'application/x-www-form-urlencoded'],
        response: {
          200: Type.Object(
            {
              id: Type.String(),
              preview: Type.Optional(Type.Unknown()),
              result: Type.Optional(Type.Unknown()),
              replayed: Type.Optional(Type.Boolean()),
            },
            { additionalProperties: true },
          ),
          ...errorResponses(400, 401, 403, 404, 409, 413, 422),
        },
      },
    },
    async (request, reply) => {
      const ctx = app.ctx
      const principal = await requirePrincipal(request)
      let fields: Record<string, unknown>
      if (request.isMultipart()) {
        const form = await receiveForm(request, uploadDir)
        if (form.filePath) {
          try {
            const outcome = await previewReportImport(ctx, {
              actor: actorOf(principal),
              operator: { userId: principal.user.id, name: principal.user.login },
              filePath: form.filePath,
              fileName: form.fileName,
              sheet: form.fields.sheet,
            })
            if (!outcome.preview.valid)
              throw new PluginError('import_invalid', 422, { id: outcome.id, preview: outcome.preview })
            return outcome
          } finally {
            await fs.rm(form.filePath, { force: true })
          }
        }
        fields = form.fields
      } else {
        const body: unknown = request.body
        fields = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {}
      }
      const outcome = await confirmReportImport(ctx, {
        actor: actorOf(principal),
        jobId: fields.job_id,
        confirm: parseBoolean(fields.confirm),
        date: fields.date,
      })
      if (outcome.replayed) reply.header('Idempotent-Replayed', 'true')
      return outcome
    },
  )
}
