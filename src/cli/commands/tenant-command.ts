/*
 * `dg tenant …`: the platform's operations on the companies it serves (src/tenancy), run against
 * the first company's database, which holds the tenants table. A running service notices a change
 * within seconds. `--tenant SLUG` before any other command runs that command for one company.
 */
import { importData } from '../../backup/portable-export.js'
import { exportTenant } from '../../tenancy/platform.js'
import { platformBase, runningServiceAddress } from '../../tenancy/tenant-config.js'
import {
  createTenant,
  deleteTenant,
  getTenant,
  importTenant,
  listTenants,
  type Platform,
  resumeTenant,
  suspendTenant,
  type TenantView,
  updateTenant,
} from '../../tenancy/tenant-service.js'
import { type CliEnvironment, withHostContext } from '../cli-context.js'
import type { Command } from '../command.js'

const actor = { type: 'cli' } as const

function str(values: Record<string, string | boolean | undefined>, name: string): string | undefined {
  const value = values[name]
  return typeof value === 'string' ? value : undefined
}

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
}

async function withPlatform<T>(env: CliEnvironment, body: (platform: Platform) => Promise<T>): Promise<T> {
  const base = platformBase(env.config, await runningServiceAddress(env.config.dataDir))
  return withHostContext(env, (ctx) => body({ ctx, base }))
}

function describe(tenant: TenantView): string {
  return [
    `${tenant.slug}\t${tenant.status}\t${tenant.name}`,
    `  API (base_url): ${tenant.base_url}`,
    `  panel:          ${tenant.panel_url}`,
    `  official files: ${tenant.files_url}`,
    ...(tenant.hosts.length > 0 ? [`  host names:     ${tenant.hosts.join(', ')}`] : []),
  ].join('\n')
}

const SLUG = {
  slug: { type: 'string', required: true, description: 'the company’s slug (its path /t/SLUG/)' },
} as const

