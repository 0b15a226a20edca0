/*
 * The PostgreSQL database of the load, soak and fault scripts: its own database (default
 * `dg_bench` on the server of DATABASE_URL, else the local one), dropped and created afresh for
 * each scenario, so that the tests' database is never touched and pg_stat_activity can count the
 * service's connections by database name. BENCH_DATABASE_URL names another one; its name must
 * start with `dg_bench` (the scripts drop it). Administration (create, drop, counting, cutting
 * connections) goes through the server's `postgres` database, never through the bench database.
 */
import pg from 'pg'

export function benchDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  let url: URL
  if (env.BENCH_DATABASE_URL) url = new URL(env.BENCH_DATABASE_URL)
  else {
    url = new URL(env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres')
    url.pathname = '/dg_bench'
  }
  const name = databaseName(url.toString())
  if (!/^dg_bench[a-z0-9_]*$/.test(name))
    throw new Error(`the bench database must be named dg_bench…; refusing to drop "${name}"`)
  return url.toString()
}

export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''))
}

/** A client of the same server's maintenance database `postgres`. */
export async function maintenanceClient(url: string): Promise<pg.Client> {
  const maintenance = new URL(url)
  maintenance.pathname = '/postgres'
  const client = new pg.Client({ connectionString: maintenance.toString(), application_name: 'dg-bench-harness' })
  // a server that goes away must not crash the harness; the next query reports it
  client.on('error', () => undefined)
  await client.connect()
  return client
}

export async function recreateDatabase(admin: pg.Client, name: string): Promise<void> {
  await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`).catch(() => undefined)
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  await admin.query(`CREATE DATABASE "${name}"`)
}

export async function dropDatabase(admin: pg.Client, name: string): Promise<void> {
  await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`).catch(() => undefined)
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
}

/** Connections to the database by state (active, idle, idle in transaction, …), the harness's left out. */
export async function connectionsByState(admin: pg.Client, name: string): Promise<Record<string, number>> {
  const { rows } = await admin.query<{ state: string | null; n: string }>(
    `SELECT coalesce(state, 'unknown') AS state, count(*) AS n FROM pg_stat_activity
      WHERE datname = $1 AND application_name <> 'dg-bench-harness' AND backend_type = 'client backend'
      GROUP BY 1`,
    [name],
  )
  return Object.fromEntries(rows.map((row) => [row.state ?? 'unknown', Number(row.n)])) as Record<string, number>
}

/** Connections of the database idle inside a transaction, without a statement for `seconds` or more. */
export async function stuckTransactions(admin: pg.Client, name: string, seconds: number): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity
      WHERE datname = $1 AND state LIKE 'idle in transaction%' AND now() - state_change >= make_interval(secs => $2)`,
    [name, seconds],
  )
  return Number(rows[0]?.n ?? 0)
}

/** Ends every server process serving the database (each client sees its connection dropped). */
export async function terminateBackends(admin: pg.Client, name: string): Promise<number> {
  const { rows } = await admin.query<{ ok: boolean }>(
    `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [name],
  )
  return rows.filter((row) => row.ok).length
}

/** While false, new connections to the database are refused (the database is "gone"). */
export async function allowConnections(admin: pg.Client, name: string, allow: boolean): Promise<void> {
  await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS ${allow ? 'true' : 'false'}`)
}
