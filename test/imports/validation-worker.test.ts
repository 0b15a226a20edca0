/*
 * A large file is read and validated on a worker thread while the main thread plans: the preview
 * must be the same, to the last error and the plan digest, as when the file is read in the main
 * thread, and the plan it stores must execute the same.
 */
import fs from 'node:fs'
import path from 'node:path'

import ExcelJS from 'exceljs'
import { beforeAll, describe, expect, it } from 'vitest'

import type { AppConfig } from '../../src/config.js'
import type { HostContext } from '../../src/host/context.js'
import { executeOfferImport } from '../../src/imports/execution/execute-offer-import.js'
import {
  VALIDATED_BATCH_ROWS,
  type ValidateOfferFileArgs,
  type ValidationEvent,
  validateOfferFile,
  validateOfferFileOnWorker,
} from '../../src/imports/reading/validate-offer-file.js'
import { grantProLicense } from '../helpers/factories.js'
import { previewImportFile, writeImportFile } from '../helpers/imports.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const HEADER = ['Inwestycja', 'ID', 'Rodzaj', 'Status', 'Powierzchnia', 'Cena m2', 'Cena', 'Cena od', 'Miasto']
const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  price_m2: 'Cena m2',
  price_total: 'Cena',
  price_total_from: 'Cena od',
  proj_city: 'Miasto',
}

/** Row i of a consistent file: 50.00 m² at 10 000,00 zł/m², 500 000,00 zł; every 7th without a type. */
function offerRow(i: number, investment = 'W-A'): string[] {
  const area = 40 + (i % 30)
  return [
    investment,
    `L-${i}`,
    i % 7 === 0 ? '' : i % 11 === 0 ? ' Dom ' : 'mieszkanie',
    i % 5 === 0 ? 'zarezerwowane' : 'dostępne',
    `${area},50`,
    '10 000,00',
    `${(area * 10_000 + 5000).toLocaleString('pl-PL').replace(/\u00a0/g, ' ')},00`,
    '2026-05-01',
    'Łódź',
  ]
}

