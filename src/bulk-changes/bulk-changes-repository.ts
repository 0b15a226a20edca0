/* The SQL of the bulk changes: the offers a price change reads, and the job of a previewed one. */
import type { Executor } from '../host/context.js'

/**
 * Offers not archived of an investment and/or among the given ids (with one of `statuses`, when
 * given), by investment title, code and id.
 */
export async function selectOffersToReprice(
  db: Executor,
  scope: {
    investment?: number | undefined
    offerIds?: readonly number[] | undefined
    statuses?: readonly string[] | undefined
  },
) {
  let q = db
    .selectFrom('offers as o')
    .innerJoin('investments as i', 'i.id', 'o.investment_id')
    .select([
      'o.id',
      'o.code',
      'o.offer_kind',
      'o.status',
      'o.area',
      'o.price_total_cents',
      'o.price_total_from',
      'o.price_m2_cents',
      'o.price_m2_from',
      'o.source_property_id',
      'i.source_id',
      'i.title',
    ])
    .where('o.status', '!=', 'archived')
  if (scope.investment !== undefined) q = q.where('o.investment_id', '=', scope.investment)
  if (scope.offerIds?.length) q = q.where('o.id', 'in', scope.offerIds)
  if (scope.statuses?.length) q = q.where('o.status', 'in', scope.statuses)
  return q.orderBy('i.title').orderBy('o.code').orderBy('o.id').execute()
}

/** The name an import job was given (a price change's starts with its prefix), when the job exists. */
export async function findJobName(db: Executor, jobId: string): Promise<string | undefined> {
  const job = await db.selectFrom('import_jobs').select(['file_name']).where('id', '=', jobId).executeTakeFirst()
  return job?.file_name
}
