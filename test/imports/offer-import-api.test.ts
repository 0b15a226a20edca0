import iconv from 'iconv-lite'
import { beforeAll, expect, it } from 'vitest'

import { removeExpiredImportJobs } from '../../src/imports/import-job-lifecycle.js'
import { decodeChunk, PLAN_FORMAT } from '../../src/imports/execution/stored-operations.js'
import { setLicense } from '../../src/licensing/license.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const URL_IMPORT = '/wp-json/dg/v2/imports/offer'
const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  prop_rooms: 'Pokoje',
  prop_floor: 'Piętro',
  price_m2: 'Cena m2',
  price_m2_from: 'Cena m2 od',
  price_total: 'Cena',
  price_total_from: 'Cena od',
  proj_city: 'Miasto',
}
const HEADER =
  'Inwestycja;ID lokalu;Numer;Rodzaj;Status;Powierzchnia;Pokoje;Piętro;Cena m2;Cena m2 od;Cena;Cena od;Miasto'

function csv(rows: string[]): string {
  return `${HEADER}\n${rows.join('\n')}\n`
}

const BASE_ROWS = [
  'INV-A;1;A/1;mieszkanie;wolne;50,00;2;1;12 000,00;2026-05-01;600 000,00;2026-05-01;Poznań',
  'INV-A;2;A/2;mieszkanie;rezerwacja;60,50;3;2;12000;2026-05-01;726000;2026-05-01;Poznań',
  // sent without a type: created unqualified
  'INV-A;3;X1;;wolne;;;-1;;;45 000;2026-05-01;Poznań',
]

