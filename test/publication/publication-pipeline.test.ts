import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { sql } from 'kysely'
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { publicationStore } from '../../src/publication/publication-store.js'
import { publish } from '../../src/publication/publishing/publish.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { OFFICIAL_HEADER_LINE } from '../../src/publication/daily-file/official-columns.js'
import { validateHarvesterXml } from '../../src/publication/daily-file/validate-xml.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

describeEachDatabase('official publication pipeline', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  /** Publishes `date` on that day, as the daily run would: a day's file is only made on its day. */
  const publishDay = (date?: string) => {
    if (date) env.clock.set(`${date}T10:00:00Z`)
    return env.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/publications',
      payload: date ? { date } : {},
      headers: { authorization: admin.authorization },
    })
  }
  const fetchPublic = (name: string, method: 'GET' | 'HEAD' = 'GET') =>
    env.app.inject({ method, url: `/dane-gov/${name}` })

  beforeAll(async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
  })

  it('refuses to publish without the public https address, naming the issue in Polish and English', async () => {
    const response = await publishDay('2026-11-20')
    expect(response.statusCode).toBe(422)
    const body = response.json()
    expect(body.error).toBe('publication_failed')
    expect(body.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'public_base_url_missing',
          message_pl: expect.any(String),
          message_en: expect.any(String),
        }),
      ]),
    )
    expect((await fetchPublic('dataset.xml')).statusCode).toBe(404)
  })

  it('publishes the day: CSV, XML and .md5 served with the right types, checksums and XSD-valid XML', async () => {
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    const response = await publishDay('2026-11-20')
    expect(response.statusCode).toBe(200)
    const outcome = response.json()
    expect(outcome).toMatchObject({
      status: 'published',
      date: '2026-11-20',
      trigger: 'api',
      xml: {
        url: 'https://ceny.example.pl/dane-gov/dataset.xml',
        md5_url: 'https://ceny.example.pl/dane-gov/dataset.md5',
        resources: 1,
      },
    })
    expect(outcome.csv.file_name).toMatch(/^ceny-ofertowe-mieszkan-dewelopera-[a-z0-9-]+-2026-11-20\.csv$/)

    const xml = await fetchPublic('dataset.xml')
    expect(xml.statusCode).toBe(200)
    expect(xml.headers['content-type']).toMatch(/^application\/xml/)
    const head = await fetchPublic('dataset.xml', 'HEAD')
    expect(head.statusCode).toBe(200)
    expect(head.headers['content-type']).toMatch(/xml/)
    const md5 = await fetchPublic('dataset.md5')
    expect(md5.headers['content-type']).toMatch(/^text\/plain/)
    expect(md5.body).toMatch(/^[0-9a-f]{32}$/)
    expect(md5.body).toBe(createHash('md5').update(xml.rawPayload).digest('hex'))
    expect((await validateHarvesterXml(xml.body)).valid).toBe(true)
    expect(xml.body).toContain(`<url>https://ceny.example.pl/dane-gov/${outcome.csv.file_name}</url>`)

    const csv = await fetchPublic(outcome.csv.file_name)
    expect(csv.statusCode).toBe(200)
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(csv.headers.etag).toBe(`"${outcome.csv.md5}"`)
    expect(csv.rawPayload.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false)
    const lines = csv.body.trimEnd().split('\n')
    expect(lines[0]).toBe(OFFICIAL_HEADER_LINE)
    expect(lines.length - 1).toBe(outcome.record_count)
    const published = await env.ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select(['offers.code', 'offers.price_total_cents'])
      .where('offers.host_status', '=', 'publish')
      .where('investments.host_status', '=', 'publish')
      .where('offers.status', 'in', ['available', 'reserved'])
      .execute()
    for (const offer of published.filter((o) => o.price_total_cents !== null)) {
      const amount = `${Math.floor(offer.price_total_cents! / 100)}.${String(offer.price_total_cents! % 100).padStart(2, '0')}`
      expect(csv.body, offer.code).toContain(amount)
    }
    expect(
      (await env.app.inject({ url: '/dane-gov/dataset.xml', headers: { 'if-none-match': String(xml.headers.etag) } }))
        .statusCode,
    ).toBe(304)

    const status = await env.app.inject({
      url: '/wp-json/dg/v2/status',
      headers: { authorization: admin.authorization },
    })
    expect(status.json().last_publication).toMatchObject({
      date: '2026-11-20',
      record_count: outcome.record_count,
      trigger: 'api',
      xml_md5: md5.body,
      files: { xml: outcome.xml.url, md5: outcome.xml.md5_url, csv: outcome.csv.url },
    })
  })

  it('keeps every past day listed and reachable, never changes a past day, and adds a same-day change as a resource of its own', async () => {
    const first = (await publishDay('2026-11-20')).json()
    const second = (await publishDay('2026-11-21')).json()
    expect(second.xml.resources).toBe(2)
    expect((await fetchPublic(first.csv.file_name)).statusCode).toBe(200)
    expect((await fetchPublic(second.csv.file_name)).statusCode).toBe(200)
    const xml = (await fetchPublic('dataset.xml')).body
    expect(xml).toContain('<dataDate>2026-11-20</dataDate>')
    expect(xml).toContain('<dataDate>2026-11-21</dataDate>')

    // the 20th has ended: neither the API nor anything else can make its file again
    const past = await env.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/publications',
      payload: { date: '2026-11-20' },
      headers: { authorization: admin.authorization },
    })
    expect(past.statusCode).toBe(422)
    expect(past.json()).toMatchObject({ error: 'publication_day_closed', issues: [{ code: 'publication_day_closed' }] })
    const future = await env.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/publications',
      payload: { date: '2026-11-22' },
      headers: { authorization: admin.authorization },
    })
    expect(future.json()).toMatchObject({ error: 'publication_date_future' })
    expect((await fetchPublic('dataset.xml')).body).toBe(xml)

    // republishing today unchanged lists nothing new: the same XML, the same .md5
    const md5 = (await fetchPublic('dataset.md5')).body
    expect((await publishDay('2026-11-21')).json().csv.file_name).toBe(second.csv.file_name)
    expect((await fetchPublic('dataset.md5')).body).toBe(md5)

    // a price change republished today is a new resource (new extIdent and URL), so the XML and
    // its .md5 change and the portal downloads it; the day's first file stays as published
    const offer = await env.ctx.db
      .selectFrom('offers')
      .select(['id', 'price_m2_cents', 'area'])
      .where('status', '=', 'available')
      .where('property_type', '=', 'mieszkanie')
      .where('price_m2_cents', 'is not', null)
      .executeTakeFirstOrThrow()
    const m2 = Number(offer.price_m2_cents) + 10_000
    await env.ctx.db
      .updateTable('offers')
      .set({ price_m2_cents: m2, price_total_cents: Math.round(m2 * Number(offer.area)) })
      .where('id', '=', offer.id)
      .execute()
    const third = (await publishDay('2026-11-21')).json()
    expect(third.csv.file_name).toBe(second.csv.file_name.replace(/\.csv$/, '-v2.csv'))
    expect(third.xml.resources).toBe(3)
    expect((await fetchPublic('dataset.md5')).body).not.toBe(md5)
    const changed = (await fetchPublic('dataset.xml')).body
    expect(changed.match(/<dataDate>2026-11-21<\/dataDate>/g)).toHaveLength(2)
    expect(changed).toContain(`<url>${second.csv.url}</url>`)
    expect(changed).toContain(`<url>${third.csv.url}</url>`)
    const firstOfDay = await fetchPublic(second.csv.file_name)
    expect(createHash('md5').update(firstOfDay.rawPayload).digest('hex')).toBe(second.csv.md5)
  })

  it('leaves the previous version served byte for byte when a publication fails', async () => {
    const before = { xml: (await fetchPublic('dataset.xml')).rawPayload, md5: (await fetchPublic('dataset.md5')).body }
    const offer = await env.ctx.db
      .selectFrom('offers')
      .select('id')
      .where('status', '=', 'available')
      .where('price_m2_cents', 'is not', null)
      .executeTakeFirstOrThrow()
    await env.ctx.db.updateTable('offers').set({ price_total_cents: 1 }).where('id', '=', offer.id).execute()
    const failed = await publishDay('2026-11-22')
    expect(failed.statusCode).toBe(422)
    expect(failed.json().issues.map((i: { code: string }) => i.code)).toContain('price_inconsistent')
    expect((await fetchPublic('dataset.xml')).rawPayload.equals(before.xml)).toBe(true)
    expect((await fetchPublic('dataset.md5')).body).toBe(before.md5)
    const status = await env.app.inject({
      url: '/wp-json/dg/v2/status',
      headers: { authorization: admin.authorization },
    })
    expect(status.json().last_publication_failure).toMatchObject({
      date: '2026-11-22',
      issues: expect.arrayContaining([expect.objectContaining({ code: 'price_inconsistent' })]),
    })
    await env.ctx.db
      .updateTable('offers')
      .set({ price_total_cents: null, price_m2_cents: null, price_total_from: null, price_m2_from: null })
      .where('id', '=', offer.id)
      .execute()
  })

  it('serves the previous version again when the publication cannot be recorded after the switch', async () => {
    const before = { xml: (await fetchPublic('dataset.xml')).rawPayload, md5: (await fetchPublic('dataset.md5')).body }
    const store = publicationStore(env.ctx)
    const versions = fs.readdirSync(path.join(store.root, 'versions')).sort()
    // the database refuses to record this one day's success, after the files are switched
    if (env.dialect === 'sqlite') {
      await sql`CREATE TRIGGER refuse_record BEFORE INSERT ON publications
        WHEN NEW.publication_date = '2026-12-01' AND NEW.status = 'published'
        BEGIN SELECT RAISE(ABORT, 'recording refused'); END`.execute(env.ctx.db)
    } else {
      await sql`CREATE FUNCTION refuse_record() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.publication_date = '2026-12-01' AND NEW.status = 'published' THEN
        RAISE EXCEPTION 'recording refused'; END IF; RETURN NEW; END $$`.execute(env.ctx.db)
      await sql`CREATE TRIGGER refuse_record BEFORE INSERT ON publications
        FOR EACH ROW EXECUTE FUNCTION refuse_record()`.execute(env.ctx.db)
    }
    try {
      const failed = await publishDay('2026-12-01')
      expect(failed.statusCode).toBe(422)
      expect(failed.json().issues.map((i: { code: string }) => i.code)).toEqual(['publication_error'])
      expect((await fetchPublic('dataset.xml')).rawPayload.equals(before.xml)).toBe(true)
      expect((await fetchPublic('dataset.md5')).body).toBe(before.md5)
      expect(fs.readdirSync(path.join(store.root, 'versions')).sort()).toEqual(versions)
    } finally {
      await sql`DROP TRIGGER refuse_record${sql.raw(env.dialect === 'postgres' ? ' ON publications' : '')}`.execute(
        env.ctx.db,
      )
      if (env.dialect === 'postgres') await sql`DROP FUNCTION refuse_record()`.execute(env.ctx.db)
    }
  })

  it('refuses a given file that breaks the byte rules, leaving the served version and the store as they were', async () => {
    const before = (await fetchPublic('dataset.xml')).rawPayload
    const store = publicationStore(env.ctx)
    const versions = fs.readdirSync(path.join(store.root, 'versions')).sort()
    const files = fs.readdirSync(store.filesDir).sort()
    const row = new Array<string>(58).fill('X')
    row[40] = ''
    const content = Buffer.from(`${OFFICIAL_HEADER_LINE}\n${row.join(';')}\n`, 'utf8')
    const refused = await publish(env.ctx, {
      date: '2026-11-22',
      trigger: 'report_import',
      actor: { type: 'cli' },
      csv: { fileName: 'ceny-ofertowe-mieszkan-dewelopera-test-2026-11-22.csv', content, rows: 1 },
    }).catch((error: unknown) => error)
    expect(refused).toMatchObject({
      status: 422,
      extra: { issues: [expect.objectContaining({ code: 'csv_empty_cell' })] },
    })
    expect((await fetchPublic('dataset.xml')).rawPayload.equals(before)).toBe(true)
    expect(fs.readdirSync(path.join(store.root, 'versions')).sort()).toEqual(versions)
    expect(fs.readdirSync(store.filesDir).sort()).toEqual(files)
  })

  it('runs one of two concurrent publications and answers the other 409', async () => {
    const [a, b] = await Promise.all([publishDay('2026-11-23'), publishDay('2026-11-23')])
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409])
    const refused = a.statusCode === 409 ? a : b
    expect(refused.json().error).toBe('publication_in_progress')
  })

  it('requires an administrator and the api_webhooks entitlement for POST /publications', async () => {
    const reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    expect(
      (
        await env.app.inject({
          method: 'POST',
          url: '/wp-json/dg/v2/publications',
          payload: {},
          headers: { authorization: reader.authorization },
        })
      ).statusCode,
    ).toBe(403)
    expect(
      (
        await env.app.inject({
          method: 'POST',
          url: '/wp-json/dg/v2/publications',
          payload: { date: '2026-02-30' },
          headers: { authorization: admin.authorization },
        })
      ).statusCode,
    ).toBe(400)
  })
})
