/*
 * Property: every channel tells the same price for the day. Over generated units (flats with an
 * area, a price per m² and the total their product, some with a parking space as a part, and
 * parking spaces sold on their own) and generated histories over simulated days (price changes
 * dated today, prices announced a few days ahead, parts added and repriced, package prices, days
 * published, some twice), for every day of the history and every day an announcement takes
 * effect, with the clock on that day: the file of the day (as published that day, and as read
 * again afterwards), the catalog's list, detail and price history, the public prices and the
 * editor's `in_force` and price history give the price per m², the total, column 42 and the part's
 * price of each unit with the date it holds from, all equal to the plain reading of what was
 * entered (the latest record dated on or before the day); a record dated after the day is flagged
 * as announced, or absent.
 */
import fs from 'node:fs/promises'

import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { beforeAll, expect, it } from 'vitest'

import { formatDate, formatPln } from '../../src/catalog/presentation.js'
import { setUpDemo } from '../../src/demo/demo-setup.js'
import type { DeveloperRow } from '../../src/host/db/schema.js'
import { readDailyOffers } from '../../src/publication/daily-file/collect-daily-input.js'
import { primaryDataset } from '../../src/publication/daily-file/datasets.js'
import { OFFICIAL_COLUMN_INDEX } from '../../src/publication/daily-file/official-columns.js'
import { publicationStore } from '../../src/publication/publication-store.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
const COL = OFFICIAL_COLUMN_INDEX
type Json = Record<string, any>

/** A unit: usable area in hundredths of a m², price per m² in grosze (a standalone part's total is their product too). */
const flatArb = fc.record({
  area: fc.integer({ min: 2500, max: 12_000 }),
  m2: fc.integer({ min: 600_000, max: 2_000_000 }),
  /** A parking space sold on its own: a total only. */
  standalone: fc.constantFrom(false, false, true),
})

const editArb = fc.record({
  unit: fc.nat({ max: 9 }),
  kind: fc.constantFrom('change', 'announce', 'part', 'part_announce', 'package', 'part_withdraw'),
  m2: fc.integer({ min: 600_000, max: 2_000_000 }),
  part: fc.integer({ min: 100, max: 900 }).map((hundreds) => hundreds * 10_000),
  ahead: fc.integer({ min: 1, max: 3 }),
  /** A package price: the total plus this share of the part, in percent. */
  share: fc.integer({ min: 0, max: 100 }),
})

/** A day's edits, and when its file is published: not at all, after the edits, or also before them (then again). */
const dayArb = fc.record({
  edits: fc.array(editArb, { maxLength: 3 }),
  publish: fc.constantFrom('no', 'after', 'before_and_after'),
})

type Edit = typeof editArb extends fc.Arbitrary<infer T> ? T : never

/** One price as entered: its amount, the day it holds from, and the order it was written in. */
interface Entered {
  cents: number | null
  from: string
  seq: number
}

interface Unit {
  id: number
  code: string
  areaHundredths: number
  standalone: boolean
  m2: Entered[]
  total: Entered[]
  part: Entered[]
  package: Entered[]
  partId: number | null
}

interface Price {
  cents: number | null
  from: string | null
}

const NONE: Price = { cents: null, from: null }

/** The plain reading: the latest entered record dated on or before the day (the later write on a tie). */
function inForce(entered: readonly Entered[], day: string): Entered | undefined {
  return entered
    .filter((e) => e.from <= day)
    .sort((a, b) => a.from.localeCompare(b.from) || a.seq - b.seq)
    .at(-1)
}

/** The next announcement: the earliest date after the day, the latest written of that date. */
function nextAfter(entered: readonly Entered[], day: string): Entered | undefined {
  const later = entered.filter((e) => e.from > day)
  const first = later.map((e) => e.from).sort()[0]
  return later
    .filter((e) => e.from === first)
    .sort((a, b) => a.seq - b.seq)
    .at(-1)
}

const raw = (e: Entered | undefined): Price => (e ? { cents: e.cents, from: e.from } : NONE)
const price = (e: Entered | undefined): Price => (e && e.cents !== null ? { cents: e.cents, from: e.from } : NONE)

/**
 * What the unit's prices were on the day, read from what was entered: column 42 is the total plus
 * the part, dated by the later of them, unless a package price entered on or after both (and not
 * below the total) holds (docs/decisions/published-record.md).
 */
