/*
 * On SQLite, committed writes are copied from the WAL into the database file by a thread of their
 * own, not by the request whose commit crossed the automatic threshold: the data must reach the
 * database file while the service's connection stays open, and closing the database must end the
 * thread and leave no WAL behind.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { Kysely, sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'

import { createSqliteDialect } from '../../../src/host/db/dialect.js'

describe('WAL checkpoints on SQLite', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
  })

  /** A new database file with one table of notes, opened as the service opens its own. */
  async function openNotes() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-wal-'))
    dirs.push(dir)
    const file = path.join(dir, 'dg.sqlite')
    const db = new Kysely<{ notes: { id: number; body: string } }>({ dialect: createSqliteDialect({ file }).dialect })
    await sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`.execute(db)
    return { file, db }
  }

  it('copies committed writes into the database file in the background, and stops on close', async () => {
    const { file, db } = await openNotes()
    const sizeBefore = fs.statSync(file).size
    // 2,000 rows of 2 KiB: about 1,000 pages, far below the main connection's own threshold
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < 2000; i += 100)
        await trx
          .insertInto('notes')
          .values(Array.from({ length: 100 }, (_, j) => ({ id: i + j + 1, body: 'x'.repeat(2048) })))
          .execute()
    })
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(4_000_000)

    const deadline = Date.now() + 5_000
    while (fs.statSync(file).size < 4_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(sizeBefore).toBeLessThan(100_000)
    expect(fs.statSync(file).size).toBeGreaterThan(4_000_000)
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM notes`.execute(db)
    expect(rows[0]?.n).toBe(2000)

    await db.destroy()
    // the last connection to close (the thread's, which closed before destroy returned) removes the WAL
    expect(fs.existsSync(`${file}-wal`)).toBe(false)
  })

  it('waits while commits keep landing, and copies them once the writing pauses', async () => {
    const { file, db } = await openNotes()
    // a commit every 100 ms for 2.5 s (five checkpoint rounds), 100 rows of 2 KiB each
    for (let i = 0; i < 25; i++) {
      await db
        .insertInto('notes')
        .values(Array.from({ length: 100 }, (_, j) => ({ id: i * 100 + j + 1, body: 'x'.repeat(2048) })))
        .execute()
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(4_000_000)
    expect(fs.statSync(file).size).toBeLessThan(100_000)

    const deadline = Date.now() + 5_000
    while (fs.statSync(file).size < 4_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(fs.statSync(file).size).toBeGreaterThan(4_000_000)
    await db.destroy()
  })
})
