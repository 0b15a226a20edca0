/*
 * The one publication pipeline (docs/decisions/publication-pipeline.md), used by the API, the daily schedule, the
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
import { englishCount, polishCount } from '../host/plural.js'
import type { HostContext } from '../host/context.js'
import type { DeveloperRow } from '../host/db/schema.js'
import { PluginError } from '../host/errors.js'
import { keepLockAlive, releaseLock, tryAcquireLock } from '../host/locks.js'
import { measured, recordPublication } from '../host/metrics.js'
import { addDays, isCalendarDate, todayInWarsaw } from '../host/warsaw-day.js'
import {
  dailyCompanySlug,
  developerForCsv,
  type DailyFileGaps,
  type InconsistentOffer,
  noGaps,
  readDailyOffers,
  type UntypedOffer,
} from './daily-file/collect-daily-input.js'
import { CsvByteChecker } from './daily-file/csv-byte-check.js'
import { issue, type PublicationIssue } from './publication-issue.js'
import { dailyCsvFileName, DailyCsvError, DailyCsvSerializer } from './daily-file/daily-csv.js'
import { getPublicDatasetId } from './daily-file/dataset.js'
import { buildHarvesterXml, dailyResourceExtIdent, HarvesterXmlError, md5Hex } from './daily-file/harvester-xml.js'
import {
  datasetTexts,
  datasetUrlFinding,
  type FrozenResource,
  frozenResources,
  newResourceTexts,
  portalResources,
  trialResourcesDroppedWarning,
} from './daily-file/dataset-resources.js'
import { type Dataset, datasetBase, datasetOf, datasetStore, primaryDataset } from './daily-file/datasets.js'
import { getPublicationSettings, validateDeveloper } from './settings/publication-settings.js'
import { type Manifest, type ManifestDay, PublicationStore, XML_NAME } from './publication-store.js'
import { firstPublishedTimes, firstPublishedUrls } from './publications-repository.js'
import { validateHarvesterXml } from './daily-file/validate-xml.js'
import { type InvariantReport, OfficialFileInvariants } from './invariants/official-file-invariants.js'

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
  /** The developer entity whose dataset this is. */
  developer_id: number | null
  /** That dataset's extIdent on dane.gov.pl. */
  public_dataset_id: string | null
  /** Offers left out of the file because they have no type yet (each named in `warnings`). */
  offers_without_type: number
  /** What the file shows incompletely (each named in `warnings`). */
  gaps: Record<string, number>
  /** Findings that did not stop the publication (offers without type, a trial http address…). */
  warnings: PublicationIssue[]
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
  /** Where the resource is served, as recorded (absent until built). */
  url?: string
}

export interface PreparedPublication {
  date: string
  csv: PreparedDayFile
  manifestDays: ManifestDay[]
  xml: Buffer
  xmlMd5: string
  issues: PublicationIssue[]
  warnings: PublicationIssue[]
  /** Listed offers left out because they have no type (contract 4.7.6: never guessed). */
  offersWithoutType: UntypedOffer[]
  /** What the file shows incompletely, each also a warning. */
  gaps: DailyFileGaps
  /** The units the file itself shows without a price, by kind (its invariants' gaps). */
  fileGaps: Record<string, number>
}

/** The day's file inside the new version folder, until its bytes are proven and it moves to files/. */
const STAGED_CSV = 'day.csv.part'

/**
 * Hashes, byte-checks and checks the legal invariants of the day's file piece by piece as it is
 * built and, when publishing, writes it: every path that publishes a file (schedule, API, report
 * import, legacy generate) writes it through here, so none can skip the invariants.
 */
class DayFileSink {
  private readonly hash = createHash('md5')
  private readonly checker = new CsvByteChecker()
  private readonly invariants: OfficialFileInvariants
  private bytes = 0

  private constructor(
    private readonly handle: FileHandle | undefined,
    day: string,
  ) {
    this.invariants = new OfficialFileInvariants(day)
  }

  static async open(target: string | undefined, day: string): Promise<DayFileSink> {
    return new DayFileSink(target === undefined ? undefined : await fs.open(target, 'wx'), day)
  }

  async write(piece: Buffer): Promise<void> {
    this.hash.update(piece)
    this.checker.feed(piece)
    this.invariants.feed(piece)
    this.bytes += piece.length
    for (let done = 0; this.handle && done < piece.length; ) {
      done += (await this.handle.write(piece, done, piece.length - done)).bytesWritten
    }
  }

