/*
 * A source's address literal is judged when the source is entered or changed, not only when a run
 * connects: every loopback, private, link-local (cloud metadata), unique- or site-local, reserved
 * or unspecified address, in every notation URL and IPv6 allow (IPv4 short, hex, octal, decimal;
 * IPv6 compressed, IPv4-mapped, IPv4-compatible, SIIT, NAT64, 6to4), is refused on POST and on
 * PATCH with 422 source_address_not_public and a Polish message at `url`, nothing stored, unless
 * private_hosts names it. A run refuses a redirect to such a form with the same classifier.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'

import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { type SourceFileServer, SOURCE_MAPPING, startSourceFileServer } from './source-file-server.js'

const V2 = '/wp-json/dg/v2'

/** Each form as an administrator might type it, and the address it leads to. */
const REFUSED: ReadonlyArray<[form: string, url: string, address: string]> = [
  ['IPv6 loopback', 'https://[::1]/ceny.csv', '::1'],
  ['IPv4 short', 'https://127.1/ceny.csv', '127.0.0.1'],
  ['IPv4 hex', 'https://0x7f.1/ceny.csv', '127.0.0.1'],
  ['IPv4 octal', 'https://0177.0.0.1/ceny.csv', '127.0.0.1'],
  ['IPv4 decimal', 'https://2130706433/ceny.csv', '127.0.0.1'],
  ['IPv4 loopback, not .1', 'https://127.8.9.10/ceny.csv', '127.8.9.10'],
  ['unspecified IPv4', 'https://0.0.0.0/ceny.csv', '0.0.0.0'],
  ['unspecified IPv6', 'https://[::]/ceny.csv', '::'],
  ['private 10/8', 'https://10.1.2.3/ceny.csv', '10.1.2.3'],
  ['private 172.16/12', 'https://172.31.0.5/ceny.csv', '172.31.0.5'],
  ['private 192.168/16', 'https://192.168.1.10:8443/ceny.csv', '192.168.1.10'],
  ['carrier-grade NAT (a cloud metadata address)', 'https://100.100.100.200/ceny.csv', '100.100.100.200'],
  ['link-local metadata', 'https://169.254.169.254/latest/meta-data/', '169.254.169.254'],
  ['reserved 192.0.0/24 (a cloud metadata address)', 'https://192.0.0.192/ceny.csv', '192.0.0.192'],
  ['reserved 240/4', 'https://240.0.0.1/ceny.csv', '240.0.0.1'],
  ['broadcast', 'https://255.255.255.255/ceny.csv', '255.255.255.255'],
  ['multicast', 'https://224.0.0.1/ceny.csv', '224.0.0.1'],
  ['IPv6 link-local', 'https://[fe80::1]/ceny.csv', 'fe80::1'],
  ['IPv6 unique-local', 'https://[fd00::1]/ceny.csv', 'fd00::1'],
  ['IPv6 metadata (unique-local)', 'https://[fd00:ec2::254]/ceny.csv', 'fd00:ec2::254'],
  ['IPv6 site-local', 'https://[fec0::1]/ceny.csv', 'fec0::1'],
  ['IPv4-mapped', 'https://[::ffff:127.0.0.1]/ceny.csv', '127.0.0.1'],
  ['IPv4-mapped, metadata', 'https://[::ffff:a9fe:a9fe]/ceny.csv', '169.254.169.254'],
  ['IPv4-compatible', 'https://[::7f00:1]/ceny.csv', '127.0.0.1'],
  ['SIIT', 'https://[::ffff:0:7f00:1]/ceny.csv', '127.0.0.1'],
  ['NAT64 well-known prefix', 'https://[64:ff9b::a00:1]/ceny.csv', '10.0.0.1'],
  ['NAT64 local-use prefix', 'https://[64:ff9b:1::7f00:1]/ceny.csv', '64:ff9b:1::7f00:1'],
  ['6to4', 'https://[2002:7f00:1::]/ceny.csv', '127.0.0.1'],
  ['IPv6 documentation', 'https://[2001:db8::1]/ceny.csv', '2001:db8::1'],
]

/** Public addresses, in the same notations, stay accepted. */
const PUBLIC = [
  'https://93.184.215.14/ceny.csv',
  'https://0x5d.0xb8.0xd7.0x0e/ceny.csv',
  'https://[2606:4700:4700::1111]/ceny.csv',
  'https://[::ffff:93.184.215.14]/ceny.csv',
  'https://[64:ff9b::5db8:d70e]/ceny.csv',
  'https://ceny.example.pl/ceny.csv',
]

