import { type Insertable, type Selectable, sql } from 'kysely'

import type { Executor } from '../context.js'
import type { AuditLogTable } from '../db/schema.js'

export type AuditRow = Selectable<AuditLogTable>

export async function insertAuditEntry(db: Executor, entry: Insertable<AuditLogTable>): Promise<number> {
  const row = await db.insertInto('audit_log').values(entry).returning('id').executeTakeFirstOrThrow()
  return row.id
}

export interface AuditQuery {
  action?: string | undefined
  objectType?: string | undefined
  objectId?: string | undefined
  limit: number
  /** Keyset paging: entries with an id lower than this one. */
  beforeId?: number | undefined
}

export async function selectAuditEntries(db: Executor, query: AuditQuery): Promise<AuditRow[]> {
  let select = db.selectFrom('audit_log').selectAll()
  if (query.action) select = select.where('action', '=', query.action)
  if (query.objectType) select = select.where('object_type', '=', query.objectType)
  if (query.objectId) select = select.where('object_id', '=', query.objectId)
  if (query.beforeId) select = select.where('id', '<', query.beforeId)
  return select.orderBy('id', 'desc').limit(query.limit).execute()
}

/** How an entry came in: derived from who acted and with which credential. */
export const AUDIT_CHANNELS = ['panel', 'api', 'webhook', 'scheduler', 'cli', 'system'] as const
export type AuditChannel = (typeof AUDIT_CHANNELS)[number]

export interface AuditFilter {
  /** Who acted: the login of a user, or webhook, scheduler, cli, system. */
  actor?: string | undefined
  /** An action, or a family of them with a trailing `*` (`user.*`). */
  action?: string | undefined
  objectType?: string | undefined
  objectId?: string | undefined
  channel?: AuditChannel | undefined
  outcome?: string | undefined
  /** ISO instants: from (inclusive) and until (exclusive). */
  from?: string | undefined
  until?: string | undefined
  /**
   * A user limited to some investments (src/host/auth/scope.ts) reads its own actions and those on
   * the offers, investments and developer entities of its scope, not the rest of the company's.
   */
  scope?: { userId: number; investments: readonly number[]; developers: readonly number[] } | undefined
}

function filtered(db: Executor, filter: AuditFilter) {
  let select = db.selectFrom('audit_log')
  if (filter.actor) select = select.where('actor_name', '=', filter.actor)
  if (filter.action?.endsWith('*')) {
    const prefix = filter.action.slice(0, -1).replace(/[\\%_]/g, (c) => `\\${c}`)
    select = select.where(sql<boolean>`action LIKE ${`${prefix}%`} ESCAPE '\\'`)
  } else if (filter.action) select = select.where('action', '=', filter.action)
  if (filter.objectType) select = select.where('object_type', '=', filter.objectType)
  if (filter.objectId) select = select.where('object_id', '=', filter.objectId)
  if (filter.outcome) select = select.where('outcome', '=', filter.outcome)
  if (filter.from) select = select.where('occurred_at', '>=', filter.from)
  if (filter.until) select = select.where('occurred_at', '<', filter.until)
  if (filter.channel === 'panel') select = select.where('actor_type', '=', 'user').where('actor_credential', 'is', null)
  else if (filter.channel === 'api')
    select = select.where('actor_type', '=', 'user').where('actor_credential', 'is not', null)
  else if (filter.channel) select = select.where('actor_type', '=', filter.channel)
  const { scope } = filter
  if (scope) {
    const investments = scope.investments.length > 0 ? scope.investments.map(String) : ['']
    const developers = scope.developers.length > 0 ? scope.developers.map(String) : ['']
    select = select.where((eb) =>
      eb.or([
        eb('actor_user_id', '=', scope.userId),
        eb.and([eb('object_type', '=', 'investment'), eb('object_id', 'in', investments)]),
        eb.and([eb('object_type', '=', 'developer'), eb('object_id', 'in', developers)]),
        eb.and([
          eb('object_type', '=', 'offer'),
          eb(
            'object_id',
            'in',
            eb
              .selectFrom('offers')
              .select(sql<string>`cast(id as text)`.as('id'))
              .where('investment_id', 'in', scope.investments.length > 0 ? [...scope.investments] : [-1]),
          ),
        ]),
      ]),
    )
  }
  return select
}

export async function selectAuditPage(
  db: Executor,
  filter: AuditFilter,
  limit: number,
  offset: number,
): Promise<AuditRow[]> {
  return filtered(db, filter).selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute()
}

export async function countAuditEntries(db: Executor, filter: AuditFilter): Promise<number> {
  const row = await filtered(db, filter)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function selectAuditActions(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('audit_log').select('action').distinct().orderBy('action').execute()
  return rows.map((row) => row.action)
}

export interface RefusalWindowKey {
  action: string
  reason: string
  address: string
  window_start: string
}

/** Opens the key's window; true when this call opened it (the window's first refusal). */
export async function openRefusalWindow(db: Executor, key: RefusalWindowKey): Promise<boolean> {
  const opened = await db
    .insertInto('audit_refusal_windows')
    .values({ ...key, pending: 0 })
    .onConflict((oc) => oc.columns(['action', 'reason', 'address', 'window_start']).doNothing())
    .returning('action')
    .executeTakeFirst()
  return opened !== undefined
}

export async function countRefusalInWindow(db: Executor, key: RefusalWindowKey): Promise<void> {
  await db
    .updateTable('audit_refusal_windows')
    .set((eb) => ({ pending: eb('pending', '+', 1) }))
    .where('action', '=', key.action)
    .where('reason', '=', key.reason)
    .where('address', '=', key.address)
    .where('window_start', '=', key.window_start)
    .execute()
}

/** How many addresses have a window of this action open. */
export async function countRefusalAddresses(db: Executor, action: string, windowStart: string): Promise<number> {
  const row = await db
    .selectFrom('audit_refusal_windows')
    .where('action', '=', action)
    .where('window_start', '=', windowStart)
    .select(sql<number>`count(distinct address)`.as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Takes the windows that started before `windowStart` out of the table: deleting them is the claim,
 * so of two instances closing the same window only one writes its entry.
 */
export async function takeClosedRefusalWindows(
  db: Executor,
  windowStart: string,
): Promise<Array<RefusalWindowKey & { pending: number }>> {
  return db
    .deleteFrom('audit_refusal_windows')
    .where('window_start', '<', windowStart)
    .returning(['action', 'reason', 'address', 'window_start', 'pending'])
    .execute()
}
