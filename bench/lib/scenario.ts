/*
 * One deployment of the mixed workload, from nothing to a report: a fresh deployment (SQLite or
 * the bench database on PostgreSQL), N service processes on it (one shared data folder, as the
 * documented deployment behind a reverse proxy), the workload, a graceful stop (SIGTERM; the exit
 * codes are reported), and what the database holds afterwards.
 */
import path from 'node:path'

import { pino } from 'pino'

import { createHostContext } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { openConfiguredDatabase } from '../../src/host/db/database.js'
import { dropDatabase, maintenanceClient } from './bench-database.js'
import {
  type Deployment,
  type DeploymentOptions,
  prepareDeployment,
  prepareTenant,
  type Storage,
} from './deployment.js'
import { type DocumentedStatuses, loadDocumentedStatuses } from './documented-responses.js'
import { runMixedWorkload, V2, type WorkloadOptions, type WorkloadResult } from './mixed-workload.js'
import { type ServiceProcess, startService, stopService } from './service-process.js'

export interface Scenario {
  name: string
  storage: Storage
  instances: number
  /**
   * Two more companies on the deployment (`tenants-…`): `a` gets the webhook stream, the import, the
   * publication and a burst of catalog lists at `burstRate` a second from one of its readers; `b`
   * has the catalog readers.
   */
  tenants?: { burstRate: number; burstWorkers: number }
}

/** Catalog lists a second of company A's burst (BENCH_BURST_RATE), far above a limit of BENCH_RATE_LIMIT a minute. */
export const DEFAULT_BURST_RATE = 30

/**
 * `postgres-1,postgres-2,sqlite-1` → PostgreSQL with one and two instances, SQLite with one;
 * `tenants-sqlite`, `tenants-postgres` → one instance serving three companies (see Scenario.tenants).
 */
export function parseScenarios(text: string): Scenario[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const tenants = /^tenants-(sqlite|postgres)$/.exec(item)
      if (tenants) {
        const storage = tenants[1] as Storage
        return {
          name: `${storage === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, companies A (import) and B (catalog)`,
          storage,
          instances: 1,
          tenants: { burstRate: Number(process.env.BENCH_BURST_RATE ?? DEFAULT_BURST_RATE), burstWorkers: 3 },
        }
      }
      const match = /^(sqlite|postgres)-(\d+)$/.exec(item)
      if (!match)
        throw new Error(
          `unknown scenario "${item}" (use sqlite-1, postgres-1, postgres-2, …, tenants-sqlite, tenants-postgres)`,
        )
      const storage = match[1] as Storage
      const instances = Number(match[2])
      if (storage === 'sqlite' && instances !== 1) throw new Error('SQLite runs one instance only')
      return {
        name: `${storage === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${instances} instance${instances > 1 ? 's' : ''}`,
        storage,
        instances,
      }
    })
}

export interface ScenarioRun {
  scenario: Scenario
  /** The first company (cleaned up with everything else). */
  deployment: Deployment
  /** The company the readers read, and the one that imports and publishes (both `deployment` unless tenants). */
  readerCompany: Deployment
  operatorCompany: Deployment
  instances: ServiceProcess[]
  documented: DocumentedStatuses
  result: WorkloadResult
  exitCodes: Array<number | null>
  /** Offers of the imported investments (`INV-…`) and the offer count of the whole catalog, at the end (the operator's company). */
  importedOffers: number
  totalOffers: number
  logFiles: string[]
}

export interface ScenarioHooks {
  /** Runs once the instances listen, before the workload (the soak starts its sampling here). */
  onInstances?(instances: ServiceProcess[], deployment: Deployment): void | Promise<void>
}

export async function runScenario(
  scenario: Scenario,
  deploymentOptions: Omit<DeploymentOptions, 'storage'>,
  workload: Omit<WorkloadOptions, 'deployment' | 'origins' | 'operator' | 'burst'>,
  hooks: ScenarioHooks = {},
): Promise<ScenarioRun> {
  const deployment = await prepareDeployment(
    scenario.tenants
      ? { ...deploymentOptions, storage: scenario.storage, readers: 0, offers: 100 }
      : { ...deploymentOptions, storage: scenario.storage },
  )
  let readerCompany = deployment
  let operatorCompany = deployment
  let burst: WorkloadOptions['burst']
  if (scenario.tenants) {
    // before the service starts: it finds both companies with today published
    try {
      operatorCompany = await prepareTenant(deployment, 'firma-a', { ...deploymentOptions, readers: 1 })
      readerCompany = await prepareTenant(deployment, 'firma-b', deploymentOptions)
    } catch (error) {
      await cleanUp(deployment)
      throw error
    }
    burst = {
      deployment: operatorCompany,
      authorization: operatorCompany.readerAuthorizations[0] as string,
      rate: scenario.tenants.burstRate,
      workers: scenario.tenants.burstWorkers,
    }
  }
  const instances: ServiceProcess[] = []
  try {
    for (let i = 0; i < scenario.instances; i++) {
      const label = String.fromCharCode(97 + i)
      instances.push(await startService(label, deployment.env, path.join(deployment.dataDir, `service-${label}.log`)))
    }
    const documented = await loadDocumentedStatuses((instances[0] as ServiceProcess).origin, V2)
    await hooks.onInstances?.(instances, deployment)
    const result = await runMixedWorkload({
      ...workload,
      deployment: readerCompany,
      operator: operatorCompany,
      ...(burst ? { burst } : {}),
      origins: instances.map((instance) => instance.origin),
    })
    const exitCodes: Array<number | null> = []
    for (const instance of instances) exitCodes.push(await stopService(instance))
    const counts = await countOffers(operatorCompany)
    return {
      scenario,
      deployment,
      readerCompany,
      operatorCompany,
      instances,
      documented,
      result,
      exitCodes,
      ...counts,
      logFiles: instances.map((instance) => instance.logFile),
    }
  } catch (error) {
    for (const instance of instances) await stopService(instance, 5000)
    throw error
  }
}

async function countOffers(deployment: Deployment): Promise<{ importedOffers: number; totalOffers: number }> {
  const platform = loadConfig(deployment.env)
  // another company's database: its own SQLite file in its folder, or its schema beside the first's
  const config = deployment.slug
    ? { ...platform, dataDir: deployment.dataDir, databaseSchema: deployment.databaseSchema }
    : platform
  const database = openConfiguredDatabase(config)
  const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }) })
  try {
    const imported = await ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('investments.source_id', 'like', 'INV-%')
      .executeTakeFirstOrThrow()
    const total = await ctx.db
      .selectFrom('offers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    return { importedOffers: Number(imported.n), totalOffers: Number(total.n) }
  } finally {
    await database.destroy()
  }
}

/** Removes the data folder and drops the bench database, unless BENCH_KEEP is set (then says where they are). */
export async function cleanUp(deployment: Deployment): Promise<string | undefined> {
  if (['1', 'true', 'yes', 'on'].includes((process.env.BENCH_KEEP ?? '').toLowerCase()))
    return `kept: ${deployment.dataDir}${deployment.databaseName ? ` and database ${deployment.databaseName}` : ''}`
  deployment.cleanup()
  if (deployment.databaseUrl && deployment.databaseName) {
    const admin = await maintenanceClient(deployment.databaseUrl)
    try {
      await dropDatabase(admin, deployment.databaseName)
    } finally {
      await admin.end()
    }
  }
  return undefined
}
