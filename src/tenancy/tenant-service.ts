/*
 * The platform's operations on companies (docs/operations/hosting-many-companies.md): create, list,
 * suspend, resume, change addresses, export and delete. They run on the first company's context,
 * whose database holds the tenants table, and open a company's own database only to prepare,
 * measure, export or remove it. A platform administrator never receives a company's secrets: the
 * first administrator's passwords are returned once, to the one who creates the company.
 */
import { pino } from 'pino'

import { createHostContext } from '../host-context.js'
import { createAppPassword } from '../host/auth/app-passwords.js'
import { type Actor, recordAudit } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import type { DatabaseHandle } from '../host/db/database.js'
import { HostError } from '../host/errors.js'
import { createUser } from '../host/users/users.js'
import { ensureWebhookSecret } from '../webhook/webhook-secret.js'
import { getLicenseState, setLicense } from '../licensing/license.js'
import { getPublicationSettings, updatePublicationSettings } from '../publication/settings/publication-settings.js'
import { migrateToLatest } from '../host/db/migrate.js'
import { baseUrl } from '../config.js'
import { tenantConfig, tenantPublicBase } from './tenant-config.js'
import { readTenantHealth, type TenantHealth } from './tenant-health.js'
import { assertTenantSlug, normalizeHostName, tenantDataDir } from './tenant-names.js'
import {
  createTenantStorage,
  dropTenantStorage,
  type FirstCompanyDatabase,
  openTenantDatabase,
  storageNameFor,
} from './tenant-storage.js'
import {
  deleteTenantRow,
  hostsOf,
  insertTenantRow,
  listTenantRows,
  type TenantRow,
  type TenantStatus,
  tenantRowBySlug,
  updateTenantRow,
} from './tenants-repository.js'

/** What the platform's operations need: the first company's context and the platform's public address. */
export interface Platform {
  ctx: HostContext
  /** The platform's public address (scheme, host, optional path), without a trailing slash. */
  base: string
  /** Tells the running service that the tenants table changed (the dispatcher re-reads it). */
  changed?: () => Promise<void>
}

export interface TenantView {
  slug: string
  name: string
  status: TenantStatus
  hosts: string[]
  site_url: string | null
  /** The company's contract API base (`{base_url}`). */
  base_url: string
  panel_url: string
  /** Where its official files are served (dataset.xml, dataset.md5, the day files). */
  files_url: string
  created_at: string
  suspended_at: string | null
  exported_at: string | null
}

export const ADMIN_LOGIN = 'admin'

function firstCompany(platform: Platform): FirstCompanyDatabase {
  return { db: platform.ctx.db, dialect: platform.ctx.caps.name, dataDir: platform.ctx.config.dataDir }
}

export function tenantView(platform: Platform, row: TenantRow): TenantView {
  const publicBase = tenantPublicBase(platform.base, row)
  return {
    slug: row.slug,
    name: row.name,
    status: row.status as TenantStatus,
    hosts: hostsOf(row),
    site_url: row.site_url,
    base_url: `${publicBase}${baseUrl(platform.ctx.config)}`,
    panel_url: `${publicBase}/dg-admin/`,
    files_url: `${publicBase}/dane-gov/`,
    created_at: row.created_at,
    suspended_at: row.suspended_at,
    exported_at: row.exported_at,
  }
}

function tenantNotFound(slug: string): HostError {
  return new HostError('tenant_not_found', 404, `No company "${slug.slice(0, 60)}" on this platform (dg tenant list).`)
}

async function existingTenant(platform: Platform, slug: string): Promise<TenantRow> {
  const row = await tenantRowBySlug(platform.ctx.db, slug)
  if (!row || (row.status !== 'active' && row.status !== 'suspended')) throw tenantNotFound(slug)
  return row
}

function cleanName(name: string): string {
  const trimmed = name.trim()
  if (trimmed.length < 1 || trimmed.length > 200)
    throw new HostError('invalid_tenant_name', 422, 'Give the company a name of 1 to 200 characters.')
  return trimmed
}

