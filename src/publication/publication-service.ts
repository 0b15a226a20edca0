/*
 * The one publication pipeline (design.md section 4), used by the API, the daily schedule, the
 * report import and legacy generate: lock → build the day's CSV and the harvester XML from the
 * catalog → validate (row rules, header bytes, prices, XSD, MD5 read back from disk) → write a
 * complete new version → switch one pointer → record. Any failure before the switch answers 422
 * with issues and leaves the previous version served untouched.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

import { parse } from 'csv-parse/sync'

import { type Actor, recordAudit } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { keepLockAlive, releaseLock, tryAcquireLock } from '../host/locks.js'
import { isCalendarDate, warsawDate } from '../licensing/license.js'
import { collectDailyInput } from './collect-daily-input.js'
import { buildDailyCsv, DailyCsvError } from './daily-csv.js'
import { getPublicDatasetId } from './dataset.js'
import {
  buildHarvesterXml,
  dailyResourceExtIdent,
  HarvesterXmlError,
  md5Hex,
  officialDatasetTexts,
  officialResourceTexts,
} from './harvester-xml.js'
import { OFFICIAL_COLUMN_COUNT, OFFICIAL_HEADER_LINE } from './official-columns.js'
import { getPublicationSettings, resolvePublishingDeveloper, validateDeveloper } from './publication-settings.js'
import { type Manifest, type ManifestDay, PublicationStore, XML_NAME } from './publication-store.js'
import { validateHarvesterXml } from './validate-xml.js'

export const PUBLICATION_LOCK = 'publication'
const LEASE_MS = 120_000
export const PUBLIC_PATH = '/dane-gov'
export const MD5_NAME = 'dataset.md5'

export type PublicationTrigger = 'api' | 'schedule' | 'admin' | 'legacy_generate' | 'report_import' | 'cli'

/** A stable code with a corrective message in Polish and English. */
export interface PublicationIssue {
  code: string
  message_pl: string
  message_en: string
  details?: Record<string, unknown>
}

export interface PublicationOutcome {
  status: 'published'
  date: string
  version: string
  record_count: number
  csv: { file_name: string; url: string; md5: string; bytes: number }
  xml: { url: string; md5_url: string; md5: string; resources: number }
  published_at: string
  trigger: PublicationTrigger
}

export function publicationStore(ctx: HostContext): PublicationStore {
  return new PublicationStore(path.join(ctx.config.dataDir, 'publication'))
}

export class PublicationFailed extends Error {
  constructor(readonly issues: PublicationIssue[]) {
    super(issues.map((i) => i.code).join(', '))
  }
}

const issue = (
  code: string,
  message_pl: string,
  message_en: string,
  details?: Record<string, unknown>,
): PublicationIssue => ({ code, message_pl, message_en, ...(details ? { details } : {}) })

/** A prepared (not yet switched) CSV for a day: built from the catalog, or given (report import). */
export interface PreparedCsv {
  fileName: string
  content: Buffer
  rows: number
}

export interface PreparedPublication {
  date: string
  csv: PreparedCsv
  manifestDays: ManifestDay[]
  xml: Buffer
  xmlMd5: string
  issues: PublicationIssue[]
  warnings: PublicationIssue[]
}

