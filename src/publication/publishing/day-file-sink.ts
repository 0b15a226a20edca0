/*
 * The day's file of a publication, written through one sink whatever it comes from: a ready CSV
 * (report import) or the catalog read and serialized as the day's prices.
 */
import { createHash } from 'node:crypto'
import fs, { type FileHandle } from 'node:fs/promises'

import type { HostContext } from '../../host/context.js'
import {
  dailyCompanySlug,
  developerForCsv,
  type DailyFileGaps,
  type InconsistentOffer,
  readDailyOffers,
  type UntypedOffer,
} from '../daily-file/collect-daily-input.js'
import { CsvByteChecker } from '../daily-file/csv-byte-check.js'
import { DailyCsvError, DailyCsvSerializer } from '../daily-file/daily-csv.js'
import type { Dataset } from '../daily-file/datasets.js'
import { type InvariantReport, OfficialFileInvariants } from '../invariants/official-file-invariants.js'
import { issue, type PublicationIssue } from '../publication-issue.js'

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

/** The day's file as written, or none when it could not be built (the issues say why). */
export interface WrittenDayFile {
  csv?: PreparedDayFile
  issues: PublicationIssue[]
  invariants?: InvariantReport
}

/**
 * Hashes, byte-checks and checks the legal invariants of the day's file piece by piece as it is
 * built and, when publishing, writes it: every path that publishes a file (schedule, API, report
 * import, legacy generate) writes it through here, so none can skip the invariants.
 */
export class DayFileSink {
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

/** Writes a ready CSV through the sink as it is; `target` is where (none: only checked). */
export async function writeGivenCsv(
  given: PreparedCsv,
  target: string | undefined,
  date: string,
): Promise<WrittenDayFile> {
  const sink = await DayFileSink.open(target, date)
  try {
    await sink.write(given.content)
  } catch (error) {
    await sink.abort()
    throw error
  }
  const written = await sink.close()
  return {
    csv: { fileName: given.fileName, md5: written.md5, bytes: written.bytes, rows: given.rows },
    issues: written.issues,
    invariants: written.invariants,
  }
}

export interface CatalogCsvArgs {
  date: string
  dataset: Dataset
  /** The offer statuses the file lists (setting `published_statuses`). */
  statuses: string[]
  /** Filled with the listed offers left out because they have no type. */
  untyped: UntypedOffer[]
  /** Filled with what the file shows incompletely. */
  gaps: DailyFileGaps
}

/**
 * Reads the dataset's offers from the catalog as on the day and writes them as the day's CSV
 * through the sink; `target` is where (none: only checked). Every price problem is named, not
 * only the first.
 */
export async function writeCatalogCsv(
  ctx: HostContext,
  args: CatalogCsvArgs,
  target: string | undefined,
): Promise<WrittenDayFile> {
  const inconsistent: InconsistentOffer[] = []
  const sink = await DayFileSink.open(target, args.date)
  let serialized: SerializedCatalog
  try {
    serialized = await serializeCatalog(ctx, args, sink, inconsistent)
  } catch (error) {
    await sink.abort()
    throw error
  }
  const issues = inconsistentPriceIssues(inconsistent)
  if (!serialized.built) {
    await sink.abort()
    return { issues: [...issues, csvBuildIssue(serialized.buildError)] }
  }
  const written = await sink.close()
  const { fileName, rows } = serialized.built
  return {
    csv: { fileName, md5: written.md5, bytes: written.bytes, rows },
    issues: [...issues, ...written.issues],
    invariants: written.invariants,
  }
}

type SerializedCatalog =
  | { built: { fileName: string; rows: number } }
  | { built?: undefined; buildError: DailyCsvError }

async function serializeCatalog(
  ctx: HostContext,
  args: CatalogCsvArgs,
  sink: DayFileSink,
  inconsistent: InconsistentOffer[],
): Promise<SerializedCatalog> {
  const { date, dataset } = args
  const developer = dataset.developer
  let buildError: DailyCsvError | undefined
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
    includeUnassigned: dataset.primary,
    statuses: args.statuses,
    inconsistent,
    untyped: args.untyped,
    gaps: args.gaps,
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
  if (!serializer || buildError) return { buildError: buildError as DailyCsvError }
  await sink.write(Buffer.from(serializer.end(), 'utf8'))
  return { built: { fileName: serializer.fileName, rows: serializer.rows } }
}

function inconsistentPriceIssues(inconsistent: InconsistentOffer[]): PublicationIssue[] {
  return [...inconsistent]
    .sort((a, b) => a.id - b.id)
    .map((offer) =>
      issue(
        'price_inconsistent',
        `Oferta ${offer.code}: cena całkowita nie jest iloczynem ceny za m² i powierzchni (z dokładnością do zaokrągleń).`,
        `Offer ${offer.code}: the total is not the m² price × area within rounding.`,
        { offer_id: offer.id },
      ),
    )
}

function csvBuildIssue(error: DailyCsvError): PublicationIssue {
  return issue(
    `csv_${error.code}`,
    `Nie można zbudować pliku: ${error.message}`,
    error.message,
    error.offerId === null ? undefined : { offer_id: error.offerId },
  )
}
