/*
 * A source's stored headers (a token) belong to the origin they were given for. A change of the
 * address to another origin (host or port; https is the only scheme) removes them unless the same
 * request sends them again, and the answer says so in Polish (warnings: source_headers_removed);
 * the next run sends the new server no token. A new path, or the same origin written otherwise
 * (the default port, capitals), keeps them.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'

import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { type SourceFileServer, SOURCE_HEADER, SOURCE_MAPPING, startSourceFileServer } from './source-file-server.js'

const V2 = '/wp-json/dg/v2'
const TOKEN = 'Bearer tajny-token-crm-456'

interface Answer {
  header_names: string[]
  warnings?: Array<{ field: string; code: string; message: string; details: Record<string, unknown> }>
}

describeEachDatabase('stored headers stay with their origin', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let server: SourceFileServer

  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    env.app.inject({
      method,
      url: `${V2}${url}`,
      headers: { authorization: admin.authorization },
      ...(payload ? { payload } : {}),
    })
  const storedHeaders = async (id: number) =>
    JSON.parse(
      (await env.ctx.db.selectFrom('sources').select('headers').where('id', '=', id).executeTakeFirstOrThrow()).headers,
    ) as Record<string, string>
  const create = async (url: string, privateHosts: string[] = []) => {
    const created = await api('POST', '/sources', {
      name: 'Cennik z CRM',
      url,
      headers: { Authorization: TOKEN },
      private_hosts: privateHosts,
      mapping: SOURCE_MAPPING,
    })
    expect(created.statusCode, created.body).toBe(201)
    return (created.json() as { id: number }).id
  }
  const change = async (id: number, payload: object) => {
    const changed = await api('PATCH', `/sources/${id}`, payload)
    expect(changed.statusCode, changed.body).toBe(200)
    return changed.json() as Answer
  }

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    server = await startSourceFileServer()
    server.content = `${SOURCE_HEADER}\nINV-H;1;A/1;mieszkanie;wolne;50,00;2;1;500000;2026-05-01;Poznań\n`
  })
  afterAll(async () => {
    await server.close()
  })

  it('keeps the headers for a new path or the same origin written otherwise', async () => {
    const id = await create('https://crm.example.pl/eksport/ceny.csv')
    for (const url of [
      'https://crm.example.pl/eksport/inne.csv',
      'https://crm.example.pl:443/eksport/ceny.csv',
      'https://CRM.Example.PL/eksport/ceny.csv',
    ]) {
      const answer = await change(id, { url })
      expect(answer.header_names).toEqual(['Authorization'])
      expect(answer.warnings).toEqual([])
    }
    expect(await storedHeaders(id)).toEqual({ Authorization: TOKEN })
  })

  it('removes them when the address moves to another host or port, and says so in Polish', async () => {
    const id = await create('https://crm.example.pl/ceny.csv')
    const moved = await change(id, { url: 'https://inny-serwer.example.com/ceny.csv' })
    expect(moved.header_names).toEqual([])
    expect(moved.warnings).toEqual([
      expect.objectContaining({
        field: 'headers',
        code: 'source_headers_removed',
        details: {
          header_names: ['Authorization'],
          from_origin: 'https://crm.example.pl',
          to_origin: 'https://inny-serwer.example.com',
        },
      }),
    ])
    expect(moved.warnings![0]!.message).toBe(
      'Adres źródła przeniesiono na inny serwer (https://crm.example.pl → https://inny-serwer.example.com), ' +
        'więc zapisane nagłówki (Authorization) usunięto: nie zostaną wysłane pod nowy adres. Jeśli nowy serwer ich potrzebuje, wpisz je ponownie.',
    )
    expect(await storedHeaders(id)).toEqual({})
    const audit = await env.ctx.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'source.update')
      .where('object_id', '=', String(id))
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(JSON.parse(audit.details ?? '{}')).toMatchObject({ headers_removed: ['Authorization'] })
    expect(audit.details).not.toContain('tajny-token')

    const port = await create('https://crm.example.pl/ceny.csv')
    const portMoved = await change(port, { url: 'https://crm.example.pl:8443/ceny.csv' })
    expect(portMoved.warnings?.map((w) => w.code)).toEqual(['source_headers_removed'])
    expect(await storedHeaders(port)).toEqual({})
  })

  it('keeps the headers the same change sends again, with no warning', async () => {
    const id = await create('https://crm.example.pl/ceny.csv')
    const moved = await change(id, {
      url: 'https://nowy-crm.example.pl/ceny.csv',
      headers: { Authorization: 'Bearer nowy-token' },
    })
    expect(moved.header_names).toEqual(['Authorization'])
    expect(moved.warnings).toEqual([])
    expect(await storedHeaders(id)).toEqual({ Authorization: 'Bearer nowy-token' })
  })

  it('the next run sends the new server no token', async () => {
    const id = await create(`${server.origin}/prices.csv`, [`127.0.0.1:${server.port}`])
    const first = server.requests.length
    expect((await api('POST', `/sources/${id}/run`)).statusCode).toBe(200)
    expect(server.requests.slice(first).map((r) => r.headers.authorization)).toEqual([TOKEN])

    const moved = await change(id, {
      url: `https://localhost:${server.port}/prices.csv`,
      private_hosts: [`localhost:${server.port}`],
    })
    expect(moved.warnings?.map((w) => w.code)).toEqual(['source_headers_removed'])
    const second = server.requests.length
    const run = await api('POST', `/sources/${id}/run`)
    expect(run.statusCode, run.body).toBe(200)
    const sent = server.requests.slice(second)
    expect(sent.map((r) => r.path)).toEqual(['/prices.csv'])
    expect(sent[0]!.headers.authorization).toBeUndefined()
  })
})
