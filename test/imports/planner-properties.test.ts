/*
 * Property-based tests of the shared write path: arbitrary and
 * near-valid rows go through the row validator and then, the valid ones, through the planner
 * against a small seeded catalog, in both modes. Never a throw; every bad row is reported with its
 * row number; every valid row becomes exactly one operation with its key or one planner error (a
 * price the stored values contradict, or a price date before the offer's first record of that price);
 * planning is deterministic (same digest); a snapshot archives exactly the live offers of the
 * named investments that the rows do not mention.
 */
import fc from 'fast-check'
import { beforeAll, expect, it } from 'vitest'

import { CANONICAL_FIELDS } from '../../src/offers/canonical-fields.js'
import { type OfferPlan, type PlanInput, planOffers } from '../../src/offers/offer-planner.js'
import {
  createOfferRowsValidator,
  type ImportMode,
  offerKey,
  type RowError,
  validateRows,
} from '../../src/offers/validation/validate-offer-row.js'
import { seedCatalog } from '../helpers/imports.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const TODAY = '2026-11-20'
const FIRST_ROW = 2 // data rows of a file start below the header
const NUM_RUNS = 100
const PROPERTY_TIMEOUT_MS = 30_000

const INVESTMENTS = ['INV-A', 'INV/2024/01', 'INV-B', 'INV-NEW', 'inv-a', 'INV%NEW']
const PROPERTIES = ['1', '2', '3', '4', '5', '6', 'a/b', '50%', 'x 1', 'NEW-1']

/**
 * The seeded catalog, as canonical rows (prices consistent: m² price × area = total). The rows
 * without a type are created unqualified; two of them become standalone parts afterwards, as an
 * earlier release created them from files (see STANDALONE_PARTS).
 */
const SEED_ROWS: Array<Record<string, string>> = [
  seed('INV-A', '1', 'mieszkanie', 'wolne', '50,00', '10 000,00', '500 000,00'),
  seed('INV-A', '2', 'mieszkanie', 'rezerwacja', '60,50', '12 000', '726 000'),
  seed('INV-A', '3', 'dom', 'sprzedane', '120,00', '8 000', '960 000'),
  seed('INV-A', '4', 'mieszkanie', 'archiwalne', '40,00', '10 000', '400 000'),
  { ...seed('INV-A', '5', '', 'wolne', '', '', '45 000'), prop_floor: '-1' },
  seed('INV-A', 'a/b', 'mieszkanie', 'wolne', '33,30', '10 000', '333 000'),
  seed('INV/2024/01', '1', 'mieszkanie', 'wolne', '45,00', '11 000', '495 000'),
  seed('INV/2024/01', '50%', 'mieszkanie', 'niedostępne', '45,00', '11 000', '495 000'),
  seed('INV/2024/01', 'a/b', '', 'archiwalne', '', '', '20 000'),
  seed('INV-B', '1', 'mieszkanie', 'wolne', '70,00', '9 000', '630 000'),
  seed('INV-B', '2', 'dom', 'wolne', '150,00', '7 000', '1 050 000'),
  seed('INV-B', '3', '', 'wolne', '70,00', '9 000', '630 000'),
]
/** Offers of the seed stored as standalone parts, as earlier releases took them from files. */
const STANDALONE_PARTS: Array<[string, string, string]> = [
  ['INV-A', '5', 'parking_space'],
  ['INV/2024/01', 'a/b', 'storage_room'],
]

function seed(
  investment: string,
  property: string,
  type: string,
  status: string,
  area: string,
  m2: string,
  total: string,
): Record<string, string> {
  return {
    source_investment_id: investment,
    source_property_id: property,
    prop_type: type,
    property_status: status,
    prop_area: area,
    price_m2: m2,
    price_total: total,
    price_total_from: '2026-05-01',
    proj_city: 'Poznań',
  }
}

/** The offer-level prices a plain change may not date before the offer's first record of them, in the planner's order. */
const FIRST_RECORD_PRICES = [
  { type: 'total', field: 'price_total_from', date: 'priceTotalFrom' },
  { type: 'm2', field: 'price_m2_from', date: 'priceM2From' },
  { type: 'combined', field: 'price_combined_from', date: 'priceCombinedFrom' },
] as const

interface CatalogOffer {
  id: number
  investmentId: number
  investmentSource: string
  key: string
  status: string
}

// ---------------------------------------------------------------------------------------------
// Generators

