import type { Executor } from '../host/context.js'

export interface OutboxRow {
  id: number
  created_at: string
  recipients: string
  sender: string
  subject: string
  body: string
}

export async function insertOutboxEmail(db: Executor, row: Omit<OutboxRow, 'id'>): Promise<number> {
  const inserted = await db.insertInto('mail_outbox').values(row).returning('id').executeTakeFirstOrThrow()
  return Number(inserted.id)
}

/** Deletes all but the newest `keep` e-mails. */
export async function pruneOutbox(db: Executor, keep: number): Promise<void> {
  const oldestKept = await db
    .selectFrom('mail_outbox')
    .select('id')
    .orderBy('id', 'desc')
    .offset(keep - 1)
    .limit(1)
    .executeTakeFirst()
  if (oldestKept) await db.deleteFrom('mail_outbox').where('id', '<', oldestKept.id).execute()
}

export async function listOutbox(db: Executor, limit: number): Promise<OutboxRow[]> {
  const rows = await db.selectFrom('mail_outbox').selectAll().orderBy('id', 'desc').limit(limit).execute()
  return rows.map((row) => ({ ...row, id: Number(row.id) }))
}