/** Row rules of the official file, checked on the exact bytes that will be served. */
export function checkCsvBytes(content: Buffer): PublicationIssue[] {
  const issues: PublicationIssue[] = []
  if (content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf) {
    issues.push(
      issue(
        'csv_bom',
        'Plik CSV nie może zaczynać się od znacznika BOM.',
        'The CSV must not start with a byte-order mark.',
      ),
    )
  }
  const newline = content.indexOf(0x0a)
  const header = content.subarray(0, newline === -1 ? content.length : newline).toString('utf8')
  if (header !== OFFICIAL_HEADER_LINE) {
    issues.push(
      issue(
        'csv_header_mismatch',
        'Nagłówki pliku różnią się od wzorcowego zakresu danych (58 kolumn).',
        'The header line differs from the official 58-column template.',
      ),
    )
  }
  let records: string[][] = []
  try {
    records = parse(content, { delimiter: ';', relax_column_count: true })
  } catch (error) {
    issues.push(
      issue('csv_unparseable', 'Pliku CSV nie da się odczytać.', 'The CSV cannot be parsed.', {
        reason: (error as Error).message,
      }),
    )
  }
  records.slice(1).forEach((record, index) => {
    if (record.length !== OFFICIAL_COLUMN_COUNT) {
      issues.push(
        issue(
          'csv_column_count',
          `Wiersz ${index + 2} ma ${record.length} kolumn zamiast 58.`,
          `Row ${index + 2} has ${record.length} columns instead of 58.`,
        ),
      )
    } else if (record.some((cell) => cell === '')) {
      issues.push(
        issue(
          'csv_empty_cell',
          `Wiersz ${index + 2} ma pustą komórkę; użyj znaku X.`,
          `Row ${index + 2} has an empty cell; use X.`,
        ),
      )
    }
  })
  return issues.slice(0, 50)
}

async function prepare(ctx: HostContext, date: string, given?: PreparedCsv): Promise<PreparedPublication> {
  const issues: PublicationIssue[] = []
  const warnings: PublicationIssue[] = []
  const settings = await getPublicationSettings(ctx)
  const developer = await resolvePublishingDeveloper(ctx, settings)
  if (!developer) {
    issues.push(
      issue(
        'developer_missing',
        'Uzupełnij dane dewelopera (kolumny 1–28).',
        'Enter the developer entity data (columns 1–28).',
      ),
    )
  } else {
    for (const problem of validateDeveloper(developer)) {
      issues.push(
        issue(`developer_${problem.code}`, `Popraw dane dewelopera: ${problem.field}.`, problem.message, {
          field: problem.field,
        }),
      )
    }
  }
  if (!settings.public_base_url) {
    issues.push(
      issue(
        'public_base_url_missing',
        'Ustaw publiczny adres https, pod którym serwowane są pliki (public_base_url).',
        'Set the public https address the files are served from (public_base_url).',
      ),
    )
  }
  let csv = given
  if (!csv && developer) {
    const collected = await collectDailyInput(ctx, { date, developer, statuses: settings.published_statuses })
    for (const offer of collected.inconsistent) {
      issues.push(
        issue(
          'price_inconsistent',
          `Oferta ${offer.code}: cena całkowita nie jest iloczynem ceny za m² i powierzchni (z dokładnością do zaokrągleń).`,
          `Offer ${offer.code}: the total is not the m² price × area within rounding.`,
          { offer_id: offer.id },
        ),
      )
    }
    try {
      const built = buildDailyCsv(collected.input)
      csv = { fileName: built.fileName, content: built.content, rows: built.rowCount }
    } catch (error) {
      if (!(error instanceof DailyCsvError)) throw error
      issues.push(
        issue(
          `csv_${error.code}`,
          `Nie można zbudować pliku: ${error.message}`,
          error.message,
          error.offerId === null ? undefined : { offer_id: error.offerId },
        ),
      )
    }
  }
  if (csv) issues.push(...checkCsvBytes(csv.content))

  const previous = await publicationStore(ctx).currentManifest()
  const manifestDays: ManifestDay[] = [...(previous?.days ?? []).filter((d) => d.date !== date)]
  if (csv)
    manifestDays.push({
      date,
      file_name: csv.fileName,
      md5: md5Hex(csv.content),
      rows: csv.rows,
      bytes: csv.content.length,
    })
  manifestDays.sort((a, b) => a.date.localeCompare(b.date))
  if (manifestDays.length >= 900) {
    warnings.push(
      issue(
        'resources_near_limit',
        `Plik XML zawiera ${manifestDays.length} zasobów; portal zaleca do ok. 1000.`,
        `The XML lists ${manifestDays.length} resources; the portal recommends about 1000 at most.`,
      ),
    )
  }

  let xml = Buffer.alloc(0)
  if (developer && settings.public_base_url && csv) {
    const datasetId = await getPublicDatasetId(ctx)
    const base = settings.public_base_url.replace(/\/+$/, '')
    try {
      xml = Buffer.from(
        buildHarvesterXml({
          extIdent: datasetId,
          // the latest listed day names the year, so republishing an older day does not retitle the dataset
          ...officialDatasetTexts(developer.name, Number((manifestDays.at(-1)?.date ?? date).slice(0, 4))),
          resources: manifestDays.map((day) => ({
            extIdent: dailyResourceExtIdent(datasetId, day.date),
            url: `${base}/${day.file_name}`,
            dataDate: day.date,
            ...officialResourceTexts(developer.name, day.date),
          })),
        }),
        'utf8',
      )
    } catch (error) {
      if (!(error instanceof HarvesterXmlError)) throw error
      issues.push(issue(`xml_${error.code}`, `Nie można zbudować pliku XML: ${error.message}`, error.message))
    }
    if (xml.length > 0) {
      const check = await validateHarvesterXml(xml.toString('utf8'))
      if (!check.valid)
        issues.push(
          issue(
            'xml_xsd_invalid',
            'Plik XML nie jest zgodny ze schematem XSD 1.13.',
            'The XML does not validate against the XSD 1.13.',
            { errors: check.errors.slice(0, 10) },
          ),
        )
    }
  }
  return {
    date,
    csv: csv ?? { fileName: '', content: Buffer.alloc(0), rows: 0 },
    manifestDays,
    xml,
    xmlMd5: md5Hex(xml),
    issues,
    warnings,
  }
}