  async close(): Promise<{ md5: string; bytes: number; issues: PublicationIssue[]; invariants: InvariantReport }> {
    if (this.handle) {
      try {
        await this.handle.sync()
      } finally {
        await this.handle.close()
      }
    }
    const invariants = this.invariants.finish()
    return {
      md5: this.hash.digest('hex'),
      bytes: this.bytes,
      issues: [...this.checker.finish(), ...invariants.violations],
      invariants,
    }
  }

  /** After a failed build; the partial file goes with its version folder. */
  async abort(): Promise<void> {
    await this.handle?.close().catch(() => undefined)
  }
}

interface CheckedXml {
  fileName: string
  /** How many resources it lists. */
  resources: number
  xml: Buffer
  issues: PublicationIssue[]
}

/** A resource whose URL and extIdent are known. */
type AddressedResource = ManifestDay & { url: string; ext_ident: string }

/** A listed resource whose URL, extIdent, texts and publication time are known: none of them changes. */
export type RecordedResource = FrozenResource<AddressedResource>

/**
 * The resources of a manifest with the URL and extIdent each was first published with. Manifests
 * written before these were recorded lack them: the URL is then taken from the first publication
 * recorded for that day (its outcome names it), else built from the current address; the extIdent
 * is the one the XML always derived.
 */
export async function recordedResources(
  ctx: HostContext,
  days: readonly ManifestDay[],
  datasetId: string,
  base: string | null,
): Promise<AddressedResource[]> {
  const legacy = days.filter((d) => d.url === undefined || d.ext_ident === undefined)
  let firstUrls = new Map<string, string>()
  if (legacy.length > 0) firstUrls = await firstPublishedUrls(ctx.db)
  return days.map((day) =>
    day.url !== undefined && day.ext_ident !== undefined
      ? (day as AddressedResource)
      : {
          ...day,
          url: day.url ?? firstUrls.get(day.file_name) ?? `${base ?? ''}/${day.file_name}`,
          ext_ident: day.ext_ident ?? dailyResourceExtIdent(datasetId, day.date, day.revision ?? 1),
        },
  )
}

/**
 * Days nobody published: every date from the first listed day to the day before `date` without a
 * file of its own, gaps between published days included (a missed day stays missed until a report
 * import fills it), at most the latest 1000.
 */
export function missedDays(listedDates: readonly string[], date: string): string[] {
  const listed = new Set(listedDates)
  const first = [...listed].filter((d) => d < date).sort()[0]
  if (first === undefined) return []
  const missed: string[] = []
  for (let day = addDays(first, 1); day < date; day = addDays(day, 1)) {
    if (!listed.has(day)) missed.push(day)
  }
  return missed.slice(-1000)
}

/**
 * The days missed since the latest listed day before `date`: what a publication of `date` or an
 * alert of that day newly has to tell (older gaps were told when they were new, and stay listed
 * by missedDays until a report fills them).
 */
export function daysMissedSinceLastFile(listedDates: readonly string[], date: string): string[] {
  const last = listedDates
    .filter((d) => d < date)
    .sort()
    .at(-1)
  return last === undefined ? [] : missedDays([last], date)
}

function missedDaysWarning(dates: string[]): PublicationIssue {
  const shown = dates.length > 10 ? `${dates.slice(0, 10).join(', ')} …` : dates.join(', ')
  return issue(
    'publication_days_missed',
    `Nie opublikowano pliku za ${polishCount(dates.length, ['dzień', 'dni', 'dni'])}: ${shown}. Pliku za miniony dzień nie da się odtworzyć z dzisiejszych cen; jeśli masz raport z tamtego dnia, opublikuj go importem raportu (58 kolumn) z datą tego dnia.`,
    `No file was published for ${englishCount(dates.length, ['day', 'days'])}: ${shown}. A past day's file cannot be rebuilt from today's prices; if you have that day's report, publish it with the report import for its date.`,
    { dates },
  )
}

/**
 * A day's file reflects that day and never changes once the day has ended (Europe/Warsaw): only
 * today is built from the catalog; a past day only by the report import, which carries that day's
 * own data, and only when nothing was published for it.
 */
