/*
 * How a company served beside the first is named and where its things live. The slug is chosen
 * once: it is in every address the company hands out (`/t/{slug}/…`) and in every file it
 * publishes, so it never changes (docs/decisions/tenants.md).
 */
import path from 'node:path'

import { HostError } from '../host/errors.js'

/** Every company but the first is reached under this prefix on the platform's own host name. */
export const TENANT_PATH_PREFIX = '/t'

/** The name `dg tenant list` gives the deployment's first company (its data predates tenants). */
export const FIRST_COMPANY_SLUG = 'main'

const SLUG = /^[a-z][a-z0-9-]{1,38}[a-z0-9]$/
const RESERVED = new Set([FIRST_COMPANY_SLUG, 'admin', 'api', 'platform', 'www', 'static', 'assets'])
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+(?::\d{1,5})?$/

export function assertTenantSlug(slug: string): void {
  if (!SLUG.test(slug) || slug.includes('--'))
    throw new HostError(
      'invalid_tenant_slug',
      422,
      `"${slug.slice(0, 60)}" is not a usable slug: 3 to 40 lower-case letters, digits and single hyphens, starting with a letter (e.g. "osiedle-zielone").`,
    )
  if (RESERVED.has(slug)) throw new HostError('invalid_tenant_slug', 422, `"${slug}" is reserved; choose another slug.`)
}

/** A host name as a proxy forwards it: lower case, optional port, no scheme or path. */
export function normalizeHostName(host: string): string {
  const normalized = host.trim().toLowerCase().replace(/\.$/, '')
  if (!HOST_NAME.test(normalized))
    throw new HostError(
      'invalid_tenant_host',
      422,
      `"${host.slice(0, 100)}" is not a host name (e.g. ceny.firma.pl, without https:// or a path).`,
    )
  return normalized
}

/** A company's data folder: its SQLite database (without PostgreSQL), published files and uploads. */
export function tenantDataDir(platformDataDir: string, slug: string): string {
  return path.join(platformDataDir, 'tenants', slug)
}

/**
 * A company's PostgreSQL schema, named after the first company's (tests give each run a schema of
 * its own, so their companies stay inside it); at most 63 characters, PostgreSQL's limit.
 */
export function tenantSchemaName(firstCompanySchema: string | undefined, slug: string): string {
  return `${firstCompanySchema ?? 'dg'}__${slug.replace(/-/g, '_')}`
}
