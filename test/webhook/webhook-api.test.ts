import { sql } from 'kysely'
import { beforeAll, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { openDatabase } from '../../src/host/db/database.js'
import { setLicense } from '../../src/licensing/license.js'
import { sign } from '../../src/webhook/verify-signature.js'
import { rotateWebhookSecret } from '../../src/webhook/webhook-secret.js'
import { grantProLicense } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { deliver, deliveryHeaders, WEBHOOK_URL } from '../helpers/webhook.js'

const NEW_OFFER = {
  source_investment_id: 'WH-1',
  source_property_id: 'P1',
  prop_type: 'mieszkanie',
  prop_area: '50.00',
  price_m2: '10000.00',
  price_total: '500000.00',
  price_total_from: '2026-05-01',
  price_m2_from: '2026-05-01',
}

describeEachDatabase('signed property webhook', (getEnv, dialect) => {
  let env: TestEnv
  let secret: string
  const now = () => Math.floor(env.clock.now().getTime() / 1000)
  const send = (
    body: unknown,
    key: string,
    extra: { timestamp?: number; nonce?: string; headers?: Record<string, string>; secret?: string } = {},
  ) =>
    deliver(env.app, {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      key,
      secret: extra.secret ?? secret,
      timestamp: extra.timestamp ?? now(),
      ...(extra.nonce ? { nonce: extra.nonce } : {}),
      ...(extra.headers ? { headers: extra.headers } : {}),
    })
  const history = async (source: string) =>
    env.ctx.db
      .selectFrom('price_history')
      .innerJoin('offers', 'offers.id', 'price_history.offer_id')
      .select(['price_history.price_type', 'price_history.after_cents', 'price_history.record_type'])
      .where('offers.source_property_id', '=', source)
      .orderBy('price_history.id')
      .execute()

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    secret = (await rotateWebhookSecret(env.ctx, { type: 'cli' })).secret
  })

  it('executes a new event once (202) and answers a repeat with the stored result (200, replayed)', async () => {
    const first = await send(NEW_OFFER, 'evt-new-offer-1')
    expect(first.statusCode).toBe(202)
    expect(first.json()).toEqual({
      accepted: true,
      result: { status: 'completed', processed: 1, created: 1, updated: 0, archived: 0, run_id: expect.any(Number) },
    })
    const again = await send(NEW_OFFER, 'evt-new-offer-1')
    expect(again.statusCode).toBe(200)
    expect(again.json()).toEqual({ ...first.json(), replayed: true })
    expect(await history('P1')).toHaveLength(2)
    const conflict = await send({ ...NEW_OFFER, price_total_from: '2026-05-02' }, 'evt-new-offer-1')
    expect(conflict.statusCode).toBe(409)
    expect(conflict.json().error).toBe('idempotency_body_conflict')
  })

  it('changes only the fields sent, records the price change and never clears with an empty value', async () => {
    const response = await send(
      {
        source_investment_id: 'WH-1',
        source_property_id: 'P1',
        price_total: '520000.00',
        price_m2: '10400.00',
        price_total_from: '2026-06-01',
        price_m2_from: '2026-06-01',
        prop_area: '',
        property_status: null,
      },
      'evt-price-change-1',
    )
    expect(response.statusCode).toBe(202)
    expect(response.json().result).toMatchObject({ updated: 1, created: 0 })
    const offer = await env.ctx.db
      .selectFrom('offers')
      .selectAll()
      .where('source_property_id', '=', 'P1')
      .executeTakeFirstOrThrow()
    expect(offer).toMatchObject({
      area: '50.00',
      status: 'available',
      property_type: 'mieszkanie',
      price_total_cents: 52_000_000,
    })
    const records = await history('P1')
    expect(records.at(-2)).toMatchObject({ price_type: 'total', after_cents: 52_000_000, record_type: 'change' })
  })

  it('refuses malformed or missing headers with 401 invalid_auth, in the contract order', async () => {
    const base = deliveryHeaders({ body: JSON.stringify(NEW_OFFER), key: 'evt-headers-1', secret, timestamp: now() })
    const variants: Array<Record<string, string | undefined>> = [
      { 'x-dg-timestamp': undefined },
      { 'x-dg-timestamp': '123456789' },
      { 'x-dg-timestamp': '12345678901' },
      { 'x-dg-nonce': 'short' },
      { 'x-dg-nonce': 'has spaces in the nonce!' },
      { 'idempotency-key': 'seven77' },
      { 'idempotency-key': 'k'.repeat(129) },
      { 'x-dg-signature': 'z'.repeat(64) },
      { 'x-dg-signature': 'a'.repeat(63) },
      { 'content-type': 'text/plain' },
    ]
    for (const variant of variants) {
      const headers: Record<string, string> = { ...base }
      for (const [name, value] of Object.entries(variant)) {
        if (value === undefined) delete headers[name]
        else headers[name] = value
      }
      const response = await env.app.inject({
        method: 'POST',
        url: WEBHOOK_URL,
        payload: JSON.stringify(NEW_OFFER),
        headers,
      })
      expect(response.statusCode, JSON.stringify(variant)).toBe(401)
      expect(response.json().error, JSON.stringify(variant)).toBe('invalid_auth')
    }
  })

  it('refuses a skewed clock, a wrong signature, a reused nonce and a re-split signing string', async () => {
    expect((await send(NEW_OFFER, 'evt-skew-1', { timestamp: now() - 301 })).json().error).toBe('expired_timestamp')
    expect((await send(NEW_OFFER, 'evt-skew-1', { timestamp: now() + 301 })).json().error).toBe('expired_timestamp')
    expect((await send(NEW_OFFER, 'evt-skew-1', { timestamp: now() - 300 })).statusCode).toBe(202)
    expect((await send(NEW_OFFER, 'evt-skew-2', { secret: 'not-the-secret' })).json().error).toBe('invalid_signature')

    const nonce = 'nonce-reused-0001'
    expect((await send(NEW_OFFER, 'evt-new-offer-1', { nonce })).statusCode).toBe(200)
    const reused = await send(NEW_OFFER, 'evt-new-offer-1', { nonce })
    expect(reused.statusCode).toBe(401)
    expect(reused.json().error).toBe('replay')

    // nonce "…AAAA.part2" + key "evt-…" signs exactly like nonce "…AAAA" + key "part2.evt-…"
    const body = JSON.stringify(NEW_OFFER)
    const timestamp = String(now())
    const original = { 'x-dg-nonce': 'nonceAAAAAAAAAAAA.part2', 'idempotency-key': 'evt-new-offer-1' }
    const signature = sign(
      secret,
      { timestamp, nonce: original['x-dg-nonce'], idempotencyKey: original['idempotency-key'] },
      Buffer.from(body),
    )
    const headers = { 'content-type': 'application/json', 'x-dg-timestamp': timestamp, 'x-dg-signature': signature }
    expect(
      (await env.app.inject({ method: 'POST', url: WEBHOOK_URL, payload: body, headers: { ...headers, ...original } }))
        .statusCode,
    ).toBe(200)
    const resplit = { 'x-dg-nonce': 'nonceAAAAAAAAAAAA', 'idempotency-key': 'part2.evt-new-offer-1' }
    const replayed = await env.app.inject({
      method: 'POST',
      url: WEBHOOK_URL,
      payload: body,
      headers: { ...headers, ...resplit },
    })
    expect(replayed.statusCode).toBe(401)
    expect(replayed.json().error).toBe('replay')
  })

  it('checks the entitlement after the signature', async () => {
    await setLicense(env.ctx, { plan: 'pro', entitlements: ['bulk_import'], actor: { type: 'system' } })
    const refused = await send(NEW_OFFER, 'evt-licence-1')
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toEqual({ error: 'pro_feature_required', feature: 'api_webhooks' })
    await grantProLicense(env.ctx)
  })

  it('refuses a body naming a key twice with 400 invalid_json before anything else, writing nothing', async () => {
    const offersBefore = (await env.ctx.db.selectFrom('offers').select('id').execute()).length
    const json = JSON.stringify({ ...NEW_OFFER, source_property_id: 'DUP1' })
    // two readings of one signed body: the first price for one parser, the second for another
    const twice = `${json.slice(0, -1)},"price_total":"1.00"}`
    const signed = await send(twice, 'evt-dup-1')
    expect(signed.statusCode).toBe(400)
    expect(signed.json()).toMatchObject({ error: 'invalid_json' })
    expect(signed.json().message).toContain('price_total')
    // before the signature, the clock and the headers are looked at; an escaped spelling is the same key
    const unsigned = await env.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/webhooks/properties',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":{"b":1,"\\u0062":2}}',
    })
    expect(unsigned.statusCode).toBe(400)
    expect(unsigned.json().error).toBe('invalid_json')
    // the same key in two objects, or in an array's objects, is no duplicate
    const nested = await send({ ...NEW_OFFER, source_property_id: 'DUP2', x: [{ a: 1 }, { a: 2 }] }, 'evt-dup-2')
    expect(nested.json().error).toBe('unsupported_property_structure')
    expect((await env.ctx.db.selectFrom('offers').select('id').execute()).length).toBe(offersBefore)
  })

  it('refuses bad bodies with the documented codes and writes nothing', async () => {
    const offersBefore = (await env.ctx.db.selectFrom('offers').select('id').execute()).length
    expect((await send('{"source_investment_id": ', 'evt-body-1')).json().error).toBe('invalid_json')
    expect((await send('[1,2]', 'evt-body-2')).json().error).toBe('invalid_json')
    const nested = await send({ ...NEW_OFFER, source_property_id: 'N1', components: [{ a: 1 }] }, 'evt-body-3')
    expect(nested.statusCode).toBe(422)
    expect(nested.json()).toMatchObject({ error: 'unsupported_property_structure', fields: ['components'] })
    const noKey = await send({ price_total: '1.00' }, 'evt-body-4')
    expect(noKey.statusCode).toBe(400)
    expect(noKey.json().error).toBe('invalid_payload')
    const invalid = await send(
      { ...NEW_OFFER, source_property_id: 'N2', price_total: 500000.5, prop_floor: 'x' },
      'evt-body-5',
    )
    expect(invalid.statusCode).toBe(422)
    expect(invalid.json().error).toBe('validation_failed')
    expect(
      invalid
        .json()
        .issues.map((i: { field: string }) => i.field)
        .sort(),
    ).toEqual(['price_total', 'prop_floor'])
    // Polish by default, English beside it
    expect(invalid.json().issues).toContainEqual({
      field: 'prop_floor',
      code: 'invalid_integer',
      message: 'Piętro: „x” nie jest liczbą całkowitą',
      message_pl: 'Piętro: „x” nie jest liczbą całkowitą',
      message_en: 'prop_floor: "x" is not a whole number',
    })
    // P1 is stored with 50.00 m² at 10 000.00 zł/m² (NEW_OFFER, sent again above): a total of 100.00 contradicts them
    const rejected = await send(
      { source_investment_id: 'WH-1', source_property_id: 'P1', price_total: '100.00' },
      'evt-body-6',
    )
    expect(rejected.statusCode).toBe(422)
    expect(rejected.json()).toEqual({
      error: 'webhook_import_failed',
      issues: [
        {
          field: 'price_total',
          code: 'inconsistent_price',
          message: expect.stringMatching(/^Cena całkowita: 100,00 zł nie zgadza się z ceną za m² × powierzchnią/),
          message_pl: expect.stringMatching(/^Cena całkowita: 100,00 zł nie zgadza się z ceną za m² × powierzchnią/),
          message_en: 'price_total: 100.00 does not match price_m2 × area with the stored values (10000.00 × 50.00)',
        },
      ],
    })
    expect((await env.ctx.db.selectFrom('offers').select('id').execute()).length).toBe(offersBefore)
    // a refused event does not keep its key: the corrected event may use it
    expect(
      (
        await send(
          { source_investment_id: 'WH-1', source_property_id: 'N3', prop_type: 'dom', price_total: '100.00' },
          'evt-body-6',
        )
      ).statusCode,
    ).toBe(202)
  })

  it('creates a new offer sent without prop_type without a type (202), and qualifies it when an event sends one', async () => {
    const untyped = { source_investment_id: 'WH-Q', source_property_id: 'Q1', prop_no: 'Q/1', price_total: '300000.00' }
    const created = await send(untyped, 'evt-untyped-1')
    expect(created.statusCode).toBe(202)
    expect(created.json().result).toMatchObject({ created: 1, updated: 0 })
    const offer = () =>
      env.ctx.db.selectFrom('offers').selectAll().where('source_property_id', '=', 'Q1').executeTakeFirstOrThrow()
    // legal qualification is never guessed
    expect(await offer()).toMatchObject({
      offer_kind: 'property',
      property_type: '',
      title: 'Oferta Q/1',
      price_total_cents: 30_000_000,
    })
    // another event without a type leaves it unqualified, and changes what it sends
    const price = await send({ ...untyped, price_total: '310000.00' }, 'evt-untyped-2')
    expect(price.json().result).toMatchObject({ updated: 1 })
    expect(await offer()).toMatchObject({ property_type: '', price_total_cents: 31_000_000 })

    const qualified = await send(
      { source_investment_id: 'WH-Q', source_property_id: 'Q1', prop_type: ' Dom ' },
      'evt-untyped-3',
    )
    expect(qualified.statusCode).toBe(202)
    expect(qualified.json().result).toMatchObject({ created: 0, updated: 1 })
    expect(await offer()).toMatchObject({ offer_kind: 'property', property_type: 'dom', title: 'Dom Q/1' })
    const audit = await env.ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('id', '=', qualified.json().result.run_id)
      .executeTakeFirstOrThrow()
    expect(audit).toMatchObject({ action: 'webhook.execute', object_id: 'evt-untyped-3' })
    expect(JSON.parse(audit.details as string)).toMatchObject({ updated: 1, created: 0 })
  })

  it('refuses a standalone part or a room as prop_type with 422 validation_failed, writing nothing', async () => {
    const offersBefore = (await env.ctx.db.selectFrom('offers').select('id').execute()).length
    const parking = await send(
      {
        source_investment_id: 'WH-P',
        source_property_id: 'MP-1',
        prop_type: 'Miejsce postojowe',
        price_total: '40000.00',
      },
      'evt-parking-1',
    )
    expect(parking.statusCode).toBe(422)
    const body = parking.json()
    expect(body.error).toBe('validation_failed')
    expect(body.issues).toHaveLength(1)
    expect(body.issues[0]).toEqual({
      field: 'prop_type',
      code: 'prop_type_not_allowed',
      message: body.issues[0].message_pl,
      message_pl:
        'Rodzaj oferty: dozwolone są tylko „mieszkanie” lub „dom”, a przesłano „Miejsce postojowe”; miejsca ' +
        'postojowe, garaże i komórki lokatorskie (części samodzielne i pomieszczenia przynależne) dodaje się w ' +
        'edytorze oferty (panel administracyjny lub REST API)',
      message_en:
        'prop_type: only mieszkanie or dom (a flat or a house) can be sent here, not "Miejsce postojowe"; ' +
        'standalone parts (parking spaces, garages, storage rooms) and appurtenant rooms are entered in the offer ' +
        'editor (admin panel or REST API)',
    })
    for (const [word, code] of [
      ['garaż', 'prop_type_not_allowed'],
      ['komórka lokatorska', 'prop_type_not_allowed'],
      ['parking_space', 'prop_type_not_allowed'],
      ['lokal użytkowy', 'prop_type_not_allowed'],
      ['apartament', 'invalid_enum'],
    ] as const) {
      const response = await send(
        { source_investment_id: 'WH-P', source_property_id: 'MP-2', prop_type: word },
        `evt-parking-${word.replace(/[^a-z]/g, '')}`,
      )
      expect(response.statusCode, word).toBe(422)
      expect(response.json().issues, word).toEqual([expect.objectContaining({ field: 'prop_type', code })])
    }
    expect((await env.ctx.db.selectFrom('offers').select('id').execute()).length).toBe(offersBefore)
    expect(await env.ctx.db.selectFrom('investments').select('id').where('source_id', '=', 'WH-P').execute()).toEqual(
      [],
    )
  })

  it('updates the price and status of a standalone part an earlier release created, keeping its type', async () => {
    await send({ ...NEW_OFFER, source_investment_id: 'WH-S', source_property_id: 'S-FLAT' }, 'evt-standalone-setup')
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select('id')
      .where('source_id', '=', 'WH-S')
      .executeTakeFirstOrThrow()
    const nowIso = env.clock.now().toISOString()
    await env.ctx.db
      .insertInto('offers')
      .values({
        investment_id: investment.id,
        source_property_id: 'G-3',
        offer_kind: 'standalone_part',
        property_type: 'garage',
        code: 'G-3',
        title: 'Garaż G-3',
        status: 'available',
        host_status: 'publish',
        floor: -1,
        price_total_cents: 6_000_000,
        price_total_from: '2026-05-01',
        custom_meta: '{}',
        gallery: '[]',
        created_at: nowIso,
        modified_at: nowIso,
      })
      .execute()
    const response = await send(
      {
        source_investment_id: 'WH-S',
        source_property_id: 'G-3',
        price_total: '65000.00',
        price_total_from: '2026-06-01',
        property_status: 'rezerwacja',
      },
      'evt-standalone-price',
    )
    expect(response.statusCode).toBe(202)
    expect(response.json().result).toMatchObject({ updated: 1, created: 0 })
    const garage = await env.ctx.db
      .selectFrom('offers')
      .selectAll()
      .where('source_property_id', '=', 'G-3')
      .executeTakeFirstOrThrow()
    expect(garage).toMatchObject({
      offer_kind: 'standalone_part',
      property_type: 'garage',
      title: 'Garaż G-3',
      status: 'reserved',
      price_total_cents: 6_500_000,
      price_total_from: '2026-06-01',
    })
    expect(await history('G-3')).toEqual([{ price_type: 'total', after_cents: 6_500_000, record_type: 'change' }])
  })

  it('uses a rotated secret at once and refuses the old one', async () => {
    const old = secret
    secret = (await rotateWebhookSecret(env.ctx, { type: 'cli' })).secret
    expect((await send(NEW_OFFER, 'evt-rotation-1', { secret: old })).json().error).toBe('invalid_signature')
    expect((await send(NEW_OFFER, 'evt-rotation-1')).statusCode).toBe(202)
  })

  it('answers 409 webhook_in_progress while a claim holds its lease, and takes over an expired one', async () => {
    const body = JSON.stringify({ ...NEW_OFFER, source_property_id: 'LEASE' })
    const { createHash } = await import('node:crypto')
    const hash = createHash('sha256').update(body).digest('hex')
    const nowIso = env.clock.now().toISOString()
    await env.ctx.db
      .insertInto('webhook_executions')
      .values({
        idempotency_key: 'evt-lease-1',
        body_sha256: hash,
        status: 'running',
        owner: 'dead-process',
        lease_expires_at: new Date(env.clock.now().getTime() + 20_000).toISOString(),
        result: null,
        run_id: null,
        created_at: nowIso,
        updated_at: nowIso,
        expires_at: nowIso,
      })
      .execute()
    const busy = await send(body, 'evt-lease-1')
    expect(busy.statusCode).toBe(409)
    expect(busy.json().error).toBe('webhook_in_progress')
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    env.clock.advance(21_000)
    const taken = await send(body, 'evt-lease-1')
    expect(taken.statusCode).toBe(202)
    expect(await history('LEASE')).toHaveLength(2)
  })

  it('executes one of 50 concurrent deliveries of an event; the others are replays or in progress', async () => {
    const event = { ...NEW_OFFER, source_property_id: 'RACE', price_total: '777000.00', price_m2: '15540.00' }
    const apps = [env.app]
    let second: Awaited<ReturnType<typeof buildApp>> | undefined
    let secondDb: ReturnType<typeof openDatabase> | undefined
    if (env.dialect === 'postgres') {
      // a second instance on the same database, as behind a load balancer
      secondDb = openDatabase(env.database.connection)
      second = await buildApp({ config: env.config, database: secondDb, now: env.clock.now })
      apps.push(second)
    }
    try {
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          deliver(apps[i % apps.length]!, {
            body: JSON.stringify(event),
            key: 'evt-race-50',
            secret,
            timestamp: now(),
          }),
        ),
      )
      const statuses = responses.map((r) => r.statusCode)
      expect(statuses.filter((s) => s === 202)).toHaveLength(1)
      for (const response of responses) {
        expect([200, 202, 409]).toContain(response.statusCode)
        if (response.statusCode === 409) expect(response.json().error).toBe('webhook_in_progress')
        if (response.statusCode === 200) expect(response.json().replayed).toBe(true)
      }
      const records = await history('RACE')
      expect(records.filter((r) => r.price_type === 'total')).toHaveLength(1)
    } finally {
      await second?.close()
      await secondDb?.destroy()
    }
  })

  it('answers a body over 256 KiB 413 whatever well-formed media type it declares', async () => {
    const body = `{"source_investment_id":"${'x'.repeat(256 * 1024)}"}`
    for (const [contentType, status] of [
      ['application/json', 413],
      ['text/plain', 413],
      ['application/json;charset=utf-8;x=y', 413],
      ['json', 401],
    ] as const) {
      const response = await env.app.inject({
        method: 'POST',
        url: WEBHOOK_URL,
        payload: body,
        headers: {
          ...deliveryHeaders({ body, key: 'evt-too-big', secret, timestamp: now() }),
          'content-type': contentType,
        },
      })
      expect(response.statusCode, contentType).toBe(status)
    }
  })

  // SQLite's store is the same file as the catalog; it cannot be down alone
  it.skipIf(dialect !== 'postgres')(
    'answers 503 execution_storage_unavailable when the execution records cannot be written',
    async () => {
      await sql`ALTER TABLE webhook_executions RENAME TO webhook_executions_off`.execute(env.ctx.db)
      try {
        const response = await send({ ...NEW_OFFER, source_property_id: 'DOWN' }, 'evt-storage-down')
        expect(response.statusCode).toBe(503)
        expect(response.json().error).toBe('execution_storage_unavailable')
      } finally {
        await sql`ALTER TABLE webhook_executions_off RENAME TO webhook_executions`.execute(env.ctx.db)
      }
      expect((await send({ ...NEW_OFFER, source_property_id: 'DOWN' }, 'evt-storage-down')).statusCode).toBe(202)
    },
  )
})
