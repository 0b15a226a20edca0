/*
 * Official report import (docs/decisions/report-import-and-legacy.md). Preview: the uploaded 58-column report is converted
 * to the canonical daily CSV and validated (report-convert.ts); a valid result is kept under
 * DG_DATA_DIR/report-imports/<job id>.csv (never served) with a job in `import_jobs` (type
 * `report`). Confirm (`confirm=true`, `date`): that exact CSV becomes the published file of the day
 * through the one publication pipeline, which holds the publication lock. Neither step reads or
 * writes offers, investments or the catalog.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'

import { parse as parseCsv } from 'csv-parse/sync'

import { type Actor, recordAudit } from '../../host/audit/audit.js'
import { actorScope, assertOwnJob } from '../../host/auth/scope.js'
import type { HostContext } from '../../host/context.js'
import { PluginError } from '../../host/errors.js'
import { fileErrorMessagePl, FileReadError } from '../../imports/reading/file-errors.js'
import {
  findImportJob,
  type ImportJobRow,
  insertImportJob,
  transitionJob,
} from '../../imports/import-jobs-repository.js'
import { PREVIEW_RETENTION_MS, RESULT_RETENTION_MS } from '../../imports/import-job-lifecycle.js'
import { readOfferFile } from '../../imports/reading/read-offer-file.js'
import { requires } from '../../licensing/license.js'
import { isCalendarDate, warsawDate } from '../../host/warsaw-day.js'
import { dailyCsvFileName, slugify } from '../daily-file/daily-csv.js'
import { getPublicationSettings, resolvePublishingDeveloper } from '../settings/publication-settings.js'
import { checkCsvBytes } from '../daily-file/csv-byte-check.js'
import type { PublicationOutcome } from '../publishing/publication-outcome.js'
import { publish } from '../publishing/publish.js'
import { datasetOf, datasetStore } from '../daily-file/datasets.js'
import { OFFICIAL_COLUMN_INDEX } from '../daily-file/official-columns.js'
import { issue } from '../publication-issue.js'
import {
  type ConvertedReport,
  convertReport,
  type ReportError,
  type ReportWarning,
  type ValueRows,
} from './report-convert.js'

export const REPORT_JOB_TYPE = 'report'
/** Under DG_DATA_DIR; not below `publication/`, so nothing here is ever served. */
export const REPORT_DIR = 'report-imports'

/*
 * Job statuses of a report import. `validated` and not the offer import's `previewed`: the offer
 * execution endpoint executes `previewed` jobs, and must refuse a report job (it answers 409
 * import_conflict for any other status).
 */
export type ReportJobStatus = 'invalid' | 'validated' | 'completed'

export interface ReportPreview {
  valid: boolean
  /** Technical: where the converted CSV is kept, relative to DG_DATA_DIR; not to be stored or interpreted. */
  csv_path: string | null
  row_count: number
  /** The warnings' messages in one text, or null. */
  warning: string | null
  warnings: ReportWarning[]
  errors: ReportError[]
  errors_total: number
  format: string
  sheet?: string
}

interface StoredReport {
  csv_path: string | null
  warnings: ReportWarning[]
  sheet?: string
  /** The developer entity the report names: its dataset is the one the report is published in. */
  developer_id?: number | null
  /** The "valid from" dates of the file with their rows, latest first (absent in older jobs). */
  price_dates?: ValueRows[]
  /** Names and KRS numbers of the rows that differ from the entity the NIP names: never published. */
  identity_mismatch?: IdentityMismatch | null
}

/** What the rows say of the developer where it differs from the entity its NIP names. */
export interface IdentityMismatch {
  developer_id: number
  entity: { name: string; krs: string | null; nip?: string | null }
  names: ValueRows[]
  krs: ValueRows[]
}

export interface ReportPreviewArgs {
  actor: Actor
  operator: { userId: number | null; name: string }
  filePath: string
  fileName: string
  sheet?: string | undefined
}