describeEachDatabase('offer import over HTTP', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  const previewFile = (content: Buffer | string, options: { mode?: string; mapping?: object; name?: string } = {}) => {
    const body = multipart(
      { mode: options.mode ?? 'patch', mapping: JSON.stringify(options.mapping ?? MAPPING) },
      { name: options.name ?? 'oferty.csv', content },
    )
    return env.app.inject({
      method: 'POST',
      url: URL_IMPORT,
      payload: body.payload,
      headers: { ...body.headers, authorization: admin.authorization },
    })
  }
  const execute = (jobId: string, key: string, confirmArchiving = false) =>
    env.app.inject({
      method: 'POST',
      url: URL_IMPORT,
      payload: `job_id=${jobId}&confirm_archiving=${confirmArchiving}`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': key,
        authorization: admin.authorization,
      },
    })
  const count = async (table: 'offers' | 'price_history' | 'audit_log') =>
    Number(
      (
        await env.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
  })

  it('records the first prices of new offers in offer order, after the changes of the same run', async () => {
    const mapping = {
      ...MAPPING,
      price_combined: 'Cena łączna',
      price_combined_from: 'Cena łączna od',
    }
    const header = `${HEADER};Cena łączna;Cena łączna od`
    const first = [
      'INV-H;H-1;H/1;mieszkanie;wolne;50,00;2;1;12 000,00;2026-05-02;600 000,00;2026-05-01;Poznań;;',
      'INV-H;H-2;H/2;mieszkanie;wolne;50,00;2;1;;;610 000,00;;Poznań;;',
      'INV-H;H-3;H/3;mieszkanie;wolne;40,00;2;1;10 000,00;2026-05-03;400 000,00;2026-05-03;Poznań;420 000,00;2026-05-04',
    ]
    const run = async (rows: string[], key: string) => {
      const preview = await previewFile(`${header}\n${rows.join('\n')}\n`, { mapping })
      expect(preview.json().preview.errors).toEqual([])
      const done = await execute(preview.json().id, key)
      expect(done.statusCode).toBe(200)
      return done.json().result.run_id as number
    }
    const historyOf = async (runId: number) => {
      const records = await env.ctx.db
        .selectFrom('price_history')
        .innerJoin('offers', 'offers.id', 'price_history.offer_id')
        .select([
          'offers.source_property_id as offer',
          'price_history.price_type',
          'price_history.record_type',
          'price_history.before_cents',
          'price_history.after_cents',
          'price_history.valid_from',
          'price_history.recorded_at',
          'price_history.component_id',
          'price_history.correction',
        ])
        .where('offers.source_property_id', 'in', ['H-1', 'H-2', 'H-3', 'H-4'])
        .where('run_id', '=', runId)
        .orderBy('price_history.id')
        .execute()
      // every record of a run carries the run's one moment
      expect(new Set(records.map((record) => record.recorded_at)).size).toBe(1)
      return records.map(({ recorded_at: _recordedAt, ...rest }) => rest)
    }
    const firstRun = await run(first, 'key-first-prices-1')
    const today = (
      await env.ctx.db
        .selectFrom('offers')
        .innerJoin('investments', 'investments.id', 'offers.investment_id')
        .select('price_total_from')
        .where('investments.source_id', '=', 'INV-H')
        .where('source_property_id', '=', 'H-2')
        .executeTakeFirstOrThrow()
    ).price_total_from
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    const record = (offer: string, type: string, after: number, validFrom: string) => ({
      offer,
      price_type: type,
      record_type: 'first',
      before_cents: null,
      after_cents: after,
      valid_from: validFrom,
      component_id: null,
      correction: 0,
    })
    expect(await historyOf(firstRun)).toEqual([
      record('H-1', 'total', 60_000_000, '2026-05-01'),
      record('H-1', 'm2', 1_200_000, '2026-05-02'),
      record('H-2', 'total', 61_000_000, today as string),
      record('H-3', 'total', 40_000_000, '2026-05-03'),
      record('H-3', 'm2', 1_000_000, '2026-05-03'),
      record('H-3', 'combined', 42_000_000, '2026-05-04'),
    ])

    // a change and a new offer in one run: the change is recorded first, as before
    const secondRun = await run(
      [
        'INV-H;H-1;H/1;mieszkanie;wolne;50,00;2;1;11 800,00;2026-06-01;590 000,00;2026-06-01;Poznań;;',
        'INV-H;H-4;H/4;mieszkanie;wolne;50,00;2;1;;;500 000,00;2026-06-01;Poznań;;',
      ],
      'key-first-prices-2',
    )
    expect(await historyOf(secondRun)).toEqual([
      { ...record('H-1', 'total', 59_000_000, '2026-06-01'), record_type: 'change', before_cents: 60_000_000 },
      { ...record('H-1', 'm2', 1_180_000, '2026-06-01'), record_type: 'change', before_cents: 1_200_000 },
      record('H-4', 'total', 50_000_000, '2026-06-01'),
    ])
  })

  it('previews without writing offers, then executes atomically with price history and one audit entry', async () => {
    const offersBefore = await count('offers')
    const preview = await previewFile(csv(BASE_ROWS))
    expect(preview.statusCode).toBe(200)
    const body = preview.json()
    expect(body.id).toMatch(/^[0-9a-f]{32}$/)
    expect(body.preview).toMatchObject({
      valid: true,
      mode: 'patch',
      errors: [],
      counts: { create: 3, update: 0, unchanged: 0, archive: 0 },
    })
    expect(body.preview.operations[0]).toMatchObject({
      action: 'create',
      key: 'INV-A/1',
      values: { price_total: '600000.00', prop_area: '50.00', property_status: 'available', proj_city: 'Poznań' },
    })
    expect(await count('offers')).toBe(offersBefore)

    const job = await env.app.inject({
      url: `/wp-json/dg/v2/imports/${body.id}`,
      headers: { authorization: admin.authorization },
    })
    expect(job.json()).toMatchObject({ id: body.id, status: 'previewed', mode: 'patch', total_items: 3, page: 1 })

    const auditBefore = await count('audit_log')
    const run = await execute(body.id, 'key-first-import-1')
    expect(run.statusCode).toBe(200)
    const result = run.json().result
    expect(result).toEqual({
      status: 'completed',
      processed: 3,
      created: 3,
      updated: 0,
      archived: 0,
      run_id: expect.any(Number),
    })
    expect(await count('offers')).toBe(offersBefore + 3)
    const history = await env.ctx.db
      .selectFrom('price_history')
      .selectAll()
      .where('run_id', '=', result.run_id)
      .execute()
    expect(history.filter((h) => h.price_type === 'total')).toHaveLength(3)
    expect(history.every((h) => h.record_type === 'first' && h.before_cents === null)).toBe(true)
    const offer = await env.ctx.db
      .selectFrom('offers')
      .selectAll()
      .where('source_property_id', '=', '2')
      .executeTakeFirstOrThrow()
    expect(offer).toMatchObject({
      host_status: 'publish',
      custom_meta: '{}',
      gallery: '[]',
      building: null,
      variant: null,
      thumbnail_id: null,
      status: 'reserved',
      area: '60.50',
      price_total_cents: 72_600_000,
      price_m2_cents: 1_200_000,
      rooms: 3,
      floor: 2,
    })
    // no type was sent, so none was guessed: the offer is stored unqualified
    const untyped = await env.ctx.db
      .selectFrom('offers')
      .selectAll()
      .where('source_property_id', '=', '3')
      .executeTakeFirstOrThrow()
    expect(untyped).toMatchObject({
      offer_kind: 'property',
      property_type: '',
      title: 'Oferta X1',
      floor: -1,
      area: null,
      price_total_cents: 4_500_000,
    })
    const executeAudits = await env.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'import.execute')
      .where('object_id', '=', body.id)
      .execute()
    expect(executeAudits).toHaveLength(1)
    expect(await count('audit_log')).toBe(auditBefore + 1)

    const completed = await env.app.inject({
      url: `/wp-json/dg/v2/imports/${body.id}`,
      headers: { authorization: admin.authorization },
    })
    expect(completed.json()).toMatchObject({ status: 'completed', result })

    // the same key again: the stored result, nothing written
    const historyBefore = await count('price_history')
    const again = await execute(body.id, 'key-first-import-1')
    expect(again.statusCode).toBe(200)
    expect(again.json()).toMatchObject({ result, replayed: true })
    expect(await count('price_history')).toBe(historyBefore)

    // the same key with another job
    const other = await previewFile(csv(BASE_ROWS))
    const conflict = await execute(other.json().id, 'key-first-import-1')
    expect(conflict.statusCode).toBe(409)
    expect(conflict.json().error).toBe('import_conflict')
  })

  it('plans updates with the changed fields and records price changes; a second identical import is all unchanged', async () => {
    const rows = [...BASE_ROWS]
    rows[0] = 'INV-A;1;A/1;mieszkanie;wolne;50,00;2;1;12 500,00;2026-06-01;625 000,00;2026-06-01;Poznań'
    const preview = (await previewFile(csv(rows))).json()
    expect(preview.preview.counts).toEqual({ create: 0, update: 1, unchanged: 2, archive: 0 })
    const update = preview.preview.operations.find((o: { action: string }) => o.action === 'update')
    expect(update.changes.sort()).toEqual(['price_m2', 'price_m2_from', 'price_total', 'price_total_from'])
    const run = await execute(preview.id, 'key-price-change-1')
    expect(run.json().result).toMatchObject({ processed: 3, created: 0, updated: 1 })
    const offer = await env.ctx.db
      .selectFrom('offers')
      .select('id')
      .where('source_property_id', '=', '1')
      .executeTakeFirstOrThrow()
    const change = await env.ctx.db
      .selectFrom('price_history')
      .selectAll()
      .where('offer_id', '=', offer.id)
      .where('price_type', '=', 'total')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(change).toMatchObject({
      record_type: 'change',
      before_cents: 60_000_000,
      after_cents: 62_500_000,
      valid_from: '2026-06-01',
      correction: 0,
    })

    const same = (await previewFile(csv(rows))).json()
    expect(same.preview.counts).toEqual({ create: 0, update: 0, unchanged: 3, archive: 0 })
  })

  it('names each previewed offer by its designation and its investment title beside the source ids', async () => {
    await env.ctx.db
      .updateTable('investments')
      .set({ title: 'Osiedle Lipowe' })
      .where('source_id', '=', 'INV-A')
      .execute()
    const mapping = {
      source_investment_id: 'Inwestycja',
      source_property_id: 'ID lokalu',
      prop_no: 'Numer',
      property_status: 'Status',
    }
    // the first row names no designation (the stored one is shown), the third is a new investment
    const file =
      'Inwestycja;ID lokalu;Numer;Status\n' +
      'INV-A;1;;rezerwacja\n' +
      'INV-A;2;A/2 bis;rezerwacja\n' +
      'INV-NEW;9;N/9;wolne\n'
    const response = await previewFile(file, { mapping })
    expect(response.statusCode, response.body).toBe(200)
    const body = response.json()
    const byKey = new Map(
      (
        body.preview.operations as Array<{ key: string; designation: string | null; investment_title: string | null }>
      ).map((op) => [op.key, op]),
    )
    expect(byKey.get('INV-A/1')).toMatchObject({ designation: 'A/1', investment_title: 'Osiedle Lipowe' })
    expect(byKey.get('INV-A/2')).toMatchObject({ designation: 'A/2 bis', investment_title: 'Osiedle Lipowe' })
    expect(byKey.get('INV-NEW/9')).toMatchObject({ designation: 'N/9', investment_title: 'INV-NEW' })
    const page = await env.app.inject({
      url: `/wp-json/dg/v2/imports/${body.id}`,
      headers: { authorization: admin.authorization },
    })
    expect(page.statusCode, page.body).toBe(200)
    expect(page.json().items.find((op: { key: string }) => op.key === 'INV-A/1')).toMatchObject({
      designation: 'A/1',
      investment_title: 'Osiedle Lipowe',
    })
  })

  it('reports every bad row, refuses to execute an invalid job, and writes nothing', async () => {
    const offersBefore = await count('offers')
    const response = await previewFile(
      csv([
        'INV-B;1;B1;zamek;wolne;abc;2;1;1.5e5;2026-02-30;100;2026-01-01;Poznań',
        'INV-B;;B2;mieszkanie;wolne;40;1;0;10000;;400000;;Poznań',
        'INV-B;3;B3;mieszkanie;wolne;40;1;0;10000;;400000;;Poznań',
        'INV-B;3;B3;mieszkanie;wolne;40;1;0;10000;;400000;;Poznań',
      ]),
    )
    expect(response.statusCode).toBe(422)
    const body = response.json()
    expect(body.error).toBe('import_invalid')
    expect(body.id).toMatch(/^[0-9a-f]{32}$/)
    expect(body.preview.valid).toBe(false)
    const codes = body.preview.errors.map(
      (e: { row: number; field: string; code: string }) => `${e.row}:${e.field}:${e.code}`,
    )
    expect(codes).toEqual(
      expect.arrayContaining([
        '2:prop_type:invalid_enum',
        '2:prop_area:invalid_decimal',
        '2:price_m2:invalid_decimal',
        '2:price_m2_from:invalid_date',
        '3:source_property_id:required',
        '5:source_property_id:duplicate_key',
      ]),
    )
    expect(body.preview.errors_total).toBe(body.preview.errors.length)
    const run = await execute(body.id, 'key-invalid-job-1')
    expect(run.statusCode).toBe(422)
    expect(run.json().error).toBe('import_invalid')
    expect(await count('offers')).toBe(offersBefore)
  })

  it('refuses a standalone part or a room as prop_type with a row error in Polish and English, writing nothing', async () => {
    const offersBefore = await count('offers')
    const response = await previewFile(
      csv([
        'INV-G;1;G1;garage;wolne;18,00;;-1;;;60 000;2026-05-01;Poznań',
        'INV-G;2;G2;Miejsce postojowe;wolne;12,50;;-1;;;40 000;2026-05-01;Poznań',
        'INV-G;3;G3; Mieszkanie ;wolne;40,00;1;0;10 000;2026-05-01;400 000;2026-05-01;Poznań',
        'INV-G;4;G4;bungalow;wolne;40,00;1;0;10 000;2026-05-01;400 000;2026-05-01;Poznań',
      ]),
    )
    expect(response.statusCode).toBe(422)
    const body = response.json()
    expect(body.error).toBe('import_invalid')
    const errors = body.preview.errors as Array<Record<string, string>>
    expect(errors.map((e) => [e.row, e.field, e.code].join(':'))).toEqual([
      '2:prop_type:prop_type_not_allowed',
      '3:prop_type:prop_type_not_allowed',
      '5:prop_type:invalid_enum',
    ])
    expect(errors[0]).toEqual({
      row: 2,
      field: 'prop_type',
      code: 'prop_type_not_allowed',
      message: errors[0]?.message_pl,
      message_pl:
        'Rodzaj oferty: dozwolone są tylko „mieszkanie” lub „dom”, a przesłano „garage”; miejsca postojowe, garaże ' +
        'i komórki lokatorskie (części samodzielne i pomieszczenia przynależne) dodaje się w edytorze oferty ' +
        '(panel administracyjny lub REST API)',
      message_en: expect.stringMatching(
        /^prop_type: only mieszkanie or dom .* offer editor \(admin panel or REST API\)$/,
      ),
    })
    expect(errors[2]?.message).toMatch(/^Rodzaj oferty: „bungalow” nie jest znanym rodzajem; .*edytorze oferty/)
    // the job keeps the errors as answered, and cannot be executed
    const job = await env.app.inject({
      url: `/wp-json/dg/v2/imports/${body.id}`,
      headers: { authorization: admin.authorization },
    })
    expect(job.json()).toMatchObject({ status: 'invalid', errors })
    expect((await execute(body.id, 'key-garage-row')).json().error).toBe('import_invalid')
    expect(await count('offers')).toBe(offersBefore)
    expect(await env.ctx.db.selectFrom('investments').select('id').where('source_id', '=', 'INV-G').execute()).toEqual(
      [],
    )
  })

  it('updates the prices and status of a standalone part an earlier release created, keeping its type', async () => {
    // as an earlier release stored a parking space taken from a file
    await execute(
      (
        await previewFile(csv(['INV-S;S-1;S1;mieszkanie;wolne;40,00;1;0;10 000;2026-05-01;400 000;2026-05-01;Opole']))
      ).json().id,
      'key-standalone-setup',
    )
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select('id')
      .where('source_id', '=', 'INV-S')
      .executeTakeFirstOrThrow()
    const now = env.clock.now().toISOString()
    await env.ctx.db
      .insertInto('offers')
      .values({
        investment_id: investment.id,
        source_property_id: 'MP-7',
        offer_kind: 'standalone_part',
        property_type: 'parking_space',
        code: 'MP-7',
        title: 'Miejsce postojowe MP-7',
        status: 'available',
        host_status: 'publish',
        floor: -1,
        price_total_cents: 4_000_000,
        price_total_from: '2026-05-01',
        custom_meta: '{}',
        gallery: '[]',
        created_at: now,
        modified_at: now,
      })
      .execute()
    const preview = await previewFile(csv(['INV-S;MP-7;MP-7;;sprzedane;;;-1;;;42 000;2026-06-01;Opole']))
    expect(preview.statusCode).toBe(200)
    const update = preview.json().preview.operations[0]
    expect(update).toMatchObject({ action: 'update', key: 'INV-S/MP-7' })
    expect(update.changes).toEqual(['price_total', 'price_total_from', 'property_status'])
    const run = await execute(preview.json().id, 'key-standalone-update')
    expect(run.json().result).toMatchObject({ processed: 1, updated: 1, created: 0 })
    const offer = await env.ctx.db
      .selectFrom('offers')
      .selectAll()
      .where('source_property_id', '=', 'MP-7')
      .executeTakeFirstOrThrow()
    expect(offer).toMatchObject({
      offer_kind: 'standalone_part',
      property_type: 'parking_space',
      title: 'Miejsce postojowe MP-7',
      status: 'sold',
      price_total_cents: 4_200_000,
      price_total_from: '2026-06-01',
    })
  })

  it('qualifies an offer created without a type when a later file sends it, recording the change', async () => {
    const untyped = 'INV-Q;Q-1;Q1;;wolne;40,00;1;0;10 000;2026-05-01;400 000;2026-05-01;Opole'
    await execute((await previewFile(csv([untyped]))).json().id, 'key-qualify-setup')
    // the same row again changes nothing: no type is sent, none is stored
    const same = (await previewFile(csv([untyped]))).json()
    expect(same.preview.counts).toEqual({ create: 0, update: 0, unchanged: 1, archive: 0 })

    const preview = (await previewFile(csv([untyped.replace(';Q1;;', ';Q1;mieszkanie;')]))).json()
    expect(preview.preview.operations[0]).toMatchObject({
      action: 'update',
      changes: ['prop_type'],
      before: { prop_type: '' },
      values: { prop_type: 'mieszkanie' },
    })
    const run = await execute(preview.id, 'key-qualify-run')
    expect(run.json().result).toMatchObject({ updated: 1 })
    const offer = await env.ctx.db.selectFrom('offers').selectAll().where('code', '=', 'Q1').executeTakeFirstOrThrow()
    expect(offer).toMatchObject({ offer_kind: 'property', property_type: 'mieszkanie', title: 'Mieszkanie Q1' })
    const audit = await env.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('id', '=', run.json().result.run_id)
      .executeTakeFirstOrThrow()
    expect(audit).toMatchObject({ action: 'import.execute', object_id: preview.id })
    expect(JSON.parse(audit.details as string)).toMatchObject({ updated: 1, created: 0 })
  })

  it('still reads the errors of a job previewed before they had Polish and English texts', async () => {
    const job = (await previewFile(csv(['INV-O;O-1;O1;zamek;wolne;;;;;;;;Opole']))).json()
    const legacy = [
      { row: 2, field: 'prop_type', code: 'invalid_enum', message: 'prop_type: "zamek" is not a known property type' },
    ]
    await env.ctx.db
      .updateTable('import_jobs')
      .set({ errors: JSON.stringify(legacy) })
      .where('id', '=', job.id)
      .execute()
    const read = await env.app.inject({
      url: `/wp-json/dg/v2/imports/${job.id}`,
      headers: { authorization: admin.authorization },
    })
    expect(read.statusCode).toBe(200)
    expect(read.json()).toMatchObject({ status: 'invalid', errors: legacy })
  })

  it('refuses to execute a plan an earlier release previewed with a standalone part, writing nothing', async () => {
    const preview = (await previewFile(csv(['INV-L;L-1;L1;dom;wolne;;;0;;;45 000;2026-05-01;Opole']))).json()
    // the plan as the earlier release stored it: a garage taken from the file, other planner rules
    const stored = await env.ctx.db
      .selectFrom('import_job_items')
      .select(['seq', 'payload'])
      .where('job_id', '=', preview.id)
      .executeTakeFirstOrThrow()
    const ops = JSON.parse(stored.payload) as unknown[][]
    const values = ops[0]?.[2] as unknown[]
    values[3] = 'standalone_part'
    values[4] = 'garage'
    await env.ctx.db
      .updateTable('import_job_items')
      .set({ payload: JSON.stringify(ops) })
      .where('job_id', '=', preview.id)
      .execute()
    await env.ctx.db
      .updateTable('import_jobs')
      .set({ plan_version: '2026-11-24.2' })
      .where('id', '=', preview.id)
      .execute()
    const offersBefore = await count('offers')
    const run = await execute(preview.id, 'key-legacy-garage')
    expect(run.statusCode).toBe(409)
    expect(run.json().error).toBe('import_conflict')
    expect(await count('offers')).toBe(offersBefore)
  })

  it('refuses a file without the mapped columns, an empty file and a broken spreadsheet with a 4xx', async () => {
    const missing = await previewFile('Inwestycja;ID lokalu\nX;1\n', { mapping: { ...MAPPING } })
    expect(missing.statusCode).toBe(422)
    expect(missing.json().preview.errors.map((e: { code: string }) => e.code)).toContain('missing_column')
    const empty = await previewFile('')
    expect(empty.statusCode).toBe(422)
    expect(empty.json().preview.errors[0]).toMatchObject({
      row: 0,
      field: 'file',
      code: 'file_empty',
      message: 'Plik jest pusty: nie ma w nim wiersza nagłówka ani danych.',
      message_en: 'The file "oferty.csv" is empty (0 bytes).',
    })
    const headerOnly = await previewFile(`${HEADER}\n`)
    expect(headerOnly.json().preview.errors).toEqual([
      {
        row: 1,
        field: 'file',
        code: 'file_empty',
        message: 'Plik ma wiersz nagłówka, ale ani jednego wiersza z danymi.',
        message_pl: 'Plik ma wiersz nagłówka, ale ani jednego wiersza z danymi.',
        message_en: 'The file has a header row but no data rows.',
      },
    ])
    const broken = await previewFile(Buffer.from('PK\u0003\u0004garbage'), { name: 'oferty.xlsx' })
    expect(broken.statusCode).toBe(422)
    expect(broken.json().preview.errors[0]).toMatchObject({
      code: 'xlsx_corrupt',
      message: expect.stringMatching(/^Plik XLSX jest uszkodzony\./),
      message_en: expect.stringMatching(/^The XLSX file is damaged/),
    })
    const badMapping = await previewFile(csv(BASE_ROWS), { mapping: { prop_no: 'Numer' } })
    expect(badMapping.statusCode).toBe(400)
    expect(badMapping.json().error).toBe('invalid_mapping')
  })

  it('refuses a file named .xlsx that is not a workbook with 422 unsupported_format, writing nothing', async () => {
    const offersBefore = await count('offers')
    const renamed = await previewFile(csv(BASE_ROWS), { name: 'oferty.xlsx' })
    expect(renamed.statusCode).toBe(422)
    expect(renamed.json().error).toBe('import_invalid')
    expect(renamed.json().preview.errors).toEqual([
      expect.objectContaining({
        row: 0,
        field: 'file',
        code: 'unsupported_format',
        message: expect.stringMatching(/^Plik nie jest skoroszytem Excela/),
        message_en: expect.stringContaining('is not an Excel workbook'),
      }),
    ])
    // the same text named .csv is read as the CSV it is
    expect((await previewFile(csv(BASE_ROWS), { name: 'oferty.csv' })).statusCode).toBe(200)
    expect(await count('offers')).toBe(offersBefore)
  })

  it('imports a Windows-1250 CSV with Polish letters', async () => {
    const content = iconv.encode(`${HEADER}\r\nINV-Ł;1;Ł/1;mieszkanie;sprzedane;33,30;1;0;;;;;Łódź\r\n`, 'win1250')
    const preview = await previewFile(content)
    expect(preview.statusCode).toBe(200)
    expect(preview.json().preview.operations[0].values).toMatchObject({
      source_investment_id: 'INV-Ł',
      prop_no: 'Ł/1',
      property_status: 'sold',
      proj_city: 'Łódź',
    })
  })

  it('archives offers missing from a snapshot only with confirm_archiving, recording withdrawals', async () => {
    const preview = (
      await previewFile(csv([BASE_ROWS[1] as string, BASE_ROWS[2] as string]), { mode: 'snapshot' })
    ).json()
    expect(preview.preview.counts.archive).toBe(1)
    expect(preview.preview.archive_scope).toEqual({
      investments: [{ source_investment_id: 'INV-A', archived: 1 }],
      total: 1,
    })
    const refused = await execute(preview.id, 'key-snapshot-1')
    expect(refused.statusCode).toBe(422)
    expect(refused.json()).toMatchObject({ error: 'archiving_confirmation_required', archive_scope: { total: 1 } })
    const run = await execute(preview.id, 'key-snapshot-1', true)
    expect(run.statusCode).toBe(200)
    expect(run.json().result).toMatchObject({ archived: 1 })
    const archived = await env.ctx.db
      .selectFrom('offers')
      .selectAll()
      .where('source_property_id', '=', '1')
      .executeTakeFirstOrThrow()
    expect(archived).toMatchObject({ status: 'archived', host_status: 'private' })
    const withdrawal = await env.ctx.db
      .selectFrom('price_history')
      .selectAll()
      .where('offer_id', '=', archived.id)
      .where('record_type', '=', 'withdrawal')
      .execute()
    expect(withdrawal.map((w) => w.price_type).sort()).toEqual(['m2', 'total'])
    expect(withdrawal.every((w) => w.after_cents === null && w.before_cents !== null)).toBe(true)
  })

  it('refuses with 409 import_conflict when the catalog changed since the preview', async () => {
    const rows = ['INV-C;1;C1;mieszkanie;wolne;40,00;1;0;10 000;2026-05-01;400 000;2026-05-01;Kraków']
    await execute((await previewFile(csv(rows))).json().id, 'key-conflict-setup')
    const changed = ['INV-C;1;C1;mieszkanie;wolne;40,00;1;0;11 000;2026-07-01;440 000;2026-07-01;Kraków']
    const preview = (await previewFile(csv(changed))).json()
    await env.ctx.db
      .updateTable('offers')
      .set({ price_total_cents: 1 })
      .where('source_property_id', '=', '1')
      .where('code', '=', 'C1')
      .execute()
    const run = await execute(preview.id, 'key-conflict-run')
    expect(run.statusCode).toBe(409)
    expect(run.json().error).toBe('import_conflict')
    const offer = await env.ctx.db.selectFrom('offers').selectAll().where('code', '=', 'C1').executeTakeFirstOrThrow()
    expect(offer.price_total_cents).toBe(1)
  })

  it('executes a preview after a catalog change that does not touch its plan (the plan is checked again)', async () => {
    await execute(
      (
        await previewFile(csv(['INV-U;1;U1;mieszkanie;wolne;40,00;1;0;10 000;2026-05-01;400 000;2026-05-01;Kraków']))
      ).json().id,
      'key-unrelated-setup',
    )
    const rows = [
      'INV-V;1;V1;mieszkanie;wolne;40,00;1;0;10 000;2026-05-01;400 000;2026-05-01;Kraków',
      'INV-V;2;V2;mieszkanie;wolne;50,00;2;1;10 000;2026-05-01;500 000;2026-05-01;Kraków',
    ]
    const preview = (await previewFile(csv(rows))).json()
    // another investment's offer changes between preview and execution: the catalog revision moves
    await env.ctx.db.updateTable('offers').set({ rooms: 4 }).where('code', '=', 'U1').execute()
    const run = await execute(preview.id, 'key-unrelated-run')
    expect(run.statusCode).toBe(200)
    expect(run.json().result).toMatchObject({ status: 'completed', processed: 2, created: 2, updated: 0 })
    const created = await env.ctx.db
      .selectFrom('offers')
      .select(['code', 'price_total_cents'])
      .where('code', 'in', ['V1', 'V2'])
      .orderBy('code')
      .execute()
    expect(created).toEqual([
      { code: 'V1', price_total_cents: 40_000_000 },
      { code: 'V2', price_total_cents: 50_000_000 },
    ])
    const job = (
      await env.app.inject({
        method: 'GET',
        url: `/wp-json/dg/v2/imports/${preview.id}`,
        headers: { authorization: admin.authorization },
      })
    ).json()
    expect(job.items.map((item: { key: string; action: string }) => `${item.key} ${item.action}`)).toEqual([
      'INV-V/1 create',
      'INV-V/2 create',
    ])
  })

  it('answers 409 import_pending for a job whose preview is still being made, and runs it once it is done', async () => {
    const preview = (
      await previewFile(csv(['INV-P;1;P1;mieszkanie;wolne;40,00;1;0;10 000;2026-05-01;400 000;2026-05-01;Opole']))
    ).json()
    await env.ctx.db.updateTable('import_jobs').set({ status: 'previewing' }).where('id', '=', preview.id).execute()
    const early = await execute(preview.id, 'key-previewing')
    expect(early.statusCode).toBe(409)
    expect(early.json().error).toBe('import_pending')
    expect(early.headers['retry-after']).toBe('5')
    expect(await env.ctx.db.selectFrom('offers').select('id').where('code', '=', 'P1').execute()).toHaveLength(0)
    await env.ctx.db.updateTable('import_jobs').set({ status: 'previewed' }).where('id', '=', preview.id).execute()
    const run = await execute(preview.id, 'key-previewing')
    expect(run.statusCode).toBe(200)
    expect(run.json().result).toMatchObject({ created: 1 })
  })

  it('pages and executes a job previewed before the upgrade (plan format 1)', async () => {
    const rows = Array.from(
      { length: 130 },
      (_, i) => `INV-W;${i};W${i};mieszkanie;wolne;40,00;1;0;10 000;2026-05-01;400 000;2026-05-01;Gdańsk`,
    )
    const preview = (await previewFile(csv(rows))).json()
    // rewrite the stored plan as the previous release kept it: chunks of 100 objects
    const stored = await env.ctx.db
      .selectFrom('import_job_items')
      .select('payload')
      .where('job_id', '=', preview.id)
      .orderBy('seq')
      .execute()
    const ops = stored.flatMap((chunk) => decodeChunk(chunk.payload, PLAN_FORMAT))
    const v1 = ops.map((op) => ({
      r: op.row,
      k: op.key,
      a: op.action,
      v: op.values,
      c: op.changes,
      b: op.before,
      o: op.offerId,
      i: op.investmentId,
      s: op.sourceInvestmentId,
      p: op.sourcePropertyId,
    }))
    await env.ctx.db.deleteFrom('import_job_items').where('job_id', '=', preview.id).execute()
    for (let seq = 0; seq * 100 < v1.length; seq++) {
      await env.ctx.db
        .insertInto('import_job_items')
        .values({
          job_id: preview.id,
          seq,
          row: null,
          action: 'chunk',
          offer_key: '',
          payload: JSON.stringify(v1.slice(seq * 100, seq * 100 + 100)),
        })
        .execute()
    }
    await env.ctx.db
      .updateTable('import_jobs')
      .set({ plan_format: 1, plan_revision: null })
      .where('id', '=', preview.id)
      .execute()
    const page = (
      await env.app.inject({
        method: 'GET',
        url: `/wp-json/dg/v2/imports/${preview.id}?page=2&per_page=60`,
        headers: { authorization: admin.authorization },
      })
    ).json()
    expect(page.items.map((item: { key: string }) => item.key)).toEqual(
      Array.from({ length: 60 }, (_, i) => `INV-W/${60 + i}`),
    )
    const run = await execute(preview.id, 'key-format-one')
    expect(run.statusCode).toBe(200)
    expect(run.json().result).toMatchObject({ processed: 130, created: 130 })
    const created = await env.ctx.db.selectFrom('offers').select('id').where('code', 'like', 'W%').execute()
    expect(created).toHaveLength(130)
  })

  it('runs one of two concurrent executions of a job and answers the other 409', async () => {
    const rows = Array.from(
      { length: 300 },
      (_, i) => `INV-D;${i};D${i};mieszkanie;wolne;40,00;1;0;10 000;2026-05-01;400 000;2026-05-01;Gdańsk`,
    )
    const preview = (await previewFile(csv(rows))).json()
    const [a, b] = await Promise.all([execute(preview.id, 'key-concurrent-a'), execute(preview.id, 'key-concurrent-b')])
    const statuses = [a.statusCode, b.statusCode].sort()
    expect(statuses).toEqual([200, 409])
    const refused = a.statusCode === 409 ? a : b
    expect(['import_pending', 'import_conflict']).toContain(refused.json().error)
    if (refused.json().error === 'import_pending') expect(refused.headers['retry-after']).toBe('5')
    const created = await env.ctx.db.selectFrom('offers').select('id').where('code', 'like', 'D%').execute()
    expect(created).toHaveLength(300)
  })

  it('checks capability, entitlement, job id and Idempotency-Key', async () => {
    const reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    const body = multipart(
      { mode: 'patch', mapping: JSON.stringify(MAPPING) },
      { name: 'o.csv', content: csv(BASE_ROWS) },
    )
    const asReader = await env.app.inject({
      method: 'POST',
      url: URL_IMPORT,
      payload: body.payload,
      headers: { ...body.headers, authorization: reader.authorization },
    })
    expect(asReader.statusCode).toBe(403)
    await setLicense(env.ctx, { plan: 'pro', entitlements: ['api_webhooks'], actor: { type: 'system' } })
    const noEntitlement = await previewFile(csv(BASE_ROWS))
    expect(noEntitlement.statusCode).toBe(403)
    expect(noEntitlement.json()).toEqual({ error: 'pro_feature_required', feature: 'bulk_import' })
    await grantProLicense(env.ctx)
    expect(
      (
        await env.app.inject({
          url: `/wp-json/dg/v2/imports/${'0'.repeat(32)}`,
          headers: { authorization: admin.authorization },
        })
      ).json().error,
    ).toBe('import_not_found')
    expect(
      (await env.app.inject({ url: '/wp-json/dg/v2/imports/nothex', headers: { authorization: admin.authorization } }))
        .statusCode,
    ).toBe(400)
    const job = (await previewFile(csv(BASE_ROWS))).json()
    const noKey = await env.app.inject({
      method: 'POST',
      url: URL_IMPORT,
      payload: `job_id=${job.id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: admin.authorization },
    })
    expect(noKey.statusCode).toBe(400)
    expect(noKey.json().error).toBe('invalid_idempotency_key')
    expect((await execute('f'.repeat(32), 'key-unknown-job')).json().error).toBe('import_not_found')
  })

  it('pages the operations of a job and removes previews after 24 hours', async () => {
    const rows = Array.from(
      { length: 250 },
      (_, i) => `INV-E;${i};E${i};mieszkanie;wolne;40,00;1;0;10 000;2026-05-01;400 000;2026-05-01;Gdańsk`,
    )
    const preview = (await previewFile(csv(rows))).json()
    expect(preview.preview.operations_total).toBe(250)
    const page = await env.app.inject({
      url: `/wp-json/dg/v2/imports/${preview.id}?page=2&per_page=200`,
      headers: { authorization: admin.authorization },
    })
    expect(page.json()).toMatchObject({ page: 2, per_page: 200, total_items: 250 })
    expect(page.json().items).toHaveLength(50)
    expect(page.json().items[0].key).toBe('INV-E/200')
    expect(
      (
        await env.app.inject({
          url: `/wp-json/dg/v2/imports/${preview.id}?per_page=201`,
          headers: { authorization: admin.authorization },
        })
      ).statusCode,
    ).toBe(400)
    env.clock.advance(25 * 3600 * 1000)
    expect(await removeExpiredImportJobs(env.ctx)).toBeGreaterThan(0)
    const gone = await env.app.inject({
      url: `/wp-json/dg/v2/imports/${preview.id}`,
      headers: { authorization: admin.authorization },
    })
    expect(gone.statusCode).toBe(404)
  })
})
