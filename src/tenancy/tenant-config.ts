/*
 * A company's configuration, derived from the platform's: the same service settings, its own data
 * folder and database, its own public address, and none of the first company's secrets or alert
 * recipients (DG_AUTH_KEY, DG_ALERT_*, which the environment sets for the first company only).
 */
import type { AppConfig } from '../config.js'
import { serviceMarkers } from '../host/service-marker.js'
import { configuredServiceBase } from '../host/http/service-origin.js'
import { hostsOf, type TenantRow } from './tenants-repository.js'
import { TENANT_PATH_PREFIX, tenantDataDir } from './tenant-names.js'

/**
 * The platform's public address: DG_PANEL_URL, else the address the service listens on (`listening`
 * when known, e.g. the one a running service wrote in its marker).
 */
export function platformBase(config: AppConfig, listening?: string): string {
  if (config.panelUrl) return config.panelUrl
  return listening ?? configuredServiceBase(config)
}

/** Where a service running on this data folder listens, as its marker says: what a printed base_url must reach. */
export async function runningServiceAddress(dataDir: string): Promise<string | undefined> {
  const markers = await serviceMarkers(dataDir)
  return markers.find((marker) => marker.alive && marker.address !== undefined)?.address
}

/** Where a company is reached: its first own host name, else its path on the platform's address. */
export function tenantPublicBase(platform: string, tenant: Pick<TenantRow, 'slug' | 'hosts'>): string {
  const [host] = hostsOf(tenant)
  if (host !== undefined) return `${new URL(platform).protocol}//${host}`
  return `${platform}${TENANT_PATH_PREFIX}/${tenant.slug}`
}

export function tenantConfig(
  platform: AppConfig,
  tenant: Pick<TenantRow, 'slug' | 'hosts' | 'storage' | 'site_url'>,
  base: string,
  /** The first company's database is PostgreSQL: this company's is a schema beside it. */
  postgres: boolean,
): AppConfig {
  const publicBase = tenantPublicBase(base, tenant)
  return Object.freeze({
    ...platform,
    dataDir: tenantDataDir(platform.dataDir, tenant.slug),
    databaseSchema: postgres ? tenant.storage : undefined,
    tenant: Object.freeze({ slug: tenant.slug }),
    authKey: undefined,
    alerts: Object.freeze({ ...platform.alerts, smtp: undefined, webhook: undefined }),
    panelUrl: publicBase,
    // its panel opens at every address it has: the platform's /t/{slug}/ and each host name
    signInOrigins: Object.freeze([
      new URL(base).origin,
      ...hostsOf(tenant).map((host) => `${new URL(base).protocol}//${host}`),
    ]),
    siteUrl: tenant.site_url ?? publicBase,
  })
}