export function publicationDayFinding(
  ctx: HostContext,
  date: string,
  ownData: boolean,
  published: boolean,
): PublicationIssue | undefined {
  const today = todayInWarsaw(ctx)
  if (date > today)
    return issue(
      'publication_date_future',
      `Nie można opublikować cennika z datą przyszłą (${date}); dzisiaj jest ${today}. Plik dnia powstaje z cen obowiązujących tego dnia.`,
      `A future date (${date}) cannot be published; today is ${today}. A day's file is made from the prices of that day.`,
      { date, today },
    )
  if (date < today && published)
    return issue(
      'publication_day_closed',
      `Plik z dnia ${date} został już opublikowany, a ten dzień się skończył: jego treść i adres nie mogą się zmienić. Zmiany cen trafią do pliku dzisiejszego (${today}).`,
      `The file of ${date} was published and that day has ended: its content and URL never change. Price changes go into today's file (${today}).`,
      { date, today },
    )
  if (date < today && !ownData)
    return issue(
      'publication_date_past',
      `Dzień ${date} minął i nie ma dla niego pliku; nie da się go odtworzyć z dzisiejszych cen. Opublikuj go importem raportu (58 kolumn) z danymi z tamtego dnia albo opublikuj dzisiejszy plik (${today}).`,
      `${date} has passed without a file; it cannot be rebuilt from today's prices. Publish that day's report with the report import, or publish today's file (${today}).`,
      { date, today },
    )
  return undefined
}