describeEachDatabase('preview read and validated on a worker thread', (getEnv) => {
  let env: TestEnv

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
  })

  const withConfig = (change: Partial<AppConfig>): HostContext => ({
    ...env.ctx,
    config: { ...env.ctx.config, ...change },
  })
  const csv = (rows: string[][]) =>
    writeImportFile(env.database.dataDir, 'worker', [HEADER, ...rows].map((row) => row.join(';')).join('\r\n') + '\r\n')
  const previewWith = (ctx: HostContext, target: string) => previewImportFile(ctx, target, MAPPING)
  const digest = async (id: string) =>
    (await env.ctx.db.selectFrom('import_jobs').select('plan_digest').where('id', '=', id).executeTakeFirstOrThrow())
      .plan_digest

  /** Previews the file in this thread and on the worker; both answers must be the same. */
  async function previewBothWays(target: string, change: Partial<AppConfig> = {}) {
    const here = await previewWith(withConfig({ ...change, importWorkerMinBytes: Number.MAX_SAFE_INTEGER }), target)
    const onWorker = await previewWith(withConfig({ ...change, importWorkerMinBytes: 0 }), target)
    expect(onWorker.preview).toEqual(here.preview)
    expect(await digest(onWorker.id)).toBe(await digest(here.id))
    return { here, onWorker }
  }

  it('plans a valid file of several batches alike, and its plan executes', async () => {
    const rows = Array.from({ length: 2600 }, (_, i) => offerRow(i, i < 1300 ? 'W-A' : 'W-B'))
    const { onWorker } = await previewBothWays(csv(rows))
    expect(onWorker.preview).toMatchObject({ valid: true, rows: 2600, counts: { create: 2600, unchanged: 0 } })

    const { result } = await executeOfferImport(env.ctx, {
      actor: { type: 'cli' },
      jobId: onWorker.id,
      idempotencyKey: `worker-${env.dialect}`,
      confirmArchiving: false,
    })
    expect(result.created).toBe(2600)
    const stored = await env.ctx.db
      .selectFrom('offers')
      .select(['area', 'price_total_cents', 'status', 'property_type', 'price_total_from'])
      .where('source_property_id', '=', 'L-35')
      .executeTakeFirstOrThrow()
    // sent without a type: created unqualified, never given a guessed one
    expect(stored).toEqual({
      area: '45.50',
      price_total_cents: 45_500_000,
      status: 'reserved',
      property_type: '',
      price_total_from: '2026-05-01',
    })

    // the same file again: every offer unchanged, on both paths (an unqualified one too)
    const again = await previewBothWays(csv(rows))
    expect(again.onWorker.preview.counts).toEqual({ create: 0, update: 0, unchanged: 2600, archive: 0 })

    // rows of a stored investment (some changed, some new) and of a new one, mixed
    const mixed = Array.from({ length: 1500 }, (_, i) => {
      const row = offerRow(i < 1000 ? i : i + 5000, i % 3 === 0 ? 'W-C' : 'W-A')
      if (i % 10 === 1) row[3] = 'sprzedane'
      return row
    })
    const both = await previewBothWays(csv(mixed))
    expect(both.onWorker.preview.counts).toEqual({ create: 834, update: 67, unchanged: 599, archive: 0 })
  })

  it('lets the event loop turn while it plans, so requests are read during a large preview', async () => {
    // The worker's batches reach the main thread as port messages, and Node delivers up to a
    // thousand of them in one callback: on SQLite, whose driver answers synchronously, the planner
    // used to take batch after batch there without the event loop turning once (bench:soak: 1.2 s
    // without an answer). Turns are counted with a chain of setImmediate, as a request is read.
    const rows = Array.from({ length: 8000 }, (_, i) => offerRow(i, 'W-T'))
    let turns = 0
    let counting = true
    const count = () => {
      turns++
      if (counting) setImmediate(count)
    }
    setImmediate(count)
    const turnsAtProgress: number[] = []
    const { preview } = await previewImportFile(withConfig({ importWorkerMinBytes: 0 }), csv(rows), MAPPING, {
      onProgress: () => turnsAtProgress.push(turns),
    }).finally(() => (counting = false))
    expect(preview).toMatchObject({ valid: true, rows: 8000 })
    // a report every thousand rows (two batches), and the loop turned between every two of them
    expect(turnsAtProgress.length).toBeGreaterThanOrEqual(8)
    for (let i = 1; i < turnsAtProgress.length - 1; i++)
      expect(turnsAtProgress[i], `turns at report ${i}`).toBeGreaterThan(turnsAtProgress[i - 1] as number)
  })

  it('reports the same errors, capped alike, with the same total', async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => offerRow(i, 'W-E'))
    ;(rows[3] as string[])[4] = '12,5e3' // an exponent
    ;(rows[1400] as string[])[7] = '2026-02-30' // no such day
    ;(rows[2100] as string[])[1] = 'L-17' // a key seen in row 19
    for (let i = 2200; i < 2210; i++) (rows[i] as string[])[3] = 'wolne?'
    const target = csv(rows)
    const full = await previewBothWays(target)
    expect(full.onWorker.preview.valid).toBe(false)
    expect(full.onWorker.preview.errors_total).toBe(13)
    expect(full.onWorker.preview.errors.map((error) => [error.row, error.code])).toEqual([
      [5, 'invalid_decimal'],
      [1402, 'invalid_date'],
      [2102, 'duplicate_key'],
      ...Array.from({ length: 10 }, (_, i) => [2202 + i, 'invalid_enum']),
    ])
    expect(full.onWorker.preview.errors[0]).toEqual({
      row: 5,
      field: 'prop_area',
      code: 'invalid_decimal',
      message: 'Powierzchnia: „12,5e3” jest zapisane w notacji wykładniczej; wpisz wszystkie cyfry, np. 100000',
      message_pl: 'Powierzchnia: „12,5e3” jest zapisane w notacji wykładniczej; wpisz wszystkie cyfry, np. 100000',
      message_en: 'prop_area: "12,5e3" uses exponent notation; write all digits, e.g. 100000',
    })

    const capped = await previewBothWays(target, { importMaxErrors: 2 })
    expect(capped.onWorker.preview.errors).toHaveLength(2)
    expect(capped.onWorker.preview.errors_total).toBe(13)
  })

  it('stops alike at a file problem found half-way, and at missing columns', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => offerRow(i, 'W-F'))
    const tooMany = await previewBothWays(csv(rows), { importMaxRows: 1500 })
    expect(tooMany.onWorker.preview.errors).toEqual([
      expect.objectContaining({
        code: 'too_many_rows',
        row: 0,
        field: 'file',
        message:
          'Plik ma więcej wierszy danych niż dopuszczalne 1500. Podziel oferty na pliki po najwyżej 1500 wierszy.',
        message_en: expect.stringContaining('more than 1500 data rows'),
      }),
    ])

    const shifted = rows.map((row) => [...row])
    ;(shifted[1200] as string[]).push('a value beyond the header')
    const malformed = await previewBothWays(csv(shifted))
    expect(malformed.onWorker.preview.errors).toEqual([expect.objectContaining({ code: 'csv_malformed' })])

    const target = path.join(env.database.dataDir, `worker-missing-${env.dialect}.csv`)
    fs.writeFileSync(target, 'Inwestycja;ID\nW-F;1\n')
    const missing = await previewBothWays(target)
    expect(missing.onWorker.preview.errors).toContainEqual(
      expect.objectContaining({
        row: 1,
        field: 'prop_type',
        code: 'missing_column',
        message_pl: 'Rodzaj oferty: w pliku nie ma kolumny „Rodzaj” (kolumny pliku: Inwestycja, ID)',
        message_en: 'prop_type: the file has no column "Rodzaj" (columns: Inwestycja, ID)',
      }),
    )
  })

  it('reads an XLSX workbook alike', async () => {
    const target = path.join(env.database.dataDir, `worker-${env.dialect}.xlsx`)
    const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: target, useSharedStrings: true })
    const sheet = writer.addWorksheet('Oferty')
    sheet.addRow(HEADER).commit()
    for (let i = 0; i < 1500; i++) {
      const [investment, id, type, status, , , , , city] = offerRow(i, 'W-X')
      const area = 40.5 + (i % 30)
      sheet.addRow([investment, id, type, status, area, 10_000, area * 10_000, new Date('2026-05-01'), city]).commit()
    }
    sheet.commit()
    await writer.commit()
    const { onWorker } = await previewBothWays(target)
    expect(onWorker.preview.errors.slice(0, 3)).toEqual([])
    expect(onWorker.preview).toMatchObject({ valid: true, rows: 1500, counts: { create: 1500 } })
  })
})

