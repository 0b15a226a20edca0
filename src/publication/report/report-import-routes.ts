/*
 * POST {base_url}/imports/report (docs/decisions/report-import-and-legacy.md): multipart with `file` (and optionally `sheet`)
 * previews; form-encoded `job_id`, `confirm=true`, `date` publishes the previewed report through
 * the publication pipeline. `manage_options` for both; confirming is a publication execution and
 * also needs PRO with `api_webhooks`. The offer import's `bulk_import` does not apply: the report
 * import writes no offers.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import { receiveMultipartForm } from '../../host/http/multipart-upload.js'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { PluginError } from '../../host/errors.js'
import { actorOf, requireCapability, requirePrincipal } from '../../host/http/authenticate.js'
import { DateString, errorResponse, errorResponses } from '../../host/http/schemas.js'
import { confirmReportImport, previewReportImport } from './report-import.js'
import { ReportImportPreviewSchema } from '../schemas.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]

function parseBoolean(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 'yes' || value === 'on'
}

const JOB_ID = Type.String({ pattern: '^[0-9a-f]{32}$', description: 'Import job id, 32 hexadecimal characters' })

/** The two request bodies, for the document only: the handler reads them (see host/http/openapi/openapi.ts). */
const ReportImportBody = {
  content: {
    'multipart/form-data': {
      schema: Type.Object(
        {
          file: Type.String({
            format: 'binary',
            contentMediaType: 'application/octet-stream',
            description: 'The 58-column official report, CSV or XLSX',
          }),
          sheet: Type.Optional(Type.String({ description: 'XLSX: the worksheet to read (default: the first)' })),
        },
        { description: 'Preview (step 1): answers {id, preview}; publishes nothing' },
      ),
    },
    'application/x-www-form-urlencoded': {
      schema: Type.Object(
        {
          job_id: JOB_ID,
          confirm: Type.Boolean({
            description: 'Must be true: publishing replaces the published file of the date (1, yes and on count too)',
          }),
          date: DateString,
          confirm_developer_mismatch: Type.Optional(
            Type.Boolean({
              description:
                'No effect: accepted so that older clients are not refused. A report whose developer name or KRS differ from the entity its NIP names is never published (422 developer_mismatch)',
              deprecated: true,
            }),
          ),
        },
        {
          description:
            'Confirmation (step 2): publishes the previewed report as the file of `date`, a day not yet published for that dataset and not before any of the report’s "valid from" dates',
        },
      ),
    },
  },
}

const ReportInvalidSchema = Type.Object(
  { error: Type.Literal('import_invalid'), id: JOB_ID, preview: Type.Ref('ReportImportPreview') },
  { additionalProperties: true, description: 'Invalid report: the job id and every error' },
)

export async function reportImportRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const uploadDir = path.join(app.ctx.config.dataDir, 'uploads')
  app.addSchema(ReportImportPreviewSchema)

  app.post(
    '/imports/report',
    {
      preHandler: [requireCapability('dg_import')],
      schema: {
        operationId: 'importReport',
        tags: ['imports'],
        summary:
          'Official report import: multipart preview (file: the 58-column report, CSV or XLSX) or form-encoded confirmation (job_id, confirm=true, date)',
        description:
          'The preview converts the report to the canonical daily CSV and validates it; it never touches offers. ' +
          'The confirmation publishes that CSV as the file of `date` through the publication pipeline ' +
          '(PRO with api_webhooks; 409 while another publication runs). Missing confirmation: 422 ' +
          'report_confirmation_required; unknown job: 404 import_not_found; invalid preview: 422 import_invalid; ' +
          'a price dated after `date`: 422 report_dates_after_day naming the rows; `date` already published for ' +
          'that dataset: 422 report_day_published. A report whose rows give another developer name or KRS ' +
          'than the entity its NIP names is refused: its preview is invalid (422 import_invalid, errors with ' +
          'the code developer_mismatch naming the rows) and its confirmation answers 422 developer_mismatch; ' +
          'the former confirm_developer_mismatch parameter is accepted but has no effect.',
        security,
        documented: { body: ReportImportBody },
        response: {
          200: Type.Union(
            [
              Type.Object({ id: JOB_ID, preview: Type.Ref('ReportImportPreview') }, { description: 'Preview' }),
              Type.Object(
                {
                  id: JOB_ID,
                  result: Type.Ref('PublicationOutcome'),
                  replayed: Type.Optional(
                    Type.Literal(true, { description: 'Confirmed again for the same date: the stored outcome' }),
                  ),
                },
                { description: 'Confirmation: the publication outcome' },
              ),
            ],
            { description: 'Preview {id, preview} or confirmation {id, result, replayed?}' },
          ),
          ...errorResponses(400, 401, 403, 404, 409, 413),
          422: errorResponse(422, ReportInvalidSchema),
        },
      },
    },
    async (request, reply) => {
      const ctx = app.ctx
      const principal = await requirePrincipal(request)
      let fields: Record<string, unknown>
      if (request.isMultipart()) {
        const form = await receiveMultipartForm(request, uploadDir, 'report')
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
