/*
 * `listing_values` (migration 0016): what a large import counted before it committed, read by the
 * other instances on their first request for such a list (listing-cache.ts).
 */
import type { Executor } from '../host/context.js'

/** `t` a list's total, `p` the offer ids of a page, `m` a match set. */
export type ListingValueKind = 't' | 'p' | 'm'

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
): Promise<void> {
  // all of them: an import that changed only prices keeps the listing revision and stores it again
  await trx.deleteFrom('listing_values').execute()
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    await trx
      .insertInto('listing_values')
      .values(
        rows.slice(i, i + INSERT_BATCH).map((row) => ({
          listing_revision: listingRevision,
          list_key: `${row.kind}:${row.key}`,
          value: JSON.stringify(row.value),
        })),
      )
      .execute()
  }
}

/** The value stored for a list under `listingRevision`; undefined when there is none. */
export async function selectListingValue(
  db: Executor,
  listingRevision: number,
  kind: ListingValueKind,
  key: string,
): Promise<unknown> {
  const row = await db
    .selectFrom('listing_values')
    .select('value')
    .where('listing_revision', '=', listingRevision)
    .where('list_key', '=', `${kind}:${key}`)
    .executeTakeFirst()
  return row === undefined ? undefined : JSON.parse(row.value)
}