function csvRelativePath(id: string): string {
  return `${REPORT_DIR}/${id}.csv`
}

async function sha256File(filePath: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(filePath)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

async function writeFileAtomically(target: string, content: Buffer): Promise<void> {
  await fs.mkdir(path.dirname(target), { recursive: true })
  const temp = `${target}.${randomBytes(4).toString('hex')}.tmp`
  const handle = await fs.open(temp, 'w')
  try {
    await handle.writeFile(content)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await fs.rename(temp, target)
}

export async function previewReportImport(
  ctx: HostContext,
  args: ReportPreviewArgs,
): Promise<{ id: string; preview: ReportPreview }> {
  await removeOrphanReportFiles(ctx).catch((error: unknown) =>
    ctx.log.warn({ err: error }, 'report import: clean-up of old converted files failed'),
  )
  const id = randomBytes(16).toString('hex')
  const now = ctx.now()
  const entities = await ctx.db.selectFrom('developers').select(['id', 'nip', 'name', 'krs']).orderBy('id').execute()
  const fileSha = await sha256File(args.filePath)

  let format = 'unknown'
  let sheet: string | undefined
  let converted: Awaited<ReturnType<typeof convertReport>>
  try {
    const reader = await readOfferFile({
      path: args.filePath,
      fileName: args.fileName,
      ...(args.sheet?.trim() ? { sheet: args.sheet } : {}),
      limits: { maxBytes: ctx.config.importMaxBytes, maxRows: ctx.config.importMaxRows },
    })
    format = reader.format
    sheet = reader.sheet
    converted = await convertReport(reader, {
      today: warsawDate(now),
      maxErrors: ctx.config.importMaxErrors,
      developerNips: entities.flatMap((e) => (e.nip ? [e.nip] : [])),
    })
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error
    converted = {
      content: null,
      rowCount: 0,
      errors: [
        {
          row: 0,
          field: 'file',
          code: error.code,
          message: fileErrorMessagePl(error.code, error.details),
          message_pl: fileErrorMessagePl(error.code, error.details),
          message_en: error.message,
        },
      ],
      errorsTotal: 1,
      warnings: [],
    }
  }

  // the pipeline's own byte rules, so that a valid preview cannot fail them at confirmation
  if (converted.content) {
    for (const problem of checkCsvBytes(converted.content)) {
      converted.errors.push({
        row: 0,
        field: 'file',
        code: problem.code,
        message: problem.message_pl,
        message_pl: problem.message_pl,
        message_en: problem.message_en,
      })
      converted.errorsTotal += 1
    }
  }
  // a report otherwise valid but naming another company than the entity of its NIP is refused:
  // its rows would publish that company's name or KRS in this entity's dataset
  const named = entities.find((e) => e.nip !== null && e.nip === converted.developerNip)
  const mismatch =
    named && converted.errorsTotal === 0 && converted.content !== null ? identityMismatch(named, converted) : null
  if (mismatch) {
    const refusals = identityMismatchErrors(mismatch)
    converted.errors.push(...refusals)
    converted.errorsTotal += refusals.length
  }
  const valid = converted.errorsTotal === 0 && converted.content !== null
  const csvPath = valid ? csvRelativePath(id) : null
  const csvSha = valid && converted.content ? createHash('sha256').update(converted.content).digest('hex') : ''
  if (valid && converted.content)
    await writeFileAtomically(path.join(ctx.config.dataDir, csvRelativePath(id)), converted.content)
  const stored: StoredReport = {
    csv_path: csvPath,
    warnings: converted.warnings,
    ...(sheet ? { sheet } : {}),
    developer_id: named?.id ?? null,
    price_dates: converted.priceDates ?? [],
    identity_mismatch: mismatch,
  }
  const counters = { rows: converted.rowCount, errors: converted.errorsTotal, warnings: converted.warnings.length }
  const status: ReportJobStatus = valid ? 'validated' : 'invalid'
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await insertImportJob(trx, {
        id,
        type: REPORT_JOB_TYPE,
        mode: REPORT_JOB_TYPE,
        status,
        operator_user_id: args.operator.userId,
        operator_name: args.operator.name,
        file_name: args.fileName.slice(0, 255),
        file_sha256: fileSha,
        file_format: format,
        mapping: JSON.stringify(stored),
        counters: JSON.stringify(counters),
        errors: JSON.stringify(converted.errors),
        archive_scope: JSON.stringify({ investments: [], total: 0 }),
        // the digest of what will be published: confirmation publishes these bytes or nothing
        plan_digest: csvSha,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
        expires_at: new Date(now.getTime() + PREVIEW_RETENTION_MS).toISOString(),
      })
      await recordAudit(
        ctx,
        {
          actor: args.actor,
          action: 'report_import.preview',
          objectType: 'import_job',
          objectId: id,
          outcome: valid ? 'success' : 'refused',
          details: { file: args.fileName.slice(0, 255), format, ...counters },
        },
        trx,
      )
    })
  } catch (error) {
    if (csvPath) await fs.rm(path.join(ctx.config.dataDir, csvPath), { force: true })
    throw error
  }

  return {
    id,
    preview: {
      valid,
      csv_path: csvPath,
      row_count: converted.rowCount,
      warning:
        converted.warnings.length > 0 ? converted.warnings.map((w) => w.message_en ?? w.message).join(' ') : null,
      warnings: converted.warnings,
      errors: converted.errors,
      errors_total: converted.errorsTotal,
      format,
      ...(sheet ? { sheet } : {}),
    },
  }
}