async function buildAndCheckXml(
  developer: DeveloperRow,
  datasetId: string,
  base: string,
  resources: readonly RecordedResource[],
  fileName: string,
  trialAllowed: boolean,
): Promise<CheckedXml> {
  const trial = trialAllowed && isTrialAddress(base)
  let xml: Buffer
  try {
    xml = Buffer.from(
      buildHarvesterXml({
        allowHttp: trial,
        extIdent: datasetId,
        // the years of the listed days, the entity's own notes and page
        ...datasetTexts(developer, resources),
        url: developer.dataset_url,
        resources: resources.map((day) => ({
          extIdent: day.ext_ident,
          url: day.url,
          dataDate: day.date,
          // as first published: renaming the developer does not rewrite past resources
          titlePl: day.title_pl,
          titleEn: day.title_en,
          descriptionPl: day.description_pl,
          descriptionEn: day.description_en,
        })),
      }),
      'utf8',
    )
  } catch (error) {
    if (!(error instanceof HarvesterXmlError)) throw error
    return {
      fileName,
      resources: resources.length,
      xml: Buffer.alloc(0),
      issues: [issue(`xml_${error.code}`, `Nie można zbudować pliku XML: ${error.message}`, error.message)],
    }
  }
  /*
   * The XSD requires https:// URLs, which a trial address cannot meet; the rest of the file is
   * proven by validating it as it would read behind an https address.
   */
  const check = await validateHarvesterXml(
    trial ? Buffer.from(xml.toString('utf8').replaceAll('<url>http://', '<url>https://'), 'utf8') : xml,
  )
  return {
    fileName,
    resources: resources.length,
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

/** An http:// public address: accepted outside production only, for local trials (the demo). */
export function isTrialAddress(base: string): boolean {
  return base.startsWith('http://')
}

function publicAddressFindings(
  ctx: HostContext,
  base: string,
): { issue?: PublicationIssue; warning?: PublicationIssue } {
  if (!isTrialAddress(base)) return {}
  if (ctx.config.env === 'production')
    return {
      issue: issue(
        'public_base_url_not_https',
        'W produkcji (DG_ENV=production) publiczny adres plików (Ustawienia, zakładka „Publikacja”) musi zaczynać się od https://; portal dane.gov.pl nie pobiera plików przez http.',
        'In production (DG_ENV=production) the public address of the files (public_base_url) must start with https://; dane.gov.pl does not fetch over http.',
        { public_base_url: base },
      ),
    }
  return {
    warning: issue(
      'public_url_http_trial',
      'Publiczny adres plików to http:// — wystarcza do próby na tym komputerze, ale portal dane.gov.pl pobiera pliki tylko przez https:// na porcie 443. Przed zgłoszeniem zbioru ustaw adres https za serwerem proxy (DG_ENV=production).',
      'The public address of the files is http:// — enough for a trial on this machine, but dane.gov.pl only fetches over https:// on port 443. Before registering the dataset, set an https address behind the proxy (DG_ENV=production).',
      { public_base_url: base },
    ),
  }
}

/**
 * Builds and validates the day's publication. With `stagedCsv` (publishing) the day's file is
 * written there as it is built and fsynced; without it (preflight) it is only hashed and checked.
 */
async function prepare(
  ctx: HostContext,
  date: string,
  dataset: Dataset | undefined,
  given?: PreparedCsv,
  stagedCsv?: string,
): Promise<PreparedPublication> {
  const issues: PublicationIssue[] = []
  const warnings: PublicationIssue[] = []
  const offersWithoutType: UntypedOffer[] = []
  const gaps = noGaps()
  const settings = await getPublicationSettings(ctx)
  const developer = dataset?.developer
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
        'Ustaw publiczny adres plików (https), pod którym usługa udostępnia pliki: Ustawienia, zakładka „Publikacja”.',
        'Set the public https address the files are served from: Settings, tab “Publication”.',
      ),
    )
  }
  if (settings.public_base_url) {
    const found = publicAddressFindings(ctx, settings.public_base_url.replace(/\/+$/, ''))
    if (found.issue) issues.push(found.issue)
    if (found.warning) warnings.push(found.warning)
  }
  const store = dataset ? datasetStore(ctx, dataset) : undefined
  const previous = store ? await store.currentManifest() : undefined
  const datasetId = dataset?.extIdent ?? (await getPublicDatasetId(ctx))
  const base = settings.public_base_url && dataset ? datasetBase(settings.public_base_url, dataset) : null
  const trial = ctx.config.env !== 'production' && base !== null && isTrialAddress(base)
  if (developer) {
    const found = datasetUrlFinding(developer, ctx.config.env === 'production')
    if (found.issue) issues.push(found.issue)
    if (found.warning) warnings.push(found.warning)
  }
  // every resource listed so far, with the URL, extIdent, texts and time it was first published with
  const portal = portalResources(await recordedResources(ctx, previous?.days ?? [], datasetId, base), trial)
  if (portal.dropped.length > 0) warnings.push(trialResourcesDroppedWarning(portal.dropped))
  const listed: RecordedResource[] = store
    ? await frozenResources(
        store,
        portal.kept,
        developer?.name ?? '',
        () => firstPublishedTimes(ctx.db),
        previous?.created_at ?? ctx.now().toISOString(),
      )
    : []
  const sameDay = listed.filter((d) => d.date === date)
  const dayFinding = publicationDayFinding(ctx, date, given !== undefined, sameDay.length > 0)
  if (dayFinding) issues.push(dayFinding)
  const missed = daysMissedSinceLastFile(
    listed.map((d) => d.date),
    date,
  )
  if (missed.length > 0) warnings.push(missedDaysWarning(missed))

  /** The resource a file of this name and content adds, or none when it repeats the day's latest bytes. */
  const newResource = (fileName: string, md5: string | undefined): RecordedResource | undefined => {
    const latest = sameDay.at(-1)
    if (latest && md5 !== undefined && latest.md5 === md5) return undefined
    const revision = (latest?.revision ?? 0) + 1
    const name = revision === 1 ? fileName : fileName.replace(/\.csv$/, `-v${revision}.csv`)
    return {
      date,
      file_name: name,
      md5: md5 ?? '',
      rows: 0,
      bytes: 0,
      url: `${base ?? ''}/${name}`,
      ext_ident: dailyResourceExtIdent(datasetId, date, revision),
      revision,
      ...newResourceTexts(developer?.name ?? '', date, revision, ctx.now().toISOString()),
    }
  }
  const resourcesWith = (added: RecordedResource | undefined): RecordedResource[] =>
    added ? [...listed, added].sort(byDate) : listed

  /*
   * The XML names the day's file but not its content, so it is built now and checked against the
   * XSD in xmllint's worker thread while this thread reads the catalog and writes the CSV. It is
   * started as if the day's file were new; a republication with the day's latest bytes lists no new
   * resource and is rebuilt below.
   */
  let startXml: ((resources: RecordedResource[], fileName: string) => Promise<CheckedXml>) | undefined
  if (developer && base !== null) {
    startXml = (resources, fileName) =>
      buildAndCheckXml(developer, datasetId, base, resources, fileName, ctx.config.env !== 'production')
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
      const guess = newResource(fileName, undefined)
      xmlCheck = startXml(resourcesWith(guess), guess?.file_name ?? fileName)
      xmlCheck.catch(() => undefined) // awaited below unless the CSV step throws first
    }
  }

  let csv: PreparedDayFile | undefined
  let fileGaps: InvariantReport | undefined
  if (given) {
    const sink = await DayFileSink.open(stagedCsv, date)
    try {
      await sink.write(given.content)
    } catch (error) {
      await sink.abort()
      throw error
    }
    const written = await sink.close()
    issues.push(...written.issues)
    fileGaps = written.invariants
    csv = { fileName: given.fileName, md5: written.md5, bytes: written.bytes, rows: given.rows }
  } else if (developer) {
    const inconsistent: InconsistentOffer[] = []
    let buildError: DailyCsvError | undefined
    const sink = await DayFileSink.open(stagedCsv, date)
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
      const investments = readDailyOffers(ctx, {
        day: date,
        developer,
        includeUnassigned: dataset?.primary ?? true,
        statuses: settings.published_statuses,
        inconsistent,
        untyped: offersWithoutType,
        gaps,
      })
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
      fileGaps = written.invariants
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

  if (offersWithoutType.length > 0) warnings.push(untypedOffersWarning(offersWithoutType))
  warnings.push(...gapWarnings(gaps))
  // the file's own gaps (a report's file has no catalog reading): each kind named once
  for (const gap of fileGaps?.gaps ?? []) if (!warnings.some((w) => w.code === gap.code)) warnings.push(gap)

  let manifestDays: ManifestDay[] = listed
  let dayFile: RecordedResource | undefined
  if (csv) {
    const added = newResource(csv.fileName, csv.md5)
    if (added) {
      added.rows = csv.rows
      added.bytes = csv.bytes
    }
    manifestDays = resourcesWith(added)
    dayFile = added ?? sameDay.at(-1)
  }
  if (manifestDays.length >= 900) {
    warnings.push(
      issue(
        'resources_near_limit',
        `Plik XML zawiera ${polishCount(manifestDays.length, ['zasób', 'zasoby', 'zasobów'])}; portal zaleca do ok. 1000.`,
        `The XML lists ${manifestDays.length} resources; the portal recommends about 1000 at most.`,
      ),
    )
  }

  let xml: Buffer = Buffer.alloc(0)
  const checked = xmlCheck ? await xmlCheck : undefined
  if (startXml && csv && dayFile) {
    // the XML started with the guessed list is kept when the final list names the same files
    const final =
      checked?.fileName === dayFile.file_name && manifestDays.length === (checked?.resources ?? -1)
        ? checked
        : await startXml(manifestDays as RecordedResource[], dayFile.file_name)
    xml = final.xml
    issues.push(...final.issues)
  }
  if (csv && dayFile) csv = { ...csv, fileName: dayFile.file_name, url: dayFile.url }
  return {
    date,
    csv: csv ?? { fileName: '', md5: md5Hex(''), bytes: 0, rows: 0 },
    manifestDays,
    xml,
    xmlMd5: md5Hex(xml),
    issues,
    warnings,
    offersWithoutType,
    gaps,
    fileGaps: fileGaps?.gapCounts ?? {},
  }
}

