/*
 * The one publication pipeline (design.md section 4), used by the API, the daily schedule, the
 * report import and legacy generate: lock → new version folder → build the day's CSV from the
 * catalog (row rules and prices checked on the rows, byte rules on the bytes as they are written
 * to the folder) and the harvester XML (XSD-checked in a worker thread meanwhile) → prove the
 * written bytes by their MD5 read back → complete the version → switch one pointer → record. Any
 * failure before the switch answers 422 with issues, removes the new folder and leaves the
 * previous version served untouched.
 */
import { createHash, randomBytes } from 'node:crypto'
import fs, { type FileHandle } from 'node:fs/promises'
import path from 'node:path'

import { type Actor, recordAudit } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { keepLockAlive, releaseLock, tryAcquireLock } from '../host/locks.js'
import { isCalendarDate, warsawDate } from '../licensing/license.js'
import { dailyCompanySlug, developerForCsv, type InconsistentOffer, readDailyOffers } from './collect-daily-input.js'
import { CsvByteChecker } from './csv-byte-check.js'
import { issue, type PublicationIssue } from './publication-issue.js'
import { dailyCsvFileName, DailyCsvError, DailyCsvSerializer } from './daily-csv.js'
import { getPublicDatasetId } from './dataset.js'
import {
  buildHarvesterXml,
  dailyResourceExtIdent,
  HarvesterXmlError,
  md5Hex,
  officialDatasetTexts,
  officialResourceTexts,
} from './harvester-xml.js'
import { getPublicationSettings, resolvePublishingDeveloper, validateDeveloper } from './publication-settings.js'
import { type Manifest, type ManifestDay, PublicationStore, XML_NAME } from './publication-store.js'
import { validateHarvesterXml } from './validate-xml.js'

export const PUBLICATION_LOCK = 'publication'
const LEASE_MS = 120_000
export const PUBLIC_PATH = '/dane-gov'
export const MD5_NAME = 'dataset.md5'

export type PublicationTrigger = 'api' | 'schedule' | 'admin' | 'legacy_generate' | 'report_import' | 'cli'

export type { PublicationIssue } from './publication-issue.js'

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

/** A ready CSV for a day (report import), published as these exact bytes. */
export interface PreparedCsv {
  fileName: string
  content: Buffer
  rows: number
}

/** The day's file of a prepared publication, known by its digest: it is not held in memory. */
export interface PreparedDayFile {
  fileName: string
  md5: string
  bytes: number
  rows: number
}

export interface PreparedPublication {
  date: string
  csv: PreparedDayFile
  manifestDays: ManifestDay[]
  xml: Buffer
  xmlMd5: string
  issues: PublicationIssue[]
  warnings: PublicationIssue[]
}

/** The day's file inside the new version folder, until its bytes are proven and it moves to files/. */
const STAGED_CSV = 'day.csv.part'

/** Hashes and byte-checks the day's file piece by piece as it is built and, when publishing, writes it. */
class DayFileSink {
  private readonly hash = createHash('md5')
  private readonly checker = new CsvByteChecker()
  private bytes = 0

  private constructor(private readonly handle: FileHandle | undefined) {}

  static async open(target: string | undefined): Promise<DayFileSink> {
    return new DayFileSink(target === undefined ? undefined : await fs.open(target, 'wx'))
  }

  async write(piece: Buffer): Promise<void> {
    this.hash.update(piece)
    this.checker.feed(piece)
    this.bytes += piece.length
    for (let done = 0; this.handle && done < piece.length; ) {
      done += (await this.handle.write(piece, done, piece.length - done)).bytesWritten
    }
  }

  async close(): Promise<{ md5: string; bytes: number; issues: PublicationIssue[] }> {
    if (this.handle) {
      try {
        await this.handle.sync()
      } finally {
        await this.handle.close()
      }
    }
    return { md5: this.hash.digest('hex'), bytes: this.bytes, issues: this.checker.finish() }
  }

  /** After a failed build; the partial file goes with its version folder. */
  async abort(): Promise<void> {
    await this.handle?.close().catch(() => undefined)
  }
}

interface CheckedXml {
  fileName: string
  xml: Buffer
  issues: PublicationIssue[]
}

