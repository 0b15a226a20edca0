/*
 * Runs a storage-touching suite once per database: SQLite always, PostgreSQL at
 * DG_TEST_DATABASE_URL, which test/helpers/postgres-setup.ts sets (the local server by default;
 * `none` leaves PostgreSQL out). Every suite gets a fresh SQLite file or a fresh
 * PostgreSQL schema, dropped afterwards.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import pg from 'pg'

import { type DatabaseHandle, openDatabase } from '../../src/host/db/database.js'

export type TestDialect = 'sqlite' | 'postgres'

export const PG_TEST_URL = process.env.DG_TEST_DATABASE_URL || undefined
export const TEST_DIALECTS: readonly TestDialect[] = PG_TEST_URL ? ['sqlite', 'postgres'] : ['sqlite']

export interface TestDatabase {
  handle: DatabaseHandle
  dialect: TestDialect
  /** The data directory of this suite (SQLite file, uploads, published files). */
  dataDir: string
  /** How another process or instance reaches the same database. */
  connection: { databaseUrl?: string; pgSchema?: string; sqliteFile?: string }
  cleanup(): Promise<void>
}

export async function openTestDatabase(dialect: TestDialect): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-test-'))
  if (dialect === 'sqlite') {
    const sqliteFile = path.join(dataDir, 'dg.sqlite')
    const handle = openDatabase({ sqliteFile })
    return {
      handle,
      dialect,
      dataDir,
      connection: { sqliteFile },
      cleanup: async () => {
        await handle.destroy()
        fs.rmSync(dataDir, { recursive: true, force: true })
      },
    }
  }
  if (!PG_TEST_URL) throw new Error('DG_TEST_DATABASE_URL is not set')
  const schema = `dg_t_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: PG_TEST_URL })
  await admin.connect()
  await admin.query(`CREATE SCHEMA ${schema}`)
  await admin.end()
  const handle = openDatabase({ databaseUrl: PG_TEST_URL, pgSchema: schema })
  return {
    handle,
    dialect,
    dataDir,
    connection: { databaseUrl: PG_TEST_URL, pgSchema: schema },
    cleanup: async () => {
      await handle.destroy()
      const dropper = new pg.Client({ connectionString: PG_TEST_URL })
      await dropper.connect()
      await dropper.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await dropper.end()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
