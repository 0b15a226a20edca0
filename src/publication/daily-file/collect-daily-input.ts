/*
 * Reads the catalog for the daily file of day D: every offer with host status `publish` in a
 * published investment (or one awaiting its location: editor-operation.ts) of the publishing developer, whose status is one of the published statuses,
 * with its components, each price as in force on D (price-in-force.ts: a price announced for a
 * later day is not D's price). Maps rows to the pure model of daily-csv.ts.
 */
import type { Selectable } from 'kysely'

import type { HostContext } from '../../host/context.js'
import type { DeveloperRow, OfferComponentsTable } from '../../host/db/schema.js'
import { slugify } from '../../catalog/presentation.js'
import { priceWithinRounding } from '../../offers/validation/price-consistency.js'
import { groupPriceRecords } from '../../offers/price-in-force.js'
import { selectPriceRecordsUpTo } from '../../offers/offers-repository.js'
import { hasPricedParts } from '../../offers/combined-price.js'
import { unitPricesOnDay } from '../../offers/prices-on-day.js'
import { AWAITING_LOCATION, INVESTMENT_STATUSES_IN_DAILY_FILE } from '../../offers/editor-operation.js'
import type {
  ComponentGroupKind,
  DailyCsvComponent,
  DailyCsvDeveloper,
  DailyCsvInvestment,
  DailyCsvOffer,
  DwellingType,
  StandalonePartType,
} from './daily-csv.js'

export function developerForCsv(d: DeveloperRow): DailyCsvDeveloper {
  return {
    name: d.name,
    legalForm: d.legal_form,
    krs: d.krs,
    ceidg: d.ceidg,
    nip: d.nip,
    regon: d.regon,
    phone: d.phone,
    email: d.email,
    fax: d.fax,
    website: d.website,
    seat: {
      voivodeship: d.seat_voivodeship,
      powiat: d.seat_powiat,
      gmina: d.seat_gmina,
      city: d.seat_city,
      street: d.seat_street,
      buildingNo: d.seat_building_no,
      localNo: d.seat_local_no,
      postalCode: d.seat_postal_code,
    },
    salesOffice: {
      voivodeship: d.sales_voivodeship,
      powiat: d.sales_powiat,
      gmina: d.sales_gmina,
      city: d.sales_city,
      street: d.sales_street,
      buildingNo: d.sales_building_no,
      localNo: d.sales_local_no,
      postalCode: d.sales_postal_code,
    },
    additionalSalesLocations: d.sales_additional_locations,
    contactMethod: d.contact_method,
  }
}

/** The company part of the day's file name. */
export function dailyCompanySlug(developer: Pick<DeveloperRow, 'name'>): string {
  return slugify(developer.name) || 'deweloper'
}

type ComponentRow = Pick<
  Selectable<OfferComponentsTable>,
  | 'id'
  | 'offer_id'
  | 'group_kind'
  | 'kind_label'
  | 'designation'
  | 'price_cents'
  | 'price_from'
  | 'description'
  | 'position'
>

/*
 * Components are read by the ids of the offers just read (the offer_components_offer index), in
 * batches that keep the statement's parameter count modest: filtering them through a join with
 * the offers' conditions let SQLite pick an index that scanned every published offer for each
 * investment.
 */
const COMPONENT_BATCH = 500

/** Offers whose total is not m² price × area within rounding. */
export type InconsistentOffer = { id: number; code: string }

/** Offers that would be listed but have no type yet ('' = not qualified); they are left out of the file. */
export type UntypedOffer = { id: number; code: string }

/**
 * What the file would show incompletely or leave out (each listed, never silent): offers without
 * any price (`X` in every price column), flats and houses without their price per m² alone or
 * without their total, flats and houses whose parts or rooms are priced but whose combined price
 * (column 42) is not, offers on sale left out by the published statuses or hidden as drafts, and
 * investments without a full location (29–35) or prospectus (58).
 */
