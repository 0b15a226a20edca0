/*
 * Property: over generated catalogs — investments published, drafts, private or trashed, public or
 * private visibility, public prices on or off; offers of every status and host status (archived
 * ones through the editor's archive), flats, houses and standalone parts; prices and parts
 * announced for later days; any published statuses of the official publication — the public
 * endpoint answers exactly the published flats, houses and standalone parts of a published
 * investment whose public prices are on, whose status the publication lists and is on sale (the
 * official file's units on offer); nothing dated after today; each price the one in force today;
 * and no key outside the documented (closed) shape. Every catalog is written through the editor's
 * services, the one write path.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { beforeAll, expect, it } from 'vitest'

import { createInvestment } from '../../src/editor/investment-editor-service.js'
import { changeOfferLifecycle, createOffer, updateOffer } from '../../src/editor/offer-editor-service.js'
import type { Actor } from '../../src/host/audit/audit.js'
import { updatePublicPricesSettings } from '../../src/public-prices/public-prices-settings.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { PublicPricesSchema } from '../../src/public-prices/schemas.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
const TODAY = '2026-11-20'
const actor: Actor = { type: 'system' }
const SECRET = 'UKRYTE'

const pastDay = fc.constantFrom<string>('2026-10-01', '2026-11-01', '2026-11-19', TODAY)
const anyDay = fc.constantFrom<string>('2026-10-01', '2026-11-01', TODAY, '2026-11-21', '2027-01-01')

const offerArb = fc
  .record({
    type: fc.constantFrom('mieszkanie', 'dom', 'parking_space'),
    status: fc.constantFrom('available', 'reserved', 'sold', 'unavailable'),
    hostStatus: fc.constantFrom('publish', 'draft', 'private'),
    archived: fc.boolean(),
    firstFrom: pastDay,
    firstCents: fc.integer({ min: 100_000, max: 200_000 }).map((zl) => zl * 100),
    change: fc.option(
      fc.record({ from: anyDay, cents: fc.integer({ min: 100_000, max: 200_000 }).map((z) => z * 100) }),
    ),
    part: fc.option(fc.record({ from: anyDay, cents: fc.integer({ min: 1, max: 90 }).map((k) => k * 100_000) })),
  })
  // a change never starts before the offer's first price (the write path refuses it)
  .map((offer) =>
    offer.change && offer.change.from < offer.firstFrom
      ? { ...offer, change: { ...offer.change, from: offer.firstFrom } }
      : offer,
  )

const investmentArb = fc.record({
  hostStatus: fc.constantFrom('publish', 'publish', 'publish', 'draft', 'private', 'trash'),
  visibility: fc.constantFrom('public', 'public', 'private'),
  enabled: fc.constantFrom(true, true, false),
  offers: fc.array(offerArb, { maxLength: 4 }),
})

type Generated<A> = A extends fc.Arbitrary<infer T> ? T : never
type OfferCase = Generated<typeof offerArb>
type InvestmentCase = Generated<typeof investmentArb>

/** The price the model says is in force today: the latest dated on or before today (the later write on a tie). */
function expectedTotal(offer: OfferCase): { amount: string; valid_from: string } {
  let current: { cents: number; from: string } = { cents: offer.firstCents, from: offer.firstFrom }
  if (offer.change && offer.change.from <= TODAY && offer.change.from >= current.from)
    current = { cents: offer.change.cents, from: offer.change.from }
  return { amount: (current.cents / 100).toFixed(2), valid_from: current.from }
}

const statusesArb = fc.subarray(['available', 'reserved', 'sold', 'unavailable'], { minLength: 1 })

/** Whether the investment is answered: published and on, whatever its visibility (as the file lists it). */
function answerable(investment: InvestmentCase): boolean {
  return investment.hostStatus === 'publish' && investment.enabled
}

function shown(investment: InvestmentCase, offer: OfferCase, statuses: readonly string[]): boolean {
  return (
    answerable(investment) &&
    offer.hostStatus === 'publish' &&
    !offer.archived &&
    statuses.includes(offer.status) &&
    (offer.status === 'available' || offer.status === 'reserved')
  )
}

/** Every string in the answer, with its path. */
function strings(value: unknown, path = '$', out: Array<[string, string]> = []): Array<[string, string]> {
  if (typeof value === 'string') out.push([path, value])
  else if (Array.isArray(value)) value.forEach((item, i) => strings(item, `${path}[${i}]`, out))
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) strings(item, `${path}.${key}`, out)
  return out
}