function named(list: { code?: string; title?: string; id: number }[]): { pl: string; en: string } {
  const shown = list.slice(0, NAMED_IN_MESSAGE).map((o) => o.code || o.title || `#${o.id}`)
  const more = list.length - shown.length
  return {
    pl: `${shown.join(', ')}${more > 0 ? ` i ${polishCount(more, ['inny', 'inne', 'innych'])}` : ''}`,
    en: `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
  }
}

/** The file's incomplete places as warnings: published all the same, never silently. */
function gapWarnings(gaps: DailyFileGaps): PublicationIssue[] {
  const out: PublicationIssue[] = []
  if (gaps.offersWithoutPrice.length > 0) {
    const n = named(gaps.offersWithoutPrice)
    out.push(
      issue(
        'offer_price_missing',
        `${polishCount(gaps.offersWithoutPrice.length, ['oferowany lokal nie ma ceny i w pliku ma', 'oferowane lokale nie mają ceny i w pliku mają', 'oferowanych lokali nie ma ceny i w pliku ma'])} X zamiast ceny: ${n.pl}. Ustawa wymaga podania ceny każdego oferowanego lokalu: uzupełnij cenę (import, webhook lub edytor) albo zmień status oferty.`,
        `${englishCount(gaps.offersWithoutPrice.length, ['offered unit has', 'offered units have'])} no price and show X instead of a price: ${n.en}. The act requires the price of every offered unit: enter the price (import, webhook or editor) or change the offer's status.`,
        { count: gaps.offersWithoutPrice.length, offers: gaps.offersWithoutPrice },
      ),
    )
  }
  if (gaps.combinedPriceMissing.length > 0) {
    const n = named(gaps.combinedPriceMissing)
    out.push(
      issue(
        'price_combined_missing',
        `${polishCount(gaps.combinedPriceMissing.length, ['lokal ma wycenione części, pomieszczenia przynależne lub prawa, ale nie ma', 'lokale mają wycenione części, pomieszczenia przynależne lub prawa, ale nie mają', 'lokali ma wycenione części, pomieszczenia przynależne lub prawa, ale nie ma'])} ceny lokalu, więc kolumny 42 (cena łączna) nie da się obliczyć i ma X: ${n.pl}. Podaj cenę całkowitą lokalu w edytorze oferty (pole „Cena całkowita”); cena łączna zostanie wtedy obliczona.`,
        `${englishCount(gaps.combinedPriceMissing.length, ['unit has', 'units have'])} priced parts, appurtenant rooms or rights but no total, so column 42 (combined price) cannot be computed and is X: ${n.en}. Enter the unit's total price in the offer editor.`,
        { count: gaps.combinedPriceMissing.length, offers: gaps.combinedPriceMissing },
      ),
    )
  }
  if (gaps.combinedPackageHeld.length > 0) {
    const n = named(gaps.combinedPackageHeld)
    out.push(
      issue(
        'price_combined_package_held',
        `${polishCount(gaps.combinedPackageHeld.length, ['lokal ma cenę pakietową (cenę z elementami dodatkowymi), której nie publikujemy', 'lokale mają ceny pakietowe (ceny z elementami dodatkowymi), których nie publikujemy', 'lokali ma ceny pakietowe (ceny z elementami dodatkowymi), których nie publikujemy'])}, bo cena lokalu albo części zmieniła się po ich ustaleniu (albo cena pakietowa jest niższa niż cena lokalu): ${n.pl}. W kolumnie 42 jest cena lokalu plus ceny części, pomieszczeń przynależnych i praw. Jeśli cena pakietowa nadal obowiązuje, wpisz ją ponownie w edytorze oferty (pole „Cena z elementami dodatkowymi”); jeśli nie, usuń ją.`,
        `${englishCount(gaps.combinedPackageHeld.length, ['unit has a package price', 'units have package prices'])} (stored combined price) that is not published because the total or a part changed after it was set (or it is below the total): ${n.en}. Column 42 shows the total plus the parts, appurtenant rooms and rights. If the package price still holds, enter it again in the offer editor; otherwise remove it.`,
        { count: gaps.combinedPackageHeld.length, offers: gaps.combinedPackageHeld },
      ),
    )
  }
  if (gaps.offersWithoutPriceM2.length > 0) {
    const n = named(gaps.offersWithoutPriceM2)
    out.push(
      issue(
        'offer_price_m2_missing',
        `${polishCount(gaps.offersWithoutPriceM2.length, ['lokal ma cenę całkowitą, ale nie ma', 'lokale mają cenę całkowitą, ale nie mają', 'lokali ma cenę całkowitą, ale nie ma'])} ceny za m² (w pliku X w kolumnach 38–39): ${n.pl}. Ustawa wymaga obu cen: podaj cenę za m² w edytorze oferty (pole „Cena za m²”), importem lub webhookiem.`,
        `${englishCount(gaps.offersWithoutPriceM2.length, ['unit has', 'units have'])} a total but no price per m² (X in columns 38–39): ${n.en}. Enter the price per m².`,
        { count: gaps.offersWithoutPriceM2.length, offers: gaps.offersWithoutPriceM2 },
      ),
    )
  }
  if (gaps.offersWithoutTotal.length > 0) {
    const n = named(gaps.offersWithoutTotal)
    out.push(
      issue(
        'offer_price_total_missing',
        `${polishCount(gaps.offersWithoutTotal.length, ['lokal ma cenę za m², ale nie ma', 'lokale mają cenę za m², ale nie mają', 'lokali ma cenę za m², ale nie ma'])} ceny całkowitej (w pliku X w kolumnach 40–41): ${n.pl}. Podaj cenę całkowitą w edytorze oferty (pole „Cena całkowita”), importem lub webhookiem.`,
        `${englishCount(gaps.offersWithoutTotal.length, ['unit has', 'units have'])} a price per m² but no total (X in columns 40–41): ${n.en}. Enter the total price.`,
        { count: gaps.offersWithoutTotal.length, offers: gaps.offersWithoutTotal },
      ),
    )
  }
  if (gaps.offersLeftOutByStatus.length > 0) {
    const n = named(gaps.offersLeftOutByStatus)
    out.push(
      issue(
        'offers_left_out_by_status',
        `${polishCount(gaps.offersLeftOutByStatus.length, ['lokal w sprzedaży (wolny lub zarezerwowany) nie trafia', 'lokale w sprzedaży (wolne lub zarezerwowane) nie trafiają', 'lokali w sprzedaży (wolnych lub zarezerwowanych) nie trafia'])} do pliku, bo ich status nie jest publikowany: ${n.pl}. Ustawa wymaga publikacji cen każdego oferowanego lokalu: w Ustawieniach, zakładka „Publikacja”, w polu „Oferty w pliku dnia” zaznacz „wolne” i „zarezerwowane”.`,
        `${englishCount(gaps.offersLeftOutByStatus.length, ['unit on sale is', 'units on sale are'])} left out of the file because their status is not published: ${n.en}. In Settings, tab “Publication”, tick “available” and “reserved” under “Offers in the day’s file”.`,
        { count: gaps.offersLeftOutByStatus.length, offers: gaps.offersLeftOutByStatus },
      ),
    )
  }
  if (gaps.offersHiddenInDraft.length > 0) {
    const n = named(gaps.offersHiddenInDraft)
    out.push(
      issue(
        'offers_hidden_in_draft',
        `${polishCount(gaps.offersHiddenInDraft.length, ['lokal w sprzedaży jest ukryty jako szkic i nie trafia', 'lokale w sprzedaży są ukryte jako szkice i nie trafiają', 'lokali w sprzedaży jest ukrytych jako szkice i nie trafia'])} do pliku: ${n.pl}. Jeśli lokal jest oferowany, w edytorze oferty ustaw „Status publikacji” na „opublikowana” i kliknij „Zapisz dane oferty”; jeśli nie, zmień jego status (np. na „niedostępne”).`,
        `${englishCount(gaps.offersHiddenInDraft.length, ['unit on sale is', 'units on sale are'])} hidden as drafts and left out of the file: ${n.en}. Publish them in the offer editor, or change their status.`,
        { count: gaps.offersHiddenInDraft.length, offers: gaps.offersHiddenInDraft },
      ),
    )
  }
  if (gaps.investmentsWithoutLocation.length > 0) {
    const n = named(gaps.investmentsWithoutLocation)
    out.push(
      issue(
        'investment_location_missing',
        `Inwestycje bez pełnej lokalizacji (kolumny 29–35 mają X): ${n.pl}. Uzupełnij województwo, powiat, gminę, miejscowość, ulicę, numer i kod pocztowy.`,
        `Investments without a full location (columns 29–35 show X): ${n.en}. Enter the voivodeship, county, municipality, city, street, number and postal code.`,
        { count: gaps.investmentsWithoutLocation.length, investments: gaps.investmentsWithoutLocation },
      ),
    )
  }
  if (gaps.partsListedTwice.length > 0) {
    const list = gaps.partsListedTwice.slice(0, NAMED_IN_MESSAGE)
    const pl = list.map((p) => `${p.designation} (${p.units.join(', ')})`).join('; ')
    out.push(
      issue(
        'part_listed_twice',
        `Te same części lub pomieszczenia są w pliku kilka razy — przy dwóch lokalach albo przy lokalu i osobno: ${pl}. Część należy do jednego lokalu albo jest sprzedawana osobno: usuń ją w edytorze oferty tam, gdzie jest zbędna.`,
        `The same parts or rooms appear more than once in the file — with two units, or with a unit and on their own: ${pl}. A part belongs to one unit or is sold on its own: remove it in the offer editor where it does not belong.`,
        { count: gaps.partsListedTwice.length, parts: gaps.partsListedTwice },
      ),
    )
  }
  if (gaps.investmentsWithoutProspectus.length > 0) {
    const n = named(gaps.investmentsWithoutProspectus)
    out.push(
      issue(
        'investment_prospectus_missing',
        `Inwestycje bez adresu prospektu informacyjnego (kolumna 58 ma X): ${n.pl}.`,
        `Investments without a prospectus URL (column 58 shows X): ${n.en}.`,
        { count: gaps.investmentsWithoutProspectus.length, investments: gaps.investmentsWithoutProspectus },
      ),
    )
  }
  return out
}

