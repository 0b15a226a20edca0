import type { Insertable } from 'kysely'

import type { Executor } from '../host/context.js'
import type { PublicationRow, PublicationsTable } from '../host/db/schema.js'
import { INVESTMENT_STATUSES_IN_DAILY_FILE } from '../offers/editor-operation.js'

/** Records a publication that ran, published or failed. */
export async function insertPublication(db: Executor, row: Insertable<PublicationsTable>): Promise<void> {
  await db.insertInto('publications').values(row).execute()
}

/** Whether the schedule already published the day of a dataset (null: the publishing developer's). */
export async function scheduledPublicationDone(
  db: Executor,
  date: string,
  developerId: number | null,
): Promise<boolean> {
  const done = await db
    .selectFrom('publications')
    .select('id')
    .where('publication_date', '=', date)
    .where('status', '=', 'published')
    .where('trigger', '=', 'schedule')
    .where((eb) => (developerId === null ? eb('developer_id', 'is', null) : eb('developer_id', '=', developerId)))
    .executeTakeFirst()
  return done !== undefined
}

/** The latest successful publication of a dataset (null: the publishing developer's). */
export async function findLastPublished(
  db: Executor,
  developerId: number | null = null,
): Promise<PublicationRow | undefined> {
  return db
    .selectFrom('publications')
    .selectAll()
    .where('status', '=', 'published')
    .where((eb) => (developerId === null ? eb('developer_id', 'is', null) : eb('developer_id', '=', developerId)))
    .orderBy('finished_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
}

/** Offers the daily file would list but leaves out because they have no type yet (''). */
export async function countUntypedListedOffers(db: Executor, statuses: readonly string[]): Promise<number> {
  if (statuses.length === 0) return 0
  const row = await db
    .selectFrom('offers')
    .innerJoin('investments', 'investments.id', 'offers.investment_id')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('offers.property_type', '=', '')
    .where('offers.host_status', '=', 'publish')
    .where('offers.status', 'in', [...statuses])
    .where('investments.host_status', 'in', [...INVESTMENT_STATUSES_IN_DAILY_FILE])
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

const fieldOf = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined
const textOf = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/**
 * The day file a publication record's `issues` JSON names in its outcome, with the address it was
 * published at: each only when it is non-empty text, nothing when the JSON cannot be read.
 */
export function recordedCsvOf(issues: string | null): { fileName?: string | undefined; url?: string | undefined } {
  let recorded: unknown
  try {
    recorded = JSON.parse(issues ?? '{}')
  } catch {
    return {}
  }
  const csv = fieldOf(fieldOf(recorded, 'outcome'), 'csv')
  return { fileName: textOf(fieldOf(csv, 'file_name')), url: textOf(fieldOf(csv, 'url')) }
}

/**
 * The URL each day's file was first published at (file name → URL), from the outcomes recorded
 * with successful publications; for manifests written before resources recorded their URL.
 */
export async function firstPublishedUrls(db: Executor): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('publications')
    .select(['issues'])
    .where('status', '=', 'published')
    .orderBy('id', 'asc')
    .execute()
  const urls = new Map<string, string>()
  for (const row of rows) {
    // a record that cannot be read names no URL; the current address is used for its day
    const { fileName, url } = recordedCsvOf(row.issues)
    if (fileName && url && !urls.has(fileName)) urls.set(fileName, url)
  }
  return urls
}

/**
 * When each day's file was first published (file name → time), from the successful
 * publications' outcomes; for manifests written before resources recorded it.
 */
export async function firstPublishedTimes(db: Executor): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('publications')
    .select(['issues', 'finished_at'])
    .where('status', '=', 'published')
    .orderBy('id', 'asc')
    .execute()
  const times = new Map<string, string>()
  for (const row of rows) {
    // a record that cannot be read names no file
    const { fileName } = recordedCsvOf(row.issues)
    if (fileName && row.finished_at && !times.has(fileName)) times.set(fileName, row.finished_at)
  }
  return times
}

export interface PublicationFilter {
  status?: 'published' | 'failed' | undefined
  trigger?: string | undefined
  /** A developer entity's dataset; null: the publishing developer's (the original paths). */
  developerId?: number | null | undefined
  /** Days of data, inclusive. */
  fromDate?: string | undefined
  toDate?: string | undefined
}

function filteredPublications(db: Executor, filter: PublicationFilter) {
  let select = db.selectFrom('publications')
  if (filter.status) select = select.where('status', '=', filter.status)
  if (filter.trigger) select = select.where('trigger', '=', filter.trigger)
  if (filter.developerId === null) select = select.where('developer_id', 'is', null)
  else if (filter.developerId !== undefined) select = select.where('developer_id', '=', filter.developerId)
  if (filter.fromDate) select = select.where('publication_date', '>=', filter.fromDate)
  if (filter.toDate) select = select.where('publication_date', '<=', filter.toDate)
  return select
}

/** A page of publications, newest first (by when they ran). */
export async function selectPublicationsPage(
  db: Executor,
  filter: PublicationFilter,
  limit: number,
  offset: number,
): Promise<PublicationRow[]> {
  return filteredPublications(db, filter).selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute()
}

export async function countPublications(db: Executor, filter: PublicationFilter): Promise<number> {
  const row = await filteredPublications(db, filter)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function findPublication(db: Executor, id: number): Promise<PublicationRow | undefined> {
  return db.selectFrom('publications').selectAll().where('id', '=', id).executeTakeFirst()
}
