/*
 * Custom fields through the offer import: a mapping `meta:<key>` fills a key registered by an
 * extension (the example's exposure, plot_area and crm_id), read by its registered type, merged
 * into the offer's custom_meta through the shared planner and writer; the catalog shows only the
 * keys registered for REST. Unregistered keys and wrong values are refused, nothing written.
 * The validation worker reads every file here (DG_IMPORT_WORKER_MIN_BYTES=0).
 */
import { beforeAll, expect, it } from 'vitest'

import { setOption } from '../../src/host/options/options.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const URL_IMPORT = '/wp-json/dg/v2/imports/offer'
const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  price_total: 'Cena',
  price_total_from: 'Cena od',
  'meta:exposure': 'Ekspozycja',
  'meta:plot_area': 'Działka',
  'meta:crm_id': 'CRM',
}
const HEADER = 'Inwestycja;ID;Numer;Rodzaj;Cena;Cena od;Ekspozycja;Działka;CRM'

describeEachDatabase(
  'offer import of custom fields (meta:<key>)',
  (getEnv) => {
    let env: TestEnv
    let admin: TestUser
    let reader: TestUser
    const preview = (rows: string[], mapping: object = MAPPING, header = HEADER) => {
      const body = multipart(
        { mode: 'patch', mapping: JSON.stringify(mapping) },
        { name: 'oferty.csv', content: `${header}\n${rows.join('\n')}\n` },
      )
      return env.app.inject({
        method: 'POST',
        url: URL_IMPORT,
        payload: body.payload,
        headers: { ...body.headers, authorization: admin.authorization },
      })
    }
    const execute = (jobId: string, key: string) =>
      env.app.inject({
        method: 'POST',
        url: URL_IMPORT,
        payload: `job_id=${jobId}`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': key,
          authorization: admin.authorization,
        },
      })
    const storedMeta = async (sourceId: string) =>
      JSON.parse(
        (
          await env.ctx.db
            .selectFrom('offers')
            .select('custom_meta')
            .where('source_property_id', '=', sourceId)
            .executeTakeFirstOrThrow()
        ).custom_meta,
      )
    const offerId = async (sourceId: string) =>
      (
        await env.ctx.db
          .selectFrom('offers')
          .select('id')
          .where('source_property_id', '=', sourceId)
          .executeTakeFirstOrThrow()
      ).id

    beforeAll(async () => {
      env = getEnv()
      await grantProLicense(env.ctx)
      admin = await createTestUser(env.ctx, 'administrator')
      reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    })

    it('creates offers with their custom fields, typed, and the catalog shows the keys registered for REST', async () => {
      const previewed = await preview([
        'INV-M;M-1;M/1;dom;900 000,00;2026-05-01;S-W;310,50;CRM-1',
        'INV-M;M-2;M/2;dom;950 000,00;2026-05-01;N;;CRM-2',
      ])
      expect(previewed.statusCode).toBe(200)
      const body = previewed.json()
      expect(body.preview.errors).toEqual([])
      expect(body.preview.operations[0]).toMatchObject({
        action: 'create',
        values: { 'meta:exposure': 'S-W', 'meta:plot_area': 310.5, 'meta:crm_id': 'CRM-1' },
      })
      expect(body.preview.operations[0].changes).toEqual(
        expect.arrayContaining(['meta:exposure', 'meta:plot_area', 'meta:crm_id', 'price_total']),
      )
      const done = await execute(body.id, 'meta-create-1')
      expect(done.statusCode).toBe(200)
      expect(done.json().result).toMatchObject({ created: 2 })
      expect(await storedMeta('M-1')).toEqual({ exposure: 'S-W', plot_area: 310.5, crm_id: 'CRM-1' })
      expect(await storedMeta('M-2')).toEqual({ exposure: 'N', crm_id: 'CRM-2' })

      // the file sent no location: the new investment awaits it, off the catalog, until the
      // operator completes it and publishes the investment
      await env.ctx.db
        .updateTable('investments')
        .set({
          loc_voivodeship: 'mazowieckie',
          loc_powiat: 'Warszawa',
          loc_gmina: 'Warszawa',
          loc_city: 'Warszawa',
          loc_street: 'Prosta',
          loc_building_no: '1',
          loc_postal_code: '00-001',
          host_status: 'publish',
        })
        .where('source_id', '=', 'INV-M')
        .execute()
      const detail = await env.app.inject({
        method: 'GET',
        url: `/wp-json/dg/v2/catalog/properties/${await offerId('M-1')}`,
        headers: { authorization: reader.authorization },
      })
      expect(detail.json().custom_meta).toEqual({ exposure: 'S-W', plot_area: 310.5 })
    })

    it('changes only the fields a row fills: an empty cell keeps the stored value, and no price is recorded', async () => {
      const historyBefore = Number(
        (
          await env.ctx.db
            .selectFrom('price_history')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
      const previewed = await preview([
        'INV-M;M-1;M/1;dom;900 000,00;2026-05-01;S;;',
        'INV-M;M-2;M/2;dom;950 000,00;2026-05-01;N;;CRM-2',
      ])
      const body = previewed.json()
      expect(body.preview.errors).toEqual([])
      expect(body.preview.counts).toMatchObject({ update: 1, unchanged: 1 })
      const update = body.preview.operations.find((op: { action: string }) => op.action === 'update')
      expect(update).toMatchObject({ changes: ['meta:exposure'], before: { 'meta:exposure': 'S-W' } })
      // the catalog changes between preview and execution: the plan is made again, to the same digest
      await setOption(env.ctx, 'dg_ext_promo_banner', 'baner')
      const done = await execute(body.id, 'meta-update-1')
      expect(done.statusCode).toBe(200)
      expect(done.json().result).toMatchObject({ updated: 1, created: 0 })
      expect(await storedMeta('M-1')).toEqual({ exposure: 'S', plot_area: 310.5, crm_id: 'CRM-1' })
      const historyAfter = Number(
        (
          await env.ctx.db
            .selectFrom('price_history')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
      expect(historyAfter).toBe(historyBefore)
    })

    it('refuses a mapping to a key nobody registered, or one the catalog never exposes, with the registered keys named', async () => {
      const offersBefore = await env.ctx.db.selectFrom('offers').select('id').execute()
      for (const field of ['meta:energy', 'meta:_wp_old_slug', 'meta:', 'metadata']) {
        const refused = await preview(['INV-M;M-9;M/9;dom;1;2026-05-01;S;1;x'], { ...MAPPING, [field]: 'CRM' })
        expect(refused.statusCode).toBe(400)
        expect(refused.json()).toMatchObject({ error: 'invalid_mapping' })
        expect(String(refused.json().message)).toContain(`"${field}"`)
      }
      const unregistered = await preview(['x'], { ...MAPPING, 'meta:energy': 'CRM' })
      expect(String(unregistered.json().message)).toContain('registered: exposure, plot_area, crm_id')
      expect(await env.ctx.db.selectFrom('offers').select('id').execute()).toEqual(offersBefore)
    })

    it('refuses a value of another type than the key’s, at its row and column, and writes nothing', async () => {
      const refused = await preview(['INV-M;M-3;M/3;dom;700 000,00;2026-05-01;S;dużo;CRM-3'])
      expect(refused.statusCode).toBe(422)
      expect(refused.json().preview.errors).toEqual([
        expect.objectContaining({ row: 2, field: 'meta:plot_area', code: 'invalid_decimal' }),
      ])
      expect(
        await env.ctx.db.selectFrom('offers').select('id').where('source_property_id', '=', 'M-3').execute(),
      ).toEqual([])
    })
  },
  {
    env: {
      DG_EXTENSIONS: 'examples/extensions/website-fields/index.mjs',
      DG_IMPORT_WORKER_MIN_BYTES: '0',
      DG_CATALOG_RATE_LIMIT: '100000',
    },
  },
)
