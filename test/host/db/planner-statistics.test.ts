/*
 * SQLite plans with statistics only once ANALYZE has run, and a connection loads them only with
 * the schema, which new statistics alone do not change. The service's reader connection is opened
 * before the statistics are refreshed (on opening, and by the import thread after a large
 * import): it must plan with the new ones from its next statement. Measured without the reload:
 * a catalog list filtered by a price range and ordered by modification time took 90 ms on the
 * reader at 120,000 offers and 1 ms on the writer that had analyzed. SQLite only: PostgreSQL's
 * autovacuum keeps its statistics, and the function leaves it alone.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import Database from 'better-sqlite3'
import { sql } from 'kysely'
import { pino } from 'pino'
import { afterEach, describe, expect, it } from 'vitest'

import { createHostContext } from '../../../src/app.js'
import { loadConfig } from '../../../src/config.js'
import { setUpDemo } from '../../../src/demo/demo-setup.js'
import { openDatabase } from '../../../src/host/db/database.js'
import { refreshPlannerStatistics } from '../../../src/host/db/dialect.js'

describe('planner statistics on SQLite', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('reach a connection opened before they were refreshed, after the offers grew a hundredfold', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-stats-'))
    dirs.push(dir)
    const file = path.join(dir, 'dg.sqlite')
    const database = openDatabase({ sqliteFile: file })
    try {
      // opening analyzes the empty tables, as a new installation's first start does
      const ctx = await createHostContext({
        config: loadConfig({ DG_DATA_DIR: dir }),
        database,
        log: pino({ level: 'silent' }),
      })
      await setUpDemo(ctx)
      // then a large import: 3,000 offers, nearly all in the price range
      await sql`
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
        INSERT INTO offers (investment_id, source_property_id, offer_kind, property_type, code, title, status,
          host_status, price_total_cents, custom_meta, gallery, created_at, modified_at)
        SELECT (SELECT min(id) FROM investments WHERE host_status = 'publish'), 'stats-' || i, 'property',
          'mieszkanie', 'S' || i, 'Statystyka ' || i, 'available', 'publish', 30000000 + i * 10000, '{}', '[]',
          '2026-01-01T00:00:00.000Z', printf('2026-01-01T00:%02d:%02d.000Z', i / 60 % 60, i % 60)
        FROM n`.execute(ctx.db)

      const reader = new Database(file, { readonly: true })
      try {
        const schemaVersion = () => Number(reader.pragma('schema_version', { simple: true }))
        const offersCounted = () =>
          Number(
            (
              reader.prepare(`SELECT stat FROM sqlite_stat1 WHERE idx = 'offers_status_modified'`).get() as
                | { stat: string }
                | undefined
            )?.stat.split(' ')[0] ?? 0,
          )
        const before = schemaVersion()
        expect(offersCounted()).toBeLessThan(100)
        await refreshPlannerStatistics(ctx.db, 'sqlite', 'after a large write')
        // the new statistics are in the file, and the schema changed: every connection reloads
        // the schema, and the statistics with it, before its next statement
        expect(offersCounted()).toBeGreaterThan(3000)
        expect(schemaVersion()).toBeGreaterThan(before)
        // every offer analyzed, not a sample: the rows per host status are the true average,
        // which the planner compares between the indexes led by host status
        const stat = reader.prepare(`SELECT stat FROM sqlite_stat1 WHERE idx = 'offers_status_modified'`).get() as {
          stat: string
        }
        const { rows, statuses } = reader
          .prepare(`SELECT count(*) AS rows, count(DISTINCT host_status) AS statuses FROM offers`)
          .get() as { rows: number; statuses: number }
        expect(stat.stat.split(' ').slice(0, 2).map(Number)).toEqual([
          rows,
          Math.floor((rows + statuses - 1) / statuses),
        ])
      } finally {
        reader.close()
      }
    } finally {
      await database.destroy()
    }
  })
})
