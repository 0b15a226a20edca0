/*
 * An answer's ETag is the latest write's, and a revoked application password is
 * refused on its next request, whichever instance or process wrote. A write from another
 * connection (another instance on PostgreSQL; another process, or the import thread, on the SQLite
 * file) must show on the very next request: whatever the service keeps between requests (answers,
 * totals, verified passwords) is keyed by revisions it reads again on every request.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { type DatabaseHandle, openDatabase } from '../../src/host/db/database.js'
import { basicAuth, createTestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const LIST = '/wp-json/dg/v2/catalog/properties?per_page=5&status=available&orderby=title'

describeEachDatabase('catalog revisions written by another connection', (getEnv) => {
  let env: TestEnv
  let other: DatabaseHandle
  let auth: string

  beforeAll(async () => {
    env = getEnv()
    const demo = await setUpDemo(env.ctx)
    auth = basicAuth('website', demo.reader.application_password)
    // a second instance's connection to the same database (on SQLite, another connection to the file)
    other = openDatabase(env.database.connection)
  })
  afterAll(async () => {
    await other.destroy()
  })

  const get = (headers: Record<string, string> = {}) =>
    env.app.inject({ method: 'GET', url: LIST, headers: { authorization: auth, ...headers } })

  it('answers a changed list, not 304, on the first request after another connection wrote an offer', async () => {
    const first = await get()
    expect(first.statusCode).toBe(200)
    const etag = String(first.headers.etag)
    const total = Number(first.headers['x-wp-total'])
    // unchanged: the same answer, 304 to its ETag, as many times as asked
    for (let i = 0; i < 3; i++) expect((await get({ 'if-none-match': etag })).statusCode).toBe(304)

    const shown = (first.json() as Array<{ id: number }>)[0]?.id as number
    await other.db.updateTable('offers').set({ status: 'sold' }).where('id', '=', shown).execute()
    const changed = await get({ 'if-none-match': etag })
    expect(changed.statusCode).toBe(200)
    expect(changed.headers.etag).not.toBe(etag)
    expect(changed.headers['x-wp-total']).toBe(String(total - 1))
    expect((changed.json() as Array<{ id: number }>).map((o) => o.id)).not.toContain(shown)

    await other.db.updateTable('offers').set({ status: 'available' }).where('id', '=', shown).execute()
    const back = await get({ 'if-none-match': String(changed.headers.etag) })
    expect(back.statusCode).toBe(200)
    expect(back.headers['x-wp-total']).toBe(String(total))
  })

  it('refuses an application password on the first request after another connection revoked it', async () => {
    expect((await get()).statusCode).toBe(200)
    expect((await get()).statusCode).toBe(200)
    const user = await other.db
      .selectFrom('users')
      .select('id')
      .where('login', '=', 'website')
      .executeTakeFirstOrThrow()
    await other.db.deleteFrom('app_passwords').where('user_id', '=', user.id).execute()
    const refused = await get()
    expect(refused.statusCode).toBe(401)
  })

  it('refuses an account on the first catalog request after another connection disabled it', async () => {
    const reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    const read = () => env.app.inject({ method: 'GET', url: LIST, headers: { authorization: reader.authorization } })
    expect((await read()).statusCode).toBe(200)
    expect((await read()).statusCode).toBe(200)
    await other.db
      .updateTable('users')
      .set({ disabled_at: new Date().toISOString() })
      .where('id', '=', reader.id)
      .execute()
    const refused = await read()
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ code: 'account_disabled' })
  })
})
