/*
 * A deployment for the load, soak and fault scripts: a fresh data folder and database (SQLite, or
 * the bench database on PostgreSQL, see bench-database.ts) seeded the way an operator would set it
 * up, through the service's own functions: the demo's developer with complete legal data, PRO
 * licence, webhook secret and administrator (setUpDemo), an application password for the
 * administrator, `readers` catalog-reader accounts with one application password each, the public
 * address of the published files, and the webhook benchmarks' catalog (investments `BENCH-<i>`
 * with a full location and prospectus; a fifth of the offers reserved, a fifth sold). Today is published once by the schedule's trigger, so
 * that the service does not start with a catch-up publication. Every credential is kept, to look for in the logs afterwards.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { sql } from 'kysely'
import { pino } from 'pino'

import { createHostContext } from '../../src/app.js'
import { type AppConfig, loadConfig } from '../../src/config.js'
import { prepareDemo, setUpDemo } from '../../src/demo/demo-setup.js'
import type { HostContext } from '../../src/host/context.js'
import { createAppPassword } from '../../src/host/auth/app-passwords.js'
import { openConfiguredDatabase } from '../../src/host/db/database.js'
import { createUser } from '../../src/host/users/users.js'
import { warsawDate } from '../../src/host/warsaw-day.js'
import { publish } from '../../src/publication/publishing/publish.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { platformBase, tenantConfig } from '../../src/tenancy/tenant-config.js'
import { TENANT_PATH_PREFIX } from '../../src/tenancy/tenant-names.js'
import { tenantRowBySlug } from '../../src/tenancy/tenants-repository.js'
import { benchDatabaseUrl, databaseName, maintenanceClient, recreateDatabase } from './bench-database.js'
import { buildOnce } from './service-process.js'
import { seedWebhookCatalog, type WebhookCatalog, webhookCatalog } from './webhook-events.js'

export type Storage = 'sqlite' | 'postgres'

export interface Deployment {
  storage: Storage
  dataDir: string
  /** PostgreSQL only: the bench database's URL and name. */
  databaseUrl?: string
  databaseName?: string
  /** The environment of every service process of this deployment. */
  env: NodeJS.ProcessEnv
  adminAuthorization: string
  readerAuthorizations: string[]
  webhookSecret: string
  catalog: WebhookCatalog
  /** Published offers, for detail and price-history requests. */
  offerIds: number[]
  /** Every password, key and Authorization value made here: none may ever appear in a log. */
  credentials: string[]
  /** Where the company's addresses start on the service: '' for the first company, `/t/{slug}` for another. */
  prefix: string
  /** User ids of the readers (the same in companies seeded alike). */
  readerUserIds: number[]
  /** Another company only: its slug and, on PostgreSQL, its schema. */
  slug?: string
  databaseSchema?: string | undefined
  /** Removes the data folder (the bench database is dropped by the next run, or kept for a look). */
  cleanup(): void
}

