/*
 * Append-only record of who did what, when, and how it ended. The table refuses UPDATE and DELETE
 * at the database level (see makeAppendOnly); this module only ever inserts and reads.
 */
import type { Executor, HostContext } from '../context.js'
import {
  type AuditChannel,
  type AuditFilter,
  type AuditQuery,
  type AuditRow,
  countAuditEntries,
  countRefusalAddresses,
  countRefusalInWindow,
  insertAuditEntry,
  openRefusalWindow,
  type RefusalWindowKey,
  selectAuditActions,
  selectAuditEntries,
  selectAuditPage,
  takeClosedRefusalWindows,
} from './audit-repository.js'
import { clientBucketIp } from '../http/rate-limit/rate-limit.js'

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

/*
 * Refusals of anonymous requests (failed sign-ins, password reset requests, unknown reset links)
 * cost the caller nothing, and the audit log keeps every entry forever: one entry each would let
 * anyone grow it without bound. They are counted per client address (IPv6 by /64), action, cause
 * and fixed window instead: the window's first refusal is written at once, with its details, and
 * the others as one entry with their `count` when the window is over (at the next refusal or read
 * of the log after it). At most REFUSAL_WINDOW_ADDRESSES addresses get their own count per action
 * and window; the rest share one. So one address adds at most two entries per action, cause and
 * window, and all anonymous callers together a fixed number (docs/decisions/authentication.md).
 */
export const ANONYMOUS_REFUSALS = Object.freeze({
  windowMinutes: 15,
  addressesPerWindow: 50,
  /** The address key shared by the addresses beyond `addressesPerWindow`. */
  otherAddresses: 'other',
})

export interface AnonymousRefusal {
  action: string
  /** The cause, counted apart (`wrong_password`, `throttled`, `unknown_account`…). */
  reason: string
  ip: string
  objectType?: string
  objectId?: string | number
  /** Details of the window's first refusal (the others are counted only). */
  details?: Record<string, unknown>
}

function refusalWindow(now: Date): { from: string; until: string } {
  const length = ANONYMOUS_REFUSALS.windowMinutes * 60_000
  const start = Math.floor(now.getTime() / length) * length
  return { from: new Date(start).toISOString(), until: new Date(start + length).toISOString() }
}

/** Writes the counts of the windows that are over as one entry each. */
export async function closeRefusalWindows(ctx: Pick<HostContext, 'db' | 'now'>): Promise<void> {
  const current = refusalWindow(ctx.now()).from
  await ctx.db.transaction().execute(async (trx) => {
    for (const window of await takeClosedRefusalWindows(trx, current)) {
      if (window.pending === 0) continue
      const length = ANONYMOUS_REFUSALS.windowMinutes * 60_000
      await recordAudit(
        { db: trx, now: () => new Date(Date.parse(window.window_start) + length) },
        {
          actor: { type: 'system' },
          action: window.action,
          outcome: 'refused',
          details: {
            ip: window.address,
            address: window.address,
            reason: window.reason,
            count: window.pending,
            window_from: window.window_start,
            window_until: new Date(Date.parse(window.window_start) + length).toISOString(),
          },
        },
        trx,
      )
    }
  })
}

/** Audits a refusal of an anonymous request, counted per address, cause and window (above). */
export async function recordAnonymousRefusal(
  ctx: Pick<HostContext, 'db' | 'now'>,
  refusal: AnonymousRefusal,
): Promise<void> {
  await closeRefusalWindows(ctx)
  const window = refusalWindow(ctx.now())
  const key: RefusalWindowKey = {
    action: refusal.action,
    reason: refusal.reason,
    address: clientBucketIp(refusal.ip),
    window_start: window.from,
  }
  if ((await countRefusalAddresses(ctx.db, key.action, key.window_start)) >= ANONYMOUS_REFUSALS.addressesPerWindow)
    key.address = ANONYMOUS_REFUSALS.otherAddresses
  if (!(await openRefusalWindow(ctx.db, key))) {
    await countRefusalInWindow(ctx.db, key)
    return
  }
  await recordAudit(ctx, {
    actor: { type: 'system' },
    action: refusal.action,
    ...(refusal.objectType === undefined ? {} : { objectType: refusal.objectType }),
    ...(refusal.objectId === undefined ? {} : { objectId: refusal.objectId }),
    outcome: 'refused',
    details: {
      ...refusal.details,
      ip: refusal.ip,
      address: key.address,
      reason: refusal.reason,
      count: 1,
      window_from: window.from,
      window_until: window.until,
    },
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

export async function listAudit(ctx: Pick<HostContext, 'db' | 'now'>, query: AuditQuery): Promise<AuditView[]> {
  await closeRefusalWindows(ctx)
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

/*
 * What leaves the audit log for people to read. Entries are written without secrets, but the log
 * is kept forever and read by everyone with manage_options, so a value under a name that looks
 * like a credential is masked on the way out as well (a future entry's mistake is not shown).
 */
const SECRET_NAME = /pass(word)?|secret|token|nonce|signature|authori[sz]ation|cookie|api[_-]?key|licen[cs]e[_-]?key/i
const MAX_DEPTH = 6

export function maskSecrets(value: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value as Record<string, unknown>))
    out[key] = SECRET_NAME.test(key) && child !== null && child !== '' ? '***' : maskSecrets(child, depth + 1)
  return out
}

export function channelOf(row: Pick<AuditRow, 'actor_type' | 'actor_credential'>): AuditChannel {
  if (row.actor_type === 'user') return row.actor_credential === null ? 'panel' : 'api'
  return (['webhook', 'scheduler', 'cli'] as const).find((type) => type === row.actor_type) ?? 'system'
}

export interface AuditPageEntry extends AuditView {
  channel: AuditChannel
}

function parseDetails(text: string | null): Record<string, unknown> {
  if (!text) return {}
  try {
    const parsed = JSON.parse(text) as unknown
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (maskSecrets(parsed) as Record<string, unknown>)
      : { value: parsed }
  } catch {
    return {}
  }
}

/** One page of the audit log, newest first, with the total of entries the filter matches. */
export async function auditPage(
  ctx: Pick<HostContext, 'db' | 'now'>,
  filter: AuditFilter,
  page: number,
  perPage: number,
): Promise<{ items: AuditPageEntry[]; total: number }> {
  await closeRefusalWindows(ctx)
  const [rows, total] = await Promise.all([
    selectAuditPage(ctx.db, filter, perPage, (page - 1) * perPage),
    countAuditEntries(ctx.db, filter),
  ])
  return {
    total,
    items: rows.map((row) => ({
      id: row.id,
      occurred_at: row.occurred_at,
      actor: {
        type: row.actor_type,
        user_id: row.actor_user_id === null ? null : Number(row.actor_user_id),
        name: row.actor_name,
        credential: row.actor_credential,
      },
      channel: channelOf(row),
      action: row.action,
      object_type: row.object_type,
      object_id: row.object_id,
      outcome: row.outcome,
      details: parseDetails(row.details),
    })),
  }
}

export async function auditActions(ctx: Pick<HostContext, 'db'>): Promise<string[]> {
  return selectAuditActions(ctx.db)
}
