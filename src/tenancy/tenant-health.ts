/*
 * What a platform administrator sees of a company: counts and dates, never its data, users,
 * passwords or secrets. Read from the company's own database with its own connection.
 */
import { sql } from 'kysely'

import type { DatabaseHandle } from '../host/db/database.js'

export interface TenantHealth {
  /** Flats, houses and parts on sale (available or reserved). */
  offers_on_sale: number
  users: number
  last_publication: { day: string; status: string; finished_at: string | null } | null
  /** Alerts raised in the last 7 days. */
  recent_alerts: number
}

export async function readTenantHealth(database: DatabaseHandle, now: Date): Promise<TenantHealth> {
  const { db } = database
  const offers = await db
    .selectFrom('offers')
    .select(sql<number>`count(*)`.as('count'))
    .where('status', 'in', ['available', 'reserved'])
    .executeTakeFirstOrThrow()
  const users = await db
    .selectFrom('users')
    .select(sql<number>`count(*)`.as('count'))
    .executeTakeFirstOrThrow()
  const publication = await db
    .selectFrom('publications')
    .select(['publication_date', 'status', 'finished_at'])
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  const weekAgo = new Date(now.getTime() - 7 * 24 * 3600 * 1000).toISOString()
  const alerts = await db
    .selectFrom('alerts')
    .select(sql<number>`count(*)`.as('count'))
    .where('raised_at', '>=', weekAgo)
    .executeTakeFirstOrThrow()
  return {
    offers_on_sale: Number(offers.count),
    users: Number(users.count),
    last_publication: publication
      ? { day: publication.publication_date, status: publication.status, finished_at: publication.finished_at }
      : null,
    recent_alerts: Number(alerts.count),
  }
}
