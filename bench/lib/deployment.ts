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
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { sql } from 'kysely'
import { pino } from 'pino'

import { createHostContext } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { setUpDemo } from '../../src/demo/demo-setup.js'
import { createAppPassword } from '../../src/host/auth/app-passwords.js'
import { openConfiguredDatabase } from '../../src/host/db/database.js'
import { createUser } from '../../src/host/users/users.js'
import { warsawDate } from '../../src/host/warsaw-day.js'
import { publish } from '../../src/publication/publishing/publish.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { benchDatabaseUrl, databaseName, maintenanceClient, recreateDatabase } from './bench-database.js'
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
  const actor = { type: 'cli' } as const
  const credentials: string[] = []
  try {
    const demo = await setUpDemo(ctx)
    credentials.push(demo.admin.password, demo.reader.application_password, demo.webhook_secret, ctx.authKey)
    const adminPassword = await createAppPassword(ctx, { login: demo.admin.login, name: 'bench', actor })
    const adminAuthorization = basic(demo.admin.login, adminPassword.password)
    credentials.push(adminPassword.password, adminAuthorization)
    const readerAuthorizations: string[] = []
    for (let i = 0; i < options.readers; i++) {
      const login = `reader-${i}`
      const created = await createUser(ctx, {
        login,
        email: `reader-${i}@example.test`,
        role: 'dg_catalog_reader',
        actor,
      })
      if (created.password) credentials.push(created.password)
      const { password } = await createAppPassword(ctx, { login, name: 'website', actor })
      readerAuthorizations.push(basic(login, password))
      credentials.push(password, basic(login, password))
    }
    await updatePublicationSettings(ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, actor)
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
    if (databaseUrl) await sql`ANALYZE`.execute(ctx.db)
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
      storage: options.storage,
      dataDir,
      ...(databaseUrl ? { databaseUrl, databaseName: databaseName(databaseUrl) } : {}),
      env,
      adminAuthorization,
      readerAuthorizations,
      webhookSecret: demo.webhook_secret,
      catalog,
      offerIds,
      credentials: credentials.filter((value) => value.length >= 8),
      cleanup: () => fs.rmSync(dataDir, { recursive: true, force: true }),
    }
  } finally {
    await database.destroy()
  }
}