function cleanSiteUrl(siteUrl: string | null | undefined): string | null {
  if (siteUrl === undefined || siteUrl === null || siteUrl === '') return null
  let url: URL
  try {
    url = new URL(siteUrl)
  } catch {
    throw new HostError('invalid_site_url', 422, 'The website must be an http(s) address, e.g. https://firma.pl.')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new HostError('invalid_site_url', 422, 'The website must be an http(s) address, e.g. https://firma.pl.')
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

async function cleanHosts(platform: Platform, hosts: readonly string[], slug: string): Promise<string[]> {
  const normalized = [...new Set(hosts.map(normalizeHostName))]
  const platformHost = new URL(platform.base).host
  for (const row of await listTenantRows(platform.ctx.db)) {
    if (row.slug === slug) continue
    const taken = hostsOf(row).find((host) => normalized.includes(host))
    if (taken !== undefined)
      throw new HostError('tenant_host_taken', 409, `The host name ${taken} already belongs to another company.`)
  }
  if (normalized.includes(platformHost))
    throw new HostError('tenant_host_taken', 409, `${platformHost} is the platform's own address.`)
  return normalized
}

/** Opens a company's database with its configuration and context, and closes it after `body`. */
export async function withTenantContext<T>(
  platform: Platform,
  row: TenantRow,
  body: (ctx: HostContext, database: DatabaseHandle) => Promise<T>,
): Promise<T> {
  const first = firstCompany(platform)
  const database = openTenantDatabase(first, row)
  try {
    const config = tenantConfig(platform.ctx.config, row, platform.base, first.dialect === 'postgres')
    const log = pino({ level: 'silent' })
    const ctx = await createHostContext({ config, database, log, now: () => platform.ctx.now() })
    return await body(ctx, database)
  } finally {
    await database.destroy()
  }
}

export interface CreateTenantArgs {
  slug: string
  name: string
  hosts?: readonly string[]
  siteUrl?: string | null
  /** The first administrator's e-mail (password resets); a placeholder when omitted. */
  adminEmail?: string
}

export interface CreatedTenant extends TenantView {
  admin: { login: string; password: string; application_password: string }
}

/**
 * Registers a company, makes its storage, and hands its migrated database to `fill`; a company
 * that cannot be completed leaves nothing behind (no row, no schema, no folder).
 */
async function provisionTenant<T>(
  platform: Platform,
  args: Omit<CreateTenantArgs, 'adminEmail'>,
  actor: Actor,
  action: 'tenant.create' | 'tenant.import',
  fill: (row: TenantRow) => Promise<T>,
): Promise<{ view: TenantView; filled: T }> {
  assertTenantSlug(args.slug)
  const name = cleanName(args.name)
  const hosts = await cleanHosts(platform, args.hosts ?? [], args.slug)
  const siteUrl = cleanSiteUrl(args.siteUrl)
  const taken = await tenantRowBySlug(platform.ctx.db, args.slug)
  // an export brings a deleted company back under its own slug, with the addresses it had
  if (taken?.status === 'deleted' && action === 'tenant.import') await deleteTenantRow(platform.ctx.db, args.slug)
  else if (taken)
    throw new HostError(
      'tenant_exists',
      409,
      taken.status === 'deleted'
        ? `The slug "${args.slug}" belonged to a deleted company; its addresses may still be known, so it is not given again.`
        : `A company with the slug "${args.slug}" exists already.`,
    )
  const first = firstCompany(platform)
  const storage = await storageNameFor(first, args.slug)
  const createdAt = platform.ctx.now().toISOString()
  try {
    await insertTenantRow(platform.ctx.db, {
      slug: args.slug,
      name,
      storage,
      hosts,
      site_url: siteUrl,
      created_at: createdAt,
    })
  } catch {
    throw new HostError('tenant_exists', 409, `A company with the slug "${args.slug}" exists already.`)
  }
  const row = (await tenantRowBySlug(platform.ctx.db, args.slug))!
  let filled: T
  try {
    await createTenantStorage(first, row)
    filled = await fill(row)
    await updateTenantRow(platform.ctx.db, args.slug, { status: 'active' })
  } catch (error) {
    await dropTenantStorage(first, row).catch(() => undefined)
    await deleteTenantRow(platform.ctx.db, args.slug)
    throw error
  }
  await recordAudit(platform.ctx, {
    actor,
    action,
    objectType: 'tenant',
    objectId: args.slug,
    outcome: 'success',
    details: { hosts },
  })
  await platform.changed?.()
  return { view: tenantView(platform, (await tenantRowBySlug(platform.ctx.db, args.slug))!), filled }
}

export async function createTenant(platform: Platform, args: CreateTenantArgs, actor: Actor): Promise<CreatedTenant> {
  const { view, filled: admin } = await provisionTenant(platform, args, actor, 'tenant.create', (row) =>
    withTenantContext(platform, row, async (ctx) => {
      const created = await createUser(ctx, {
        login: ADMIN_LOGIN,
        email: args.adminEmail ?? `${ADMIN_LOGIN}@${args.slug}.invalid`,
        role: 'administrator',
        displayName: args.name.trim(),
        actor,
      })
      const appPassword = await createAppPassword(ctx, { login: ADMIN_LOGIN, name: 'CRM', actor })
      // its own webhook key from the start (the administrator reads it in the panel or over the API)
      await ensureWebhookSecret(ctx, actor)
      // the deployment's licence covers the companies it serves, from their first day
      const license = await getLicenseState(platform.ctx)
      if (license.status === 'active')
        await setLicense(ctx, {
          plan: license.plan ?? 'pro',
          entitlements: [...license.entitlements],
          validUntil: license.valid_until,
          actor,
        })
      await updatePublicationSettings(
        ctx,
        { public_base_url: `${tenantPublicBase(platform.base, row)}/dane-gov` },
        actor,
      )
      return { login: ADMIN_LOGIN, password: created.password!, application_password: appPassword.password }
    }),
  )
  return { ...view, admin }
}

/**
 * A company made from an export (`importer` fills its fresh, migrated database and data folder).
 * Its users, passwords and secrets are the export's; its public address is this platform's.
 */
export async function importTenant(
  platform: Platform,
  args: Omit<CreateTenantArgs, 'adminEmail'>,
  importer: (store: { db: DatabaseHandle['db']; caps: DatabaseHandle['caps']; dataDir: string }) => Promise<unknown>,
  actor: Actor,
): Promise<TenantView> {
  const { view } = await provisionTenant(platform, args, actor, 'tenant.import', async (row) => {
    const database = openTenantDatabase(firstCompany(platform), row)
    try {
      await migrateToLatest(database.db, database.caps.name)
      await importer({
        db: database.db,
        caps: database.caps,
        dataDir: tenantDataDir(platform.ctx.config.dataDir, row.slug),
      })
    } finally {
      await database.destroy()
    }
    await withTenantContext(platform, row, async (ctx) => {
      const settings = await getPublicationSettings(ctx)
      // files published elsewhere keep the addresses they were published under; new ones are served here
      if (settings.public_base_url === null)
        await updatePublicationSettings(
          ctx,
          { public_base_url: `${tenantPublicBase(platform.base, row)}/dane-gov` },
          actor,
        )
    })
  })
  return view
}

export async function listTenants(platform: Platform): Promise<TenantView[]> {
  const rows = await listTenantRows(platform.ctx.db)
  return rows
    .filter((row) => row.status === 'active' || row.status === 'suspended')
    .map((row) => tenantView(platform, row))
}

export async function getTenant(platform: Platform, slug: string): Promise<TenantView & { health: TenantHealth }> {
  const row = await existingTenant(platform, slug)
  const health = await withTenantContext(platform, row, (ctx, database) => readTenantHealth(database, ctx.now()))
  return { ...tenantView(platform, row), health }
}

async function setStatus(
  platform: Platform,
  slug: string,
  to: 'active' | 'suspended',
  actor: Actor,
): Promise<TenantView> {
  const row = await existingTenant(platform, slug)
  if (row.status !== to) {
    await updateTenantRow(platform.ctx.db, slug, {
      status: to,
      suspended_at: to === 'suspended' ? platform.ctx.now().toISOString() : null,
    })
    await recordAudit(platform.ctx, {
      actor,
      action: to === 'suspended' ? 'tenant.suspend' : 'tenant.resume',
      objectType: 'tenant',
      objectId: slug,
      outcome: 'success',
    })
    await platform.changed?.()
  }
  return tenantView(platform, (await tenantRowBySlug(platform.ctx.db, slug))!)
}

/** Its API answers 403 tenant_suspended and its schedules stop; its published files stay served. */
export function suspendTenant(platform: Platform, slug: string, actor: Actor): Promise<TenantView> {
  return setStatus(platform, slug, 'suspended', actor)
}

export function resumeTenant(platform: Platform, slug: string, actor: Actor): Promise<TenantView> {
  return setStatus(platform, slug, 'active', actor)
}

export async function updateTenant(
  platform: Platform,
  slug: string,
  patch: { name?: string; hosts?: readonly string[]; siteUrl?: string | null },
  actor: Actor,
): Promise<TenantView> {
  await existingTenant(platform, slug)
  await updateTenantRow(platform.ctx.db, slug, {
    ...(patch.name === undefined ? {} : { name: cleanName(patch.name) }),
    ...(patch.hosts === undefined ? {} : { hosts: await cleanHosts(platform, patch.hosts, slug) }),
    ...(patch.siteUrl === undefined ? {} : { site_url: cleanSiteUrl(patch.siteUrl) }),
  })
  await recordAudit(platform.ctx, {
    actor,
    action: 'tenant.update',
    objectType: 'tenant',
    objectId: slug,
    outcome: 'success',
    details: { fields: Object.keys(patch) },
  })
  await platform.changed?.()
  return tenantView(platform, (await tenantRowBySlug(platform.ctx.db, slug))!)
}

/** Marks the company exported (after `exportData` wrote its folder), which deleting it requires. */
export async function markTenantExported(platform: Platform, slug: string, actor: Actor, to: string): Promise<void> {
  await updateTenantRow(platform.ctx.db, slug, { exported_at: platform.ctx.now().toISOString() })
  await recordAudit(platform.ctx, {
    actor,
    action: 'tenant.export',
    objectType: 'tenant',
    objectId: slug,
    outcome: 'success',
    details: { folder: to },
  })
}

/**
 * Removes a company with everything it has: its database (schema or file), its data folder with
 * its published files, and its row. Only after an export, and only when `confirm` repeats the slug.
 */
export async function deleteTenant(platform: Platform, slug: string, confirm: string, actor: Actor): Promise<void> {
  const row = await existingTenant(platform, slug)
  if (confirm !== slug)
    throw new HostError(
      'tenant_delete_unconfirmed',
      422,
      `Deleting a company removes all its data and published files; confirm by repeating its slug ("${slug}").`,
    )
  if (row.exported_at === null)
    throw new HostError(
      'tenant_not_exported',
      409,
      `Export the company first (dg tenant export --slug ${slug} --out DIR): deleting it cannot be undone.`,
    )
  await updateTenantRow(platform.ctx.db, slug, { status: 'deleting' })
  await platform.changed?.()
  await dropTenantStorage(firstCompany(platform), row)
  await updateTenantRow(platform.ctx.db, slug, { status: 'deleted', hosts: [] })
  await recordAudit(platform.ctx, {
    actor,
    action: 'tenant.delete',
    objectType: 'tenant',
    objectId: slug,
    outcome: 'success',
  })
}

export { existingTenant }
