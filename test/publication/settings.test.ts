import fs from 'node:fs/promises'
import path from 'node:path'

import { beforeAll, expect, it } from 'vitest'

import { runCli } from '../../src/cli/main.js'
import { setUpDemo } from '../../src/demo/demo-setup.js'
import { listAudit } from '../../src/host/audit/audit.js'
import { openDatabase } from '../../src/host/db/database.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

/** Appends the check digit of the Polish NIP / REGON rules (weights, sum mod 11, 10 → 0). */
function withCheckDigit(digits: string, weights: number[]): string {
  const sum = weights.reduce((acc, w, i) => acc + w * Number(digits[i]), 0)
  return `${digits}${sum % 11 === 10 ? 0 : sum % 11}`
}
const VALID_NIP = withCheckDigit('778142032', [6, 5, 7, 2, 3, 4, 5, 6, 7])
const VALID_REGON9 = withCheckDigit('63025891', [8, 9, 2, 3, 4, 5, 6, 7])
const VALID_REGON14 = withCheckDigit('6302589100012', [2, 4, 8, 5, 0, 9, 7, 3, 6, 1, 2, 4, 8])
const wrongLastDigit = (value: string) => `${value.slice(0, -1)}${(Number(value.at(-1)) + 1) % 10}`

const NEW_DEVELOPER = {
  name: 'Nowy Dom Sp. z o.o.',
  legal_form: 'spółka z ograniczoną odpowiedzialnością',
  krs: '0000123456',
  nip: VALID_NIP,
  regon: VALID_REGON9,
  phone: '+48612223344',
  email: 'biuro@nowydom.example.pl',
  website: 'https://nowydom.example.pl',
  seat_voivodeship: 'Wielkopolskie',
  seat_city: 'Poznań',
  seat_postal_code: '61-001',
  sales_voivodeship: 'wielkopolskie',
  sales_postal_code: '61-002',
  contact_method: 'Telefonicznie lub w biurze sprzedaży',
}

