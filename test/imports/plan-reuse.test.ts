/*
 * When execution may take the previewed plan as it is (same catalog revision, same day, same
 * planner rules) and when it must plan the file again; and that every row the plan refuses is
 * reported, whichever batch of the file it is in.
 */
import { beforeAll, expect, it } from 'vitest'

import { executeOfferImport } from '../../src/imports/execution/execute-offer-import.js'
import type { PreviewArgs } from '../../src/imports/preview-offer-import.js'
import { selectCatalogState } from '../../src/catalog/catalog-repository.js'
import { grantProLicense } from '../helpers/factories.js'
import { previewImportFile, writeImportFile } from '../helpers/imports.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID',
  prop_type: 'Rodzaj',
  price_total: 'Cena',
}

describeEachDatabase('reuse of a previewed plan', (getEnv) => {
  let env: TestEnv

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
  })

  const file = (rows: string[]) =>
    writeImportFile(env.database.dataDir, 'plan-reuse', `Inwestycja;ID;Rodzaj;Cena\n${rows.join('\n')}\n`)
  const preview = (target: string, extra: Partial<PreviewArgs> = {}) =>
    previewImportFile(env.ctx, target, MAPPING, extra)
  const execute = (jobId: string, key: string) =>
    executeOfferImport(env.ctx, { actor: { type: 'cli' }, jobId, idempotencyKey: key, confirmArchiving: false })
  const job = (id: string) =>
    env.ctx.db.selectFrom('import_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

  it('keeps the revision of a catalog that did not change while it planned, and none when it did', async () => {
    await execute((await preview(file(['R-0;1;mieszkanie;100 000']))).id, 'plan-reuse-setup')
    const quiet = await preview(file(['R-1;1;mieszkanie;100 000']))
    expect((await job(quiet.id)).plan_revision).not.toBeNull()

    // a catalog write lands while the file is read (at row 1,000 of 1,500, long before the end)
    let write: Promise<unknown> | undefined
    const busy = await preview(file(Array.from({ length: 1500 }, (_, i) => `R-2;${i + 1};mieszkanie;100 000`)), {
      onProgress: (rows) => {
        if (rows === 1000)
          write = env.ctx.db.updateTable('offers').set({ rooms: 3 }).where('source_property_id', '=', '1').execute()
      },
    })
    await write
    const busyJob = await job(busy.id)
    expect(busyJob.plan_revision).toBeNull()
    // still executable: the plan is made again and agrees with the preview
    expect((await execute(busy.id, 'plan-reuse-busy')).result).toMatchObject({ created: 1500 })
    expect((await execute(quiet.id, 'plan-reuse-quiet')).result).toMatchObject({ created: 1 })
  })

  it('moves the catalog revision on for a large execution, whose writes leave the revision triggers in place', async () => {
    const revision = async () => (await selectCatalogState(env.ctx.db)).revision
    const target = file(Array.from({ length: 1200 }, (_, i) => `R-big;big-${i + 1};mieszkanie;100 000`))
    const { id } = await preview(target)
    const before = await revision()
    await execute(id, 'plan-reuse-large')
    const afterImport = await revision()
    expect(afterImport).toBeGreaterThan(before)
    // a single write after it still moves the revision (the triggers are back)
    await env.ctx.db.updateTable('offers').set({ rooms: 4 }).where('source_property_id', '=', 'big-7').execute()
    expect(await revision()).toBeGreaterThan(afterImport)
    const ph = await env.ctx.db
      .selectFrom('price_history')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(ph.n)).toBeGreaterThanOrEqual(1200)
  })

  it('plans again a preview made with other planner rules, and refuses one from another day', async () => {
    const older = await preview(file(['R-3;1;mieszkanie;100 000']))
    await env.ctx.db
      .updateTable('import_jobs')
      .set({ plan_version: 'an-older-release' })
      .where('id', '=', older.id)
      .execute()
    expect((await execute(older.id, 'plan-reuse-version')).result).toMatchObject({ created: 1 })

    // a price without its own date is dated the day of the preview: after midnight the plan is stale
    const yesterday = await preview(file(['R-4;1;mieszkanie;100 000']))
    env.clock.advance(24 * 3600 * 1000)
    await expect(execute(yesterday.id, 'plan-reuse-day')).rejects.toMatchObject({
      error: 'import_conflict',
      status: 409,
    })
    expect(
      await env.ctx.db.selectFrom('offers').select('id').where('source_property_id', '=', '1').execute(),
    ).toHaveLength(4)
  })

  it('reports every row the plan refuses, in the first batch of the file and in later ones', async () => {
    // two stored offers of 50 m² at 10 000 zł/m²: a file that sends another total for them alone
    // disagrees with the stored price per m² × area, which only the plan can tell
    const stored = writeImportFile(
      env.database.dataDir,
      'plan-reuse',
      'Inwestycja;ID;Rodzaj;Cena;Powierzchnia;Cena m2\nR-5;11;mieszkanie;500 000;50;10 000\nR-5;2401;dom;500 000;50;10 000\n',
    )
    const setup = await previewImportFile(env.ctx, stored, {
      ...MAPPING,
      prop_area: 'Powierzchnia',
      price_m2: 'Cena m2',
    })
    await execute(setup.id, 'plan-reuse-refused-setup')
    // rows without a type are no refusal: such new offers are created unqualified
    const rows = Array.from({ length: 2500 }, (_, i) => `R-5;${i + 1};${i % 3 === 0 ? '' : 'mieszkanie'};100 000`)
    const result = await preview(file(rows))
    expect(result.preview.valid).toBe(false)
    expect(result.preview.errors.map((e) => `${e.row} ${e.field} ${e.code}`)).toEqual([
      '12 price_total inconsistent_price',
      '2402 price_total inconsistent_price',
    ])
    expect(result.preview.errors[0]).toMatchObject({
      message_pl:
        'Cena całkowita: 100 000,00 zł nie zgadza się z ceną za m² × powierzchnią, licząc z wartościami zapisanymi ' +
        'w katalogu (10 000,00 zł × 50,00 m²)',
      message_en: 'price_total: 100000.00 does not match price_m2 × area with the stored values (10000.00 × 50.00)',
    })
    expect(
      await env.ctx.db.selectFrom('import_job_items').select('seq').where('job_id', '=', result.id).execute(),
    ).toEqual([])
  })
})