export interface ReportConfirmArgs {
  actor: Actor
  jobId: unknown
  confirm: boolean
  date: unknown
}

/** Compared without case, surrounding or repeated spaces and quotes, which spreadsheets vary. */
function sameName(a: string, b: string): boolean {
  const fold = (text: string) =>
    text
      .normalize('NFC')
      .replace(/["„”“'’]/gu, '')
      .replace(/\s+/gu, ' ')
      .trim()
      .toLowerCase()
  return fold(a) === fold(b)
}

/** The rows' names and KRS numbers that are not the named entity's; null when all match. */
export function identityMismatch(
  entity: { id: number; name: string; krs: string | null; nip?: string | null },
  converted: Pick<ConvertedReport, 'developerNames' | 'developerKrs'>,
): IdentityMismatch | null {
  const names = (converted.developerNames ?? []).filter((n) => !sameName(n.value, entity.name))
  const krs = (converted.developerKrs ?? []).filter((k) => k.value !== entity.krs)
  if (names.length === 0 && krs.length === 0) return null
  return {
    developer_id: entity.id,
    entity: { name: entity.name, krs: entity.krs, nip: entity.nip ?? null },
    names,
    krs,
  }
}

function rowsOf(value: ValueRows, words: { one: string; many: string }): string {
  const more = value.count > value.rows.length ? ' …' : ''
  return `${value.count === 1 ? words.one : words.many} ${value.rows.join(', ')}${more}`
}

/** Where the operator corrects the entity's own data, in Polish and English. */
const ENTITY_SETTINGS = {
  name: { pl: 'pole „Nazwa”', en: 'the field "Name"' },
  krs: { pl: 'pole „Numer KRS”', en: 'the field "KRS number"' },
}

/**
 * The rows whose developer name (column 1) or KRS (column 3) are not those of the entity the NIP
 * names, one error per value found: the report is refused, whatever the operator confirms.
 */
function identityMismatchErrors(mismatch: IdentityMismatch): ReportError[] {
  const { entity } = mismatch
  const nip = entity.nip ? ` o NIP ${entity.nip}` : ''
  const nipEn = entity.nip ? ` with NIP ${entity.nip}` : ''
  const fix = (field: keyof typeof ENTITY_SETTINGS) => ({
    pl: `Raport z danymi innej firmy nie zostanie opublikowany w zbiorze tego podmiotu: popraw raport albo dane dewelopera w panelu (Ustawienia → Deweloper, ${ENTITY_SETTINGS[field].pl}) i wczytaj raport ponownie.`,
    en: `A report with another company's data is not published in this entity's dataset: correct the report, or the developer's data in the panel (Settings → Developer, ${ENTITY_SETTINGS[field].en}), and load the report again.`,
  })
  const names = mismatch.names.map((value): ReportError => {
    const pl = `${rowsOf(value, { one: 'Wiersz', many: 'Wiersze' })}, kolumna 1 („Nazwa dewelopera”): raport podaje „${value.value}”, a podmiot${nip} nazywa się w ustawieniach „${entity.name}”. ${fix('name').pl}`
    return {
      row: value.rows[0] ?? 0,
      field: 'developer_name',
      column: 1,
      code: 'developer_mismatch',
      message: pl,
      message_pl: pl,
      message_en: `${rowsOf(value, { one: 'Row', many: 'Rows' })}, column 1 (developer name): the report gives "${value.value}", while the entity${nipEn} is named "${entity.name}" in the settings. ${fix('name').en}`,
    }
  })
  const krs = mismatch.krs.map((value): ReportError => {
    const pl = `${rowsOf(value, { one: 'Wiersz', many: 'Wiersze' })}, kolumna 3 („Nr KRS”): raport podaje ${value.value}, a podmiot${nip} ma w ustawieniach ${entity.krs ? `numer KRS ${entity.krs}` : 'pusty numer KRS'}. ${fix('krs').pl}`
    return {
      row: value.rows[0] ?? 0,
      field: 'krs',
      column: 3,
      code: 'developer_mismatch',
      message: pl,
      message_pl: pl,
      message_en: `${rowsOf(value, { one: 'Row', many: 'Rows' })}, column 3 (KRS): the report gives ${value.value}, while the entity${nipEn} has ${entity.krs ? `KRS ${entity.krs}` : 'no KRS'} in the settings. ${fix('krs').en}`,
    }
  })
  return [...names, ...krs]
}

export interface ReportConfirmOutcome {
  id: string
  result: PublicationOutcome
  replayed?: true
}

const notFound = (id: string) =>
  new PluginError('import_not_found', 404, {
    message: id
      ? `No report import job ${id} (unknown or expired); preview the report file again.`
      : 'Send a report file (multipart, field "file") to preview it, or job_id, confirm=true and date to publish a previewed one.',
  })

async function findReportJob(ctx: HostContext, jobId: unknown): Promise<ImportJobRow> {
  const id = typeof jobId === 'string' ? jobId.trim() : ''
  if (!/^[0-9a-f]{32}$/.test(id)) throw notFound(id.slice(0, 64))
  const job = await findImportJob(ctx.db, id)
  if (!job || job.type !== REPORT_JOB_TYPE || job.expires_at < ctx.now().toISOString()) throw notFound(id)
  return job
}

/**
 * Publishes a previewed report for a date. Order: entitlement (publication execution needs PRO
 * with api_webhooks, docs/decisions/licence.md) → job (404) → confirmation (422) → job validity (422) → date
 * (400) → the pipeline (409 while another publication runs, 422 with issues when it fails).
 */
export async function confirmReportImport(ctx: HostContext, args: ReportConfirmArgs): Promise<ReportConfirmOutcome> {
  await requires(ctx, 'api_webhooks')
  const job = await findReportJob(ctx, args.jobId)
  // a scoped user publishes only its own previews (the pipeline checks the entity too)
  assertOwnJob(await actorScope(ctx.db, args.actor), job, args.actor.type === 'user' ? args.actor.userId : null)
  if (!args.confirm)
    throw new PluginError('report_confirmation_required', 422, {
      message: 'Publishing a report replaces the published file of that date; send confirm=true with job_id and date.',
      id: job.id,
    })
  const stored = JSON.parse(job.mapping) as StoredReport
  // refused whatever the job's status: an older job may record the difference as a mere warning
  if (stored.identity_mismatch && job.status !== 'completed')
    throw developerMismatchRefusal(job.id, stored.identity_mismatch)
  if (job.status === 'invalid')
    throw new PluginError('import_invalid', 422, {
      message: 'The preview of this report found errors; correct the file and preview it again.',
      id: job.id,
      errors: JSON.parse(job.errors) as ReportError[],
    })
  const date = typeof args.date === 'string' ? args.date.trim() : ''
  if (!isCalendarDate(date))
    throw new PluginError('invalid_date', 400, {
      message: 'date must be the real calendar date YYYY-MM-DD the report is published for.',
    })
  if (job.status === 'completed') {
    const result = JSON.parse(job.result ?? '{}') as PublicationOutcome
    if (result.date === date) return { id: job.id, result, replayed: true }
    throw new PluginError('import_conflict', 409, {
      message: `This report was already published for ${result.date}; preview the file again to publish it for another date.`,
      id: job.id,
    })
  }
  if (job.status !== 'validated')
    throw new PluginError('import_conflict', 409, { message: `The job is ${job.status} and cannot be published.` })

  const content = stored.csv_path
    ? await fs.readFile(path.join(ctx.config.dataDir, stored.csv_path)).catch(() => undefined)
    : undefined
  if (!content || createHash('sha256').update(content).digest('hex') !== job.plan_digest)
    throw new PluginError('report_file_unavailable', 422, {
      message: 'The converted report of this job is no longer available unchanged; preview the file again.',
      id: job.id,
    })
  const counters = JSON.parse(job.counters) as { rows?: number }
  const storedReport = stored
  const developerId = storedReport.developer_id ?? null
  await refuseUnprovenDay(ctx, job.id, date, storedReport, content)
  const developer = developerId
    ? await ctx.db.selectFrom('developers').selectAll().where('id', '=', developerId).executeTakeFirst()
    : await resolvePublishingDeveloper(ctx, await getPublicationSettings(ctx))
  const fileName = dailyCsvFileName(date, slugify(developer?.name ?? '') || 'deweloper')

  const started = ctx.now().toISOString()
  let result: PublicationOutcome
  try {
    result = await publish(ctx, {
      date,
      trigger: 'report_import',
      actor: args.actor,
      csv: { fileName, content, rows: counters.rows ?? 0 },
      developerId,
    })
  } catch (error) {
    if (error instanceof PluginError && error.status === 422) {
      await ctx.db
        .updateTable('import_jobs')
        .set({ failure: JSON.stringify(error.extra.issues ?? []), updated_at: ctx.now().toISOString() })
        .where('id', '=', job.id)
        .execute()
        .catch(() => undefined)
      throw new PluginError(error.error, error.status, { ...error.extra, id: job.id }, error.headers)
    }
    throw error
  }

  const finished = ctx.now()
  await ctx.db.transaction().execute(async (trx) => {
    await transitionJob(trx, job.id, 'validated', {
      status: 'completed',
      result: JSON.stringify(result),
      failure: null,
      started_at: started,
      finished_at: finished.toISOString(),
      updated_at: finished.toISOString(),
      expires_at: new Date(finished.getTime() + RESULT_RETENTION_MS).toISOString(),
    })
    await recordAudit(
      ctx,
      {
        actor: args.actor,
        action: 'report_import.confirm',
        objectType: 'import_job',
        objectId: job.id,
        outcome: 'success',
        details: {
          file: job.file_name,
          date,
          version: result.version,
          records: result.record_count,
          csv_md5: result.csv.md5,
        },
      },
      trx,
    )
  })
  return { id: job.id, result }
}

/** 422 developer_mismatch: the report's name or KRS are another company's than its NIP's entity. */
function developerMismatchRefusal(jobId: string, mismatch: IdentityMismatch): PluginError {
  const errors = identityMismatchErrors(mismatch)
  return new PluginError('developer_mismatch', 422, {
    message:
      "The report's developer name or KRS differ from the entity its NIP names: it is not published in that entity's dataset. Correct the report or the developer's data, and preview it again.",
    id: jobId,
    issues: errors.map((error) =>
      issue('developer_mismatch', error.message_pl ?? error.message, error.message_en ?? '', {
        row: error.row,
        column: error.column,
        field: error.field,
      }),
    ),
  })
}

/**
 * A report fills only the day it can prove: not a day before its latest "valid from" date (that
 * price was not in force yet) and not a day its dataset already has a file of (a published file
 * never changes). Each refusal is a 422 naming the rows.
 */
async function refuseUnprovenDay(
  ctx: HostContext,
  jobId: string,
  date: string,
  stored: StoredReport,
  content: Buffer,
): Promise<void> {
  const later = (stored.price_dates ?? []).filter((d) => d.value > date)
  if (later.length > 0) {
    const rows = [...new Set(later.flatMap((d) => d.rows))].sort((a, b) => a - b)
    const shown = later
      .slice(0, 10)
      .map((d) => `${d.value} (wiersze ${d.rows.join(', ')}${d.count > d.rows.length ? ' …' : ''})`)
      .join('; ')
    const shownEn = later
      .slice(0, 10)
      .map((d) => `${d.value} (rows ${d.rows.join(', ')}${d.count > d.rows.length ? ' …' : ''})`)
      .join('; ')
    const latest = later[0]?.value ?? date
    const pl = `Raportu nie można opublikować za dzień ${date}: ceny w wierszach obowiązują dopiero od późniejszych dni: ${shown}. Plik dnia podaje ceny obowiązujące tego dnia; opublikuj raport za dzień ${latest} lub późniejszy albo popraw daty w raporcie.`
    const en = `The report cannot be published for ${date}: prices in these rows are valid only from later days: ${shownEn}. A day's file gives the prices in force that day; publish the report for ${latest} or later, or correct its dates.`
    throw new PluginError('report_dates_after_day', 422, {
      message: en,
      id: jobId,
      issues: [issue('report_dates_after_day', pl, en, { date, rows, dates: later })],
    })
  }
  const dataset = await datasetOf(ctx, stored.developer_id ?? null).catch(() => undefined)
  const manifest = dataset ? await datasetStore(ctx, dataset).currentManifest() : undefined
  if (manifest?.days.some((d) => d.date === date)) {
    const pl = `Zbiór ${dataset?.developer.name ?? ''} ma już plik z dnia ${date}, a opublikowany plik nigdy się nie zmienia. Raportem można uzupełnić tylko dzień bez pliku (dni bez pliku pokazuje Pulpit).`
    const en = `The dataset of ${dataset?.developer.name ?? ''} already has a file of ${date}, and a published file never changes. A report can only fill a day without a file (the dashboard shows the days without one).`
    throw new PluginError('report_day_published', 422, {
      message: en,
      id: jobId,
      issues: [issue('report_day_published', pl, en, { date })],
    })
  }
  // a missed day's report may not contradict the files published after that day: where a later
  // file says a price was in force on the report's day (its date on or before it), the report's
  // price and date must be the same
  if (!dataset || !manifest) return
  const store = datasetStore(ctx, dataset)
  const report = unitPrices(content)
  const contradictions: { unit: string; column: string; report: string; later: string; day: string }[] = []
  for (const later of manifest.days.filter((d) => d.date > date)) {
    const bytes = await fs.readFile(store.csvPath(later.md5)).catch(() => undefined)
    if (!bytes) continue
    for (const [key, laterPrices] of unitPrices(bytes)) {
      const own = report.get(key)
      if (!own) continue
      for (const [column, price] of [
        ['m2', laterPrices.m2],
        ['total', laterPrices.total],
      ] as const) {
        if (price.from === 'X' || price.from > date) continue
        const mine = own[column]
        if (mine.amount !== price.amount || mine.from !== price.from)
          contradictions.push({
            unit: key.split('\t').at(-1) ?? key,
            column,
            report: `${mine.amount} od ${mine.from}`,
            later: `${price.amount} od ${price.from}`,
            day: later.date,
          })
      }
    }
  }
  if (contradictions.length > 0) {
    const shown = contradictions
      .slice(0, 10)
      .map((c) => `${c.unit}: w raporcie ${c.report}, w pliku z dnia ${c.day} ${c.later}`)
      .join('; ')
    const shownEn = contradictions
      .slice(0, 10)
      .map(
        (c) =>
          `${c.unit}: ${c.report.replace(' od ', ' from ')} in the report, ${c.later.replace(' od ', ' from ')} in the file of ${c.day}`,
      )
      .join('; ')
    const pl = `Raport za dzień ${date} przeczy plikom opublikowanym później, które podają cenę obowiązującą już tego dnia: ${shown}${contradictions.length > 10 ? ' …' : ''}. Opublikowanych plików nie wolno podważać: popraw ceny w raporcie.`
    const en = `The report for ${date} contradicts files published later that give the price in force on that day: ${shownEn}${contradictions.length > 10 ? ' …' : ''}. Published files are never contradicted: correct the report's prices.`
    throw new PluginError('report_contradicts_published', 422, {
      message: en,
      id: jobId,
      issues: [issue('report_contradicts_published', pl, en, { date, units: contradictions.slice(0, 100) })],
    })
  }
}

interface FilePrice {
  amount: string
  from: string
}

/** Each unit row's price per m² and total with their dates, keyed by its location and designation. */
function unitPrices(csv: Buffer): Map<string, { m2: FilePrice; total: FilePrice }> {
  const col = OFFICIAL_COLUMN_INDEX
  const out = new Map<string, { m2: FilePrice; total: FilePrice }>()
  const rows = parseCsv(csv, { delimiter: ';', from_line: 2, relax_column_count: true })
  for (const row of rows) {
    const code = row[col.property_code] ?? 'X'
    if (code === 'X' || code.trim() === '') continue
    const key = [row[col.loc_city], row[col.loc_street], row[col.loc_building_no], code].join('\t')
    if (out.has(key)) continue
    out.set(key, {
      m2: { amount: row[col.price_m2] ?? 'X', from: row[col.price_m2_from] ?? 'X' },
      total: { amount: row[col.price_total] ?? 'X', from: row[col.price_total_from] ?? 'X' },
    })
  }
  return out
}

/**
 * Converted files whose job is gone (retention removes jobs after 24 hours or 7 days) or that
 * were never recorded (a crash between the file and the job). Run before every preview.
 */
export async function removeOrphanReportFiles(ctx: HostContext): Promise<number> {
  const dir = path.join(ctx.config.dataDir, REPORT_DIR)
  let names: string[]
  try {
    names = await fs.readdir(dir)
  } catch {
    return 0
  }
  // file times are the real clock's, not ctx.now()'s
  const cutoff = Date.now() - 3600_000
  let removed = 0
  for (const name of names) {
    const match = /^([0-9a-f]{32})\.csv(?:\.[0-9a-f]+\.tmp)?$/.exec(name)
    if (!match?.[1]) continue
    const file = path.join(dir, name)
    const stat = await fs.stat(file).catch(() => undefined)
    // a file younger than an hour may belong to a preview that is still being recorded
    if (!stat || stat.mtimeMs > cutoff) continue
    const job = await findImportJob(ctx.db, match[1])
    if (job && job.expires_at >= ctx.now().toISOString() && !name.endsWith('.tmp')) continue
    await fs.rm(file, { force: true })
    removed += 1
  }
  return removed
}