/** Builds and validates without publishing (preflight uses it). */
export async function preparePublication(
  ctx: HostContext,
  date: string,
  given?: PreparedCsv,
): Promise<PreparedPublication> {
  return prepare(ctx, date, given)
}

async function writeVersion(
  ctx: HostContext,
  store: PublicationStore,
  prepared: PreparedPublication,
  version: string,
): Promise<Manifest> {
  const csvMd5 = md5Hex(prepared.csv.content)
  const csvPath = store.csvPath(csvMd5)
  // a stored day file is reused only when its bytes are intact; a damaged one is written again
  const stored = await fs.readFile(csvPath).catch(() => undefined)
  if (!stored || md5Hex(stored) !== csvMd5) await store.writeDurably(csvPath, prepared.csv.content)
  const dir = store.versionDir(version)
  await store.writeDurably(path.join(dir, XML_NAME), prepared.xml)
  await store.writeDurably(path.join(dir, MD5_NAME), prepared.xmlMd5)
  const manifest: Manifest = {
    version,
    created_at: ctx.now().toISOString(),
    xml_md5: prepared.xmlMd5,
    xml_bytes: prepared.xml.length,
    days: prepared.manifestDays,
  }
  await store.writeDurably(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1))
  // proven on the bytes actually on disk, not on what we meant to write
  const [csvBack, xmlBack, md5Back] = await Promise.all([
    fs.readFile(csvPath),
    fs.readFile(path.join(dir, XML_NAME)),
    fs.readFile(path.join(dir, MD5_NAME), 'utf8'),
  ])
  if (md5Hex(csvBack) !== csvMd5 || md5Hex(xmlBack) !== prepared.xmlMd5 || md5Back !== prepared.xmlMd5) {
    throw new PublicationFailed([
      issue(
        'write_verification_failed',
        'Zapisane pliki różnią się od przygotowanych.',
        'The files on disk differ from the prepared ones.',
      ),
    ])
  }
  return manifest
}

export interface PublishArgs {
  date: string
  trigger: PublicationTrigger
  actor: Actor
  /** A ready CSV for the date (report import) instead of one built from the catalog. */
  csv?: PreparedCsv
  /** Already holding the publication lock (the caller took it). */
  lockHeld?: boolean
}