export interface DailyFileGaps {
  offersWithoutPrice: { id: number; code: string }[]
  offersWithoutPriceM2: { id: number; code: string }[]
  offersWithoutTotal: { id: number; code: string }[]
  combinedPriceMissing: { id: number; code: string }[]
  /**
   * A package price set aside (combined-price.ts): the total or a part changed after it, or it is
   * below the total; column 42 shows the total plus the parts instead.
   */
  combinedPackageHeld: { id: number; code: string; package_cents: number; cents: number | null }[]
  offersLeftOutByStatus: { id: number; code: string; status: string }[]
  offersHiddenInDraft: { id: number; code: string; status: string }[]
  investmentsWithoutLocation: { id: number; title: string }[]
  investmentsWithoutProspectus: { id: number; title: string }[]
  /**
   * Investments an import, the webhook or a source made without their full location: their offers
   * are in the file, but not on the website until the location is complete and the editor publishes them.
   */
  investmentsAwaitingLocation: { id: number; title: string }[]
  /** A part or room listed with two units, or with a unit and also offered on its own (same designation). */
  partsListedTwice: { id: number; designation: string; units: string[] }[]
}

export const noGaps = (): DailyFileGaps => ({
  offersWithoutPrice: [],
  offersWithoutPriceM2: [],
  offersWithoutTotal: [],
  combinedPriceMissing: [],
  combinedPackageHeld: [],
  offersLeftOutByStatus: [],
  offersHiddenInDraft: [],
  investmentsWithoutLocation: [],
  investmentsWithoutProspectus: [],
  investmentsAwaitingLocation: [],
  partsListedTwice: [],
})

/** Statuses of units on sale: a file that leaves one of them out hides an offered unit. */
export const ON_SALE_STATUSES: readonly string[] = ['available', 'reserved']

/*
 * One investment at a time, in increasing id, so memory follows the largest investment rather
 * than the whole catalog; all reads in one read-only snapshot (repeatable read on PostgreSQL, one
 * transaction on SQLite), so the file never mixes two moments of the catalog. Per investment, flat
 * reads ordered by offer id (offers, then their components), joined by walking both lists once:
 * measured on 20,000 offers, one LEFT JOIN of offers and components repeats every offer column per
 * component row and took about twice as long.
 */