describe('a file checked partly on the worker and partly on the main thread', () => {
  const collect = async (events: AsyncIterable<ValidationEvent>) => {
    const out: ValidationEvent[] = []
    for await (const event of events)
      out.push(
        event.kind === 'batch'
          ? { ...event, inputs: event.inputs.map((input) => ({ row: input.row, values: input.values })) }
          : event,
      )
    return out
  }
  const errorsOf = (events: ValidationEvent[]) =>
    events.flatMap((event) => (event.kind === 'batch' ? event.errors.map((e) => [e.row, e.code, e.message_en]) : []))

  it('finds duplicate keys across the threads, in file order, and caps the errors alike', async () => {
    // batches of VALIDATED_BATCH_ROWS (500) rows; with `alternate` the main thread checks the 1st,
    // 3rd, 5th… (rows 0–499, 1000–1499, …), the worker the 2nd, 4th, 6th… (rows 500–999, 1500–1999, …)
    expect(VALIDATED_BATCH_ROWS).toBe(500)
    const rows = Array.from({ length: 3500 }, (_, i) => offerRow(i, 'W-D'))
    ;(rows[1500] as string[])[1] = 'L-10' // worker's batch repeats a key of the main thread's
    ;(rows[2300] as string[])[1] = 'L-700' // and the other way round
    ;(rows[2400] as string[])[1] = 'L-5' // a repeated key on a row with another error
    ;(rows[2400] as string[])[4] = '1e3'
    ;(rows[2650] as string[])[7] = '2026-13-01' // an invalid row's key still counts as seen (worker)
    ;(rows[3100] as string[])[1] = 'L-2650' // (main)
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'dg-checked-'))
    const target = path.join(dir, 'split.csv')
    fs.writeFileSync(target, [HEADER, ...rows].map((row) => row.join(';')).join('\n') + '\n')
    const args = (maxErrors: number): ValidateOfferFileArgs => ({
      path: target,
      fileName: 'split.csv',
      limits: { maxBytes: 10_000_000, maxRows: 10_000 },
      mapping: MAPPING,
      mode: 'patch',
      maxErrors,
    })
    try {
      const here = await collect(validateOfferFile(args(100)))
      const alternating = await collect(validateOfferFileOnWorker(args(100), { share: 'alternate' }))
      const balanced = await collect(validateOfferFileOnWorker(args(100)))
      expect(alternating).toEqual(here)
      expect(balanced).toEqual(here)
      expect(errorsOf(here).map(([row, code]) => [row, code])).toEqual([
        [1502, 'duplicate_key'],
        [2302, 'duplicate_key'],
        [2402, 'invalid_decimal'],
        [2402, 'duplicate_key'],
        [2652, 'invalid_date'],
        [3102, 'duplicate_key'],
      ])
      expect(errorsOf(here)[0]?.[2]).toContain('already appears in row 12')
      expect(errorsOf(here)[1]?.[2]).toContain('already appears in row 702')
      expect(errorsOf(here)[5]?.[2]).toContain('already appears in row 2652')
      // an error the worker found (rows 2500–2999 are its) carries both texts across the thread
      const workerError = alternating
        .flatMap((event) => (event.kind === 'batch' ? event.errors : []))
        .find((error) => error.row === 2652)
      expect(workerError).toMatchObject({
        field: 'price_total_from',
        message:
          'Data obowiązywania ceny całkowitej: „2026-13-01” nie jest istniejącą datą (takiego dnia nie ma w kalendarzu)',
        message_en: 'price_total_from: "2026-13-01" is not a real calendar date',
      })
      const accepted = here.flatMap((event) => (event.kind === 'batch' ? event.inputs : []))
      expect(accepted).toHaveLength(3500 - 5)

      const cappedHere = await collect(validateOfferFile(args(3)))
      const cappedSplit = await collect(validateOfferFileOnWorker(args(3), { share: 'alternate' }))
      expect(cappedSplit).toEqual(cappedHere)
      expect(errorsOf(cappedSplit)).toEqual(errorsOf(here).slice(0, 3))
      const totals = cappedSplit.reduce((sum, event) => sum + (event.kind === 'batch' ? event.errorsTotal : 0), 0)
      expect(totals).toBe(6)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