export async function publish(ctx: HostContext, args: PublishArgs): Promise<PublicationOutcome> {
  if (!isCalendarDate(args.date))
    throw new PluginError('invalid_date', 400, { message: 'date must be a real calendar date YYYY-MM-DD' })
  const owner = randomBytes(12).toString('hex')
  if (!args.lockHeld) {
    const lock = await tryAcquireLock(ctx, PUBLICATION_LOCK, owner, LEASE_MS)
    if (!lock.acquired)
      throw new PluginError(
        'publication_in_progress',
        409,
        { message: 'Another publication or report import is running; retry shortly.' },
        { 'Retry-After': 10 },
      )
  }
  const lease = args.lockHeld ? undefined : keepLockAlive(ctx, PUBLICATION_LOCK, owner, LEASE_MS)
  const started = ctx.now()
  const store = publicationStore(ctx)
  let version: string | undefined
  try {
    const prepared = await prepare(ctx, args.date, args.csv)
    if (prepared.issues.length > 0) throw new PublicationFailed(prepared.issues)
    version = store.newVersionId(started)
    const manifest = await writeVersion(ctx, store, prepared, version)
    await store.switchTo(version)
    const settings = await getPublicationSettings(ctx)
    const base = (settings.public_base_url ?? '').replace(/\/+$/, '')
    const finished = ctx.now().toISOString()
    const outcome: PublicationOutcome = {
      status: 'published',
      date: args.date,
      version,
      record_count: prepared.csv.rows,
      csv: {
        file_name: prepared.csv.fileName,
        url: `${base}/${prepared.csv.fileName}`,
        md5: md5Hex(prepared.csv.content),
        bytes: prepared.csv.content.length,
      },
      xml: {
        url: `${base}/${XML_NAME}`,
        md5_url: `${base}/${MD5_NAME}`,
        md5: manifest.xml_md5,
        resources: manifest.days.length,
      },
      published_at: finished,
      trigger: args.trigger,
    }
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('publications')
        .values({
          publication_date: args.date,
          status: 'published',
          trigger: args.trigger,
          actor_name: actorName(args.actor),
          started_at: started.toISOString(),
          finished_at: finished,
          record_count: prepared.csv.rows,
          version,
          csv_md5: outcome.csv.md5,
          xml_md5: manifest.xml_md5,
          issues: JSON.stringify({ outcome, warnings: prepared.warnings }),
        })
        .execute()
      await recordAudit(
        ctx,
        {
          actor: args.actor,
          action: 'publication.publish',
          objectType: 'publication',
          objectId: args.date,
          outcome: 'success',
          details: { version, trigger: args.trigger, records: prepared.csv.rows, xml_md5: manifest.xml_md5 },
        },
        trx,
      )
    })
    return outcome
  } catch (error) {
    if (version) await store.discard(version).catch(() => undefined)
    const issues =
      error instanceof PublicationFailed
        ? error.issues
        : [
            issue(
              'publication_error',
              'Publikacja nie powiodła się; poprzednia wersja jest nadal udostępniana.',
              'The publication failed; the previous version is still served.',
              { reason: (error as Error).message.slice(0, 300) },
            ),
          ]
    if (!(error instanceof PublicationFailed)) ctx.log.error({ err: error }, 'publication failed')
    await ctx.db
      .insertInto('publications')
      .values({
        publication_date: args.date,
        status: 'failed',
        trigger: args.trigger,
        actor_name: actorName(args.actor),
        started_at: started.toISOString(),
        finished_at: ctx.now().toISOString(),
        record_count: null,
        version: null,
        csv_md5: null,
        xml_md5: null,
        issues: JSON.stringify(issues),
      })
      .execute()
      .catch(() => undefined)
    await recordAudit(ctx, {
      actor: args.actor,
      action: 'publication.publish',
      objectType: 'publication',
      objectId: args.date,
      outcome: 'failure',
      details: { trigger: args.trigger, issues: issues.map((i) => i.code) },
    }).catch(() => undefined)
    throw new PluginError('publication_failed', 422, {
      message: 'The publication was not made; the previous version is still served.',
      issues,
    })
  } finally {
    lease?.stop()
    if (!args.lockHeld) await releaseLock(ctx.db, PUBLICATION_LOCK, owner).catch(() => undefined)
  }
}

function actorName(actor: Actor): string {
  return actor.type === 'user' ? actor.login : actor.type
}

export function todayInWarsaw(ctx: HostContext): string {
  return warsawDate(ctx.now())
}
