/*
 * A catalog of two developer entities for the scope suites: investments A and B of the first
 * (SPV 1), C of the second (SPV 2), two offers in A and one in each of B and C, every one
 * published; written by an administrator's import, then given their entities.
 */
import { expect } from 'vitest'

import type { TestUser } from './factories.js'
import { multipart } from './multipart.js'
import type { TestEnv } from './test-app.js'

export const API = '/wp-json/dg/v2'

export const SCOPE_MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  prop_rooms: 'Pokoje',
  prop_floor: 'Piętro',
  price_total: 'Cena',
  price_total_from: 'Cena od',
  proj_city: 'Miasto',
}
const HEADER = 'Inwestycja;ID lokalu;Numer;Rodzaj;Status;Powierzchnia;Pokoje;Piętro;Cena;Cena od;Miasto'

/** A file in the import's columns with one flat per row. */
export const offerFile = (rows: string[]): string => `${HEADER}\n${rows.join('\n')}\n`
export const flatRow = (investment: string, id: string, price: string): string =>
  `${investment};${id};${id};mieszkanie;wolne;50,00;2;1;${price};2026-11-01;Poznań`

export function previewOffers(env: TestEnv, user: TestUser, rows: string[]) {
  const body = multipart(
    { mode: 'patch', mapping: JSON.stringify(SCOPE_MAPPING) },
    { name: 'oferty.csv', content: offerFile(rows) },
  )
  return env.app.inject({
    method: 'POST',
    url: `${API}/imports/offer`,
    payload: body.payload,
    headers: { ...body.headers, authorization: user.authorization },
  })
}

export function executeImport(env: TestEnv, user: TestUser, jobId: string, key: string) {
  return env.app.inject({
    method: 'POST',
    url: `${API}/imports/offer`,
    payload: `job_id=${jobId}`,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'idempotency-key': key,
      authorization: user.authorization,
    },
  })
}

export interface ScopedCatalog {
  dev1: number
  dev2: number
  a: number
  b: number
  c: number
  offerA: number
  offerC: number
}

export async function seedScopedCatalog(env: TestEnv, admin: TestUser, keyPrefix: string): Promise<ScopedCatalog> {
  const seeded = await previewOffers(env, admin, [
    flatRow('INV-A', 'A1', '500 000,00'),
    flatRow('INV-A', 'A2', '510 000,00'),
    flatRow('INV-B', 'B1', '520 000,00'),
    flatRow('INV-C', 'C1', '530 000,00'),
  ])
  expect(seeded.statusCode, seeded.body).toBe(200)
  expect((await executeImport(env, admin, seeded.json().id, `${keyPrefix}-seed`)).statusCode).toBe(200)
  const stamp = { created_at: '2026-11-01T00:00:00.000Z', modified_at: '2026-11-01T00:00:00.000Z' }
  const developer = async (name: string) =>
    (
      await env.ctx.db
        .insertInto('developers')
        .values({ name, ...stamp })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
  const dev1 = await developer('Spółka Celowa Jeden Sp. z o.o.')
  const dev2 = await developer('Spółka Celowa Dwa Sp. z o.o.')
  const investment = async (source: string, developerId: number) => {
    await env.ctx.db
      .updateTable('investments')
      .set({ developer_id: developerId, host_status: 'publish' })
      .where('source_id', '=', source)
      .execute()
    return (
      await env.ctx.db.selectFrom('investments').select('id').where('source_id', '=', source).executeTakeFirstOrThrow()
    ).id
  }
  const offer = async (source: string) =>
    (
      await env.ctx.db
        .selectFrom('offers')
        .select('id')
        .where('source_property_id', '=', source)
        .executeTakeFirstOrThrow()
    ).id
  return {
    dev1,
    dev2,
    a: await investment('INV-A', dev1),
    b: await investment('INV-B', dev1),
    c: await investment('INV-C', dev2),
    offerA: await offer('A1'),
    offerC: await offer('C1'),
  }
}
