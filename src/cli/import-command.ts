/*
 * `dg import FILE --mapping mapping.json [--mode snapshot] [--yes]`: the same preview and
 * execution as the HTTP API, run in-process. The preview is shown (counts per action, the first
 * errors, the archiving scope) and the operator confirms before anything is written.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

import { HostError } from '../host/errors.js'
import {
  executeOfferImport,
  parseMapping,
  parseMode,
  previewOfferImport,
  type PreviewBody,
} from '../imports/offer-import-service.js'
import { type CliEnvironment, withHostContext } from './cli-context.js'
import type { CommandResult } from './commands.js'

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
    throw new HostError('mapping_not_found', `Cannot read the mapping file ${mappingFile}.`, 400)
  }
  try {
    await fs.access(file)
  } catch {
    throw new HostError('file_not_found', `Cannot read ${file}.`, 400)
  }
  const mapping = parseMapping(mappingText)
  const mode = parseMode(values.mode)
  const io = env.io
  return withHostContext(env, async (ctx) => {
    let lastDraw = 0
    const preview = await previewOfferImport(ctx, {
      actor: { type: 'cli' },
      operator: { userId: null, name: 'cli' },
      filePath: path.resolve(file),
      fileName: path.basename(file),
      mode,
      mapping,
      sheet: typeof values.sheet === 'string' ? values.sheet : undefined,
      onProgress: (rows) => {
        if (values.json || rows - lastDraw < 5000) return
        lastDraw = rows
        io.stderr(io.interactive ? `\rReading rows: ${rows.toLocaleString('pl-PL')}` : `Reading rows: ${rows}\n`)
      },
    })
    if (lastDraw > 0 && io.interactive) io.stderr('\n')
    const summary = describePreview(preview.id, preview.preview)
    if (!preview.preview.valid) {
      throw new HostError(
        'import_invalid',
        `${summary}\nSee all errors with GET /wp-json/dg/v2/imports/${preview.id}.`,
        422,
      )
    }
    const archiving = preview.preview.archive_scope.total > 0
    if (!values.yes) {
      if (!io.confirm)
        throw new HostError(
          'confirmation_required',
          `${summary}\nNothing was written. Run again with --yes to execute without a terminal.`,
          400,
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
    const outcome = await executeOfferImport(ctx, {
      actor: { type: 'cli' },
      jobId: preview.id,
      idempotencyKey: `cli-${randomBytes(12).toString('hex')}`,
      confirmArchiving: archiving,
    })
    const r = outcome.result
    return {
      json: { id: preview.id, preview: { ...preview.preview, operations: undefined }, result: r },
      text: `${values.yes ? `${summary}\n` : ''}Imported: ${r.processed} processed, ${r.created} created, ${r.updated} updated, ${r.archived} archived (run ${r.run_id}).`,
    }
  })
}
