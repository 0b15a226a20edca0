/*
 * The SQL of users' scopes (migration 0029) and of what a scope resolves to: the investments of
 * its developer entities, and the investment an offer, a medium or a component belongs to.
 */
import type { Executor } from '../context.js'

export type ScopeKind = 'developer' | 'investment'

export async function selectScopeRows(
  db: Executor,
  userIds: readonly number[],
): Promise<Array<{ user_id: number; kind: ScopeKind; target_id: number }>> {
  if (userIds.length === 0) return []
  const rows = await db
    .selectFrom('user_scopes')
    .select(['user_id', 'kind', 'target_id'])
    .where('user_id', 'in', userIds)
    .orderBy('user_id')
    .orderBy('kind')
    .orderBy('target_id')
    .execute()
  return rows.map((row) => ({ user_id: Number(row.user_id), kind: row.kind, target_id: Number(row.target_id) }))
}

export async function replaceScopeRows(
  db: Executor,
  userId: number,
  rows: ReadonlyArray<{ kind: ScopeKind; target_id: number }>,
): Promise<void> {
  await db.deleteFrom('user_scopes').where('user_id', '=', userId).execute()
  if (rows.length > 0)
    await db
      .insertInto('user_scopes')
      .values(rows.map((row) => ({ user_id: userId, kind: row.kind, target_id: row.target_id })))
      .execute()
}

/** Investments with their developer entity: those of the given developers and the given ones. */
export async function selectScopedInvestments(
  db: Executor,
  developerIds: readonly number[],
  investmentIds: readonly number[],
): Promise<Array<{ id: number; developer_id: number | null }>> {
  if (developerIds.length === 0 && investmentIds.length === 0) return []
  const rows = await db
    .selectFrom('investments')
    .select(['id', 'developer_id'])
    .where((eb) =>
      eb.or([
        ...(developerIds.length > 0 ? [eb('developer_id', 'in', developerIds)] : []),
        ...(investmentIds.length > 0 ? [eb('id', 'in', investmentIds)] : []),
      ]),
    )
    .execute()
  return rows.map((row) => ({
    id: Number(row.id),
    developer_id: row.developer_id === null ? null : Number(row.developer_id),
  }))
}

export async function selectExistingIds(
  db: Executor,
  table: 'developers' | 'investments',
  ids: readonly number[],
): Promise<number[]> {
  if (ids.length === 0) return []
  const rows = await db.selectFrom(table).select('id').where('id', 'in', ids).execute()
  return rows.map((row) => Number(row.id))
}

/** The investment an object belongs to and its developer; undefined when the object does not exist. */
export async function selectOwningInvestment(
  db: Executor,
  kind: 'offer' | 'media' | 'investment',
  id: number,
): Promise<{ investment_id: number | null; developer_id: number | null } | undefined> {
  if (kind === 'investment') {
    const row = await db.selectFrom('investments').select('developer_id').where('id', '=', id).executeTakeFirst()
    return row && { investment_id: id, developer_id: row.developer_id === null ? null : Number(row.developer_id) }
  }
  if (kind === 'offer') {
    const row = await db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select(['offers.investment_id', 'investments.developer_id'])
      .where('offers.id', '=', id)
      .executeTakeFirst()
    return (
      row && {
        investment_id: Number(row.investment_id),
        developer_id: row.developer_id === null ? null : Number(row.developer_id),
      }
    )
  }
  const row = await db
    .selectFrom('attachments')
    .leftJoin('offers', 'offers.id', 'attachments.offer_id')
    .leftJoin('investments', (join) =>
      join.on((eb) =>
        eb.or([
          eb('investments.id', '=', eb.ref('attachments.investment_id')),
          eb('investments.id', '=', eb.ref('offers.investment_id')),
        ]),
      ),
    )
    .select(['investments.id as investment_id', 'investments.developer_id'])
    .where('attachments.id', '=', id)
    .executeTakeFirst()
  return (
    row && {
      investment_id: row.investment_id === null ? null : Number(row.investment_id),
      developer_id: row.developer_id === null ? null : Number(row.developer_id),
    }
  )
}

export async function selectUserRole(db: Executor, userId: number): Promise<{ id: number; role: string } | undefined> {
  const row = await db.selectFrom('users').select(['id', 'role']).where('id', '=', userId).executeTakeFirst()
  return row && { id: Number(row.id), role: row.role }
}

/** The investments of some offers (those that exist). */
export async function selectInvestmentsOfOffers(db: Executor, offerIds: readonly number[]): Promise<number[]> {
  if (offerIds.length === 0) return []
  const rows = await db.selectFrom('offers').select('investment_id').distinct().where('id', 'in', offerIds).execute()
  return rows.map((row) => Number(row.investment_id))
}