export async function* readDailyOffers(
  ctx: HostContext,
  args: {
    /** The file's day: each price as in force that day. */
    day: string
    developer: DeveloperRow
    /** Also the investments assigned to no developer entity (the publishing developer's dataset). */
    includeUnassigned: boolean
    statuses: string[]
    inconsistent: InconsistentOffer[]
    untyped: UntypedOffer[]
    gaps?: DailyFileGaps
  },
): AsyncGenerator<DailyCsvOffer[], void, undefined> {
  const trx = await ctx.db.startTransaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute()
  let ended = false
  try {
    const investmentRows = await trx
      .selectFrom('investments')
      .select([
        'investments.id',
        'investments.title',
        'investments.loc_voivodeship',
        'investments.loc_powiat',
        'investments.loc_gmina',
        'investments.loc_city',
        'investments.loc_street',
        'investments.loc_building_no',
        'investments.loc_postal_code',
        'investments.prospectus_url',
        'investments.host_status',
      ])
      // an investment awaiting its location is off the website, not out of the file: the act lists every unit on offer
      .where('investments.host_status', 'in', [...INVESTMENT_STATUSES_IN_DAILY_FILE])
      .where((eb) =>
        args.includeUnassigned
          ? eb.or([eb('investments.developer_id', '=', args.developer.id), eb('investments.developer_id', 'is', null)])
          : eb('investments.developer_id', '=', args.developer.id),
      )
      .orderBy('investments.id')
      .execute()
    for (const r of investmentRows) {
      const investment: DailyCsvInvestment = {
        id: r.id,
        location: {
          voivodeship: r.loc_voivodeship,
          powiat: r.loc_powiat,
          gmina: r.loc_gmina,
          city: r.loc_city,
          street: r.loc_street,
          buildingNo: r.loc_building_no,
          postalCode: r.loc_postal_code,
        },
        prospectusUrl: r.prospectus_url,
      }
      if (args.gaps) await findLeftOutOffers(trx, r.id, args.statuses, args.gaps)
      if (args.gaps && r.host_status === AWAITING_LOCATION)
        args.gaps.investmentsAwaitingLocation.push({ id: r.id, title: r.title })
      const offerRows = await trx
        .selectFrom('offers')
        .select([
          'offers.id',
          'offers.offer_kind',
          'offers.property_type',
          'offers.code',
          'offers.area',
          'offers.price_m2_cents',
          'offers.price_m2_from',
          'offers.price_total_cents',
          'offers.price_total_from',
          'offers.price_combined_cents',
          'offers.price_combined_from',
        ])
        .where('offers.investment_id', '=', r.id)
        .where('offers.host_status', '=', 'publish')
        .where('offers.status', 'in', args.statuses)
        .orderBy('offers.id')
        .execute()
      if (offerRows.length === 0) continue
      const gaps = args.gaps
      if (gaps) {
        const location = [
          r.loc_voivodeship,
          r.loc_powiat,
          r.loc_gmina,
          r.loc_city,
          r.loc_street,
          r.loc_building_no,
          r.loc_postal_code,
        ]
        if (location.some((value) => value === null || value.trim() === ''))
          gaps.investmentsWithoutLocation.push({ id: r.id, title: r.title })
        if (!r.prospectus_url?.trim()) gaps.investmentsWithoutProspectus.push({ id: r.id, title: r.title })
      }
      const componentRows: ComponentRow[] = []
      for (let i = 0; i < offerRows.length; i += COMPONENT_BATCH) {
        const ids = offerRows.slice(i, i + COMPONENT_BATCH).map((o) => o.id)
        componentRows.push(
          ...(await trx
            .selectFrom('offer_components')
            .select([
              'id',
              'offer_id',
              'group_kind',
              'kind_label',
              'designation',
              'price_cents',
              'price_from',
              'description',
              'position',
            ])
            .where('offer_id', 'in', ids)
            .orderBy('offer_id')
            .orderBy('position')
            .execute()),
        )
      }

      const records = groupPriceRecords(
        await selectPriceRecordsUpTo(
          trx,
          offerRows.map((o) => o.id),
          args.day,
        ),
      )
      const offers: DailyCsvOffer[] = []
      let next = 0
      for (let i = 0; i < offerRows.length; i++) {
        const stored = offerRows[i] as (typeof offerRows)[number]
        const own = records.get(stored.id)
        const offerComponents: ComponentRow[] = []
        // both lists are ordered by offer id and read with the same filter in one snapshot
        while (next < componentRows.length && (componentRows[next] as ComponentRow).offer_id < stored.id) next++
        for (; next < componentRows.length; next++) {
          const row = componentRows[next] as ComponentRow
          if (row.offer_id !== stored.id) break
          offerComponents.push(row)
        }
        const prices = unitPricesOnDay(stored, offerComponents, own, args.day)
        const o = {
          ...stored,
          price_m2_cents: prices.m2.cents,
          price_m2_from: prices.m2.from,
          price_total_cents: prices.total.cents,
          price_total_from: prices.total.from,
        }
        // legal qualification is never guessed: an offer without a type is not published
        if (o.property_type === '') {
          args.untyped.push({ id: o.id, code: o.code })
          continue
        }
        if (gaps && o.price_total_cents === null && o.price_m2_cents === null)
          gaps.offersWithoutPrice.push({ id: o.id, code: o.code })
        else if (gaps && o.offer_kind === 'property' && o.price_total_cents === null)
          gaps.offersWithoutTotal.push({ id: o.id, code: o.code })
        else if (gaps && o.offer_kind === 'property' && o.price_m2_cents === null)
          gaps.offersWithoutPriceM2.push({ id: o.id, code: o.code })
        if (o.price_total_cents !== null && o.price_m2_cents !== null && o.area) {
          if (!priceWithinRounding(o.price_total_cents, o.price_m2_cents, o.area))
            args.inconsistent.push({ id: o.id, code: o.code })
        }
        const components: DailyCsvComponent[] = []
        for (const row of offerComponents) {
          const price = prices.components.get(row.id) ?? { cents: null, from: null }
          const c = { ...row, price_cents: price.cents, price_from: price.from }
          components.push({
            groupKind: c.group_kind as ComponentGroupKind,
            kindLabel: c.kind_label,
            designation: c.designation,
            priceCents: c.price_cents,
            priceFrom: c.price_from,
            description: c.description,
            position: c.position,
          })
        }
        // column 42 is derived, a package price holds only while it is current, never silently stale
        const combined = prices.combined
        if (gaps && combined.heldPackage?.cents != null)
          gaps.combinedPackageHeld.push({
            id: o.id,
            code: o.code,
            package_cents: combined.heldPackage.cents,
            cents: combined.cents,
          })
        if (gaps && o.offer_kind === 'property' && combined.cents === null && hasPricedParts(components))
          gaps.combinedPriceMissing.push({ id: o.id, code: o.code })
        offers.push({
          id: o.id,
          investment,
          offerKind: o.offer_kind as DailyCsvOffer['offerKind'],
          propertyType: o.property_type as DwellingType | StandalonePartType,
          code: o.code,
          priceM2Cents: o.price_m2_cents,
          priceM2From: o.price_m2_from,
          priceTotalCents: o.price_total_cents,
          priceTotalFrom: o.price_total_from,
          priceCombinedCents: combined.cents,
          priceCombinedFrom: combined.from,
          components,
        })
      }
      if (gaps) {
        // a part belongs to one unit or is offered on its own, never both (the editor refuses it now;
        // data entered before that rule is named here)
        const holders = new Map<string, { designation: string; units: string[] }>()
        const hold = (designation: string | null, unit: string) => {
          const key = designation?.replace(/\s+/g, '').toLowerCase() ?? ''
          if (key === '') return
          const entry = holders.get(key) ?? { designation: designation as string, units: [] }
          entry.units.push(unit)
          holders.set(key, entry)
        }
        for (const offer of offers) {
          if (offer.offerKind === 'standalone_part') hold(offer.code, offer.code)
          for (const c of offer.components)
            if (c.groupKind === 'part' || c.groupKind === 'appurtenant_room') hold(c.designation, offer.code)
        }
        for (const entry of holders.values())
          if (entry.units.length > 1) gaps.partsListedTwice.push({ id: r.id, ...entry })
      }
      if (offers.length > 0) yield offers
    }
    ended = true
    await trx.commit().execute()
  } finally {
    // the consumer stopped early or a read failed: the snapshot is released all the same
    if (!ended)
      await trx
        .rollback()
        .execute()
        .catch(() => undefined)
  }
}

/**
 * Offers of a published investment that a buyer can still buy but the file leaves out: on sale
 * (available or reserved) with a status the settings do not publish, or hidden as a draft.
 */
async function findLeftOutOffers(
  trx: Parameters<typeof selectPriceRecordsUpTo>[0],
  investmentId: number,
  statuses: readonly string[],
  gaps: DailyFileGaps,
): Promise<void> {
  const rows = await trx
    .selectFrom('offers')
    .select(['id', 'code', 'status', 'host_status'])
    .where('investment_id', '=', investmentId)
    .where('status', 'in', [...ON_SALE_STATUSES])
    .where('property_type', '!=', '')
    .where((eb) => eb.or([eb('host_status', '!=', 'publish'), eb('status', 'not in', [...statuses])]))
    .orderBy('id')
    .execute()
  for (const row of rows) {
    if (row.host_status === 'publish')
      gaps.offersLeftOutByStatus.push({ id: row.id, code: row.code, status: row.status })
    // a draft on sale is named whatever the published statuses: with a status the settings leave
    // out it was named nowhere, and once published the status warning takes over
    else if (row.host_status === 'draft')
      gaps.offersHiddenInDraft.push({ id: row.id, code: row.code, status: row.status })
  }
}