async function buildAndCheckXml(
  developerName: string,
  datasetId: string,
  base: string,
  days: ReadonlyArray<Pick<ManifestDay, 'date' | 'file_name'>>,
  fileName: string,
): Promise<CheckedXml> {
  let xml: Buffer
  try {
    xml = Buffer.from(
      buildHarvesterXml({
        extIdent: datasetId,
        // the latest listed day names the year, so republishing an older day does not retitle the dataset
        ...officialDatasetTexts(developerName, Number((days.at(-1) as { date: string }).date.slice(0, 4))),
        resources: days.map((day) => ({
          extIdent: dailyResourceExtIdent(datasetId, day.date),
          url: `${base}/${day.file_name}`,
          dataDate: day.date,
          ...officialResourceTexts(developerName, day.date),
        })),
      }),
      'utf8',
    )
  } catch (error) {
    if (!(error instanceof HarvesterXmlError)) throw error
    return {
      fileName,
      xml: Buffer.alloc(0),
      issues: [issue(`xml_${error.code}`, `Nie można zbudować pliku XML: ${error.message}`, error.message)],
    }
  }
  const check = await validateHarvesterXml(xml)
  return {
    fileName,
    xml,
    issues: check.valid
      ? []
      : [
          issue(
            'xml_xsd_invalid',
            'Plik XML nie jest zgodny ze schematem XSD 1.13.',
            'The XML does not validate against the XSD 1.13.',
            { errors: check.errors.slice(0, 10) },
          ),
        ],
  }
}

const byDate = (a: { date: string }, b: { date: string }) => a.date.localeCompare(b.date)

/**
 * Builds and validates the day's publication. With `stagedCsv` (publishing) the day's file is
 * written there as it is built and fsynced; without it (preflight) it is only hashed and checked.
 */