describeEachDatabase('a source address is judged when it is entered', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let server: SourceFileServer
  let publicId: number

  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    env.app.inject({
      method,
      url: `${V2}${url}`,
      headers: { authorization: admin.authorization },
      ...(payload ? { payload } : {}),
    })
  const storedSources = async () =>
    (await env.ctx.db.selectFrom('sources').select(['id', 'url', 'private_hosts']).orderBy('id').execute()).map(
      (row) => ({ ...row, id: Number(row.id) }),
    )
  const expectRefused = (response: { statusCode: number; body: string; json(): unknown }, address: string) => {
    expect(response.statusCode, response.body).toBe(422)
    const body = response.json() as {
      error: string
      issues: Array<{ field: string; code: string; message: string; details: { address: string } }>
    }
    expect(body.error).toBe('source_address_not_public')
    expect(body.issues).toHaveLength(1)
    expect(body.issues[0]).toMatchObject({ field: 'url', code: 'source_address_not_public', details: { address } })
    expect(body.issues[0]!.message).toContain('Źródło pobiera się tylko z adresów publicznych')
  }

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    server = await startSourceFileServer()
    const created = await api('POST', '/sources', {
      name: 'Cennik publiczny',
      url: 'https://ceny.example.pl/ceny.csv',
      mapping: SOURCE_MAPPING,
    })
    expect(created.statusCode, created.body).toBe(201)
    publicId = (created.json() as { id: number }).id
  })
  afterAll(async () => {
    await server.close()
  })

  it.each(REFUSED)('refuses %s (%s) on POST, storing nothing', async (_form, url, address) => {
    const before = await storedSources()
    expectRefused(await api('POST', '/sources', { name: 'Wewnętrzny', url, mapping: SOURCE_MAPPING }), address)
    expect(await storedSources()).toEqual(before)
  })

  it.each(REFUSED)('refuses %s (%s) on PATCH, changing nothing', async (_form, url, address) => {
    const before = await storedSources()
    expectRefused(await api('PATCH', `/sources/${publicId}`, { url }), address)
    expect(await storedSources()).toEqual(before)
  })

  it('names the range and the allowance to add in Polish', async () => {
    const refused = await api('POST', '/sources', {
      name: 'Metadane',
      url: 'https://[::ffff:169.254.169.254]/',
      mapping: SOURCE_MAPPING,
    })
    const issue = (refused.json() as { issues: Array<{ message: string; message_en: string }> }).issues[0]!
    expect(issue.message).toBe(
      '[::ffff:a9fe:a9fe] (prowadzi do 169.254.169.254) to adres lokalny łącza (w nim adres metadanych chmury 169.254.169.254). ' +
        'Źródło pobiera się tylko z adresów publicznych. Jeśli ten serwer jest zamierzony, dopisz „[::ffff:a9fe:a9fe]” do hostów prywatnych (private_hosts).',
    )
    expect(issue.message_en).toContain('is not a public address (linkLocal)')
  })

  it('accepts a private address the allowance names, written either way', async () => {
    const short = await api('POST', '/sources', {
      name: 'CRM w sieci firmy',
      url: 'https://127.1:8443/ceny.csv',
      private_hosts: ['127.0.0.1:8443'],
      mapping: SOURCE_MAPPING,
    })
    expect(short.statusCode, short.body).toBe(201)
    expect((short.json() as { url: string }).url).toBe('https://127.0.0.1:8443/ceny.csv')
    const mapped = await api('POST', '/sources', {
      name: 'CRM po IPv6',
      url: 'https://[::ffff:0:a00:1]/ceny.csv',
      private_hosts: ['[::ffff:0:a00:1]'],
      mapping: SOURCE_MAPPING,
    })
    expect(mapped.statusCode, mapped.body).toBe(201)
    const id = (mapped.json() as { id: number }).id
    // an allowance for another port does not name it
    expectRefused(await api('PATCH', `/sources/${id}`, { private_hosts: ['[::ffff:0:a00:1]:8443'] }), '10.0.0.1')
    // and taking the allowance away from a stored private address is refused as well
    expectRefused(await api('PATCH', `/sources/${id}`, { private_hosts: [] }), '10.0.0.1')
    expect((await api('PATCH', `/sources/${id}`, { url: 'https://[fd00::5]/ceny.csv' })).statusCode).toBe(422)
    const moved = await api('PATCH', `/sources/${id}`, {
      url: 'https://[fd00::5]/ceny.csv',
      private_hosts: ['fd00::5'],
    })
    expect(moved.statusCode, moved.body).toBe(200)
  })

  it.each(PUBLIC)('accepts the public address %s', async (url) => {
    const changed = await api('PATCH', `/sources/${publicId}`, { url })
    expect(changed.statusCode, changed.body).toBe(200)
  })

  it('a run refuses a redirect to a private form the allowance does not name, with the same classifier', async () => {
    server.content = 'unused'
    server.redirectTo = `https://[::ffff:7f00:1]:${server.port}/prices.csv`
    const created = await api('POST', '/sources', {
      name: 'Przekierowanie',
      url: `${server.origin}/redirect`,
      private_hosts: [`127.0.0.1:${server.port}`],
      mapping: SOURCE_MAPPING,
    })
    expect(created.statusCode, created.body).toBe(201)
    const requests = server.requests.length
    const run = await api('POST', `/sources/${(created.json() as { id: number }).id}/run`)
    expect(run.statusCode, run.body).toBe(200)
    expect(run.json()).toMatchObject({ outcome: 'failed', failure: { code: 'source_private_address' } })
    expect(server.requests.slice(requests).map((r) => r.path)).toEqual(['/redirect'])
  })
})