/** Mostly a valid value, sometimes blank (not sent), rarely a bad one. */
const field = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: valid, weight: 40 },
    { arbitrary: fc.constantFrom(undefined, null, '', '  '), weight: 4 },
    { arbitrary: fc.oneof(invalid, fc.string({ maxLength: 6 })), weight: 1 },
  )

const idValue = (pool: string[]): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...pool), weight: 30 },
    { arbitrary: fc.constantFrom(...pool).map((id) => ` ${id} `), weight: 1 },
    { arbitrary: fc.constantFrom(undefined, null, '', ' '), weight: 1 },
    { arbitrary: fc.string({ maxLength: 10 }), weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: 9 }), weight: 1 },
  )

const money = (cents: number, grouped: boolean): string => {
  const whole = String(Math.floor(cents / 100))
  const text = grouped ? whole.replace(/\B(?=(\d{3})+(?!\d))/g, ' ') : whole
  return `${text},${String(cents % 100).padStart(2, '0')}`
}

/** Some subset of area, m² price and total; the total usually agrees with the other two, sometimes not. */
const prices: fc.Arbitrary<Record<string, string>> = fc
  .record({
    areaHundredths: fc.integer({ min: 1_000, max: 20_000 }),
    m2Cents: fc.integer({ min: 300_000, max: 2_500_000 }),
    consistent: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
    skew: fc.integer({ min: -40, max: 40 }),
    grouped: fc.boolean(),
    sent: fc.subarray(['prop_area', 'price_m2', 'price_total'] as const),
  })
  .map(({ areaHundredths, m2Cents, consistent, skew, grouped, sent }) => {
    const exact = Math.round((m2Cents * areaHundredths) / 100)
    const total = consistent ? exact : Math.max(1, Math.round(exact * (1 + skew / 1000)))
    const all: Record<string, string> = {
      prop_area: money(areaHundredths, false),
      price_m2: money(m2Cents, grouped),
      price_total: money(total, grouped),
    }
    return Object.fromEntries(sent.map((field) => [field, all[field] as string]))
  })

/** Rows that mostly pass the validator: known ids, real words, consistent prices. */
const nearValidRow: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.record(
      {
        source_investment_id: idValue(INVESTMENTS),
        source_property_id: idValue(PROPERTIES),
        prop_no: field(fc.constantFrom('A/1', 'M 12', 'Ł-3'), fc.constant('\u0007')),
        prop_type: field(
          fc.constantFrom('mieszkanie', 'dom', ' Dom '),
          fc.constantFrom('zamek', 'miejsce postojowe', 'garaż'),
        ),
        property_status: field(
          fc.constantFrom('wolne', 'rezerwacja', 'sprzedane', 'archiwalne', 'available'),
          fc.constant('xyz'),
        ),
        prop_rooms: field(
          fc.oneof(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 8 }).map(String)),
          fc.constantFrom(-1, 450000, '2.5'),
        ),
        prop_floor: field(fc.integer({ min: -3, max: 30 }).map(String), fc.constant('1e2')),
        price_total_from: field(fc.constantFrom('2026-05-01', '2026-11-20', '01.06.2026'), fc.constant('2026-02-30')),
        price_m2_from: field(fc.constantFrom('2026-05-01', '2026-07-01'), fc.constant('2026-13-01')),
        proj_city: field(fc.constantFrom('Poznań', 'Łódź', 'Kraków'), fc.constant(12.5)),
        proj_voivod: field(fc.constantFrom('wielkopolskie', 'mazowieckie', 'Śląskie'), fc.constant('Bawaria')),
        proj_zip: field(fc.constantFrom('60-001', '00950'), fc.constant('1-234')),
      },
      { requiredKeys: ['source_investment_id', 'source_property_id'] },
    ),
    prices,
  )
  .map(([base, price]) => ({ ...base, ...price }))

/** Anything at all under canonical (and a few unknown) field names. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constantFrom(null, undefined),
)
const anyRow: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(
  fc.oneof(
    { arbitrary: fc.constantFrom(...CANONICAL_FIELDS), weight: 8 },
    { arbitrary: fc.constantFrom('price', 'Cena', '__proto__', 'constructor'), weight: 1 },
  ),
  anyValue,
  { maxKeys: 12 },
)

/** A seeded row again, whole or in part: `unchanged`, or an update when the subset drops a price date. */
const seedCopy: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(fc.constantFrom(...SEED_ROWS), fc.subarray(CANONICAL_FIELDS.slice(2)))
  .map(([row, fields]) =>
    Object.fromEntries(
      Object.entries(row).filter(([name]) => name.startsWith('source_') || (fields as string[]).includes(name)),
    ),
  )

