/*
 * A database that cannot be reached, or cannot confirm the work, is answered 503
 * database_unavailable with Retry-After (the state cannot be safely confirmed), never
 * 500, on every route that needs it, and the service recovers by itself when the database is back
 * (found by `npm run bench:faults`, whose catalog answered 500 while PostgreSQL was gone).
 * PostgreSQL: the app reaches the test database through a TCP proxy that the test cuts (every
 * connection dropped, new ones refused) and restores. SQLite: another process holds the write
 * lock past the busy timeout. Both drivers' errors are also classified directly.
 */
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

import Database from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import pg from 'pg'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../../src/app.js'
import { loadConfig } from '../../../src/config.js'
import { openDatabase } from '../../../src/host/db/database.js'
import { isDatabaseUnavailable } from '../../../src/host/db/dialect.js'
import { openTestDatabase, PG_TEST_URL, type TestDatabase } from '../../helpers/databases.js'
import { createTestUser, grantProLicense, type TestUser } from '../../helpers/factories.js'
import { startTestApp, type TestEnv } from '../../helpers/test-app.js'

const V2 = '/wp-json/dg/v2'

/** A TCP proxy to PostgreSQL that can lose every connection and refuse new ones, then come back. */
class CuttableProxy {
  readonly server = net.createServer((client) => this.#accept(client))
  #up = true
  readonly #sockets = new Set<net.Socket>()

  constructor(private readonly target: { host: string; port: number }) {}

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    return (this.server.address() as net.AddressInfo).port
  }

  #accept(client: net.Socket): void {
    if (!this.#up) {
      client.destroy()
      return
    }
    const upstream = net.connect(this.target)
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket)
      socket.on('close', () => this.#sockets.delete(socket))
      socket.on('error', () => undefined)
    }
    client.pipe(upstream)
    upstream.pipe(client)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  }

  cut(): void {
    this.#up = false
    for (const socket of this.#sockets) socket.destroy()
  }

  restore(): void {
    this.#up = true
  }

  async close(): Promise<void> {
    this.cut()
    await new Promise((resolve) => this.server.close(resolve))
  }
}

describe.skipIf(!PG_TEST_URL)('PostgreSQL out of reach [postgres]', () => {
  let database: TestDatabase
  let proxy: CuttableProxy
  let app: FastifyInstance
  let reader: TestUser
  let admin: TestUser
  const logLines: string[] = []

  beforeAll(async () => {
    database = await openTestDatabase('postgres')
    const target = new URL(PG_TEST_URL as string)
    proxy = new CuttableProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const proxied = new URL(PG_TEST_URL as string)
    proxied.port = String(await proxy.listen())
    const handle = openDatabase({ databaseUrl: proxied.toString(), pgSchema: database.connection.pgSchema as string })
    const config = loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'info', DG_DATA_DIR: database.dataDir })
    app = await buildApp({
      config,
      database: handle,
      logger: pino({ level: 'info' }, { write: (line: string) => logLines.push(line) }),
    })
    app.addHook('onClose', () => handle.destroy())
    await grantProLicense(app.ctx)
    reader = await createTestUser(app.ctx, 'dg_catalog_reader')
    admin = await createTestUser(app.ctx, 'administrator')
  })

  afterAll(async () => {
    proxy?.restore()
    await app?.close()
    await proxy?.close()
    await database?.cleanup()
  })

  const get = (url: string, user?: TestUser) =>
    app.inject({ method: 'GET', url, headers: user ? { authorization: user.authorization } : {} })

  it('answers 503 database_unavailable while the database is gone, and recovers by itself', async () => {
    expect((await get(`${V2}/catalog/properties`, reader)).statusCode).toBe(200)

    proxy.cut()
    for (const [url, user] of [
      [`${V2}/catalog/properties`, reader],
      [`${V2}/catalog`, reader],
      [`${V2}/status`, admin],
    ] as const) {
      const response = await get(url, user)
      expect(response.statusCode, url).toBe(503)
      expect(response.headers['retry-after']).toBe('5')
      expect(response.json()).toMatchObject({ code: 'database_unavailable', data: { status: 503 } })
    }
    // liveness does not depend on the database; readiness says it is not ready
    expect((await get('/healthz')).statusCode).toBe(200)
    expect((await get('/readyz')).statusCode).toBe(503)

    proxy.restore()
    expect((await get(`${V2}/catalog/properties`, reader)).statusCode).toBe(200)
    expect((await get(`${V2}/status`, admin)).statusCode).toBe(200)

    const log = logLines.join('')
    expect(log).toContain('"msg":"database unavailable"')
    expect(log).not.toContain('"statusCode":500')
    for (const secret of [reader.appPassword, admin.appPassword, 'Basic ']) expect(log).not.toContain(secret)
  })

  it('documents 503 on the routes that use the database, not on /healthz nor the published files', async () => {
    const document = (await get(`${V2}/openapi.json`)).json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    }
    expect(Object.keys(document.paths[`${V2}/catalog/properties`]?.get?.responses ?? {})).toContain('503')
    expect(Object.keys(document.paths[`${V2}/publications`]?.post?.responses ?? {})).toContain('503')
    expect(Object.keys(document.paths[`${V2}/imports/offer`]?.post?.responses ?? {})).toContain('503')
    expect(Object.keys(document.paths['/healthz']?.get?.responses ?? {})).not.toContain('503')
    expect(Object.keys(document.paths['/dane-gov/{file}']?.get?.responses ?? {})).not.toContain('503')
  })
})