/** The counts of a publication outcome and of /status. */
export function gapCounts(gaps: DailyFileGaps, fileGaps: Record<string, number> = {}): Record<string, number> {
  const counts: Record<string, number> = {
    offers_without_price: gaps.offersWithoutPrice.length,
    offers_without_price_m2: gaps.offersWithoutPriceM2.length,
    offers_without_total: gaps.offersWithoutTotal.length,
    combined_price_missing: gaps.combinedPriceMissing.length,
    combined_package_held: gaps.combinedPackageHeld.length,
    offers_left_out_by_status: gaps.offersLeftOutByStatus.length,
    offers_hidden_in_draft: gaps.offersHiddenInDraft.length,
    investments_without_location: gaps.investmentsWithoutLocation.length,
    investments_without_prospectus: gaps.investmentsWithoutProspectus.length,
  }
  // a file not read from the catalog (a report) has only its own rows to show its gaps
  const fromFile: Record<string, string> = {
    offer_price_missing: 'offers_without_price',
    offer_price_m2_missing: 'offers_without_price_m2',
    offer_price_total_missing: 'offers_without_total',
  }
  for (const [code, count] of Object.entries(fileGaps)) {
    const key = fromFile[code]
    if (key !== undefined) counts[key] = Math.max(counts[key] ?? 0, count)
  }
  return counts
}