export interface DeploymentOptions {
  storage: Storage
  readers: number
  offers: number
  offersPerInvestment: number
  /** Catalog requests per minute per user and IP (the service's DG_CATALOG_RATE_LIMIT). */
  catalogRateLimit: number
  logLevel?: string
  extraEnv?: Record<string, string>
}

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`

/** The environment the scripts run the service with, without what the harness's own shell may set. */
function serviceEnv(options: DeploymentOptions, dataDir: string, databaseUrl: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of Object.keys(env)) if (name.startsWith('DG_') || name === 'NODE_ENV') delete env[name]
  delete env.DATABASE_URL
  return {
    ...env,
    DG_DATA_DIR: dataDir,
    DG_ENV: 'development',
    DG_LOG_LEVEL: options.logLevel ?? 'info',
    DG_CATALOG_RATE_LIMIT: String(options.catalogRateLimit),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.extraEnv,
  }
}

export async function prepareDeployment(options: DeploymentOptions): Promise<Deployment> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `dg-bench-${options.storage}-`))
  let databaseUrl: string | undefined
  if (options.storage === 'postgres') {
    databaseUrl = benchDatabaseUrl()
    const admin = await maintenanceClient(databaseUrl)
    try {
      await recreateDatabase(admin, databaseName(databaseUrl))
    } finally {
      await admin.end()
    }
  }
  const env = serviceEnv(options, dataDir, databaseUrl)
  const config = loadConfig(env)
  const database = openConfiguredDatabase(config)
  const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }) })
  try {
    const demo = await setUpDemo(ctx)
    const adminPassword = await createAppPassword(ctx, { login: demo.admin.login, name: 'bench', actor: CLI })
    const seeded = await seedCompany(ctx, options, {
      adminAuthorization: basic(demo.admin.login, adminPassword.password),
      webhookSecret: demo.webhook_secret,
      credentials: [demo.admin.password, demo.reader.application_password, demo.webhook_secret, ctx.authKey],
    })
    seeded.credentials.push(adminPassword.password)
    return {
      storage: options.storage,
      dataDir,
      ...(databaseUrl ? { databaseUrl, databaseName: databaseName(databaseUrl) } : {}),
      env,
      prefix: '',
      ...seeded,
      credentials: seeded.credentials.filter((value) => value.length >= 8),
      cleanup: () => fs.rmSync(dataDir, { recursive: true, force: true }),
    }
  } finally {
    await database.destroy()
  }
}

const CLI = { type: 'cli' } as const

/**
 * What every seeded company holds besides its developer and licence: the administrator's application
 * password (given), the readers, the public address of the files, the benchmarks' catalog, and today
 * published once.
 */
async function seedCompany(
  ctx: HostContext,
  options: Pick<DeploymentOptions, 'readers' | 'offers' | 'offersPerInvestment'>,
  given: { adminAuthorization: string; webhookSecret: string; credentials: string[] },
): Promise<
  Pick<
    Deployment,
    | 'adminAuthorization'
    | 'readerAuthorizations'
    | 'readerUserIds'
    | 'webhookSecret'
    | 'catalog'
    | 'offerIds'
    | 'credentials'
  >
> {
  const credentials = [...given.credentials, given.adminAuthorization]
  const readerAuthorizations: string[] = []
  const readerUserIds: number[] = []
  for (let i = 0; i < options.readers; i++) {
    const login = `reader-${i}`
    const created = await createUser(ctx, {
      login,
      email: `reader-${i}@example.test`,
      role: 'dg_catalog_reader',
      actor: CLI,
    })
    if (created.password) credentials.push(created.password)
    readerUserIds.push(created.user.id)
    const { password } = await createAppPassword(ctx, { login, name: 'website', actor: CLI })
    readerAuthorizations.push(basic(login, password))
    credentials.push(password, basic(login, password))
  }
  await updatePublicationSettings(ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, CLI)
  const catalog = webhookCatalog(options.offers, options.offersPerInvestment)
  await ctx.db.transaction().execute(async (trx) => {
    await seedWebhookCatalog(trx, catalog)
    await trx
      .updateTable('investments')
      .set({
        loc_voivodeship: 'mazowieckie',
        loc_powiat: 'Warszawa',
        loc_gmina: 'Warszawa',
        loc_street: 'Prosta',
        loc_building_no: '1',
        loc_postal_code: '00-850',
        prospectus_url: 'https://ceny.example.pl/prospekt.pdf',
      })
      .where('source_id', 'like', 'BENCH-%')
      .execute()
    // a catalog with every status, so that the readers' status filters find offers
    await trx
      .updateTable('offers')
      .set({ status: 'reserved' })
      .where(sql<boolean>`id % 5 = 1`)
      .execute()
    await trx
      .updateTable('offers')
      .set({ status: 'sold' })
      .where(sql<boolean>`id % 5 = 2`)
      .execute()
  })
  // the statistics autovacuum would gather within a minute or so: without them PostgreSQL plans
  // the catalog lists of a freshly bulk-loaded table as nested loops over every offer (seconds)
  if (ctx.caps.name === 'postgres') await sql`ANALYZE`.execute(ctx.db)
  // as the daily schedule would have: a service that starts later today has nothing to catch up
  await publish(ctx, { date: warsawDate(ctx.now()), trigger: 'schedule', actor: { type: 'scheduler' } })
  const offerIds = (
    await ctx.db
      .selectFrom('offers')
      .select('id')
      .where('host_status', '=', 'publish')
      .orderBy('id')
      .limit(1000)
      .execute()
  ).map((row) => row.id)
  return {
    adminAuthorization: given.adminAuthorization,
    readerAuthorizations,
    readerUserIds,
    webhookSecret: given.webhookSecret,
    catalog,
    offerIds,
    credentials,
  }
}

/** The `dg tenant create --json` answer, as far as the benchmarks use it. */
interface CreatedTenant {
  slug: string
  base_url: string
  admin: { login: string; password: string; application_password: string }
}

/**
 * Another company on the deployment `first`, made as an operator makes one (`dg tenant create`, the
 * built CLI, with the deployment's environment) and seeded like the first company through the
 * service's own functions on the company's configuration and database, as `dg --tenant SLUG` reaches
 * them: the demo's developer, licence and webhook secret, then what seedCompany adds. Its requests go
 * to `/t/{slug}` of the deployment's address (`prefix`). Call it before the service starts, so that
 * the service finds today published and catches nothing up.
 */
export async function prepareTenant(
  first: Deployment,
  slug: string,
  options: Pick<DeploymentOptions, 'readers' | 'offers' | 'offersPerInvestment'>,
): Promise<Deployment> {
  buildOnce()
  const answer = execFileSync(
    process.execPath,
    [
      'dist/cli/main.js',
      'tenant',
      'create',
      '--slug',
      slug,
      '--name',
      `Firma ${slug.slice(-1).toUpperCase()}`,
      '--json',
    ],
    { env: first.env, encoding: 'utf8' },
  )
  const created = JSON.parse(answer) as CreatedTenant
  const platform = loadConfig(first.env)
  const firstDatabase = openConfiguredDatabase(platform)
  let config: AppConfig
  try {
    const row = await tenantRowBySlug(firstDatabase.db, slug)
    if (!row) throw new Error(`dg tenant create did not register "${slug}"`)
    config = tenantConfig(platform, row, platformBase(platform), first.storage === 'postgres')
  } finally {
    await firstDatabase.destroy()
  }
  const database = openConfiguredDatabase(config)
  const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }) })
  try {
    // the company's administrator exists (the create answer holds its passwords): the demo adds
    // its developer with complete legal data, the PRO licence, the webhook secret and its reader
    const demo = await prepareDemo(ctx)
    const seeded = await seedCompany(ctx, options, {
      adminAuthorization: basic(created.admin.login, created.admin.application_password),
      webhookSecret: demo.webhook_secret,
      credentials: [
        created.admin.password,
        created.admin.application_password,
        demo.webhook_secret,
        ...(demo.reader.application_password ? [demo.reader.application_password] : []),
      ],
    })
    return {
      ...first,
      dataDir: config.dataDir,
      databaseSchema: config.databaseSchema,
      prefix: `${TENANT_PATH_PREFIX}/${created.slug}`,
      slug: created.slug,
      ...seeded,
      credentials: seeded.credentials.filter((value) => value.length >= 8),
      // the first company's cleanup removes the company's folder and database with its own
      cleanup: () => undefined,
    }
  } finally {
    await database.destroy()
  }
}