describe('SQLite locked by another process [sqlite]', () => {
  let env: TestEnv
  let admin: TestUser

  beforeAll(async () => {
    env = await startTestApp('sqlite')
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
  })

  afterAll(async () => {
    await env?.app.close()
    await env?.database.cleanup()
  })

  it('answers a write 503 database_unavailable once the busy timeout has passed, and writes once it is free', async () => {
    const other = new Database(path.join(env.database.dataDir, 'dg.sqlite'))
    const put = () =>
      env.app.inject({
        method: 'PUT',
        url: `${V2}/publication/settings`,
        payload: { public_base_url: 'https://ceny.example.pl/dane-gov' },
        headers: { authorization: admin.authorization },
      })
    try {
      other.exec('BEGIN IMMEDIATE')
      const refused = await put()
      expect(refused.statusCode).toBe(503)
      expect(refused.json()).toMatchObject({ code: 'database_unavailable' })
      other.exec('ROLLBACK')
      expect((await put()).statusCode).toBe(200)
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK')
      other.close()
    }
  }, 20_000)
})

describe('isDatabaseUnavailable tells an unreachable database from a wrong query', () => {
  it('[sqlite] a database locked past the busy timeout is unavailable; a constraint or syntax error is not', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-unavailable-'))
    const file = path.join(dir, 'locked.sqlite')
    const first = new Database(file)
    const second = new Database(file)
    try {
      first.pragma('journal_mode = WAL')
      first.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)')
      first.exec('INSERT INTO t VALUES (1)')
      second.pragma('busy_timeout = 0')
      first.exec('BEGIN IMMEDIATE')
      const caught = (run: () => unknown) => {
        try {
          run()
        } catch (error) {
          return error
        }
        throw new Error('no error')
      }
      expect(isDatabaseUnavailable(caught(() => second.exec('INSERT INTO t VALUES (2)')))).toBe(true)
      first.exec('ROLLBACK')
      expect(isDatabaseUnavailable(caught(() => second.exec('INSERT INTO t VALUES (1)')))).toBe(false)
      expect(isDatabaseUnavailable(caught(() => second.exec('SELEC 1')))).toBe(false)
    } finally {
      first.close()
      second.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.skipIf(!PG_TEST_URL)(
    '[postgres] refused, terminated and absent databases are unavailable; a wrong query is not',
    async () => {
      const refused = new pg.Client({
        connectionString: 'postgres://postgres@127.0.0.1:1/test',
        connectionTimeoutMillis: 2000,
      })
      const refusal = await refused.connect().then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(isDatabaseUnavailable(refusal)).toBe(true)

      const missing = new URL(PG_TEST_URL as string)
      missing.pathname = '/dg_no_such_database'
      const absent = await new pg.Client({ connectionString: missing.toString() }).connect().then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(isDatabaseUnavailable(absent)).toBe(true)

      const handle = openDatabase({ databaseUrl: PG_TEST_URL as string })
      const admin = new pg.Client({ connectionString: PG_TEST_URL })
      await admin.connect()
      try {
        const wrong = await sql`SELEC 1`.execute(handle.db).then(
          () => undefined,
          (error: unknown) => error,
        )
        expect(wrong).toBeDefined()
        expect(isDatabaseUnavailable(wrong)).toBe(false)
        // the connection dies under a query that runs on it
        const terminated = await handle.db.connection().execute(async (connection) => {
          const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(connection)
          const sleeping = sql`SELECT pg_sleep(5)`.execute(connection).then(
            () => undefined,
            (error: unknown) => error,
          )
          await new Promise((resolve) => setTimeout(resolve, 200))
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid])
          return sleeping
        })
        expect(isDatabaseUnavailable(terminated)).toBe(true)
      } finally {
        await admin.end()
        await handle.destroy()
      }
    },
  )
})
