/*
 * Reads the catalog for the daily file: every offer with host status `publish` in a published
 * investment of the publishing developer, whose status is one of the published statuses, with its
 * components. Maps rows to the pure DailyCsvInput model of daily-csv.ts.
 */
import type { HostContext } from '../host/context.js'
import type { DeveloperRow } from '../host/db/schema.js'
import { slugify } from '../catalog/presentation.js'
import { priceWithinRounding } from '../offers/price-consistency.js'
import type {
  ComponentGroupKind,
  DailyCsvDeveloper,
  DailyCsvInput,
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

export interface CollectedDay {
  input: DailyCsvInput
  /** Offers whose total is not m² price × area within rounding. */
  inconsistent: Array<{ id: number; code: string }>
}

export async function collectDailyInput(
  ctx: HostContext,
  args: { date: string; developer: DeveloperRow; statuses: string[] },
): Promise<CollectedDay> {
  const rows = await ctx.db
    .selectFrom('offers')
    .innerJoin('investments', 'investments.id', 'offers.investment_id')
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
      'investments.id as investment_id',
      'investments.loc_voivodeship',
      'investments.loc_powiat',
      'investments.loc_gmina',
      'investments.loc_city',
      'investments.loc_street',
      'investments.loc_building_no',
      'investments.loc_postal_code',
      'investments.prospectus_url',
    ])
    .where('offers.host_status', '=', 'publish')
    .where('investments.host_status', '=', 'publish')
    .where('offers.status', 'in', args.statuses)
    .where((eb) =>
      eb.or([eb('investments.developer_id', '=', args.developer.id), eb('investments.developer_id', 'is', null)]),
    )
    .orderBy('offers.id')
    .execute()
  const components = new Map<number, DailyCsvOffer['components'][number][]>()
  for (let i = 0; i < rows.length; i += 500) {
    const part = await ctx.db
      .selectFrom('offer_components')
      .selectAll()
      .where(
        'offer_id',
        'in',
        rows.slice(i, i + 500).map((r) => r.id),
      )
      .orderBy('offer_id')
      .orderBy('position')
      .execute()
    for (const c of part) {
      const list = components.get(c.offer_id) ?? []
      list.push({
        groupKind: c.group_kind as ComponentGroupKind,
        kindLabel: c.kind_label,
        designation: c.designation,
        priceCents: c.price_cents,
        priceFrom: c.price_from,
        description: c.description,
        position: c.position,
      })
      components.set(c.offer_id, list)
    }
  }
  const inconsistent: CollectedDay['inconsistent'] = []
  const offers: DailyCsvOffer[] = rows.map((r) => {
    if (r.price_total_cents !== null && r.price_m2_cents !== null && r.area) {
      if (!priceWithinRounding(r.price_total_cents, r.price_m2_cents, r.area))
        inconsistent.push({ id: r.id, code: r.code })
    }
    return {
      id: r.id,
      investment: {
        id: r.investment_id,
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
      },
      offerKind: r.offer_kind as DailyCsvOffer['offerKind'],
      propertyType: r.property_type as DwellingType | StandalonePartType,
      code: r.code,
      priceM2Cents: r.price_m2_cents,
      priceM2From: r.price_m2_from,
      priceTotalCents: r.price_total_cents,
      priceTotalFrom: r.price_total_from,
      priceCombinedCents: r.price_combined_cents,
      priceCombinedFrom: r.price_combined_from,
      components: components.get(r.id) ?? [],
    }
  })
  return {
    input: {
      date: args.date,
      companySlug: slugify(args.developer.name) || 'deweloper',
      developer: developerForCsv(args.developer),
      offers,
    },
    inconsistent,
  }
}
