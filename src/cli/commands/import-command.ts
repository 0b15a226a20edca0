/*
 * `dg import FILE --mapping mapping.json [--mode snapshot] [--yes]`: the same preview and
 * execution as the HTTP API, run in-process. The preview is shown (counts per action, the first
 * errors, the archiving scope) and the operator confirms before anything is written.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

import { HostError } from '../../host/errors.js'
import { estimateDataRows } from '../../imports/reading/estimate-rows.js'
import { executeOfferImport } from '../../imports/execution/execute-offer-import.js'
import { parseMapping, parseMode } from '../../imports/import-mapping.js'
import { previewOfferImport, type PreviewBody } from '../../imports/preview-offer-import.js'
import { type CliEnvironment, withHostContext } from '../cli-context.js'
import type { CommandResult } from '../command.js'
import { type ProgressBar, startProgressBar } from '../progress-bar.js'

function describePreview(id: string, preview: PreviewBody): string {
  const lines = [
    `Import job ${id}: ${preview.rows} row(s) read, mode ${preview.mode}.`,
    `  create ${preview.counts.create}, update ${preview.counts.update}, unchanged ${preview.counts.unchanged}, archive ${preview.counts.archive}`,
  ]
  if (preview.archive_scope.total > 0) {
    lines.push(`  Archiving scope: ${preview.archive_scope.total} offer(s) missing from the file will be archived:`)
    for (const inv of preview.archive_scope.investments)
      lines.push(`    investment ${inv.source_investment_id}: ${inv.archived}`)
  }
  if (!preview.valid) {
    lines.push(
      `  The file has ${preview.errors_total} error(s); nothing can be imported until they are fixed. First ones:`,
    )
    for (const error of preview.errors.slice(0, 20))
      lines.push(`    row ${error.row}, ${error.field}: ${error.code} — ${error.message}`)
  }
  return lines.join('\n')
}

export async function runImportCommand(
  values: Record<string, string | boolean | undefined>,
  env: CliEnvironment,
  file: string,
): Promise<CommandResult> {
  const mappingFile = String(values.mapping)
  let mappingText: string
  try {
    mappingText = await fs.readFile(mappingFile, 'utf8')
  } catch {
    throw new HostError('mapping_not_found', 400, `Cannot read the mapping file ${mappingFile}.`)
  }
  try {
    await fs.access(file)
  } catch {
    throw new HostError('file_not_found', 400, `Cannot read ${file}.`)
  }
  const mode = parseMode(values.mode)
  const io = env.io
  const sheet = typeof values.sheet === 'string' ? values.sheet : undefined
  // a bar only on a terminal, never around --json output; a log gets a line now and then instead
  const terminal = values.json ? undefined : io.terminal
  // the extensions register the custom fields a mapping may fill (meta:<key>)
  return withHostContext(
    env,
    async (ctx) => {
      const mapping = parseMapping(mappingText, ctx.meta)
      let lastLine = 0
      let reading: ProgressBar | undefined
      if (terminal) {
        const estimate = await estimateDataRows(path.resolve(file), sheet)
        reading = startProgressBar(terminal, 'Reading', 'rows', estimate ?? 0)
      }
      let preview: Awaited<ReturnType<typeof previewOfferImport>> | undefined
      try {
        preview = await previewOfferImport(ctx, {
          actor: { type: 'cli' },
          operator: { userId: null, name: 'cli' },
          filePath: path.resolve(file),
          fileName: path.basename(file),
          mode,
          mapping,
          sheet,
          onProgress: (rows) => {
            if (reading) return reading.update(rows)
            if (values.json || rows - lastLine < 5000) return
            lastLine = rows
            io.stderr(`Reading rows: ${rows}\n`)
          },
        })
        // the estimate counted lines; the bar ends on the rows the reader found
        reading?.update(preview.preview.rows, preview.preview.rows)
      } finally {
        reading?.stop(preview !== undefined)
      }
      const summary = describePreview(preview.id, preview.preview)
      if (!preview.preview.valid) {
        // a file refused as a whole (row 0: unsupported_format, xlsx_corrupt, …) is named by its code,
        // as the API's errors name it; row errors leave the whole import invalid
        const fileError = preview.preview.errors.find((error) => error.row === 0)
        throw new HostError(
          fileError?.code ?? 'import_invalid',
          422,
          `${summary}\nSee all errors with GET /wp-json/dg/v2/imports/${preview.id}.`,
        )
      }
      const archiving = preview.preview.archive_scope.total > 0
      if (!values.yes) {
        if (!io.confirm)
          throw new HostError(
            'confirmation_required',
            400,
            `${summary}\nNothing was written. Run again with --yes to execute without a terminal.`,
          )
        io.stderr(`${summary}\n`)
        const question = archiving
          ? `Execute, ARCHIVING ${preview.preview.archive_scope.total} offer(s)? [y/N] `
          : 'Execute this import? [y/N] '
        if (!(await io.confirm(question))) {
          return {
            json: { id: preview.id, preview: preview.preview, executed: false },
            text: 'Not executed; the preview stays available for 24 hours.',
          }
        }
      }
      const { create, update, archive } = preview.preview.counts
      const writing = terminal ? startProgressBar(terminal, 'Writing', 'offers', create + update + archive) : undefined
      let outcome: Awaited<ReturnType<typeof executeOfferImport>> | undefined
      try {
        outcome = await executeOfferImport(ctx, {
          actor: { type: 'cli' },
          jobId: preview.id,
          idempotencyKey: `cli-${randomBytes(12).toString('hex')}`,
          confirmArchiving: archiving,
          ...(writing ? { onProgress: (written: number, total: number) => writing.update(written, total) } : {}),
        })
        const { created, updated, archived } = outcome.result
        writing?.update(created + updated + archived, created + updated + archived)
      } finally {
        writing?.stop(outcome !== undefined)
      }
      const r = outcome.result
      return {
        json: { id: preview.id, preview: { ...preview.preview, operations: undefined }, result: r },
        text: `${values.yes ? `${summary}\n` : ''}Imported: ${r.processed} processed, ${r.created} created, ${r.updated} updated, ${r.archived} archived (run ${r.run_id}).`,
      }
    },
    { extensions: true },
  )
}