/** How many designations a message names; the details list them all. */
const NAMED_IN_MESSAGE = 20

function untypedOffersWarning(offers: UntypedOffer[]): PublicationIssue {
  const sorted = [...offers].sort((a, b) => a.id - b.id)
  const shown = sorted.slice(0, NAMED_IN_MESSAGE).map((o) => o.code || `#${o.id}`)
  const more = sorted.length - shown.length
  const listPl = `${shown.join(', ')}${more > 0 ? ` i ${polishCount(more, ['inna', 'inne', 'innych'])}` : ''}`
  const listEn = `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`
  return issue(
    'offer_type_missing',
    `${polishCount(sorted.length, ['oferta bez rodzaju nie trafi', 'oferty bez rodzaju nie trafią', 'ofert bez rodzaju nie trafi'])} do pliku dziennego: ${listPl}. Ustaw rodzaj (mieszkanie lub dom) w edytorze oferty albo w kolumnie „Rodzaj (mieszkanie albo dom)” importu lub w polu rodzaju webhooka; rodzaj nigdy nie jest zgadywany.`,
    `${englishCount(sorted.length, ['offer without a type is', 'offers without a type are'])} left out of the daily file: ${listEn}. Set the type (mieszkanie or dom) with the prop_type field of the import or the webhook, or in the offer editor; the type is never guessed.`,
    { count: sorted.length, offers: sorted.map((o) => ({ id: o.id, code: o.code })) },
  )
}

