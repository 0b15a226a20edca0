/*
 * A row whose compared text (compared-values.ts) equals its stored offer's is planned `unchanged`
 * without its values being decoded; the file worker hands rows over that way. The database must
 * make an offer's text exactly as the row's is made, and the shortcut must never plan a row other
 * than field-by-field planning does.
 */
import fc from 'fast-check'
import { beforeAll, expect, it } from 'vitest'

import { comparedText, sentChangeSet } from '../../src/offers/compared-values.js'
import { type PlannedOperation, type PlanInput, planOffers } from '../../src/offers/offer-planner.js'
import { selectPlanOffersByKeys } from '../../src/offers/offers-repository.js'
import {
  type ImportMode,
  type NormalizedOfferValues,
  offerKey,
  validateRows,
} from '../../src/offers/validation/validate-offer-row.js'
import { seedCatalog } from '../helpers/imports.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const TODAY = '2026-11-20'
const FIRST_ROW = 2

/** Rows that send every compared field, with texts JSON must escape and letters beyond ASCII (an investment's location alike in each of its rows). */
const STORED_ROWS: Array<Record<string, string>> = [
  full('W-1', '1', { prop_no: 'M "12" \\ Ł', proj_street: 'ul. "Długa"' }),
  full('W-1', '2', {
    prop_no: 'Dom 🏠 2',
    prop_floor: '-2',
    price_combined_variant: 'z garażem\\komórką',
    proj_street: 'ul. "Długa"',
  }),
  full('W-1', 'a/b', { prop_type: 'dom', prop_rooms: '0', proj_street: 'ul. "Długa"' }),
  full('W/2', '50%', { proj_voivod: 'Śląskie', proj_city: 'Łódź', proj_zip: '90001' }),
  full('W/2', '7', {
    prop_area: '100,00',
    price_m2: '9 999,99',
    price_total: '999 999,00',
    // the combined price is never below the total (column 42)
    price_combined: '1 019 999,00',
    proj_voivod: 'Śląskie',
    proj_city: 'Łódź',
    proj_zip: '90001',
  }),
  // the price combined and its date, variant and status left out: null on both sides
  Object.fromEntries(Object.entries(full('W-3', '1', {})).filter(([field]) => !field.startsWith('price_combined'))),
  // an offer created without a type (stored as '', not qualified): null on both sides too
  Object.fromEntries(Object.entries(full('W-3', '2', {})).filter(([field]) => field !== 'prop_type')),
]

function full(investment: string, property: string, extra: Record<string, string>): Record<string, string> {
  return {
    source_investment_id: investment,
    source_property_id: property,
    prop_no: `N-${property}`,
    prop_type: 'mieszkanie',
    property_status: 'wolne',
    prop_area: '50,00',
    prop_rooms: '3',
    prop_floor: '4',
    price_m2: '10 000,00',
    price_m2_from: '2026-05-01',
    price_total: '500 000,00',
    price_total_from: '2026-05-02',
    price_combined: '520 000,00',
    price_combined_from: '2026-05-03',
    price_combined_variant: 'z miejscem postojowym',
    price_combined_status: 'promocja',
    proj_voivod: 'mazowieckie',
    proj_powiat: 'Warszawa',
    proj_gmina: 'Warszawa',
    proj_city: 'Warszawa',
    proj_street: 'Polna',
    proj_build_no: '12A',
    proj_local_no: '3',
    proj_zip: '00-950',
    ...extra,
  }
}

function validated(rows: Array<Record<string, string>>): NormalizedOfferValues[] {
  const results = validateRows(rows, { mode: 'patch', firstRow: FIRST_ROW })
  expect(results.flatMap((result) => result.errors)).toEqual([])
  return results.map((result) => result.values)
}

/** An input as the file worker hands it over (compared-values.ts), counting how often its values are read. */
function knownInput(row: number, values: NormalizedOfferValues, reads: Map<number, number>): PlanInput {
  const sourceInvestmentId = values.sourceInvestmentId as string
  const sourcePropertyId = values.sourcePropertyId as string
  return {
    row,
    sourceInvestmentId,
    sourcePropertyId,
    key: offerKey(sourceInvestmentId, sourcePropertyId),
    compared: comparedText(values),
    sent: sentChangeSet(values),
    get values() {
      reads.set(row, (reads.get(row) ?? 0) + 1)
      return values
    },
  }
}

const view = (op: PlannedOperation) => ({
  row: op.row,
  key: op.key,
  action: op.action,
  sourceInvestmentId: op.sourceInvestmentId,
  sourcePropertyId: op.sourcePropertyId,
  values: op.values,
  changes: op.changes,
  before: op.before,
  offerId: op.offerId,
  investmentId: op.investmentId,
})

