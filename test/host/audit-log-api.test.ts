/*
 * GET {base_url}/audit and /audit/actions on both databases: paging with totals, the filters an
 * administrator uses (who, action, object, channel, outcome, time range), rights, bad input and
 * secrets masked.
 */
import { beforeAll, expect, it } from 'vitest'

import { recordAudit } from '../../src/host/audit/audit.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const BASE = '/wp-json/dg/v2'

interface Entry {
  id: number
  action: string
  channel: string
  outcome: string
  actor: { name: string; credential: string | null }
  object_type: string | null
  object_id: string | null
  occurred_at: string
  details: Record<string, unknown>
}

describeEachDatabase('audit log over REST', (getEnv) => {
  let env: TestEnv
  let admin: TestUser & { loginPassword: string }
  let reader: TestUser

  const get = async (query: Record<string, string> = {}, authorization = admin.authorization) =>
    env.app.inject({ url: `${BASE}/audit`, query, headers: { authorization } })
  const items = async (query: Record<string, string>) => (await get(query)).json().items as Entry[]

  beforeAll(async () => {
    env = getEnv()
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    // one operation through the panel's session, one through an application password, at known times
    env.clock.set('2026-11-20T08:00:00Z')
    const login = await env.app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: admin.login, password: admin.loginPassword },
    })
    const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ')
    env.clock.set('2026-11-20T09:00:00Z')
    await env.app.inject({
      method: 'POST',
      url: `${BASE}/users/${reader.id}/application-passwords`,
      headers: { cookie, 'x-wp-nonce': login.json().nonce },
      payload: { name: 'z panelu' },
    })
    env.clock.set('2026-11-21T09:00:00Z')
    await env.app.inject({
      method: 'POST',
      url: `${BASE}/users/${reader.id}/application-passwords`,
      headers: { authorization: admin.authorization },
      payload: { name: 'przez API' },
    })
    await recordAudit(env.ctx, {
      actor: { type: 'cli' },
      action: 'test.secrets',
      objectType: 'test',
      objectId: 'x',
      outcome: 'failure',
      details: { password: 'hunter2hunter2', nested: { api_key: 'k-123', token: 'tok-1', kept: 'visible' }, count: 3 },
    })
  })

  it('answers a catalog reader 403 and nobody 401', async () => {
    expect((await get({}, reader.authorization)).statusCode).toBe(403)
    expect((await env.app.inject({ url: `${BASE}/audit` })).statusCode).toBe(401)
    expect(
      (await env.app.inject({ url: `${BASE}/audit/actions`, headers: { authorization: reader.authorization } }))
        .statusCode,
    ).toBe(403)
  })

  it('pages the log newest first with the totals in the body and the headers', async () => {
    const first = await get({ per_page: '2' })
    expect(first.statusCode).toBe(200)
    const body = first.json()
    expect(body.items).toHaveLength(2)
    expect(body.items[0].id).toBeGreaterThan(body.items[1].id)
    expect(body.total).toBeGreaterThan(4)
    expect(body.total_pages).toBe(Math.ceil(body.total / 2))
    expect(first.headers['x-wp-total']).toBe(String(body.total))
    expect(first.headers['x-wp-totalpages']).toBe(String(body.total_pages))
    const second = (await get({ per_page: '2', page: '2' })).json()
    expect(second.items[0].id).toBeLessThan(body.items[1].id)
    const beyond = (await get({ per_page: '2', page: '999' })).json()
    expect(beyond.items).toEqual([])
  })

  it('filters by action, family of actions, who, object, outcome and channel', async () => {
    const created = await items({ action: 'app_password.create' })
    expect(created.length).toBeGreaterThanOrEqual(2)
    expect(new Set(created.map((e) => e.action))).toEqual(new Set(['app_password.create']))
    const family = await items({ action: 'app_password.*' })
    expect(family.every((e) => e.action.startsWith('app_password.'))).toBe(true)

    const viaPanel = await items({ action: 'app_password.create', channel: 'panel' })
    expect(viaPanel.map((e) => [e.actor.name, e.details.name])).toEqual([[admin.login, 'z panelu']])
    expect(viaPanel[0]?.actor.credential).toBeNull()
    const viaApi = await items({ action: 'app_password.create', channel: 'api', actor: admin.login })
    expect(viaApi.map((e) => [e.actor.credential, e.details.name])).toEqual([['tests', 'przez API']])

    const byObject = await items({ object_type: 'user', object_id: String(reader.id) })
    expect(byObject.length).toBeGreaterThanOrEqual(3)
    expect(byObject.every((e) => e.object_id === String(reader.id))).toBe(true)

    const failures = await items({ outcome: 'failure' })
    expect(failures.map((e) => e.action)).toEqual(['test.secrets'])
    expect(failures[0]?.channel).toBe('cli')
    expect(await items({ actor: 'nobody-at-all' })).toEqual([])
  })

  it('filters by a time range, from inclusive and until exclusive', async () => {
    const day = await items({
      action: 'app_password.create',
      from: '2026-11-20T08:30:00Z',
      until: '2026-11-20T09:30:00Z',
    })
    expect(day.map((e) => e.details.name)).toEqual(['z panelu'])
    const later = await items({ action: 'app_password.create', from: '2026-11-21' })
    expect(later.map((e) => e.details.name)).toEqual(['przez API'])
    expect(await items({ from: '2026-11-20T09:00:00.000Z', until: '2026-11-20T09:00:00.000Z' })).toEqual([])
  })

  it('never shows a secret in an entry’s details', async () => {
    const [entry] = await items({ action: 'test.secrets' })
    expect(entry?.details).toEqual({
      password: '***',
      nested: { api_key: '***', token: '***', kept: 'visible' },
      count: 3,
    })
    const raw = (await get({ action: 'test.secrets' })).body
    for (const secret of ['hunter2hunter2', 'k-123', 'tok-1']) expect(raw).not.toContain(secret)
  })

  it('refuses bad filters with 400 naming the parameter', async () => {
    for (const [name, value] of [
      ['from', 'yesterday'],
      ['channel', 'carrier-pigeon'],
      ['outcome', 'maybe'],
      ['per_page', '500'],
      ['page', '0'],
      ['actor', 'a\u0000b'],
    ]) {
      const response = await get({ [name as string]: value as string })
      expect(response.statusCode, `${name}=${value}`).toBe(400)
      expect(response.json().code).toBe('rest_invalid_param')
      expect(Object.keys(response.json().data.params)).toContain(name)
    }
  })

  it('lists the actions recorded, for the filter’s choices', async () => {
    const response = await env.app.inject({
      url: `${BASE}/audit/actions`,
      headers: { authorization: admin.authorization },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().actions).toEqual(
      expect.arrayContaining(['app_password.create', 'session.login', 'test.secrets', 'user.create']),
    )
  })
})