function expectedOn(unit: Unit, day: string) {
  const total = inForce(unit.total, day)
  const partRecord = inForce(unit.part, day)
  const part = partRecord?.cents === null ? undefined : partRecord
  const packagePrice = inForce(unit.package, day)
  const derived: Price =
    total && part
      ? {
          cents: (total.cents as number) + (part.cents as number),
          from: part.from > total.from ? part.from : total.from,
        }
      : NONE
  let combined = derived
  let source = derived.cents === null ? 'none' : 'derived'
  let heldPackage: Price | null = null
  if (packagePrice && total) {
    const inputsFrom = part && part.from > total.from ? part.from : total.from
    if (
      packagePrice.from >= inputsFrom &&
      packagePrice.cents !== null &&
      total.cents !== null &&
      packagePrice.cents >= total.cents
    ) {
      combined = price(packagePrice)
      source = 'package'
    } else if (derived.cents !== packagePrice.cents) {
      heldPackage = price(packagePrice)
    }
  }
  return {
    m2: price(inForce(unit.m2, day)),
    total: price(total),
    combined,
    source,
    heldPackage,
    part: price(part),
    package: price(packagePrice),
  }
}

/** Grosze as the file and the API write them. */
const decimal = (cents: number): string => `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`
const cells = (p: Price): [string, string] => (p.cents === null ? ['X', 'X'] : [decimal(p.cents), p.from ?? ''])
const amountOf = (p: Price) => (p.cents === null ? null : decimal(p.cents))
const publicPrice = (p: Price) => (p.cents === null ? null : { amount: decimal(p.cents), valid_from: p.from })

const FIRST_DAY = Date.UTC(2027, 0, 4)
const dayOf = (n: number) => new Date(FIRST_DAY + n * 86_400_000).toISOString().slice(0, 10)

