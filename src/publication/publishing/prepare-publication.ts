/*
 * Preparing a publication: what must be set before anything is published, the resources the
 * dataset lists so far, the day's file written through its sink, the harvester XML that lists it,
 * and the warnings about what the file shows incompletely. Preflight prepares without writing;
 * publishing prepares into the new version folder.
 */
import type { HostContext } from '../../host/context.js'
import type { DeveloperRow } from '../../host/db/schema.js'
import { polishCount } from '../../host/plural.js'
import { dailyCompanySlug, type DailyFileGaps, noGaps, type UntypedOffer } from '../daily-file/collect-daily-input.js'
import { dailyCsvFileName, DailyCsvError } from '../daily-file/daily-csv.js'
import { datasetUrlFinding, trialResourcesDroppedWarning } from '../daily-file/dataset-resources.js'
import { type Dataset, datasetOf, primaryDataset } from '../daily-file/datasets.js'
import { md5Hex } from '../daily-file/harvester-xml.js'
import { issue, type PublicationIssue } from '../publication-issue.js'
import type { ManifestDay } from '../publication-store.js'
import { getPublicationSettings, validateDeveloper } from '../settings/publication-settings.js'
import { buildAndCheckXml, type CheckedXml } from './dataset-xml.js'
import {
  type PreparedCsv,
  type PreparedDayFile,
  writeCatalogCsv,
  writeGivenCsv,
  type WrittenDayFile,
} from './day-file-sink.js'
import { gapWarnings, untypedOffersWarning } from './gap-warnings.js'
import {
  newResource,
  readResourceListing,
  type RecordedResource,
  type ResourceListing,
  resourcesWith,
} from './listed-resources.js'
import { publicAddressFindings } from './public-address.js'
import { daysMissedSinceLastFile, missedDaysWarning, publicationDayFinding } from './publication-days.js'

export interface PreparedPublication {
  date: string
  csv: PreparedDayFile
  manifestDays: ManifestDay[]
  xml: Buffer
  xmlMd5: string
  issues: PublicationIssue[]
  warnings: PublicationIssue[]
  /** Listed offers left out because they have no type (never guessed). */
  offersWithoutType: UntypedOffer[]
  /** What the file shows incompletely, each also a warning. */
  gaps: DailyFileGaps
  /** The units the file itself shows without a price, by kind (its invariants' gaps). */
  fileGaps: Record<string, number>
}

/** Builds and validates without publishing (preflight uses it); the primary dataset by default. */
export async function preparePublication(
  ctx: HostContext,
  date: string,
  given?: PreparedCsv,
  developerId?: number | null,
): Promise<PreparedPublication> {
  return prepareForDataset(ctx, date, await datasetOrNone(ctx, developerId), given)
}

/** The dataset to publish; none while no developer entity exists (preparing reports it). */
export async function datasetOrNone(
  ctx: HostContext,
  developerId: number | null | undefined,
): Promise<Dataset | undefined> {
  if (developerId === undefined || developerId === null) return primaryDataset(ctx)
  return datasetOf(ctx, developerId)
}

/**
 * Builds and validates the day's publication. With `stagedCsv` (publishing) the day's file is
 * written there as it is built and fsynced; without it (preflight) it is only hashed and checked.
 */
export async function prepareForDataset(
  ctx: HostContext,
  date: string,
  dataset: Dataset | undefined,
  given?: PreparedCsv,
  stagedCsv?: string,
): Promise<PreparedPublication> {
  const settings = await getPublicationSettings(ctx)
  const developer = dataset?.developer
  const { issues, warnings } = setUpFindings(ctx, developer, settings.public_base_url)
  const listing = await readResourceListing(ctx, dataset, settings.public_base_url, date)
  if (listing.dropped.length > 0) warnings.push(trialResourcesDroppedWarning(listing.dropped))
  const dayFinding = publicationDayFinding(ctx, date, given !== undefined, listing.sameDay.length > 0)
  if (dayFinding) issues.push(dayFinding)
  const missed = daysMissedSinceLastFile(
    listing.listed.map((d) => d.date),
    date,
  )
  if (missed.length > 0) warnings.push(missedDaysWarning(missed))

  const buildXml = xmlBuilder(ctx, developer, listing)
  const guessedXml = buildXml && startGuessedXml(ctx, buildXml, listing, developer, given)

  const offersWithoutType: UntypedOffer[] = []
  const gaps = noGaps()
  let written: WrittenDayFile = { issues: [] }
  if (given) written = await writeGivenCsv(given, stagedCsv, date)
  else if (dataset) {
    const args = { date, dataset, statuses: settings.published_statuses, untyped: offersWithoutType, gaps }
    written = await writeCatalogCsv(ctx, args, stagedCsv)
  }
  issues.push(...written.issues)

  if (offersWithoutType.length > 0) warnings.push(untypedOffersWarning(offersWithoutType))
  warnings.push(...gapWarnings(gaps))
  // the file's own gaps (a report's file has no catalog reading): each kind named once
  for (const gap of written.invariants?.gaps ?? []) if (!warnings.some((w) => w.code === gap.code)) warnings.push(gap)

  const added = written.csv && newResource(ctx, listing, written.csv.fileName, written.csv.md5)
  if (added && written.csv) Object.assign(added, { rows: written.csv.rows, bytes: written.csv.bytes })
  const manifestDays = written.csv ? resourcesWith(listing, added) : listing.listed
  const dayFile = written.csv && (added ?? listing.sameDay.at(-1))
  if (manifestDays.length >= 900) warnings.push(resourcesNearLimitWarning(manifestDays.length))

  const checked = guessedXml ? await guessedXml : undefined
  let xml: Buffer = Buffer.alloc(0)
  if (buildXml && written.csv && dayFile) {
    // the XML started with the guessed list is kept when the final list names the same files
    const final =
      checked?.fileName === dayFile.file_name && manifestDays.length === (checked?.resources ?? -1)
        ? checked
        : await buildXml(manifestDays, dayFile.file_name)
    xml = final.xml
    issues.push(...final.issues)
  }
  return {
    date,
    csv:
      written.csv && dayFile
        ? { ...written.csv, fileName: dayFile.file_name, url: dayFile.url }
        : (written.csv ?? { fileName: '', md5: md5Hex(''), bytes: 0, rows: 0 }),
    manifestDays,
    xml,
    xmlMd5: md5Hex(xml),
    issues,
    warnings,
    offersWithoutType,
    gaps,
    fileGaps: written.invariants?.gapCounts ?? {},
  }
}