describeEachDatabase(
  'public prices: nothing unpublished, private, archived, off sale or future is answered',
  (getEnv) => {
    let env: TestEnv
    let sequence = 0
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(PublicPricesSchema)

    beforeAll(() => {
      env = getEnv()
      env.clock.set(`${TODAY}T10:00:00Z`)
    })

    async function write(investments: InvestmentCase[], statuses: readonly string[]) {
      const written: Array<{ id: number; spec: InvestmentCase; offers: Array<{ id: number; spec: OfferCase }> }> = []
      for (const spec of investments) {
        sequence++
        const investment = await createInvestment(env.ctx, actor, {
          title: `${answerable(spec) ? 'Inwestycja' : SECRET} ${sequence}`,
          host_status: spec.hostStatus,
          visibility: spec.visibility,
          location: { city: 'Poznań' },
        })
        const offers: Array<{ id: number; spec: OfferCase }> = []
        for (const [index, offer] of spec.offers.entries()) {
          const code = `${shown(spec, offer, statuses) ? 'L' : SECRET}-${sequence}-${index}`
          const dwelling = offer.type !== 'parking_space'
          const created = await createOffer(env.ctx, actor, {
            investment_id: investment.id,
            prop_no: code,
            prop_type: offer.type,
            property_status: offer.status,
            host_status: offer.hostStatus,
            price_total: (offer.firstCents / 100).toFixed(2),
            price_total_from: offer.firstFrom,
            ...(dwelling
              ? {
                  prop_area: '50.00',
                  price_m2: (offer.firstCents / 5000).toFixed(2),
                  price_m2_from: offer.firstFrom,
                }
              : {}),
            ...(offer.part && dwelling
              ? {
                  components: [
                    {
                      kind: 'storage_room',
                      designation: `K-${index}`,
                      price: (offer.part.cents / 100).toFixed(2),
                      price_from: offer.part.from,
                    },
                  ],
                }
              : {}),
          })
          let version = created.offer.version
          if (offer.change) {
            const changed = await updateOffer(
              env.ctx,
              actor,
              created.offer.id,
              {
                price_total: (offer.change.cents / 100).toFixed(2),
                price_total_from: offer.change.from,
                ...(dwelling
                  ? { price_m2: (offer.change.cents / 5000).toFixed(2), price_m2_from: offer.change.from }
                  : {}),
              },
              version,
            )
            version = changed.offer.version
          }
          if (offer.archived) await changeOfferLifecycle(env.ctx, actor, created.offer.id, 'archive', {}, version)
          offers.push({ id: created.offer.id, spec: offer })
        }
        await updatePublicPricesSettings(
          env.ctx,
          actor,
          investment.id,
          { enabled: spec.enabled, allowed_origins: ['https://www.example.pl'] },
          'http://localhost',
        )
        written.push({ id: investment.id, spec, offers })
      }
      return written
    }

    it('answers exactly the published units on offer of answerable investments, priced as today, in the documented shape', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(investmentArb, { minLength: 1, maxLength: 3 }),
          statusesArb,
          async (investments, statuses) => {
            await updatePublicationSettings(env.ctx, { published_statuses: statuses }, actor)
            const written = await write(investments, statuses)
            for (const investment of written) {
              const answer = await env.app.inject({
                method: 'GET',
                url: `${API}/public/investments/${investment.id}/prices`,
                headers: { origin: 'https://www.example.pl' },
              })
              expect(answer.body).not.toContain(SECRET)
              if (!answerable(investment.spec)) {
                expect(answer.statusCode).toBe(404)
                expect(answer.json()).toEqual({ error: 'public_prices_unavailable' })
                continue
              }
              expect(answer.statusCode, answer.body).toBe(200)
              const body = answer.json() as { day: string; units: Array<Record<string, unknown>> }
              expect(validate(body) ? [] : validate.errors).toEqual([])
              expect(body.day).toBe(TODAY)
              const expected = investment.offers.filter((offer) => shown(investment.spec, offer.spec, statuses))
              expect(body.units.map((unit) => unit.id).sort()).toEqual(expected.map((offer) => offer.id).sort())
              for (const offer of expected) {
                const unit = body.units.find((u) => u.id === offer.id) as Record<string, unknown>
                expect(unit.status).toBe(offer.spec.status)
                expect(unit.kind).toBe(
                  { mieszkanie: 'flat', dom: 'house', parking_space: 'parking_space' }[offer.spec.type],
                )
                expect(unit.price_total).toEqual(expectedTotal(offer.spec))
                // a part sold on its own has its total only, as in the official file
                if (offer.spec.type === 'parking_space')
                  expect([unit.price_m2, unit.price_combined]).toEqual([null, null])
                const part = offer.spec.type === 'parking_space' ? null : offer.spec.part
                const amount = part ? (part.cents / 100).toFixed(2) : ''
                expect(unit.parts).toEqual(
                  part
                    ? [
                        expect.objectContaining({
                          kind: 'storage_room',
                          price: part.from <= TODAY ? { amount, valid_from: part.from } : null,
                          history: part.from <= TODAY ? [{ valid_from: part.from, amount }] : [],
                        }),
                      ]
                    : [],
                )
              }
              // nothing dated after today, anywhere in the answer
              for (const [path, text] of strings(body))
                if (/^\d{4}-\d{2}-\d{2}$/.test(text)) expect(text <= TODAY, `${path} = ${text}`).toBe(true)
            }
          },
        ),
        { numRuns: 50 },
      )
    })
  },
)
