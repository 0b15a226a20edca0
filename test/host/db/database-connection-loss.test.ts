/*
 * A PostgreSQL connection that dies while the service holds it (a server restart, a failover,
 * pg_terminate_backend, a network cut) in the middle of a transaction: the transaction fails, the
 * process lives on, and the pool serves the next query with a new connection. Before the fix the
 * client's unhandled 'error' event crashed the whole process (found by `npm run bench:faults`).
 * PostgreSQL only: an embedded SQLite database has no connection to lose.
 */
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { openTestDatabase, PG_TEST_URL, type TestDatabase } from '../../helpers/databases.js'

describe.skipIf(!PG_TEST_URL)('a PostgreSQL connection lost inside a transaction [postgres]', () => {
  let database: TestDatabase
  let admin: pg.Client

  beforeAll(async () => {
    database = await openTestDatabase('postgres')
    admin = new pg.Client({ connectionString: PG_TEST_URL })
    await admin.connect()
  })

  afterAll(async () => {
    await admin?.end()
    await database?.cleanup()
  })

  it('fails that transaction only: the process lives on and the next query gets a new connection', async () => {
    const uncaught: unknown[] = []
    const record = (error: unknown) => uncaught.push(error)
    process.on('uncaughtException', record)
    try {
      const { db } = database.handle
      let lostPid = 0
      const transaction = db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx)
        lostPid = Number(rows[0]?.pid)
        // the connection dies while this transaction holds it, between two of its queries
        await admin.query('SELECT pg_terminate_backend($1)', [lostPid])
        await new Promise((resolve) => setTimeout(resolve, 300))
        await sql`SELECT 1`.execute(trx)
      })
      await expect(transaction).rejects.toThrow()
      expect(uncaught).toEqual([])
      const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)
      expect(Number(rows[0]?.pid)).not.toBe(lostPid)
    } finally {
      process.off('uncaughtException', record)
    }
  })
})