const rowsArbitrary = fc.array(
  fc.oneof(
    { arbitrary: nearValidRow, weight: 5 },
    { arbitrary: seedCopy, weight: 2 },
    { arbitrary: anyRow, weight: 1 },
  ),
  {
    minLength: 1,
    maxLength: 25,
    size: 'medium',
  },
)

// ---------------------------------------------------------------------------------------------

describeEachDatabase('offer planner on arbitrary rows', (getEnv) => {
  let env: TestEnv
  let catalog: CatalogOffer[]
  let catalogByKey: Map<string, CatalogOffer>
  /** Per offer id and price type, the earliest "valid from" of the seeded price history. */
  let firstRecords: Map<number, Map<string, string>>

  beforeAll(async () => {
    env = getEnv()
    const results = validateRows(SEED_ROWS, { mode: 'patch', firstRow: FIRST_ROW })
    expect(results.flatMap((r) => r.errors)).toEqual([])
    const inputs: PlanInput[] = results.map((r, i) => ({ row: FIRST_ROW + i, values: r.values }))
    const plan = await planOffers(env.ctx.db, inputs, { mode: 'patch', today: TODAY })
    expect(plan.errors).toEqual([])
    await seedCatalog(env, plan, TODAY)
    for (const [investment, property, type] of STANDALONE_PARTS) {
      const { id } = await env.ctx.db
        .selectFrom('investments')
        .select('id')
        .where('source_id', '=', investment)
        .executeTakeFirstOrThrow()
      await env.ctx.db
        .updateTable('offers')
        .set({ offer_kind: 'standalone_part', property_type: type })
        .where('investment_id', '=', id)
        .where('source_property_id', '=', property)
        .execute()
    }
    // an offer without a source id (as the admin editor creates one): a snapshot leaves it alone
    const investmentA = await env.ctx.db
      .selectFrom('investments')
      .select('id')
      .where('source_id', '=', 'INV-A')
      .executeTakeFirstOrThrow()
    const now = env.clock.now().toISOString()
    await env.ctx.db
      .insertInto('offers')
      .values({
        investment_id: investmentA.id,
        source_property_id: null,
        offer_kind: 'property',
        property_type: 'mieszkanie',
        code: 'BEZ-ID',
        title: 'Mieszkanie BEZ-ID',
        status: 'available',
        host_status: 'publish',
        custom_meta: '{}',
        gallery: '[]',
        created_at: now,
        modified_at: now,
      })
      .execute()

    const rows = await env.ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select([
        'offers.id',
        'offers.investment_id',
        'offers.source_property_id',
        'offers.status',
        'investments.source_id',
      ])
      .execute()
    catalog = rows.map((r) => ({
      id: r.id,
      investmentId: r.investment_id,
      investmentSource: r.source_id ?? '',
      key:
        r.source_property_id !== null
          ? offerKey(r.source_id ?? '', r.source_property_id)
          : `${offerKey(r.source_id ?? '', '')}%23${r.id}`,
      status: r.status,
    }))
    expect(catalog).toHaveLength(SEED_ROWS.length + 1)
    catalogByKey = new Map(catalog.filter((o) => !o.key.endsWith(`/%23${o.id}`)).map((o) => [o.key, o]))
    const history = await env.ctx.db
      .selectFrom('price_history')
      .select(['offer_id', 'price_type', 'valid_from'])
      .where('component_id', 'is', null)
      .execute()
    firstRecords = new Map()
    for (const record of history) {
      const byType = firstRecords.get(record.offer_id) ?? new Map<string, string>()
      firstRecords.set(record.offer_id, byType)
      const from = String(record.valid_from)
      const first = byType.get(record.price_type)
      if (first === undefined || from < first) byType.set(record.price_type, from)
    }
    // the seed dates the m² prices today and the totals earlier: both kinds of first record exist
    expect(new Set([...firstRecords.values()].flatMap((byType) => [...byType.keys()]))).toEqual(
      new Set(['total', 'm2']),
    )
  })

  /** The date field of the first price the row dates before the offer's first record of it (the row is refused). */
  function dateBeforeFirstRecord(values: PlanInput['values'], offerId: number): string | undefined {
    const firsts = firstRecords.get(offerId)
    for (const price of FIRST_RECORD_PRICES) {
      const from = values[price.date]
      const first = firsts?.get(price.type)
      if (typeof from === 'string' && first !== undefined && from < first) return price.field
    }
    return undefined
  }

  /** Validates `rows` as a file would be, checking what the validator reports; returns the valid rows. */
  function validateAndCheck(rows: Array<Record<string, unknown>>, mode: ImportMode): PlanInput[] {
    const validate = createOfferRowsValidator(mode)
    const firstRowOfKey = new Map<string, number>()
    const inputs: PlanInput[] = []
    rows.forEach((input, index) => {
      const row = FIRST_ROW + index
      const result = validate(input, row)
      for (const error of result.errors) {
        expect(error.row).toBe(row)
        expect(error.message.length).toBeGreaterThan(0)
      }
      const has = (field: string) => {
        const value = Object.hasOwn(input, field) ? input[field] : undefined
        return !(value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
      }
      for (const field of ['source_investment_id', 'source_property_id']) {
        if (!has(field)) expect(result.errors).toContainEqual(expect.objectContaining({ row, field, code: 'required' }))
      }
      // a standalone part or a room is never taken as a type
      if (input.prop_type === 'garaż' || input.prop_type === 'miejsce postojowe')
        expect(result.errors).toContainEqual(
          expect.objectContaining({ row, field: 'prop_type', code: 'prop_type_not_allowed' }),
        )
      if (result.key !== null) {
        const first = firstRowOfKey.get(result.key)
        if (first === undefined) firstRowOfKey.set(result.key, row)
        else expect(result.errors).toContainEqual(expect.objectContaining({ row, code: 'duplicate_key' }))
      } else {
        // a row without both ids is never valid
        expect(result.errors.length).toBeGreaterThan(0)
      }
      if (result.errors.length === 0) inputs.push({ row, values: result.values })
    })
    return inputs
  }

  /** What a plan must say about its valid inputs, whatever they are. */
  function checkPlan(plan: OfferPlan, inputs: PlanInput[], mode: ImportMode): void {
    const inputRows = new Set(inputs.map((i) => i.row))
    const rowOps = plan.operations.filter((op) => op.action !== 'archive')
    for (const op of rowOps) expect(inputRows.has(op.row as number)).toBe(true)
    const errorsByRow = new Map<number, RowError[]>()
    for (const error of plan.errors) {
      expect(inputRows.has(error.row)).toBe(true)
      errorsByRow.set(error.row, [...(errorsByRow.get(error.row) ?? []), error])
    }
    for (const input of inputs) {
      const values = input.values
      const key = offerKey(values.sourceInvestmentId as string, values.sourcePropertyId as string)
      const existing = catalogByKey.get(key)
      const ops = rowOps.filter((op) => op.row === input.row)
      const errors = errorsByRow.get(input.row as number) ?? []
      // exactly one outcome per valid row
      expect(ops.length + errors.length).toBe(1)
      // a price dated before the offer had that price would rewrite what published files said
      const early = existing ? dateBeforeFirstRecord(values, existing.id) : undefined
      const op = ops[0]
      if (op) {
        expect(early, 'a price date before the first record is refused').toBeUndefined()
        expect(op.key).toBe(key)
        expect(op.sourceInvestmentId).toBe(values.sourceInvestmentId)
        expect(op.sourcePropertyId).toBe(values.sourcePropertyId)
        expect(op.offerId).toBe(existing?.id ?? null)
        if (existing) expect(op.investmentId).toBe(existing.investmentId)
        expect(op.action).toBe(existing ? (op.changes.length > 0 ? 'update' : 'unchanged') : 'create')
        // only a sent type changes one (a standalone part or an unqualified offer keeps its own),
        // and a new offer without one is created without one
        if (values.propertyType === undefined) expect(op.changes).not.toContain('prop_type')
        if (op.values.propertyType !== undefined) expect(['mieszkanie', 'dom']).toContain(op.values.propertyType)
      } else {
        // a new offer without a type is no error: only a price the stored values contradict is, or
        // a price dated before the offer's first record of it
        const error = errors[0] as RowError
        expect(error.message).toBe(error.message_pl)
        expect(error.message_en.length).toBeGreaterThan(0)
        if (error.code === 'price_before_first_record') {
          expect(early).toBeDefined()
          expect(error.field).toBe(early)
        } else if (error.code === 'inconsistent_price_dates') {
          // both prices change with different dates: the new one beside the old other disagrees between them
          expect(values.priceTotalCents).toBeDefined()
          expect(values.priceM2Cents).toBeDefined()
          expect(['price_total_from', 'price_m2_from']).toContain(error.field)
        } else {
          expect(error).toMatchObject({ field: 'price_total', code: 'inconsistent_price' })
          const touchesPrice =
            values.priceTotalCents !== undefined || values.priceM2Cents !== undefined || values.area !== undefined
          expect(touchesPrice).toBe(true)
        }
      }
    }

    const archives = plan.operations.filter((op) => op.action === 'archive')
    if (mode === 'patch') {
      expect(archives).toEqual([])
      expect(plan.archiveScope).toEqual({ investments: [], total: 0 })
    } else {
      const named = new Set(inputs.map((i) => i.values.sourceInvestmentId))
      const mentioned = new Set(
        inputs.map((i) => offerKey(i.values.sourceInvestmentId as string, i.values.sourcePropertyId as string)),
      )
      const expected = catalog
        .filter(
          (o) =>
            named.has(o.investmentSource) &&
            o.status !== 'archived' &&
            !mentioned.has(o.key) &&
            !o.key.endsWith(`/%23${o.id}`),
        )
        .sort((a, b) => a.id - b.id)
      expect(archives.map((op) => op.offerId).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(expected.map((o) => o.id))
      for (const op of archives) {
        const offer = catalog.find((o) => o.id === op.offerId) as CatalogOffer
        expect(op).toMatchObject({ row: null, key: offer.key, investmentId: offer.investmentId, values: {} })
        expect(op.changes).toEqual(['property_status'])
      }
      expect(plan.archiveScope.total).toBe(archives.length)
      const perInvestment: Record<string, number> = {}
      for (const o of expected) perInvestment[o.investmentSource] = (perInvestment[o.investmentSource] ?? 0) + 1
      expect(
        Object.fromEntries(plan.archiveScope.investments.map((i) => [i.source_investment_id, i.archived])),
      ).toEqual(perInvestment)
    }

    const counts = { create: 0, update: 0, unchanged: 0, archive: 0 }
    for (const op of plan.operations) counts[op.action]++
    expect(plan.counts).toEqual(counts)
    expect(plan.digest).toMatch(/^[0-9a-f]{64}$/)
  }

  for (const mode of ['patch', 'snapshot'] as const) {
    it(
      `validates and plans arbitrary rows in ${mode} mode: no throw, every bad row reported, one outcome per valid row`,
      async () => {
        let validRows = 0
        let plannedOps = 0
        await fc.assert(
          fc.asyncProperty(rowsArbitrary, async (rows) => {
            const inputs = validateAndCheck(rows, mode)
            const plan = await planOffers(env.ctx.db, inputs, { mode, today: TODAY })
            checkPlan(plan, inputs, mode)
            // planning again against the same catalog arrives at the same plan
            const again = await planOffers(env.ctx.db, inputs, { mode, today: TODAY })
            expect(again.digest).toBe(plan.digest)
            expect(again.operations).toEqual(plan.operations)
            validRows += inputs.length
            plannedOps += plan.operations.length
          }),
          { numRuns: NUM_RUNS },
        )
        // the generators must reach the planner, not only the validator's error paths
        expect(validRows).toBeGreaterThan(NUM_RUNS)
        expect(plannedOps).toBeGreaterThan(NUM_RUNS)
      },
      PROPERTY_TIMEOUT_MS,
    )
  }

  it(
    'plans a snapshot of only valid, mentioned rows to archive exactly the rest of the named investments',
    async () => {
      // rows that are all valid and new-or-existing, so the snapshot scope is exercised on every run
      const validRow = fc
        .record({
          investment: fc.constantFrom('INV-A', 'INV/2024/01', 'INV-B', 'INV-NEW'),
          property: fc.constantFrom(...PROPERTIES),
          type: fc.constantFrom('mieszkanie', 'dom', ''),
          status: fc.constantFrom('wolne', 'sprzedane', 'archiwalne'),
        })
        .map((r) => ({
          source_investment_id: r.investment,
          source_property_id: r.property,
          prop_type: r.type,
          property_status: r.status,
        }))
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(validRow, {
            maxLength: 12,
            selector: (r) => offerKey(r.source_investment_id, r.source_property_id),
          }),
          async (rows) => {
            const inputs = validateAndCheck(rows, 'snapshot')
            expect(inputs).toHaveLength(rows.length)
            const plan = await planOffers(env.ctx.db, inputs, { mode: 'snapshot', today: TODAY })
            expect(plan.errors).toEqual([])
            checkPlan(plan, inputs, 'snapshot')
            const patch = await planOffers(env.ctx.db, inputs, { mode: 'patch', today: TODAY })
            // the snapshot is the patch plus the archiving, in the same order
            expect(plan.operations.filter((op) => op.action !== 'archive')).toEqual(patch.operations)
          },
        ),
        { numRuns: NUM_RUNS },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )
})