async function prepare(
  ctx: HostContext,
  date: string,
  given?: PreparedCsv,
  stagedCsv?: string,
): Promise<PreparedPublication> {
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
  const previous = await publicationStore(ctx).currentManifest()
  const pastDays = (previous?.days ?? []).filter((d) => d.date !== date)

  /*
   * The XML names the day's file but not its content, so it is built now and checked against the
   * XSD in xmllint's worker thread while this thread reads the catalog and writes the CSV.
   */
  let startXml: ((fileName: string) => Promise<CheckedXml>) | undefined
  if (developer && settings.public_base_url) {
    const datasetId = await getPublicDatasetId(ctx)
    const base = settings.public_base_url.replace(/\/+$/, '')
    startXml = (fileName) =>
      buildAndCheckXml(
        developer.name,
        datasetId,
        base,
        [...pastDays, { date, file_name: fileName }].sort(byDate),
        fileName,
      )
  }
  let xmlCheck: Promise<CheckedXml> | undefined
  if (startXml) {
    let fileName = given?.fileName
    try {
      fileName ??= developer ? dailyCsvFileName(date, dailyCompanySlug(developer)) : undefined
    } catch (error) {
      if (!(error instanceof DailyCsvError)) throw error // the CSV build below reports it
    }
    if (fileName !== undefined) {
      xmlCheck = startXml(fileName)
      xmlCheck.catch(() => undefined) // awaited below unless the CSV step throws first
    }
  }

  let csv: PreparedDayFile | undefined
  if (given) {
    const sink = await DayFileSink.open(stagedCsv)
    try {
      await sink.write(given.content)
    } catch (error) {
      await sink.abort()
      throw error
    }
    const written = await sink.close()
    issues.push(...written.issues)
    csv = { fileName: given.fileName, md5: written.md5, bytes: written.bytes, rows: given.rows }
  } else if (developer) {
    const inconsistent: InconsistentOffer[] = []
    let buildError: DailyCsvError | undefined
    const sink = await DayFileSink.open(stagedCsv)
    let built: { fileName: string; rows: number } | undefined
    try {
      let serializer: DailyCsvSerializer | undefined
      try {
        serializer = new DailyCsvSerializer({
          date,
          companySlug: dailyCompanySlug(developer),
          developer: developerForCsv(developer),
        })
      } catch (error) {
        if (!(error instanceof DailyCsvError)) throw error
        buildError = error
      }
      const investments = readDailyOffers(ctx, { developer, statuses: settings.published_statuses, inconsistent })
      for await (const offers of investments) {
        // after a build error the rest of the catalog is still read, so every price problem is listed
        if (!serializer || buildError) continue
        try {
          for (const piece of serializer.add(offers)) await sink.write(Buffer.from(piece, 'utf8'))
        } catch (error) {
          if (!(error instanceof DailyCsvError)) throw error
          buildError = error
        }
      }
      if (serializer && !buildError) {
        await sink.write(Buffer.from(serializer.end(), 'utf8'))
        built = { fileName: serializer.fileName, rows: serializer.rows }
      }
    } catch (error) {
      await sink.abort()
      throw error
    }
    inconsistent.sort((a, b) => a.id - b.id)
    for (const offer of inconsistent) {
      issues.push(
        issue(
          'price_inconsistent',
          `Oferta ${offer.code}: cena całkowita nie jest iloczynem ceny za m² i powierzchni (z dokładnością do zaokrągleń).`,
          `Offer ${offer.code}: the total is not the m² price × area within rounding.`,
          { offer_id: offer.id },
        ),
      )
    }
    if (built) {
      const written = await sink.close()
      issues.push(...written.issues)
      csv = { fileName: built.fileName, md5: written.md5, bytes: written.bytes, rows: built.rows }
    } else {
      await sink.abort()
      const error = buildError as DailyCsvError
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

  const manifestDays: ManifestDay[] = [...pastDays]
  if (csv) manifestDays.push({ date, file_name: csv.fileName, md5: csv.md5, rows: csv.rows, bytes: csv.bytes })
  manifestDays.sort(byDate)
  if (manifestDays.length >= 900) {
    warnings.push(
      issue(
        'resources_near_limit',
        `Plik XML zawiera ${manifestDays.length} zasobów; portal zaleca do ok. 1000.`,
        `The XML lists ${manifestDays.length} resources; the portal recommends about 1000 at most.`,
      ),
    )
  }

  let xml: Buffer = Buffer.alloc(0)
  const checked = xmlCheck ? await xmlCheck : undefined
  if (startXml && csv) {
    // the name the XML was started with is the built file's; rebuilt only if that ever changes
    const final = checked?.fileName === csv.fileName ? checked : await startXml(csv.fileName)
    xml = final.xml
    issues.push(...final.issues)
  }
  return {
    date,
    csv: csv ?? { fileName: '', md5: md5Hex(''), bytes: 0, rows: 0 },
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
  const dir = store.versionDir(version)
  const staged = path.join(dir, STAGED_CSV)
  const verificationFailed = () =>
    new PublicationFailed([
      issue(
        'write_verification_failed',
        'Zapisane pliki różnią się od przygotowanych.',
        'The files on disk differ from the prepared ones.',
      ),
    ])
  // proven on the bytes actually on disk, not on what we meant to write
  const written = await store.digestFile(staged)
  if (written.md5 !== prepared.csv.md5 || written.bytes !== prepared.csv.bytes) throw verificationFailed()
  const csvPath = store.csvPath(prepared.csv.md5)
  // a stored day file is reused only when its bytes are intact; a damaged one is replaced
  const stored = await store.digestFile(csvPath).catch(() => undefined)
  if (stored?.md5 === prepared.csv.md5) await fs.rm(staged)
  else await store.moveDurably(staged, csvPath)

  await store.writeNew(path.join(dir, XML_NAME), prepared.xml)
  await store.writeNew(path.join(dir, MD5_NAME), prepared.xmlMd5)
  const manifest: Manifest = {
    version,
    created_at: ctx.now().toISOString(),
    xml_md5: prepared.xmlMd5,
    xml_bytes: prepared.xml.length,
    days: prepared.manifestDays,
  }
  await store.writeNew(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1))
  await store.syncDir(dir)
  const [xmlBack, md5Back] = await Promise.all([
    fs.readFile(path.join(dir, XML_NAME)),
    fs.readFile(path.join(dir, MD5_NAME), 'utf8'),
  ])
  if (md5Hex(xmlBack) !== prepared.xmlMd5 || md5Back !== prepared.xmlMd5) throw verificationFailed()
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
  let previous: string | undefined
  let switched = false
  try {
    version = store.newVersionId(started)
    const dir = await store.createVersionDir(version)
    const prepared = await prepare(ctx, args.date, args.csv, path.join(dir, STAGED_CSV))
    if (prepared.issues.length > 0) throw new PublicationFailed(prepared.issues)
    const manifest = await writeVersion(ctx, store, prepared, version)
    previous = await store.currentVersion()
    await store.switchTo(version)
    switched = true
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
        md5: prepared.csv.md5,
        bytes: prepared.csv.bytes,
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
    // a failure after the switch (the publication could not be recorded) switches back, so that
    // what is served is always a recorded publication; only if that fails too does the new one stay
    if (version && switched) {
      try {
        if (previous) await store.switchTo(previous)
        else await store.clearCurrent()
        switched = false
      } catch (restore) {
        ctx.log.error({ err: restore }, 'publication: the previous version could not be served again')
      }
    }
    if (version && !switched) await store.discard(version).catch(() => undefined)
    if (switched) {
      throw new PluginError('publication_failed', 422, {
        message:
          'The new version is served but could not be recorded, and the previous one could not be restored; check the data directory and the database.',
        issues: [
          issue(
            'publication_not_recorded',
            'Nowa wersja jest udostępniana, ale nie została zapisana w bazie; sprawdź bazę danych i katalog danych.',
            'The new version is served but was not recorded in the database; check the database and the data directory.',
            { reason: (error as Error).message.slice(0, 300), version },
          ),
        ],
      })
    }
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
