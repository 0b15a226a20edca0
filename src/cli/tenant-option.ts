/*
 * `dg --tenant SLUG <command>`: any command (users, import, publication, backup, …) run for one of
 * the companies this platform serves, with that company's configuration and database. Without it,
 * commands work on the first company, as they always did.
 */
import { ConfigError } from '../config.js'
import { platformBase, runningServiceAddress, tenantConfig } from '../tenancy/tenant-config.js'
import { openTenantDatabase } from '../tenancy/tenant-storage.js'
import { tenantRowBySlug } from '../tenancy/tenants-repository.js'
import { type CliEnvironment, openCliDatabase } from './cli-context.js'

/** Takes `--tenant SLUG` or `--tenant=SLUG` out of the arguments, wherever it stands. */
export function takeTenantOption(argv: string[]): { argv: string[]; tenant: string | undefined } {
  const rest: string[] = []
  let tenant: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--tenant') {
      tenant = argv[++i]
      if (tenant === undefined || tenant.startsWith('-')) throw new ConfigError('--tenant needs the company’s slug')
    } else if (arg.startsWith('--tenant=')) tenant = arg.slice('--tenant='.length)
    else rest.push(arg)
  }
  return { argv: rest, tenant }
}

export async function tenantEnvironment(env: CliEnvironment, slug: string): Promise<CliEnvironment> {
  const database = openCliDatabase(env)
  try {
    const row = await tenantRowBySlug(database.db, slug).catch(() => undefined)
    if (!row || (row.status !== 'active' && row.status !== 'suspended'))
      throw new ConfigError(`No company "${slug}" on this platform (dg tenant list).`)
    const first = { db: database.db, dialect: database.caps.name, dataDir: env.config.dataDir }
    const listening = await runningServiceAddress(env.config.dataDir)
    const config = tenantConfig(env.config, row, platformBase(env.config, listening), database.caps.name === 'postgres')
    return {
      ...env,
      config,
      // the company's own database, reached the way the first company's is (its address is known
      // from the handle even once that is closed)
      openDatabase: () => openTenantDatabase(first, row),
    }
  } finally {
    await database.destroy()
  }
}