/** What must be set before anything is published: the developer entity, the public address, the dataset's page. */
function setUpFindings(
  ctx: HostContext,
  developer: DeveloperRow | undefined,
  publicBaseUrl: string | null,
): { issues: PublicationIssue[]; warnings: PublicationIssue[] } {
  const issues: PublicationIssue[] = developer
    ? validateDeveloper(developer).map((problem) =>
        issue(`developer_${problem.code}`, `Popraw dane dewelopera: ${problem.field}.`, problem.message, {
          field: problem.field,
        }),
      )
    : [
        issue(
          'developer_missing',
          'Uzupełnij dane dewelopera (kolumny 1–28).',
          'Enter the developer entity data (columns 1–28).',
        ),
      ]
  const warnings: PublicationIssue[] = []
  if (!publicBaseUrl) {
    issues.push(
      issue(
        'public_base_url_missing',
        'Ustaw publiczny adres plików (https), pod którym usługa udostępnia pliki: Ustawienia, zakładka „Publikacja”.',
        'Set the public https address the files are served from: Settings, tab “Publication”.',
      ),
    )
  }
  const findings = [
    publicBaseUrl ? publicAddressFindings(ctx, publicBaseUrl.replace(/\/+$/, '')) : {},
    developer ? datasetUrlFinding(developer, ctx.config.env === 'production') : {},
  ]
  for (const found of findings) {
    if (found.issue) issues.push(found.issue)
    if (found.warning) warnings.push(found.warning)
  }
  return { issues, warnings }
}

type XmlBuilder = (resources: RecordedResource[], fileName: string) => Promise<CheckedXml>

/** How the dataset's XML is built, once there is a developer entity and a public address. */
function xmlBuilder(
  ctx: HostContext,
  developer: DeveloperRow | undefined,
  listing: ResourceListing,
): XmlBuilder | undefined {
  const { base, datasetId } = listing
  if (!developer || base === null) return undefined
  return (resources, fileName) =>
    buildAndCheckXml(developer, datasetId, base, resources, fileName, ctx.config.env !== 'production')
}

/**
 * The XML names the day's file but not its content, so it is built now and checked against the
 * XSD in xmllint's worker thread while this thread reads the catalog and writes the CSV. It is
 * started as if the day's file were new; a republication with the day's latest bytes lists no new
 * resource and is rebuilt once the file is known.
 */
function startGuessedXml(
  ctx: HostContext,
  buildXml: XmlBuilder,
  listing: ResourceListing,
  developer: DeveloperRow | undefined,
  given: PreparedCsv | undefined,
): Promise<CheckedXml> | undefined {
  let fileName = given?.fileName
  try {
    fileName ??= developer ? dailyCsvFileName(listing.date, dailyCompanySlug(developer)) : undefined
  } catch (error) {
    if (!(error instanceof DailyCsvError)) throw error // building the CSV reports it
  }
  if (fileName === undefined) return undefined
  const guess = newResource(ctx, listing, fileName, undefined)
  const checking = buildXml(resourcesWith(listing, guess), guess?.file_name ?? fileName)
  checking.catch(() => undefined) // awaited once the CSV is written, unless writing it throws first
  return checking
}

function resourcesNearLimitWarning(resources: number): PublicationIssue {
  return issue(
    'resources_near_limit',
    `Plik XML zawiera ${polishCount(resources, ['zasób', 'zasoby', 'zasobów'])}; portal zaleca do ok. 1000.`,
    `The XML lists ${resources} resources; the portal recommends about 1000 at most.`,
  )
}
