/*
 * Investments in the editor, as an operator meets them: every host status listed and searched,
 * a new investment with its location and prospectus shown by the catalog and the daily file's
 * columns, registered custom fields only, versions that refuse a stale edit, and no deletion of an
 * investment whose offers have a price history.
 */
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
type Json = Record<string, unknown>

describeEachDatabase('investment editor', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let reader: TestUser

  const call = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as Json }),
      headers: { authorization: admin.authorization, ...headers },
    })
  const auditCount = async () =>
    Number(
      (
        await env.ctx.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  beforeAll(async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    env.ctx.meta.register('dg_investment', 'liczba_pieter', { type: 'integer', showInRest: true, label: 'Piętra' })
    env.ctx.meta.register('dg_property', 'ekspozycja', { type: 'string', showInRest: true })
  })

  it('lists investments of every host status, searched and paged', async () => {
    const draft = await call('POST', '/investments', { title: 'Szkic Osiedla Lipowego', host_status: 'draft' })
    expect(draft.statusCode, draft.body).toBe(201)
    const all = await call('GET', '/investments?per_page=2')
    expect(all.statusCode).toBe(200)
    expect(all.json()).toHaveLength(2)
    const total = Number(all.headers['x-wp-total'])
    const stored = await env.ctx.db
      .selectFrom('investments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(total).toBe(Number(stored.n))
    expect(Number(all.headers['x-wp-totalpages'])).toBe(Math.ceil(total / 2))
    const found = (await call('GET', '/investments?search=lipowego')).json() as Json[]
    expect(found.map((i) => i.title)).toEqual(['Szkic Osiedla Lipowego'])
    expect(found[0]).toMatchObject({ host_status: 'draft', offers_count: 0, published_offers_count: 0 })
    const drafts = (await call('GET', '/investments?host_status=draft')).json() as Json[]
    expect(drafts.every((i) => i.host_status === 'draft')).toBe(true)
    const counted = ((await call('GET', '/investments?host_status=publish')).json() as Json[]).find(
      (i) => (i.offers_count as number) > 0,
    )
    expect(counted?.published_offers_count).toBeGreaterThan(0)
    expect((await call('GET', '/investments?page=99')).statusCode).toBe(400)
  })

  it('creates an investment with its location and prospectus; the catalog shows it once published', async () => {
    const created = await call('POST', '/investments', {
      title: 'Osiedle Pod Lipami',
      excerpt: 'Trzy budynki przy parku',
      content: '<p>Opis</p>',
      location: {
        voivodeship: 'Wielkopolskie',
        powiat: 'Poznań',
        gmina: 'Poznań',
        city: 'Poznań',
        street: 'Lipowa',
        building_no: '5',
        postal_code: '61-001',
      },
      prospectus_url: 'https://example.pl/prospekt.pdf',
      custom_meta: { liczba_pieter: 6 },
      source_id: 'CRM-LIPY',
    })
    expect(created.statusCode, created.body).toBe(201)
    const investment = created.json()
    expect(investment).toMatchObject({
      slug: 'osiedle-pod-lipami',
      host_status: 'publish',
      visibility: 'public',
      location: { voivodeship: 'wielkopolskie', postal_code: '61-001' },
      custom_meta: { liczba_pieter: 6 },
    })
    expect(created.headers.location).toBe(`${API}/investments/${investment.id as number}`)
    expect(created.headers.etag).toBe(investment.version)

    const shown = await env.app.inject({
      method: 'GET',
      url: `${API}/catalog/investments/${investment.id as number}`,
      headers: { authorization: reader.authorization },
    })
    expect(shown.statusCode).toBe(200)
    expect(shown.json()).toMatchObject({
      title: 'Osiedle Pod Lipami',
      excerpt: 'Trzy budynki przy parku',
      location: { city: 'Poznań', street: 'Lipowa' },
      context: { prospectus_url: 'https://example.pl/prospekt.pdf' },
      custom_meta: { liczba_pieter: 6 },
    })

    // an import row naming its source id lands in it
    const location = await call('GET', `/investments/${investment.id as number}/location`)
    expect(location.json()).toMatchObject({ prospectus_url: 'https://example.pl/prospekt.pdf' })
  })

  it('changes the fields sent with the version named; a stale version gets 409 with the current values', async () => {
    const created = (await call('POST', '/investments', { title: 'Zmienna' })).json()
    const developer = await env.ctx.db.selectFrom('developers').select('id').executeTakeFirstOrThrow()
    const changed = await call(
      'PATCH',
      `/investments/${created.id as number}`,
      {
        title: 'Zmieniona nazwa',
        host_status: 'private',
        visibility: 'private',
        developer_id: developer.id,
        location: { city: 'Gniezno' },
        prospectus_url: 'https://example.pl/p.pdf',
      },
      { 'if-match': created.version as string },
    )
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json()).toMatchObject({
      title: 'Zmieniona nazwa',
      slug: 'zmienna',
      host_status: 'private',
      visibility: 'private',
      developer_id: developer.id,
      location: { city: 'Gniezno' },
    })
    expect(changed.json().version).not.toBe(created.version)

    const audits = await auditCount()
    const stale = await call(
      'PATCH',
      `/investments/${created.id as number}`,
      { title: 'Nadpisana' },
      { 'if-match': created.version as string },
    )
    expect(stale.statusCode).toBe(409)
    expect(stale.json()).toMatchObject({ error: 'edit_conflict', current: changed.json() })
    expect((await call('GET', `/investments/${created.id as number}`)).json().title).toBe('Zmieniona nazwa')
    expect(await auditCount()).toBe(audits)
    expect((await call('PATCH', `/investments/${created.id as number}`, { title: 'x' })).statusCode).toBe(428)
    const viaBody = await call('PATCH', `/investments/${created.id as number}`, {
      excerpt: 'Nowa',
      version: changed.json().version,
    })
    expect(viaBody.statusCode, viaBody.body).toBe(200)
  })

  it('operators saving the same version at once: one change is kept, every other gets 409', async () => {
    const created = (await call('POST', '/investments', { title: 'Równoległa' })).json()
    const save = (excerpt: string) =>
      call('PATCH', `/investments/${created.id as number}`, { excerpt }, { 'if-match': created.version as string })
    const answers = await Promise.all(['1', '2', '3', '4', '5', '6', '7', '8'].map((n) => save(`wersja ${n}`)))
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409])
    const kept = answers.find((a) => a.statusCode === 200)?.json()
    expect((await call('GET', `/investments/${created.id as number}`)).json().excerpt).toBe(kept.excerpt)
  })

  it('refuses bad input with every field’s issue, in Polish or English, writing nothing', async () => {
    const before = await auditCount()
    const refused = await call('POST', '/investments', {
      title: '',
      slug: 'Zła Nazwa',
      host_status: 'hidden',
      developer_id: 999999,
      location: { postal_code: '61001', voivodeship: 'bawaria' },
      prospectus_url: 'ftp://x',
      custom_meta: { nieznane: 1, liczba_pieter: 'sześć' },
    })
    expect(refused.statusCode).toBe(422)
    const issues = refused.json().issues as Json[]
    expect(issues.map((i) => [i.field, i.code])).toEqual(
      expect.arrayContaining([
        ['title', 'required'],
        ['slug', 'invalid_slug'],
        ['host_status', 'invalid_enum'],
        ['developer_id', 'not_found'],
        ['location.postal_code', 'invalid_postal_code'],
        ['location.voivodeship', 'invalid_voivodeship'],
        ['prospectus_url', 'invalid_url'],
        ['custom_meta.nieznane', 'invalid_meta'],
        ['custom_meta.liczba_pieter', 'invalid_meta'],
      ]),
    )
    for (const issue of issues) expect(issue.message).toBe(issue.message_pl)
    const english = await call('POST', '/investments', { title: '' }, { 'accept-language': 'en' })
    expect((english.json().issues as Json[])[0]?.message).toBe((english.json().issues as Json[])[0]?.message_en)
    expect(await auditCount()).toBe(before)
    const duplicate = await call('POST', '/investments', { title: 'Druga', source_id: 'CRM-LIPY' })
    expect(duplicate.json().issues).toEqual([expect.objectContaining({ field: 'source_id', code: 'duplicate_key' })])
  })

  it('never deletes an investment with offers; deletes an empty one', async () => {
    const withOffers = (await call('GET', '/investments?host_status=publish')).json() as Json[]
    const target = withOffers.find((i) => (i.offers_count as number) > 0) as Json
    const refused = await call('DELETE', `/investments/${target.id as number}`, undefined, {
      'if-match': target.version as string,
    })
    expect(refused.statusCode).toBe(409)
    expect(refused.json()).toMatchObject({ error: 'investment_has_offers', offers: target.offers_count })
    expect((await call('GET', `/investments/${target.id as number}`)).statusCode).toBe(200)

    const empty = (await call('POST', '/investments', { title: 'Do usunięcia' })).json()
    expect((await call('DELETE', `/investments/${empty.id as number}`)).statusCode).toBe(428)
    const deleted = await call('DELETE', `/investments/${empty.id as number}`, undefined, {
      'if-match': empty.version as string,
    })
    expect(deleted.statusCode).toBe(204)
    expect((await call('GET', `/investments/${empty.id as number}`)).statusCode).toBe(404)
  })

  it('lists the custom fields forms may offer, with their types and labels', async () => {
    const listed = await call('GET', '/custom-fields')
    expect(listed.statusCode).toBe(200)
    expect(listed.json().dg_investment).toContainEqual({
      key: 'liczba_pieter',
      type: 'integer',
      label: 'Piętra',
      description: '',
      show_in_rest: true,
    })
    expect(listed.json().dg_property.map((f: Json) => f.key)).toContain('ekspozycja')
  })

  it('writes an offer’s registered custom fields, merged and removed by null, shown by the catalog', async () => {
    const offer = ((await call('GET', '/offers?host_status=publish&per_page=1')).json() as Json[])[0] as Json
    const set = await call(
      'PATCH',
      `/offers/${offer.id as number}`,
      { custom_meta: { ekspozycja: 'południe' } },
      { 'if-match': offer.version as string },
    )
    expect(set.statusCode, set.body).toBe(200)
    expect(set.json().custom_meta).toMatchObject({ ekspozycja: 'południe' })
    const detail = await env.app.inject({
      method: 'GET',
      url: `${API}/catalog/properties/${offer.id as number}`,
      headers: { authorization: reader.authorization },
    })
    expect(detail.json().custom_meta).toMatchObject({ ekspozycja: 'południe' })
    const refused = await call(
      'PATCH',
      `/offers/${offer.id as number}`,
      { custom_meta: { api_token: 'x' } },
      { 'if-match': set.json().version },
    )
    expect(refused.statusCode).toBe(422)
    expect(refused.json().issues[0]).toMatchObject({ field: 'custom_meta.api_token', code: 'invalid_meta' })
    const removed = await call(
      'PATCH',
      `/offers/${offer.id as number}`,
      { custom_meta: { ekspozycja: null } },
      { 'if-match': set.json().version },
    )
    expect(removed.statusCode).toBe(200)
    expect(removed.json().custom_meta).not.toHaveProperty('ekspozycja')
  })
})