/** Builds and validates without publishing (preflight uses it); the primary dataset by default. */
export async function preparePublication(
  ctx: HostContext,
  date: string,
  given?: PreparedCsv,
  developerId?: number | null,
): Promise<PreparedPublication> {
  return prepare(ctx, date, await datasetOrNone(ctx, developerId), given)
}

/** The dataset to publish; none while no developer entity exists (prepare reports it). */
async function datasetOrNone(ctx: HostContext, developerId: number | null | undefined): Promise<Dataset | undefined> {
  if (developerId === undefined || developerId === null) return primaryDataset(ctx)
  return datasetOf(ctx, developerId)
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
  /** The developer entity whose dataset is published; the publishing developer's by default. */
  developerId?: number | null
}

export const publish = measured(publishOnce, recordPublication)

async function publishOnce(ctx: HostContext, args: PublishArgs): Promise<PublicationOutcome> {
  if (!isCalendarDate(args.date))
    throw new PluginError('invalid_date', 400, { message: 'date must be a real calendar date YYYY-MM-DD' })
  const dataset = await datasetOrNone(ctx, args.developerId)
  const store = dataset ? datasetStore(ctx, dataset) : publicationStore(ctx)
  // a refused date is an answer to the request, not a failed publication of that day
  const published = (await store.currentManifest())?.days.some((d) => d.date === args.date) ?? false
  const refused = publicationDayFinding(ctx, args.date, args.csv !== undefined, published)
  if (refused) throw new PluginError(refused.code, 422, { message: refused.message_en, issues: [refused] })
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
  let version: string | undefined
  let previous: string | undefined
  let switched = false
  try {
    version = store.newVersionId(started)
    const dir = await store.createVersionDir(version)
    const prepared = await prepare(ctx, args.date, dataset, args.csv, path.join(dir, STAGED_CSV))
    if (prepared.issues.length > 0) throw new PublicationFailed(prepared.issues)
    const manifest = await writeVersion(ctx, store, prepared, version)
    previous = await store.currentVersion()
    await store.switchTo(version)
    switched = true
    const settings = await getPublicationSettings(ctx)
    const base = dataset ? datasetBase(settings.public_base_url ?? '', dataset) : ''
    const finished = ctx.now().toISOString()
    const outcome: PublicationOutcome = {
      status: 'published',
      date: args.date,
      version,
      record_count: prepared.csv.rows,
      csv: {
        file_name: prepared.csv.fileName,
        url: prepared.csv.url ?? `${base}/${prepared.csv.fileName}`,
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
      developer_id: dataset?.developer.id ?? null,
      public_dataset_id: dataset?.extIdent ?? null,
      offers_without_type: prepared.offersWithoutType.length,
      gaps: gapCounts(prepared.gaps, prepared.fileGaps),
      warnings: prepared.warnings,
    }
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('publications')
        .values({
          developer_id: dataset && !dataset.primary ? dataset.developer.id : null,
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
        developer_id: dataset && !dataset.primary ? dataset.developer.id : null,
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
