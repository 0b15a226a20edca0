/*
 * Append-only record of who did what, when, and how it ended. The table refuses UPDATE and DELETE
 * at the database level (see makeAppendOnly); this module only ever inserts and reads.
 */
import type { Executor, HostContext } from '../context.js'
import { type AuditQuery, type AuditRow, insertAuditEntry, selectAuditEntries } from './audit-repository.js'

/** Who acted. `credential` names the application password used, never its value. */
export type Actor =
  | { type: 'user'; userId: number; login: string; credential?: string | undefined }
  | { type: 'webhook' }
  | { type: 'scheduler' }
  | { type: 'cli' }
  | { type: 'system' }

export type AuditOutcome = 'success' | 'failure' | 'refused'

export interface AuditEntry {
  actor: Actor
  action: string
  objectType?: string
  objectId?: string | number
  outcome: AuditOutcome
  /** Facts about the operation (counts, ids, codes). Never secrets, passwords or buyer data. */
  details?: Record<string, unknown>
}

export function describeActor(actor: Actor): {
  actor_type: string
  actor_user_id: number | null
  actor_name: string
  actor_credential: string | null
} {
  if (actor.type === 'user') {
    return {
      actor_type: 'user',
      actor_user_id: actor.userId,
      actor_name: actor.login,
      actor_credential: actor.credential ?? null,
    }
  }
  return { actor_type: actor.type, actor_user_id: null, actor_name: actor.type, actor_credential: null }
}

/** Records one entry; pass `db` to write it inside the transaction of the operation it describes. */
export async function recordAudit(
  ctx: Pick<HostContext, 'db' | 'now'>,
  entry: AuditEntry,
  db: Executor = ctx.db,
): Promise<number> {
  return insertAuditEntry(db, {
    occurred_at: ctx.now().toISOString(),
    ...describeActor(entry.actor),
    action: entry.action,
    object_type: entry.objectType ?? null,
    object_id: entry.objectId === undefined ? null : String(entry.objectId),
    outcome: entry.outcome,
    details: entry.details ? JSON.stringify(entry.details) : null,
  })
}

export interface AuditView {
  id: number
  occurred_at: string
  actor: { type: string; user_id: number | null; name: string; credential: string | null }
  action: string
  object_type: string | null
  object_id: string | null
  outcome: string
  details: Record<string, unknown>
}

export async function listAudit(ctx: Pick<HostContext, 'db'>, query: AuditQuery): Promise<AuditView[]> {
  const rows = await selectAuditEntries(ctx.db, query)
  return rows.map((row: AuditRow) => ({
    id: row.id,
    occurred_at: row.occurred_at,
    actor: { type: row.actor_type, user_id: row.actor_user_id, name: row.actor_name, credential: row.actor_credential },
    action: row.action,
    object_type: row.object_type,
    object_id: row.object_id,
    outcome: row.outcome,
    details: row.details ? (JSON.parse(row.details) as Record<string, unknown>) : {},
  }))
}
