/*
 * Every text of the developer and of an investment's location reaches the official file: a line
 * break, a tab or an invisible character is refused there as in an offer's texts (prop_no),
 * 422 invalid_text, nothing stored.
 */
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
const UNPRINTABLE = ['Warszawa\nPraga', 'ul.\tPolna', 'Pol\rna', 'Pol\u2028na', 'Pol\u200bna', 'Pol\u0085na']

describeEachDatabase('control characters in the developer and location texts', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  const call = (url: string, payload: unknown) =>
    env.app.inject({
      method: 'PUT',
      url: `${API}${url}`,
      payload: payload as object,
      headers: { authorization: admin.authorization },
    })

  beforeAll(async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
  })

  it('refuses a line break, a tab or an invisible character in a location field, storing nothing', async () => {
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select(['id', 'loc_city', 'loc_street'])
      .orderBy('id')
      .executeTakeFirstOrThrow()
    for (const value of UNPRINTABLE) {
      for (const field of ['city', 'street', 'gmina']) {
        const refused = await call(`/investments/${investment.id}/location`, { [field]: value })
        expect(refused.statusCode, `${field} ${JSON.stringify(value)}`).toBe(422)
        expect(refused.json().issues).toEqual([expect.objectContaining({ field, code: 'invalid_text' })])
      }
    }
    const after = await env.ctx.db
      .selectFrom('investments')
      .select(['loc_city', 'loc_street'])
      .where('id', '=', investment.id)
      .executeTakeFirstOrThrow()
    expect(after).toEqual({ loc_city: investment.loc_city, loc_street: investment.loc_street })
    expect((await call(`/investments/${investment.id}/location`, { street: 'ul. Polna' })).statusCode).toBe(200)
  })

  it('refuses them in the developer texts too', async () => {
    const developer = await env.ctx.db
      .selectFrom('developers')
      .select(['id', 'name'])
      .orderBy('id')
      .executeTakeFirstOrThrow()
    for (const value of UNPRINTABLE) {
      const refused = await call(`/developers/${developer.id}`, { name: `Dom ${value}` })
      expect(refused.statusCode, JSON.stringify(value)).toBe(422)
      expect(refused.json().issues).toEqual([expect.objectContaining({ field: 'name', code: 'invalid_text' })])
    }
    const after = await env.ctx.db
      .selectFrom('developers')
      .select('name')
      .where('id', '=', developer.id)
      .executeTakeFirstOrThrow()
    expect(after.name).toBe(developer.name)
  })
})