describeEachDatabase(
  'channels agree for the day',
  (getEnv) => {
    let env: TestEnv
    let admin: TestUser
    let reader: TestUser
    let developer: DeveloperRow
    let run = 0
    let seq = 0

    const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: unknown, headers = {}) =>
      env.app.inject({
        method,
        url: `${API}${url}`,
        ...(payload === undefined ? {} : { payload: payload as Json }),
        headers: { authorization: admin.authorization, ...headers },
      })
    const catalog = async (url: string) => {
      const answer = await env.app.inject({
        method: 'GET',
        url: `${API}/catalog${url}`,
        headers: { authorization: reader.authorization },
      })
      expect(answer.statusCode, answer.body).toBe(200)
      return answer.json() as Json
    }
    const at = (date: string) => env.clock.set(`${date}T10:00:00Z`)

    /** A write of the editor, sent with the offer's current version. */
    async function write(unit: Unit, method: 'PATCH' | 'POST', url: string, body: Json, status = 200) {
      const current = (await call('GET', `/offers/${unit.id}`)).json() as Json
      const answer = await call(method, url, { ...body, version: current.version }, { 'if-match': current.version })
      expect(answer.statusCode, answer.body).toBe(status)
      return answer.json() as Json
    }

    /** A value not entered before for this price of the unit: the same value again would change only its date. */
    function fresh(entered: readonly Entered[], cents: number): number {
      let value = cents
      while (entered.some((e) => e.cents === value)) value++
      return value
    }

    async function createUnits(
      flats: Array<{ area: number; m2: number; standalone: boolean }>,
      investmentId: number,
      today: string,
    ) {
      const units: Unit[] = []
      for (const [index, flat] of flats.entries()) {
        const total = Math.round((flat.m2 * flat.area) / 100)
        const code = `KA${run}/${index + 1}`
        const created = await call(
          'POST',
          '/offers',
          flat.standalone
            ? {
                investment_id: investmentId,
                prop_no: code,
                prop_type: 'parking_space',
                property_status: 'available',
                price_total: decimal(total),
                price_total_from: today,
              }
            : {
                investment_id: investmentId,
                prop_no: code,
                prop_type: 'mieszkanie',
                property_status: 'available',
                prop_area: decimal(flat.area),
                prop_rooms: 2,
                price_m2: decimal(flat.m2),
                price_m2_from: today,
                price_total: decimal(total),
                price_total_from: today,
              },
        )
        expect(created.statusCode, created.body).toBe(201)
        units.push({
          id: (created.json() as Json).id as number,
          code,
          areaHundredths: flat.area,
          standalone: flat.standalone,
          m2: flat.standalone ? [] : [{ cents: flat.m2, from: today, seq: ++seq }],
          total: [{ cents: total, from: today, seq: ++seq }],
          part: [],
          package: [],
          partId: null,
        })
      }
      return units
    }

    async function apply(unit: Unit, edit: Edit, today: string) {
      const ahead = dayOf(Math.round((Date.parse(`${today}T00:00:00Z`) - FIRST_DAY) / 86_400_000) + edit.ahead)
      switch (edit.kind) {
        case 'change':
        case 'announce': {
          const from = edit.kind === 'change' ? today : ahead
          const m2 = fresh(unit.m2, edit.m2)
          const total = unit.standalone
            ? fresh(unit.total, Math.round((edit.m2 * unit.areaHundredths) / 100))
            : Math.round((m2 * unit.areaHundredths) / 100)
          await write(unit, 'PATCH', `/offers/${unit.id}`, {
            ...(unit.standalone ? {} : { price_m2: decimal(m2), price_m2_from: from }),
            price_total: decimal(total),
            price_total_from: from,
          })
          if (!unit.standalone) unit.m2.push({ cents: m2, from, seq: ++seq })
          unit.total.push({ cents: total, from, seq: ++seq })
          return
        }
        case 'part':
        case 'part_announce': {
          const from = edit.kind === 'part' ? today : ahead
          if (unit.standalone) return
          const cents = fresh(unit.part, edit.part)
          if (unit.partId === null) {
            const designation = `MP ${unit.code}`
            const added = await write(
              unit,
              'POST',
              `/offers/${unit.id}/components`,
              { group: 'part', kind_label: 'Miejsce postojowe', designation, price: decimal(cents), price_from: from },
              201,
            )
            unit.partId = ((added.components as Json[]).find((c) => c.designation === designation) as Json).id as number
          } else {
            await write(unit, 'PATCH', `/offers/${unit.id}/components/${unit.partId}`, {
              price: decimal(cents),
              price_from: from,
            })
          }
          unit.part.push({ cents, from, seq: ++seq })
          return
        }
        case 'part_withdraw': {
          if (unit.partId === null || unit.part.at(-1)?.cents === null) return
          await write(unit, 'PATCH', `/offers/${unit.id}/components/${unit.partId}`, { price: null, price_from: ahead })
          unit.part.push({ cents: null, from: ahead, seq: ++seq })
          return
        }
        case 'package': {
          // a package price is the unit with its part: none for a flat without a part
          const part = unit.part.at(-1)
          const total = unit.total.at(-1) as Entered
          if (!part) return
          // never below the stored total, which the editor holds a package price sent alone to
          const cents = fresh(
            unit.package,
            (total.cents as number) + Math.floor(((part.cents ?? 0) * edit.share) / 100),
          )
          await write(unit, 'PATCH', `/offers/${unit.id}`, {
            price_combined: decimal(cents),
            price_combined_from: today,
          })
          unit.package.push({ cents, from: today, seq: ++seq })
          return
        }
      }
    }

    /** The rows of the latest file of a day, by property code. */
    async function publishedRows(date: string): Promise<string[][]> {
      const manifest = await publicationStore(env.ctx).currentManifest()
      const entry = manifest?.days.filter((d) => d.date === date).at(-1)
      if (!entry) throw new Error(`no file of ${date}`)
      const csv = await fs.readFile(publicationStore(env.ctx).csvPath(entry.md5))
      return parse(csv, { delimiter: ';', from_line: 2 }) as string[][]
    }

    async function fileOf(day: string) {
      const listed = new Map<number, Json>()
      for await (const offers of readDailyOffers(env.ctx, {
        day,
        developer,
        includeUnassigned: true,
        statuses: ['available', 'reserved'],
        inconsistent: [],
        untyped: [],
      }))
        for (const offer of offers) listed.set(offer.id, offer as unknown as Json)
      return listed
    }

    async function checkDay(units: Unit[], investmentId: number, day: string, published: boolean) {
      at(day)
      const file = await fileOf(day)
      const rows = published ? await publishedRows(day) : []
      const list = (await catalog(`/properties?investment=${investmentId}&per_page=100`)) as unknown as Json[]
      const answer = await env.app.inject({ method: 'GET', url: `${API}/public/investments/${investmentId}/prices` })
      expect(answer.statusCode, answer.body).toBe(200)
      const publicUnits = (answer.json() as Json).units as Json[]
      expect((answer.json() as Json).day).toBe(day)
      expect(publicUnits.map((u) => u.id as number).sort()).toEqual(units.map((u) => u.id).sort())

      for (const unit of units) {
        const want = expectedOn(unit, day)
        const where = `${unit.code} on ${day}`

        // the file of the day, read again now
        const listed = file.get(unit.id)
        expect(listed, where).toBeDefined()
        expect(
          {
            m2: { cents: listed?.priceM2Cents, from: listed?.priceM2From },
            total: { cents: listed?.priceTotalCents, from: listed?.priceTotalFrom },
            combined: { cents: listed?.priceCombinedCents, from: listed?.priceCombinedFrom },
            part: (listed?.components as Json[]).map((c) => ({ cents: c.priceCents, from: c.priceFrom })),
          },
          `file read again: ${where}`,
        ).toEqual({
          m2: want.m2,
          total: want.total,
          combined: want.combined,
          part: unit.partId === null ? [] : [want.part],
        })

        // the file as published that day
        if (published) {
          const row = rows.find((r) => r[COL.property_code] === unit.code || r[COL.part_designation] === unit.code)
          expect(row, `published file: ${where}`).toBeDefined()
          if (unit.standalone)
            expect(
              [
                row?.slice(COL.price_m2, COL.price_combined_from + 1),
                row?.slice(COL.part_price, COL.part_price_from + 1),
              ],
              `published file: ${where}`,
            ).toEqual([['X', 'X', 'X', 'X', 'X', 'X'], cells(want.total)])
          else
            expect(
              [
                row?.slice(COL.price_m2, COL.price_m2_from + 1),
                row?.slice(COL.price_total, COL.price_total_from + 1),
                row?.slice(COL.price_combined, COL.price_combined_from + 1),
                row?.slice(COL.part_price, COL.part_price_from + 1),
              ],
              `published file: ${where}`,
            ).toEqual([cells(want.m2), cells(want.total), cells(want.combined), cells(want.part)])
        }

        // the catalog: list, detail, price history
        const catalogPrices = {
          price_cents: want.total.cents ?? 0,
          price_m2_cents: want.m2.cents ?? 0,
          price_date: formatDate(want.total.from),
          price_m2_date: formatDate(want.m2.from),
        }
        expect(
          list.find((o) => o.id === unit.id),
          `catalog list: ${where}`,
        ).toMatchObject(catalogPrices)
        const detail = await catalog(`/properties/${unit.id}`)
        expect(detail.offer, `catalog detail: ${where}`).toMatchObject(catalogPrices)
        expect(detail.price, `catalog detail: ${where}`).toMatchObject({
          cents: want.total.cents,
          valid_from: want.total.from,
        })
        expect(
          (detail.components as Json[]).map((c) => [c.price, c.date]),
          `catalog detail part: ${where}`,
        ).toEqual(unit.partId === null ? [] : [[formatPln(want.part.cents), formatDate(want.part.from)]])

        const history = (await catalog(`/properties/${unit.id}/price-history`)).items as Json[]
        for (const item of history)
          expect(item.announced, `catalog history ${item.price_type} ${item.valid_from}: ${where}`).toBe(
            item.valid_from > day,
          )
        const ledger = { m2: unit.m2, total: unit.total, component: unit.part, combined: unit.package }
        for (const [type, entered] of Object.entries(ledger)) {
          const records = history.filter((i) => i.price_type === type)
          expect(
            records.map((i) => [i.after.cents, i.valid_from]),
            `catalog history ${type}: ${where}`,
          ).toEqual(
            [...entered].sort((a, b) => a.from.localeCompare(b.from) || a.seq - b.seq).map((e) => [e.cents, e.from]),
          )
          const latest = records.filter((i) => !i.announced).at(-1)
          const wanted = raw(inForce(entered, day))
          expect(
            latest ? { cents: latest.after.cents, from: latest.valid_from } : NONE,
            `catalog history ${type}, latest in force: ${where}`,
          ).toEqual(wanted)
        }

        // the public prices: the day's prices, nothing dated after the day
        const shown = publicUnits.find((u) => u.id === unit.id) as Json
        expect(
          {
            price_m2: shown.price_m2,
            price_total: shown.price_total,
            price_combined: shown.price_combined,
            parts: (shown.parts as Json[]).map((p) => p.price),
          },
          `public prices: ${where}`,
        ).toEqual({
          price_m2: publicPrice(want.m2),
          price_total: publicPrice(want.total),
          price_combined: publicPrice(want.combined),
          parts: unit.partId === null ? [] : [publicPrice(want.part)],
        })
        // its history: each date up to the day on which a price took effect, newest first, with the
        // prices in force from that date; nothing announced
        const datesUpTo = (entered: readonly Entered[]) =>
          [...new Set(entered.map((e) => e.from).filter((from) => from <= day))].sort().reverse()
        expect(shown.history, `public history: ${where}`).toEqual(
          datesUpTo([...unit.m2, ...unit.total]).map((date) => ({
            valid_from: date,
            price_m2: amountOf(price(inForce(unit.m2, date))),
            price_total: amountOf(price(inForce(unit.total, date))),
          })),
        )
        expect(
          (shown.parts as Json[]).map((p) => p.history),
          `public part history: ${where}`,
        ).toEqual(
          unit.partId === null
            ? []
            : [
                datesUpTo(unit.part).map((date) => ({
                  valid_from: date,
                  amount: amountOf(price(inForce(unit.part, date))),
                })),
              ],
        )

        // the editor's price history flags what is announced on the day, as the catalog's does
        const editorHistory = (await call('GET', `/offers/${unit.id}/price-history`)).json().items as Json[]
        expect(
          editorHistory.map((i) => [i.price_type, i.after.cents, i.valid_from, i.announced]),
          `editor history: ${where}`,
        ).toEqual(history.map((i) => [i.price_type, i.after.cents, i.valid_from, i.valid_from > day]))

        // the editor's prices in force, with the next announced price beside each
        const view = (await call('GET', `/offers/${unit.id}`)).json() as Json
        const withNext = (entered: readonly Entered[]) => {
          const now = price(inForce(entered, day))
          const next = nextAfter(entered, day)
          return {
            amount: amountOf(now),
            from: now.from,
            announced: next !== undefined,
            next: next ? { amount: next.cents === null ? null : decimal(next.cents), from: next.from } : null,
          }
        }
        expect(view.in_force, `editor in_force: ${where}`).toMatchObject({
          day,
          price_m2: withNext(unit.m2),
          price_total: withNext(unit.total),
          price_combined: {
            amount: amountOf(want.combined),
            from: want.combined.from,
            source: want.source,
            held_package:
              want.heldPackage === null ? null : { amount: amountOf(want.heldPackage), from: want.heldPackage.from },
          },
          components: unit.partId === null ? [] : [{ id: unit.partId, ...withNext(unit.part) }],
        })
      }
    }

    beforeAll(async () => {
      env = getEnv()
      at(dayOf(-3))
      await setUpDemo(env.ctx)
      // without an end date: a shrinking counterexample runs on days long after the demo's year
      await grantProLicense(env.ctx)
      admin = await createTestUser(env.ctx, 'administrator')
      reader = await createTestUser(env.ctx, 'dg_catalog_reader')
      await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
      developer = ((await primaryDataset(env.ctx)) as { developer: DeveloperRow }).developer
    })

    it('property: the file, the catalog, the public prices and the editor give the same price and date for every unit on every day', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(flatArb, { minLength: 1, maxLength: 3 }),
          fc.array(dayArb, { minLength: 2, maxLength: 6 }),
          async (flats, days) => {
            // each run on days of its own: a published day stays published
            const first = run++ * 10
            const today = (d: number) => dayOf(first + d)
            at(today(0))
            const investment = await call('POST', '/investments', {
              title: `Kanały ${run}`,
              host_status: 'publish',
              visibility: 'public',
              location: {
                voivodeship: 'mazowieckie',
                powiat: 'Warszawa',
                gmina: 'Warszawa',
                city: 'Warszawa',
                street: 'Prosta',
                building_no: String(run),
                postal_code: '00-850',
              },
              prospectus_url: 'https://deweloper.example.pl/prospekt.pdf',
            })
            expect(investment.statusCode, investment.body).toBe(201)
            const investmentId = (investment.json() as Json).id as number
            const enabled = await call('PUT', `/investments/${investmentId}/public-prices`, { enabled: true })
            expect(enabled.statusCode, enabled.body).toBe(200)
            const units = await createUnits(flats, investmentId, today(0))

            const published = new Set<string>()
            const publish = async (date: string) => {
              const outcome = await call('POST', '/publications', { date })
              expect(outcome.statusCode, outcome.body).toBe(200)
              published.add(date)
            }
            for (const [d, plan] of days.entries()) {
              at(today(d))
              // a change dated today after today's file is published as a new version of the day
              if (plan.publish === 'before_and_after') await publish(today(d))
              for (const edit of plan.edits) await apply(units[edit.unit % units.length] as Unit, edit, today(d))
              if (plan.publish !== 'no') await publish(today(d))
            }

            // every day of the history, and the days after it up to the last announcement
            const announced = units.flatMap((u) => [...u.total, ...u.part].map((e) => e.from))
            const last = [today(days.length - 1), ...announced].sort().at(-1) as string
            for (let d = 0; today(d) <= last; d++)
              await checkDay(units, investmentId, today(d), published.has(today(d)))
          },
        ),
        { numRuns: 10 },
      )
    }, 600_000)
  },
  { env: { DG_CATALOG_RATE_LIMIT: '1000000', DG_PUBLIC_PRICES_RATE_LIMIT: '1000000' } },
)
