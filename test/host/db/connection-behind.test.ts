/*
 * A large import execution opens its own connection from `connectionBehind` on a worker thread:
 * it must reach the very database the service uses (the same SQLite file; on PostgreSQL the same
 * database and schema), or the import would write where the catalog never reads.
 */
import { expect, it } from 'vitest'

import { connectionBehind, openDatabase } from '../../../src/host/db/database.js'
import { describeEachDatabase } from '../../helpers/test-app.js'

describeEachDatabase('another connection to the service database', (getEnv) => {
  it('opens the same database, the PostgreSQL schema included', async () => {
    const env = getEnv()
    const options = connectionBehind(env.ctx.db)
    expect(options).toEqual(env.database.connection)
    const other = openDatabase(options ?? {})
    try {
      await env.ctx.db
        .insertInto('options')
        .values({ name: 'connection_behind_probe', value: '"seen"', autoload: 0 })
        .execute()
      const row = await other.db
        .selectFrom('options')
        .select('value')
        .where('name', '=', 'connection_behind_probe')
        .executeTakeFirst()
      expect(row?.value).toBe('"seen"')
    } finally {
      await other.destroy()
    }
  })

  it('has none for an in-memory SQLite database, which no other connection can open', async () => {
    const memory = openDatabase({})
    try {
      expect(connectionBehind(memory.db)).toBeUndefined()
    } finally {
      await memory.destroy()
    }
  })
})
