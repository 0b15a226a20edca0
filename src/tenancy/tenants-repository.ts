/* The SQL of the tenants table, which lives in the first company's database (src/tenancy). */
import type { Kysely, Selectable } from 'kysely'

import type { Database, TenantsTable } from '../host/db/schema.js'

export type TenantRow = Selectable<TenantsTable>

/**
 * `creating` until its database is ready; `active`, `suspended`; `deleting` while it is removed;
 * `deleted` kept so that its slug, part of addresses the portal may still harvest, is never reused.
 */
export type TenantStatus = 'creating' | 'active' | 'suspended' | 'deleting' | 'deleted'

export async function listTenantRows(db: Kysely<Database>): Promise<TenantRow[]> {
  return db.selectFrom('tenants').selectAll().orderBy('id').execute()
}

export async function tenantRowBySlug(db: Kysely<Database>, slug: string): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').selectAll().where('slug', '=', slug).executeTakeFirst()
}

export async function insertTenantRow(
  db: Kysely<Database>,
  row: { slug: string; name: string; storage: string; hosts: string[]; site_url: string | null; created_at: string },
): Promise<void> {
  await db
    .insertInto('tenants')
    .values({ ...row, hosts: JSON.stringify(row.hosts), status: 'creating' satisfies TenantStatus })
    .execute()
}

export async function updateTenantRow(
  db: Kysely<Database>,
  slug: string,
  patch: Partial<{
    name: string
    status: TenantStatus
    hosts: string[]
    site_url: string | null
    suspended_at: string | null
    exported_at: string
  }>,
): Promise<void> {
  const { hosts, ...rest } = patch
  await db
    .updateTable('tenants')
    .set({ ...rest, ...(hosts === undefined ? {} : { hosts: JSON.stringify(hosts) }) })
    .where('slug', '=', slug)
    .execute()
}

export async function deleteTenantRow(db: Kysely<Database>, slug: string): Promise<void> {
  await db.deleteFrom('tenants').where('slug', '=', slug).execute()
}

export function hostsOf(row: Pick<TenantRow, 'hosts'>): string[] {
  const parsed: unknown = JSON.parse(row.hosts)
  return Array.isArray(parsed) ? parsed.filter((host): host is string => typeof host === 'string') : []
}
