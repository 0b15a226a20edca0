/*
 * What the panel's source form relies on, on both databases: the header row of a source's file
 * fetched once (a saved source's token sent, bad input refused with a stable code), a self-signed
 * server's certificate trusted by pasting its PEM (for that source only; text that is not a
 * certificate refused), every refusal in Polish unless English is asked for, and a run's page
 * saying how long its plan is kept from the plan's own expiry.
 */
import fs from 'node:fs'
import https from 'node:https'
import path from 'node:path'

import { afterAll, beforeAll, expect, it } from 'vitest'

import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { type SourceFileServer, SOURCE_HEADER, SOURCE_MAPPING, startSourceFileServer } from './source-file-server.js'

const V2 = '/wp-json/dg/v2'
const TOKEN = 'Bearer token-podgladu-9'
const PEM = fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'tls', 'localhost-cert.pem'), 'utf8')

describeEachDatabase('source settings as the panel edits them', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let reader: TestUser
  let server: SourceFileServer
  let trustedBefore: https.AgentOptions['ca']

  const api = (
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: object,
    options: { user?: TestUser; language?: string } = {},
  ) =>
    env.app.inject({
      method,
      url: `${V2}${url}`,
      headers: {
        authorization: (options.user ?? admin).authorization,
        ...(options.language ? { 'accept-language': options.language } : {}),
      },
      ...(payload ? { payload } : {}),
    })
  const hosts = () => [`127.0.0.1:${server.port}`]
  const sourceCount = async () =>
    Number(
      (
        await env.ctx.db
          .selectFrom('sources')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    server = await startSourceFileServer()
    server.content = `${SOURCE_HEADER}\nINV-P;1;A/1;mieszkanie;wolne;50,00;2;1;500000;2026-05-01;Poznań\n`
    // the test server's certificate is trusted by the whole process; here only a source may trust it
    trustedBefore = https.globalAgent.options.ca
    https.globalAgent.options.ca = undefined
  })
  afterAll(async () => {
    https.globalAgent.options.ca = trustedBefore
    await server.close()
  })

  it('refuses a self-signed server until its certificate is pasted, in Polish and without naming the environment', async () => {
    const refused = await api('POST', '/sources/preview-headers', {
      url: `${server.origin}/prices.csv`,
      private_hosts: hosts(),
    })
    expect(refused.statusCode, refused.body).toBe(422)
    const body = refused.json() as { error: string; fetch_code: string; network_code: string; message: string }
    expect(body).toMatchObject({ error: 'source_preview_failed', fetch_code: 'source_unreachable' })
    expect(body.network_code).toBe('network_certificate')
    expect(body.message).toContain('Zaufany certyfikat serwera')
    expect(refused.body).not.toContain('NODE_EXTRA_CA_CERTS')
  })

  it('answers the header row of the file fetched with the pasted certificate; nothing is stored', async () => {
    const read = await api('POST', '/sources/preview-headers', {
      url: `${server.origin}/prices.csv`,
      private_hosts: hosts(),
      ca_certificate: PEM,
    })
    expect(read.statusCode, read.body).toBe(200)
    expect(read.json()).toMatchObject({ headers: SOURCE_HEADER.split(';'), format: 'csv' })
    expect(await sourceCount()).toBe(0)
  })

  it('accepts a PEM certificate with the source, answers whose it is (not the PEM), and runs with it', async () => {
    const created = await api('POST', '/sources', {
      name: 'Serwer z własnym certyfikatem',
      url: `${server.origin}/prices.csv`,
      headers: { Authorization: TOKEN },
      private_hosts: hosts(),
      mapping: SOURCE_MAPPING,
      ca_certificate: PEM,
    })
    expect(created.statusCode, created.body).toBe(201)
    const view = created.json() as { id: number; trusted_certificates: Array<{ subject: string; valid_to: string }> }
    expect(view.trusted_certificates).toHaveLength(1)
    expect(view.trusted_certificates[0]!.subject).toContain('dg-offers test localhost')
    expect(view.trusted_certificates[0]!.valid_to.startsWith('2126-')).toBe(true)
    expect(created.body).not.toContain('BEGIN CERTIFICATE')
    const ran = await api('POST', `/sources/${view.id}/run`)
    expect(ran.statusCode, ran.body).toBe(200)
    expect((ran.json() as { outcome: string }).outcome).toBe('applied')
    expect(server.requests.at(-1)?.headers.authorization).toBe(TOKEN)
  })

  it('previews a saved source by its id: its stored token and certificate are used', async () => {
    const [source] = (await api('GET', '/sources')).json().sources as Array<{ id: number }>
    const before = server.requests.length
    const read = await api('POST', '/sources/preview-headers', { source_id: source!.id })
    expect(read.statusCode, read.body).toBe(200)
    expect((read.json() as { headers: string[] }).headers[0]).toBe('Inwestycja')
    expect(server.requests.length).toBe(before + 1)
    expect(server.requests.at(-1)?.headers.authorization).toBe(TOKEN)
  })

  it('trusts the certificate for that source only: another source of the same server is refused', async () => {
    const other = await api('POST', '/sources', {
      name: 'Bez certyfikatu',
      url: `${server.origin}/prices.csv`,
      private_hosts: hosts(),
      mapping: SOURCE_MAPPING,
    })
    expect(other.statusCode, other.body).toBe(201)
    const ran = await api('POST', `/sources/${(other.json() as { id: number }).id}/run`)
    const run = ran.json() as { outcome: string; id: number; failure: { network_code: string; message_pl: string } }
    expect(run.outcome).toBe('failed')
    expect(run.failure.network_code).toBe('network_certificate')
    expect(run.failure.message_pl).toContain('wklej ten certyfikat (PEM) w ustawieniach źródła')
    expect(JSON.stringify(run)).not.toContain('NODE_EXTRA_CA_CERTS')
    // the run made no plan: its page says so rather than that a plan expired
    const page = await api('GET', `/source-runs/${run.id}`)
    expect(page.json().plan).toMatchObject({ available: false, state: 'none', expires_at: null, retention_hours: 24 })
  })

  it('refuses text that is not a certificate with 422 source_certificate_invalid in Polish, storing nothing', async () => {
    const count = await sourceCount()
    for (const pasted of [
      'to nie jest certyfikat',
      '-----BEGIN CERTIFICATE-----\nTUlJQnNEQ0NBVmFnQXdJQkFnSVVa\n-----END CERTIFICATE-----',
    ]) {
      const refused = await api('POST', '/sources', {
        name: 'Zły certyfikat',
        url: `${server.origin}/prices.csv`,
        private_hosts: hosts(),
        mapping: SOURCE_MAPPING,
        ca_certificate: pasted,
      })
      expect(refused.statusCode, refused.body).toBe(422)
      const body = refused.json() as { error: string; issues: Array<{ field: string; message: string }> }
      expect(body.error).toBe('source_certificate_invalid')
      expect(body.issues[0]!.field).toBe('ca_certificate')
      expect(body.issues[0]!.message).toMatch(/certyfikat/i)
    }
    expect(await sourceCount()).toBe(count)
    const [source] = (await api('GET', '/sources')).json().sources as Array<{ id: number }>
    const patched = await api('PATCH', `/sources/${source!.id}`, { ca_certificate: 'zły' })
    expect(patched.statusCode).toBe(422)
    expect(patched.json().error).toBe('source_certificate_invalid')
    const removed = await api('PATCH', `/sources/${source!.id}`, { ca_certificate: null })
    expect(removed.statusCode, removed.body).toBe(200)
    expect(removed.json().trusted_certificates).toEqual([])
  })

  it('refuses bad preview input with a stable code: not https, a private address not allowed, a web page', async () => {
    const plain = await api('POST', '/sources/preview-headers', { url: 'http://example.com/a.csv' })
    expect(plain.statusCode).toBe(400)
    expect(plain.json()).toMatchObject({ error: 'invalid_source' })
    expect(plain.json().issues[0].message).toContain('Pobierane są tylko adresy https')
    const privateAddress = await api('POST', '/sources/preview-headers', { url: `${server.origin}/prices.csv` })
    expect(privateAddress.statusCode).toBe(422)
    expect(privateAddress.json().error).toBe('source_address_not_public')
    const page = await api('POST', '/sources/preview-headers', {
      url: `${server.origin}/page`,
      private_hosts: hosts(),
      ca_certificate: PEM,
    })
    expect(page.statusCode, page.body).toBe(422)
    expect(page.json()).toMatchObject({ error: 'source_preview_failed', fetch_code: 'source_content_type' })
    expect(page.json().message).toContain('Nie udało się pobrać pliku')
    const empty = await api('POST', '/sources/preview-headers', {})
    expect(empty.statusCode).toBe(400)
    const unknown = await api('POST', '/sources/preview-headers', { source_id: 999_999 })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().message).toBe('Nie ma źródła nr 999999.')
  })

  it('refuses the preview to a user who is not an administrator', async () => {
    const refused = await api(
      'POST',
      '/sources/preview-headers',
      { url: `${server.origin}/prices.csv` },
      { user: reader },
    )
    expect(refused.statusCode).toBe(403)
  })

  it('says every refusal of the settings in Polish, and in English when asked', async () => {
    const payload = {
      name: 'Cennik <b>',
      url: 'http://example.com/a.csv',
      mapping: SOURCE_MAPPING,
      schedule: 'co dzień',
    }
    const pl = await api('POST', '/sources', payload)
    expect(pl.statusCode).toBe(400)
    const body = pl.json() as { message: string; issues: Array<{ field: string; message: string }> }
    expect(body.message).toContain('Adres pliku: Pobierane są tylko adresy https')
    expect(body.issues.map((i) => i.field)).toEqual(['name', 'url', 'schedule'])
    expect(body.issues.find((i) => i.field === 'schedule')!.message).toContain('wybierz godzinę i dni tygodnia')
    const en = await api('POST', '/sources', payload, { language: 'en' })
    expect((en.json() as { issues: Array<{ message: string }> }).issues[1]!.message).toBe(
      'only https addresses are fetched',
    )
    const missing = await api('GET', '/source-runs/999999')
    expect(missing.json().message).toBe('Nie ma przebiegu nr 999999.')
  })

  it("tells a held or applied run's plan as kept until its own expiry, and expired only once that passed", async () => {
    const [source] = (await api('GET', '/sources')).json().sources as Array<{ id: number; last_run: { id: number } }>
    const page = await api('GET', `/source-runs/${source!.last_run.id}`)
    const plan = page.json().plan as { state: string; expires_at: string; available: boolean }
    expect(plan).toMatchObject({ state: 'available', available: true })
    expect(Date.parse(plan.expires_at)).toBeGreaterThan(env.clock.now().getTime())
    env.clock.set(new Date(Date.parse(plan.expires_at) + 60_000).toISOString())
    const later = (await api('GET', `/source-runs/${source!.last_run.id}`)).json().plan
    expect(later).toMatchObject({ state: 'expired', available: false, expires_at: plan.expires_at })
  })
})