describeEachDatabase('publication settings, developers and investment locations', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  const api = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown, authorization = admin.authorization) =>
    env.app.inject({
      method,
      url: `/wp-json/dg/v2${url}`,
      headers: { authorization },
      ...(payload === undefined ? {} : { payload: payload as object }),
    })
  const issueCodes = (body: { issues: Array<{ code: string }> }) => body.issues.map((i) => i.code).sort()
  const countDevelopers = async () =>
    Number(
      (
        await env.ctx.db
          .selectFrom('developers')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  async function dg(...argv: string[]) {
    let stdout = ''
    let stderr = ''
    const code = await runCli(argv, {
      config: env.config,
      io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
      openDatabase: () => openDatabase(env.database.connection),
    })
    return { code, stdout, stderr, json: () => JSON.parse(stdout), error: () => JSON.parse(stderr).error }
  }

  beforeAll(async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
  })

  it('GET /publication/settings shows the defaults and the stable dataset identity', async () => {
    const response = await api('GET', '/publication/settings')
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      public_base_url: null,
      developer_id: null,
      published_statuses: ['available', 'reserved'],
      schedule: '30 0 * * *',
      public_dataset_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      xml_url: null,
      md5_url: null,
      // the test clock stands at 2026-11-20 11:00 in Warsaw: the next 00:30 runs are the nights after
      next_runs: ['2026-11-20T23:30:00.000Z', '2026-11-21T23:30:00.000Z', '2026-11-22T23:30:00.000Z'],
      schedule_time: { time: '00:30', days: [0, 1, 2, 3, 4, 5, 6] },
      warnings: [],
    })
  })

  it('saves a schedule that skips days, saying in Polish that the law asks for a file every day', async () => {
    const weekdays = await api('PUT', '/publication/settings', { schedule: '0 2 * * 1,2,3,4,5' })
    expect(weekdays.statusCode, weekdays.body).toBe(200)
    expect(weekdays.json()).toMatchObject({ schedule: '0 2 * * 1,2,3,4,5', schedule_time: { days: [1, 2, 3, 4, 5] } })
    const [warning] = weekdays.json().warnings
    expect(weekdays.json().warnings).toHaveLength(1)
    expect(warning).toMatchObject({
      field: 'schedule',
      code: 'schedule_skips_days',
      // 21 and 22 November 2026 are the first Saturday and Sunday after the test clock's day
      details: { weekdays: [6, 0], dates: expect.arrayContaining(['2026-11-21', '2026-11-22']) },
    })
    expect(warning.message).toBe(warning.message_pl)
    expect(warning.message_pl).toContain('Harmonogram pomija dni tygodnia: sobota, niedziela.')
    expect(warning.message_pl).toContain('art. 19b ust. 1')
    expect(warning.message_pl).toContain('codziennie')
    expect(warning.message_en).toContain('every day')
    // every answer of the settings says it while the schedule skips days, however the days are written
    expect((await api('GET', '/publication/settings')).json().warnings).toEqual([warning])
    const range = await api('PUT', '/publication/settings', { schedule: '0 2 * * 1-5' })
    expect(range.json().warnings.map((w: { code: string }) => w.code)).toEqual(['schedule_skips_days'])
    const monthly = await api('PUT', '/publication/settings', { schedule: '30 0 1-28 * *' })
    expect(monthly.json().warnings[0].message_pl).toContain('Harmonogram pomija niektóre dni miesiąca, np. 2026-11-29')
    // back to every day: nothing to say
    const daily = await api('PUT', '/publication/settings', { schedule: '30 0 * * *' })
    expect(daily.json()).toMatchObject({ schedule: '30 0 * * *', warnings: [] })

    const cli = await dg('publication', 'settings', 'set', '--schedule', '0 2 * * 1-5')
    expect(cli.code).toBe(0)
    expect(cli.stdout).toContain(
      'Warning (schedule_skips_days): The schedule skips the days of the week Saturday, Sunday.',
    )
    expect(cli.stdout).toContain('Ustawa (art. 19b ust. 1) wymaga publikacji danych w serwisie dane.gov.pl codziennie')
    expect((await dg('publication', 'settings', 'set', '--schedule', '30 0 * * *')).stdout).not.toContain('Warning')
  })

  it('PUT /publication/settings saves valid fields, audits, and refuses invalid ones with issues, writing nothing', async () => {
    const developer = await env.ctx.db.selectFrom('developers').select('id').executeTakeFirstOrThrow()
    const saved = await api('PUT', '/publication/settings', {
      public_base_url: ' https://ceny.example.pl/dane-gov/ ',
      developer_id: developer.id,
      published_statuses: ['available'],
    })
    expect(saved.statusCode).toBe(200)
    expect(saved.json()).toMatchObject({
      public_base_url: 'https://ceny.example.pl/dane-gov/',
      developer_id: developer.id,
      published_statuses: ['available'],
      schedule: '30 0 * * *',
      xml_url: 'https://ceny.example.pl/dane-gov/dataset.xml',
      md5_url: 'https://ceny.example.pl/dane-gov/dataset.md5',
    })
    const [audit] = await listAudit(env.ctx, { action: 'publication.settings', limit: 1 })
    expect(audit).toMatchObject({ outcome: 'success', actor: { type: 'user', name: admin.login } })

    const refused = await api('PUT', '/publication/settings', {
      // outside production http:// is accepted for local trials; a non-web address never is
      public_base_url: 'ftp://ceny.example.pl/dane-gov',
      developer_id: 999999,
      published_statuses: ['available', 'for_rent'],
      schedule: 'every night',
    })
    expect(refused.statusCode).toBe(422)
    const body = refused.json()
    expect(body.error).toBe('invalid_settings')
    expect(issueCodes(body)).toEqual(['invalid_cron', 'invalid_enum', 'invalid_url', 'not_found'])
    for (const issue of body.issues) {
      expect(issue).toEqual({
        field: expect.any(String),
        code: expect.any(String),
        message: expect.any(String),
        message_pl: expect.any(String),
        message_en: expect.any(String),
      })
    }
    const urlIssue = body.issues.find((i: { code: string }) => i.code === 'invalid_url')
    expect(urlIssue.message_pl).toContain('https://')
    // Polish by default, English on request, both texts always beside
    expect(urlIssue.message).toBe(urlIssue.message_pl)
    const inEnglish = await env.app.inject({
      method: 'PUT',
      url: '/wp-json/dg/v2/publication/settings',
      payload: { public_base_url: 'ftp://ceny.example.pl/dane-gov' },
      headers: { authorization: admin.authorization, 'accept-language': 'en-GB,en;q=0.9,pl;q=0.5' },
    })
    expect(inEnglish.statusCode).toBe(422)
    expect(inEnglish.json().issues[0]).toMatchObject({
      code: 'invalid_url',
      message: inEnglish.json().issues[0].message_en,
    })
    expect(inEnglish.json().issues[0].message).toMatch(/must be an https:\/\/ address/)
    expect((await api('GET', '/publication/settings')).json()).toEqual(saved.json())

    expect((await api('PUT', '/publication/settings', { public_base_url: 42 })).statusCode).toBe(400)
    expect((await api('PUT', '/publication/settings', { unknown: true })).statusCode).toBe(400)
    expect((await api('PUT', '/publication/settings', { developer_id: null })).json().developer_id).toBeNull()
  })

  it('POST /developers creates a valid entity (201, audited); GET returns it', async () => {
    const response = await api('POST', '/developers', NEW_DEVELOPER)
    expect(response.statusCode).toBe(201)
    const created = response.json()
    expect(created).toMatchObject({
      ...NEW_DEVELOPER,
      id: expect.any(Number),
      seat_voivodeship: 'wielkopolskie',
      ceidg: null,
      fax: null,
    })
    expect((await api('GET', `/developers/${created.id}`)).json()).toEqual(created)
    const [audit] = await listAudit(env.ctx, { action: 'developer.create', objectId: String(created.id), limit: 1 })
    expect(audit).toMatchObject({ outcome: 'success', object_type: 'developer' })

    const regon14 = await api('POST', '/developers', { name: 'Oddział Sp. z o.o.', regon: VALID_REGON14 })
    expect(regon14.statusCode).toBe(201)
    expect(regon14.json().regon).toBe(VALID_REGON14)
  })

  it('refuses invalid developer data (NIP check digit, REGON 9/14, KRS 10, phone, postal code, voivodeship) with 422 and writes nothing', async () => {
    const before = await countDevelopers()
    const response = await api('POST', '/developers', {
      ...NEW_DEVELOPER,
      nip: wrongLastDigit(VALID_NIP),
      regon: '12345678',
      krs: '123456789',
      phone: '61 222 33',
      fax: '12',
      seat_postal_code: '6100',
      sales_voivodeship: 'Bawaria',
    })
    expect(response.statusCode).toBe(422)
    const body = response.json()
    expect(body.error).toBe('invalid_developer')
    expect(issueCodes(body)).toEqual([
      'invalid_fax',
      'invalid_krs',
      'invalid_nip',
      'invalid_phone',
      'invalid_postal_code',
      'invalid_regon',
      'invalid_voivodeship',
    ])
    const byField = Object.fromEntries(body.issues.map((i: { field: string }) => [i.field, i]))
    expect(byField.nip.message_pl).toContain('NIP')
    expect(byField.seat_postal_code.message_pl).toContain('00-000')
    expect(byField.sales_voivodeship.message_en).toContain('mazowieckie')
    expect(await countDevelopers()).toBe(before)

    for (const regon of [wrongLastDigit(VALID_REGON9), wrongLastDigit(VALID_REGON14), '1234567890']) {
      const refused = await api('POST', '/developers', { name: 'X Sp. z o.o.', regon })
      expect(refused.statusCode, regon).toBe(422)
      expect(issueCodes(refused.json())).toEqual(['invalid_regon'])
    }
    expect(issueCodes((await api('POST', '/developers', { nip: VALID_NIP })).json())).toEqual(['required'])
    expect(await countDevelopers()).toBe(before)

    // identifiers as Polish people type them are stored normalised
    const typed = await api('POST', '/developers', {
      name: 'Typed Sp. z o.o.',
      nip: `${VALID_NIP.slice(0, 3)}-${VALID_NIP.slice(3, 6)}-${VALID_NIP.slice(6, 8)}-${VALID_NIP.slice(8)}`,
      regon: VALID_REGON9.replace(/(\d{3})(?=\d)/g, '$1 '),
      phone: '+48 601 887 712',
      fax: '61-222-33-44',
      seat_postal_code: '61001',
      sales_postal_code: '61 001',
    })
    expect(typed.statusCode, typed.body).toBe(201)
    expect(typed.json()).toMatchObject({
      nip: VALID_NIP,
      regon: VALID_REGON9,
      phone: '+48601887712',
      fax: '612223344',
      seat_postal_code: '61-001',
      sales_postal_code: '61-001',
    })
    await env.ctx.db.deleteFrom('developers').where('id', '=', typed.json().id).execute()
  })

  it('PUT /developers/{id} changes only the fields sent, null clears, and an invalid result changes nothing', async () => {
    const created = (await api('POST', '/developers', NEW_DEVELOPER)).json()
    const changed = await api('PUT', `/developers/${created.id}`, { phone: '612223355', website: null })
    expect(changed.statusCode).toBe(200)
    expect(changed.json()).toMatchObject({
      ...NEW_DEVELOPER,
      seat_voivodeship: 'wielkopolskie',
      phone: '612223355',
      website: null,
    })
    const [audit] = await listAudit(env.ctx, { action: 'developer.update', objectId: String(created.id), limit: 1 })
    expect(audit!.details).toEqual({ fields: ['phone', 'website'] })

    const refused = await api('PUT', `/developers/${created.id}`, { name: null, nip: '1234567891', city: 'x' })
    expect(refused.statusCode).toBe(400) // city is not a developer field
    const invalid = await api('PUT', `/developers/${created.id}`, { name: '  ', nip: '1234567891', phone: '600100200' })
    expect(invalid.statusCode).toBe(422)
    expect(issueCodes(invalid.json())).toEqual(['invalid_nip', 'required'])
    expect((await api('GET', `/developers/${created.id}`)).json()).toEqual(changed.json())

    const missing = await api('PUT', '/developers/999999', { phone: '612223355' })
    expect(missing.statusCode).toBe(404)
    expect(missing.json().code).toBe('developer_not_found')
    expect((await api('GET', '/developers/999999')).statusCode).toBe(404)
  })

  it('PUT /investments/{id}/location sets columns 29–35 and the prospectus URL, validated', async () => {
    const investment = await env.ctx.db.selectFrom('investments').select('id').orderBy('id').executeTakeFirstOrThrow()
    const saved = await api('PUT', `/investments/${investment.id}/location`, {
      voivodeship: 'Mazowieckie',
      powiat: 'Warszawa',
      gmina: 'Warszawa',
      city: 'Warszawa',
      street: 'Lipowa',
      building_no: '7',
      postal_code: '02-001',
      prospectus_url: 'https://www.example.com/prospekt.pdf',
    })
    expect(saved.statusCode).toBe(200)
    expect(saved.json()).toMatchObject({
      id: investment.id,
      location: { voivodeship: 'mazowieckie', street: 'Lipowa', building_no: '7', postal_code: '02-001' },
      prospectus_url: 'https://www.example.com/prospekt.pdf',
    })
    const [audit] = await listAudit(env.ctx, { action: 'investment.location', limit: 1 })
    expect(audit).toMatchObject({ object_id: String(investment.id), outcome: 'success' })

    const refused = await api('PUT', `/investments/${investment.id}/location`, {
      voivodeship: 'Mazowsze',
      postal_code: '2-001',
      prospectus_url: 'prospekt.pdf',
      street: 'Inna',
    })
    expect(refused.statusCode).toBe(422)
    expect(refused.json().error).toBe('invalid_location')
    expect(issueCodes(refused.json())).toEqual(['invalid_postal_code', 'invalid_url', 'invalid_voivodeship'])
    expect((await api('GET', `/investments/${investment.id}/location`)).json()).toEqual(saved.json())

    const cleared = await api('PUT', `/investments/${investment.id}/location`, { prospectus_url: null })
    expect(cleared.json().prospectus_url).toBeNull()
    expect((await api('PUT', '/investments/999999/location', { city: 'X' })).statusCode).toBe(404)
  })

  it('is for administrators only', async () => {
    const reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    expect((await api('GET', '/publication/settings', undefined, reader.authorization)).statusCode).toBe(403)
    expect((await api('POST', '/developers', NEW_DEVELOPER, reader.authorization)).statusCode).toBe(403)
    expect((await api('GET', '/developers/1', undefined, reader.authorization)).statusCode).toBe(403)
    expect((await api('PUT', '/investments/1/location', { city: 'X' }, reader.authorization)).statusCode).toBe(403)
    expect((await env.app.inject({ method: 'GET', url: '/wp-json/dg/v2/publication/settings' })).statusCode).toBe(401)
  })

  it('dg publication settings show|set with --json, refusals with exit code 1 and every issue', async () => {
    const set = await dg(
      'publication',
      'settings',
      'set',
      '--public-base-url',
      'https://cli.example.pl/dane-gov',
      '--statuses',
      'available,reserved',
      '--schedule',
      '15 1 * * *',
      '--json',
    )
    expect(set.code).toBe(0)
    expect(set.json()).toMatchObject({
      public_base_url: 'https://cli.example.pl/dane-gov',
      published_statuses: ['available', 'reserved'],
      schedule: '15 1 * * *',
    })
    const show = await dg('publication', 'settings', 'show', '--json')
    expect(show.json()).toEqual(set.json())
    expect((await dg('publication', 'settings', 'show')).stdout).toContain('https://cli.example.pl/dane-gov')

    const refused = await dg('publication', 'settings', 'set', '--public-base-url', 'ftp://cli.example.pl', '--json')
    expect(refused.code).toBe(1)
    expect(refused.error()).toMatchObject({
      code: 'invalid_settings',
      message: expect.stringContaining('invalid_url'),
    })
    expect((await dg('publication', 'settings', 'show', '--json')).json()).toEqual(set.json())

    expect((await dg('publication', 'settings', 'set', '--json')).error().code).toBe('nothing_to_set')
    expect((await dg('publication', 'settings', 'list', '--json')).code).toBe(1)
    expect((await dg('publication', 'settings', '--json')).code).toBe(2)
  })

  it('dg developer set/show and dg investment location with --json, from options or a JSON file', async () => {
    const created = await dg('developer', 'set', '--name', 'CLI Dom Sp. z o.o.', '--nip', VALID_NIP, '--json')
    expect(created.code).toBe(0)
    const id = created.json().id as number
    expect(created.json()).toMatchObject({ name: 'CLI Dom Sp. z o.o.', nip: VALID_NIP })

    const file = path.join(env.database.dataDir, 'developer.json')
    await fs.writeFile(file, JSON.stringify({ regon: VALID_REGON14, seat_postal_code: '00-950', email: null }))
    const fromFile = await dg('developer', 'set', '--id', String(id), '--file', file, '--phone', '221234567', '--json')
    expect(fromFile.code).toBe(0)
    expect(fromFile.json()).toMatchObject({ id, regon: VALID_REGON14, seat_postal_code: '00-950', phone: '221234567' })

    const invalid = await dg(
      'developer',
      'set',
      '--id',
      String(id),
      '--krs',
      '12345',
      '--seat-postal-code',
      '0095',
      '--json',
    )
    expect(invalid.code).toBe(1)
    expect(invalid.error().code).toBe('invalid_developer')
    expect(invalid.error().message).toContain('invalid_krs')
    expect(invalid.error().message).toContain('invalid_postal_code')
    expect((await dg('developer', 'show', '--id', String(id), '--json')).json()).toEqual(fromFile.json())

    await fs.writeFile(file, JSON.stringify({ nickname: 'x' }))
    expect((await dg('developer', 'set', '--id', String(id), '--file', file, '--json')).error().code).toBe(
      'invalid_file',
    )

    const investment = await env.ctx.db.selectFrom('investments').select('id').orderBy('id').executeTakeFirstOrThrow()
    const location = await dg(
      'investment',
      'location',
      '--id',
      String(investment.id),
      '--postal-code',
      '61-001',
      '--voivodeship',
      'wielkopolskie',
      '--json',
    )
    expect(location.code).toBe(0)
    expect(location.json().location).toMatchObject({ postal_code: '61-001', voivodeship: 'wielkopolskie' })
    const badLocation = await dg(
      'investment',
      'location',
      '--id',
      String(investment.id),
      '--postal-code',
      'x',
      '--json',
    )
    expect(badLocation.error().code).toBe('invalid_location')
  })
})