describeEachDatabase('planning a row by its compared text', (getEnv) => {
  let env: TestEnv

  beforeAll(async () => {
    env = getEnv()
    const inputs = validated(STORED_ROWS).map((values, i) => ({ row: FIRST_ROW + i, values }))
    const plan = await planOffers(env.ctx.db, inputs, { mode: 'patch', today: TODAY })
    expect(plan.errors).toEqual([])
    await seedCatalog(env, plan, TODAY)
  })

  it("makes a stored offer's compared text in the database exactly as the row's is made", async () => {
    const values = validated(STORED_ROWS)
    const investments = await env.ctx.db.selectFrom('investments').select(['id', 'source_id']).execute()
    const idOf = new Map(investments.map((investment) => [investment.source_id, investment.id]))
    const offers = await selectPlanOffersByKeys(
      env.ctx.db,
      values.map((v) => ({
        investmentId: idOf.get(v.sourceInvestmentId as string) as number,
        sourcePropertyId: v.sourcePropertyId as string,
      })),
    )
    expect(offers).toHaveLength(STORED_ROWS.length)
    for (const v of values) {
      const investmentId = idOf.get(v.sourceInvestmentId as string)
      const offer = offers.find((o) => o.investmentId === investmentId && o.sourcePropertyId === v.sourcePropertyId)
      expect(offer?.compared).toBe(comparedText(v))
    }
  })

  /**
   * A stored row again: as it is, with one field changed, with one field left out, or as a new
   * offer of its investment or of a new one (with that field left out, or not).
   */
  const rowArbitrary = fc
    .record({
      base: fc.integer({ min: 0, max: STORED_ROWS.length - 1 }),
      how: fc.constantFrom('same', 'same', 'changed', 'blank', 'new', 'new investment', 'new investment, blank'),
      field: fc.constantFrom(
        'prop_no',
        'property_status',
        'prop_rooms',
        'prop_floor',
        'price_m2_from',
        'price_total_from',
        'price_combined_status',
        'proj_city',
        'proj_zip',
        'proj_local_no',
        'price_total',
        'prop_type',
      ),
    })
    .map(({ base, how, field }) => {
      const row = { ...(STORED_ROWS[base] as Record<string, string>) }
      const changed: Record<string, string> = {
        prop_no: 'X-1',
        property_status: 'sprzedane',
        prop_rooms: '5',
        prop_floor: '0',
        price_m2_from: '2026-06-01',
        price_total_from: '2026-06-02',
        price_combined_status: 'cena regularna',
        proj_city: 'Kraków',
        proj_zip: '31-001',
        proj_local_no: '99',
        price_total: '500 001,00',
        prop_type: 'dom',
      }
      if (how === 'changed') row[field] = changed[field] as string
      if (how === 'blank') row[field] = ''
      if (how === 'new') row.source_property_id = `${row.source_property_id}-new`
      if (how.startsWith('new investment')) row.source_investment_id = `${row.source_investment_id}-new`
      if (how === 'new investment, blank') row[field] = ''
      // a row that leaves out the type of an offer stored without one
      const unqualifiedAsStored =
        how === 'blank' && field === 'prop_type' && !('prop_type' in (STORED_ROWS[base] ?? {}))
      return {
        row,
        same: how === 'same' || (how === 'changed' && field === 'proj_local_no') || unqualifiedAsStored,
        // every price with its date unless one was left out: created as sent, in an investment not yet stored
        createdAsSent: how === 'new investment' || (how === 'new investment, blank' && !field.startsWith('price_')),
      }
    })

  for (const mode of ['patch', 'snapshot'] as ImportMode[]) {
    it(`plans rows by their compared text as field by field, reading no values of an unchanged one (${mode})`, async () => {
      let shortcuts = 0
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(rowArbitrary, {
            minLength: 1,
            maxLength: 8,
            selector: ({ row }) => `${row.source_investment_id}\n${row.source_property_id}`,
          }),
          async (picked) => {
            const values = validateRows(
              picked.map(({ row }) => row),
              { mode, firstRow: FIRST_ROW },
            ).map((result) => result.values)
            const plain: PlanInput[] = values.map((v, i) => ({ row: FIRST_ROW + i, values: v }))
            const reads = new Map<number, number>()
            const known = values.map((v, i) => knownInput(FIRST_ROW + i, v, reads))

            const fieldByField = await planOffers(env.ctx.db, plain, { mode, today: TODAY })
            const byText = await planOffers(env.ctx.db, known, { mode, today: TODAY })
            expect(byText.operations.map(view)).toEqual(fieldByField.operations.map(view))
            expect(byText.errors).toEqual(fieldByField.errors)
            expect(byText.counts).toEqual(fieldByField.counts)
            expect(byText.digest).toBe(fieldByField.digest)

            picked.forEach(({ same, createdAsSent }, i) => {
              if (!same && !createdAsSent) return
              const op = byText.operations.find((o) => o.row === FIRST_ROW + i)
              expect(op?.action).toBe(same ? 'unchanged' : 'create')
              // read once above, by `view`; the planner itself never decoded them
              expect(reads.get(FIRST_ROW + i)).toBe(1)
              shortcuts++
            })
          },
        ),
        { numRuns: 60 },
      )
      expect(shortcuts).toBeGreaterThan(40)
    })
  }
})
