/*
 * GET {base_url}/publications and /publications/{id}: the history an operator reads, on both
 * databases — failures with their corrective messages, successes with files, checksums and where
 * the files are served, paging, filters, rights and bad input.
 */
import { createHash } from 'node:crypto'

import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const BASE = '/wp-json/dg/v2'

describeEachDatabase('publication history over REST', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let reader: TestUser
  const history = (query: Record<string, string> = {}, authorization = admin.authorization) =>
    env.app.inject({ url: `${BASE}/publications`, query, headers: { authorization } })
  const publishDay = (date: string) => {
    env.clock.set(`${date}T10:00:00Z`)
    return env.app.inject({
      method: 'POST',
      url: `${BASE}/publications`,
      payload: { date },
      headers: { authorization: admin.authorization },
    })
  }

  beforeAll(async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    expect((await publishDay('2026-11-20')).statusCode).toBe(422)
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    expect((await publishDay('2026-11-20')).statusCode).toBe(200)
    expect((await publishDay('2026-11-21')).statusCode).toBe(200)
  })

  it('answers a catalog reader 403 and nobody 401', async () => {
    expect((await history({}, reader.authorization)).statusCode).toBe(403)
    expect((await env.app.inject({ url: `${BASE}/publications` })).statusCode).toBe(401)
    expect(
      (await env.app.inject({ url: `${BASE}/publications/1`, headers: { authorization: reader.authorization } }))
        .statusCode,
    ).toBe(403)
  })

  it('lists every attempt newest first: successes with files and checksums, failures with their corrective messages', async () => {
    const response = await history()
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body).toMatchObject({ page: 1, per_page: 20, total: 3, total_pages: 1 })
    expect(response.headers['x-wp-total']).toBe('3')
    expect(body.items.map((i: { date: string; status: string }) => [i.date, i.status])).toEqual([
      ['2026-11-21', 'published'],
      ['2026-11-20', 'published'],
      ['2026-11-20', 'failed'],
    ])
    const [latest, , failed] = body.items
    expect(latest).toMatchObject({
      trigger: 'api',
      actor: admin.login,
      developer_id: null,
      record_count: expect.any(Number),
      version: expect.any(String),
      csv: {
        file_name: expect.stringMatching(/-2026-11-21\.csv$/),
        url: expect.stringMatching(/^https:\/\/ceny\.example\.pl\/dane-gov\/ceny-ofertowe-/),
        served_path: expect.stringMatching(/^\/dane-gov\/ceny-ofertowe-.*-2026-11-21\.csv$/),
        md5: expect.stringMatching(/^[0-9a-f]{32}$/),
        bytes: expect.any(Number),
      },
      xml: {
        url: 'https://ceny.example.pl/dane-gov/dataset.xml',
        md5_url: 'https://ceny.example.pl/dane-gov/dataset.md5',
        md5: expect.stringMatching(/^[0-9a-f]{32}$/),
        resources: 2,
        served_path: '/dane-gov/dataset.xml',
      },
      issues: [],
    })
    expect(latest.record_count).toBeGreaterThan(0)
    // the served file is the one recorded, byte for byte
    const file = await env.app.inject({ url: latest.csv.served_path })
    expect(file.statusCode).toBe(200)
    expect(createHash('md5').update(file.rawPayload).digest('hex')).toBe(latest.csv.md5)
    expect(file.rawPayload.length).toBe(latest.csv.bytes)

    expect(failed).toMatchObject({ status: 'failed', csv: null, xml: null, record_count: null, version: null })
    const issue = failed.issues.find((i: { code: string }) => i.code === 'public_base_url_missing')
    expect(issue).toMatchObject({ message_pl: expect.stringMatching(/\S/), message_en: expect.stringMatching(/\S/) })
    expect(issue.message).toBe(issue.message_pl)
    const english = (
      await env.app.inject({
        url: `${BASE}/publications/${failed.id}`,
        headers: { authorization: admin.authorization, 'accept-language': 'en' },
      })
    ).json()
    expect(english.issues[0].message).toBe(english.issues[0].message_en)
  })

  it('pages and filters by status, trigger and day', async () => {
    const page = (await history({ per_page: '1', page: '2' })).json()
    expect(page).toMatchObject({ total: 3, total_pages: 3 })
    expect(page.items.map((i: { date: string; status: string }) => [i.date, i.status])).toEqual([
      ['2026-11-20', 'published'],
    ])
    expect((await history({ status: 'failed' })).json().total).toBe(1)
    expect((await history({ trigger: 'schedule' })).json().total).toBe(0)
    expect((await history({ from: '2026-11-21' })).json().items.map((i: { date: string }) => i.date)).toEqual([
      '2026-11-21',
    ])
    expect((await history({ to: '2026-11-20', status: 'published' })).json().total).toBe(1)
  })

  it('shows one attempt, and 404 for an unknown one', async () => {
    const [first] = (await history()).json().items
    const one = await env.app.inject({
      url: `${BASE}/publications/${first.id}`,
      headers: { authorization: admin.authorization },
    })
    expect(one.statusCode).toBe(200)
    expect(one.json()).toEqual(first)
    const missing = await env.app.inject({
      url: `${BASE}/publications/999999`,
      headers: { authorization: admin.authorization },
    })
    expect(missing.statusCode).toBe(404)
    expect(missing.json().code).toBe('publication_not_found')
  })

  it('refuses bad filters with 400 naming the parameter', async () => {
    for (const [name, value] of [
      ['status', 'maybe'],
      ['from', '20.11.2026'],
      ['per_page', '1000'],
      ['trigger', 'cron'],
    ]) {
      const response = await history({ [name as string]: value as string })
      expect(response.statusCode, `${name}=${value}`).toBe(400)
      expect(Object.keys(response.json().data.params)).toContain(name)
    }
  })
})