export const TENANT_COMMANDS: Command[] = [
  {
    name: 'tenant create',
    summary: 'Create a company on this platform: its own database, addresses and first administrator',
    options: {
      ...SLUG,
      name: { type: 'string', required: true, description: 'the company’s name' },
      hosts: { type: 'string', description: 'comma-separated host names it also answers on (ceny.firma.pl)' },
      'site-url': { type: 'string', description: 'its website, for offer permalinks' },
      'admin-email': { type: 'string', description: 'e-mail of its first administrator (login admin)' },
    },
    help: 'Prints the company’s base_url and its administrator’s passwords once; the platform keeps no copy to show again.',
    run: (values, env) =>
      withPlatform(env, async (platform) => {
        const hosts = list(str(values, 'hosts'))
        const siteUrl = str(values, 'site-url')
        const adminEmail = str(values, 'admin-email')
        const created = await createTenant(
          platform,
          {
            slug: str(values, 'slug')!,
            name: str(values, 'name')!,
            ...(hosts ? { hosts } : {}),
            ...(siteUrl === undefined ? {} : { siteUrl }),
            ...(adminEmail === undefined ? {} : { adminEmail }),
          },
          actor,
        )
        return {
          json: created,
          text: [
            `Created company ${created.slug}.`,
            describe(created),
            `Administrator: ${created.admin.login}`,
            `  panel password (shown once):       ${created.admin.password}`,
            `  application password (shown once): ${created.admin.application_password}`,
          ].join('\n'),
        }
      }),
  },
  {
    name: 'tenant list',
    summary: 'List the companies this platform serves besides its first',
    options: {},
    run: (_values, env) =>
      withPlatform(env, async (platform) => {
        const tenants = await listTenants(platform)
        return { json: { items: tenants }, text: tenants.map(describe).join('\n') || 'No other companies.' }
      }),
  },
  {
    name: 'tenant show',
    summary: 'One company with its health (offers on sale, last publication, alerts)',
    options: { ...SLUG },
    run: (values, env) =>
      withPlatform(env, async (platform) => {
        const tenant = await getTenant(platform, str(values, 'slug')!)
        const last = tenant.health.last_publication
        return {
          json: tenant,
          text: [
            describe(tenant),
            `  offers on sale: ${tenant.health.offers_on_sale}; users: ${tenant.health.users}; alerts in 7 days: ${tenant.health.recent_alerts}`,
            `  last publication: ${last ? `${last.day} (${last.status})` : 'none yet'}`,
          ].join('\n'),
        }
      }),
  },
  {
    name: 'tenant update',
    summary: 'Rename a company or change its host names or website (its /t/SLUG/ path never changes)',
    options: {
      ...SLUG,
      name: { type: 'string', description: 'new name' },
      hosts: { type: 'string', description: 'comma-separated host names (replaces the list; "" for none)' },
      'site-url': { type: 'string', description: 'its website ("" for none)' },
    },
    run: (values, env) =>
      withPlatform(env, async (platform) => {
        const hosts = list(str(values, 'hosts'))
        const name = str(values, 'name')
        const siteUrl = str(values, 'site-url')
        const tenant = await updateTenant(
          platform,
          str(values, 'slug')!,
          {
            ...(name === undefined ? {} : { name }),
            ...(hosts ? { hosts } : {}),
            ...(siteUrl === undefined ? {} : { siteUrl: siteUrl || null }),
          },
          actor,
        )
        return { json: tenant, text: describe(tenant) }
      }),
  },
  {
    name: 'tenant suspend',
    summary: 'Suspend a company: API and panel answer 403, schedules stop, published files stay served',
    options: { ...SLUG },
    run: (values, env) =>
      withPlatform(env, async (platform) => {
        const tenant = await suspendTenant(platform, str(values, 'slug')!, actor)
        return { json: tenant, text: `Suspended.\n${describe(tenant)}` }
      }),
  },
  {
    name: 'tenant resume',
    summary: 'Resume a suspended company',
    options: { ...SLUG },
    run: (values, env) =>
      withPlatform(env, async (platform) => {
        const tenant = await resumeTenant(platform, str(values, 'slug')!, actor)
        return { json: tenant, text: `Resumed.\n${describe(tenant)}` }
      }),
  },
  {
    name: 'tenant export',
    summary: 'Export everything of a company into a folder, restorable into another deployment',
    options: { ...SLUG, out: { type: 'string', required: true, description: 'a new or empty folder' } },
    help: 'The export holds password hashes, the webhook secret and the signing key: keep it like a backup.',
    run: (values, env) =>
      withPlatform(env, async (platform) => {
        const slug = str(values, 'slug')!
        const out = str(values, 'out')!
        await exportTenant(platform, slug, out, actor)
        return { json: { slug, folder: out }, text: `Exported ${slug} to ${out}.` }
      }),
  },
  {
    name: 'tenant import',
    summary: 'Create a company from an export (dg tenant export or dg data export of another deployment)',
    options: {
      ...SLUG,
      name: { type: 'string', required: true, description: 'the company’s name' },
      from: { type: 'string', required: true, description: 'the export’s folder' },
      hosts: { type: 'string', description: 'comma-separated host names it also answers on' },
      'site-url': { type: 'string', description: 'its website, for offer permalinks' },
    },
    run: (values, env) =>
      withPlatform(env, async (platform) => {
        const hosts = list(str(values, 'hosts'))
        const siteUrl = str(values, 'site-url')
        const tenant = await importTenant(
          platform,
          {
            slug: str(values, 'slug')!,
            name: str(values, 'name')!,
            ...(hosts ? { hosts } : {}),
            ...(siteUrl === undefined ? {} : { siteUrl }),
          },
          (store) => importData(store, str(values, 'from')!),
          actor,
        )
        return { json: tenant, text: `Imported.\n${describe(tenant)}` }
      }),
  },
  {
    name: 'tenant delete',
    summary: 'Delete a company with all its data and published files (after an export)',
    options: { ...SLUG, confirm: { type: 'string', required: true, description: 'the slug again' } },
    run: (values, env) =>
      withPlatform(env, async (platform) => {
        const slug = str(values, 'slug')!
        await deleteTenant(platform, slug, str(values, 'confirm')!, actor)
        return { json: { slug, deleted: true }, text: `Deleted ${slug}.` }
      }),
  },
]
