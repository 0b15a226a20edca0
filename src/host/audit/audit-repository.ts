import type { Insertable, Selectable } from 'kysely'

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
