/*
 * `listing_values` (migration 0016): what a large import counted before it committed, read by the
 * other instances on their first request for such a list (listing-cache.ts).
 */
import type { Executor } from '../../host/context.js'

/** `t` a list's total, `p` the offer ids of a page, `m` a match set. */
export type ListingValueKind = 't' | 'p' | 'm'

/**
 * Part of every key: raise it whenever a change to the catalog's queries changes what a total, a
 * page or a match set holds, so that values a previous release stored (they outlive a restart and a
 * rolling deploy, unlike the instances' memory) are never served by the new one.
 */
const LISTING_VALUES_VERSION = 1
/**
 * A stored value is for the herd of requests right after the import's commit; after this it is not
 * used, so that no stored value outlives a change the triggers do not see (a manual TRUNCATE, a
 * release that forgot the version above) by more than a few minutes.
 */
const STORED_VALUE_MAX_AGE_MS = 10 * 60_000

const keyOf = (kind: ListingValueKind, key: string) => `${LISTING_VALUES_VERSION}${kind}:${key}`

const isIdList = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((id) => Number.isSafeInteger(id))

/** Whether `value` has the shape of its kind (a row edited by hand is ignored, not served). */
function isValueOf(kind: ListingValueKind, value: unknown): boolean {
  if (kind === 't') return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
  if (kind === 'p') return isIdList(value)
  return value === null || isIdList(value)
}

export interface ListingValueRow {
  kind: ListingValueKind
  key: string
  value: unknown
}

// three parameters a row: well under PostgreSQL's 65,535 and SQLite's 32,766 per statement
const INSERT_BATCH = 500

/** Replaces every stored value with `rows`, under `listingRevision`. */
export async function replaceListingValues(
  trx: Executor,
  listingRevision: number,
  rows: readonly ListingValueRow[],
  storedAt: Date,
): Promise<void> {
  // all of them: an import that changed only prices keeps the listing revision and stores it again
  await trx.deleteFrom('listing_values').execute()
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    await trx
      .insertInto('listing_values')
      .values(
        rows.slice(i, i + INSERT_BATCH).map((row) => ({
          listing_revision: listingRevision,
          list_key: keyOf(row.kind, row.key),
          value: JSON.stringify(row.value),
          stored_at: storedAt.toISOString(),
        })),
      )
      .execute()
  }
}

/**
 * The value stored for a list under `listingRevision` within the last few minutes before `now`;
 * undefined when there is none (or it does not read as a value of its kind).
 */
export async function selectListingValue(
  db: Executor,
  listingRevision: number,
  kind: ListingValueKind,
  key: string,
  now: Date,
): Promise<unknown> {
  const row = await db
    .selectFrom('listing_values')
    .select('value')
    .where('listing_revision', '=', listingRevision)
    .where('list_key', '=', keyOf(kind, key))
    .where('stored_at', '>=', new Date(now.getTime() - STORED_VALUE_MAX_AGE_MS).toISOString())
    .executeTakeFirst()
  if (row === undefined) return undefined
  let value: unknown
  try {
    value = JSON.parse(row.value)
  } catch {
    return undefined
  }
  return isValueOf(kind, value) ? value : undefined
}
