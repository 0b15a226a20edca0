/*
 * A small, fixed catalog for the publication's golden files and the harvester simulation: one
 * developer with complete legal data (valid NIP/REGON check digits), two investments and eight
 * offers covering every row shape of the official file (docs/decisions/publication-pipeline.md):
 *   A/1    flat, one part + one appurtenant room (both on the main row), combined price
 *   A/2    reserved flat, one part + one room, m² price with grosze
 *   A/10   flat with two parts and two rooms → main row + 2 extra rows; a 123456.78 garage
 *   A/3    sold flat → must not appear
 *   A/4    draft (host status) flat → must not appear
 *   MP-50  standalone parking space → its own row, 44–47
 *   KL-07  standalone storage room → its own row, 48–51, price 8500.05 (leading zero in grosze)
 *   D/1    house in the second investment (no prospectus → X in 58), a right (52–54) and an
 *          other payment (55–57), no stored combined price: 42–43 computed in the file as the
 *          total plus the right (1180140.00 + 15000.00 = 1195140.00), the other payment left out
 * Every value is a literal, so the catalog is the same on SQLite and PostgreSQL and in every run.
 */
import type { HostContext } from '../../src/host/context.js'
import type { NewOffer, NewOfferComponent } from '../../src/host/db/schema.js'
import { setOption } from '../../src/host/options/options.js'

export const FIXED_DATASET_EXT_IDENT = 'zlotalaka-ceny-ofertowe-2026'
export const FIXED_TIMESTAMP = '2026-11-01T08:00:00.000Z'

type Component = Omit<NewOfferComponent, 'offer_id' | 'created_at' | 'modified_at'>
type Offer = Omit<NewOffer, 'investment_id' | 'created_at' | 'modified_at' | 'custom_meta' | 'gallery'> & {
  components?: Component[]
}

const part = (position: number, label: string, designation: string, cents: number, from: string): Component => ({
  position,
  group_kind: 'part',
  kind_label: label,
  designation,
  description: null,
  price_cents: cents,
  price_from: from,
})

const room = (position: number, label: string, designation: string, cents: number, from: string): Component => ({
  position,
  group_kind: 'appurtenant_room',
  kind_label: label,
  designation,
  description: null,
  price_cents: cents,
  price_from: from,
})

const flat = (fields: Partial<Offer> & Pick<Offer, 'code' | 'status'>): Offer => ({
  source_property_id: `src-${fields.code}`,
  offer_kind: 'property',
  property_type: 'mieszkanie',
  title: `Mieszkanie ${fields.code}`,
  area: null,
  rooms: 3,
  floor: 1,
  building: 'A',
  price_total_cents: null,
  price_total_from: null,
  price_m2_cents: null,
  price_m2_from: null,
  price_combined_cents: null,
  price_combined_from: null,
  host_status: 'publish',
  ...fields,
})

/** Offers of "Osiedle Lipowe" (Warszawa). */
const LIPOWE: Offer[] = [
  flat({
    code: 'A/1',
    status: 'available',
    area: '52.40',
    // 12345.67 × 52.40 = 646913.108 → 646913.11
    price_m2_cents: 1_234_567,
    price_m2_from: '2026-10-01',
    price_total_cents: 64_691_311,
    price_total_from: '2026-10-01',
    price_combined_cents: 70_391_311,
    price_combined_from: '2026-10-01',
    components: [
      part(1, 'Miejsce postojowe', 'MP-01', 4_500_000, '2026-10-01'),
      room(2, 'Komórka lokatorska', 'KL-01', 1_200_000, '2026-10-01'),
    ],
  }),
  flat({
    code: 'A/2',
    status: 'reserved',
    area: '38.15',
    // 13990.00 × 38.15 = 533718.50
    price_m2_cents: 1_399_000,
    price_m2_from: '2026-11-02',
    price_total_cents: 53_371_850,
    price_total_from: '2026-11-02',
    price_combined_cents: 58_971_850,
    price_combined_from: '2026-11-02',
    components: [
      part(1, 'Miejsce postojowe', 'MP-02', 4_500_000, '2026-11-02'),
      room(2, 'Komórka lokatorska', 'KL-02', 1_100_000, '2026-11-02'),
    ],
  }),
  flat({
    code: 'A/10',
    status: 'available',
    area: '74.05',
    rooms: 4,
    floor: 5,
    // 11500.00 × 74.05 = 851575.00; + 48000.00 + 123456.78 + 9500.00 + 7000.00 = 1039531.78
    price_m2_cents: 1_150_000,
    price_m2_from: '2026-09-15',
    price_total_cents: 85_157_500,
    price_total_from: '2026-09-15',
    price_combined_cents: 103_953_178,
    price_combined_from: '2026-09-15',
    components: [
      part(1, 'Miejsce postojowe', 'MP-10', 4_800_000, '2026-09-15'),
      part(2, 'Garaż', 'G-10', 12_345_678, '2026-09-20'),
      room(3, 'Komórka lokatorska', 'KL-10', 950_000, '2026-09-15'),
      room(4, 'Piwnica', 'P-10', 700_000, '2026-09-20'),
    ],
  }),
  flat({
    code: 'A/3',
    status: 'sold',
    area: '45.00',
    price_m2_cents: 1_300_000,
    price_m2_from: '2026-08-01',
    price_total_cents: 58_500_000,
    price_total_from: '2026-08-01',
    components: [part(1, 'Miejsce postojowe', 'MP-03', 4_500_000, '2026-08-01')],
  }),
  flat({
    code: 'A/4',
    status: 'available',
    host_status: 'draft',
    area: '60.00',
    price_m2_cents: 1_200_000,
    price_m2_from: '2026-11-01',
    price_total_cents: 72_000_000,
    price_total_from: '2026-11-01',
  }),
  {
    source_property_id: 'src-MP-50',
    offer_kind: 'standalone_part',
    property_type: 'parking_space',
    code: 'MP-50',
    title: 'Miejsce postojowe MP-50',
    status: 'available',
    area: null,
    rooms: null,
    floor: -1,
    building: 'A',
    price_total_cents: 3_999_999,
    price_total_from: '2026-09-15',
    price_m2_cents: null,
    price_m2_from: null,
    price_combined_cents: null,
    price_combined_from: null,
    host_status: 'publish',
  },
  {
    source_property_id: 'src-KL-07',
    offer_kind: 'standalone_part',
    property_type: 'storage_room',
    code: 'KL-07',
    title: 'Komórka lokatorska KL-07',
    status: 'available',
    area: '4.20',
    rooms: null,
    floor: -1,
    building: 'A',
    price_total_cents: 850_005,
    price_total_from: '2026-10-15',
    price_m2_cents: null,
    price_m2_from: null,
    price_combined_cents: null,
    price_combined_from: null,
    host_status: 'publish',
  },
]

/** Offers of "Domy pod Sosnami" (Plewiska), an investment without a prospectus URL. */
const SOSNY: Offer[] = [
  {
    source_property_id: 'src-D/1',
    offer_kind: 'property',
    property_type: 'dom',
    code: 'D/1',
    title: 'Dom D/1',
    status: 'available',
    area: '132.60',
    rooms: 5,
    floor: 0,
    building: 'D1',
    // 8900.00 × 132.60 = 1180140.00
    price_m2_cents: 890_000,
    price_m2_from: '2026-08-01',
    price_total_cents: 118_014_000,
    price_total_from: '2026-08-01',
    price_combined_cents: null,
    price_combined_from: null,
    host_status: 'publish',
    components: [
      {
        position: 1,
        group_kind: 'right',
        kind_label: 'Udział w drodze wewnętrznej',
        designation: 'dz. 45/12',
        description: '1/8 udziału',
        price_cents: 1_500_000,
        price_from: '2026-08-01',
      },
      {
        position: 2,
        group_kind: 'other_payment',
        kind_label: 'Opłata za przyłącze gazowe',
        designation: null,
        description: null,
        price_cents: 600_000,
        price_from: '2026-08-01',
      },
    ],
  },
]

/** Inserts the fixed catalog and the fixed dataset extIdent; returns the ids by offer code. */
export async function seedFixedCatalog(ctx: HostContext): Promise<Map<string, number>> {
  const stamp = { created_at: FIXED_TIMESTAMP, modified_at: FIXED_TIMESTAMP }
  const ids = new Map<string, number>()
  await ctx.db.transaction().execute(async (trx) => {
    const developer = await trx
      .insertInto('developers')
      .values({
        name: 'Złota Łąka Deweloper Sp. z o.o.',
        legal_form: 'spółka z ograniczoną odpowiedzialnością',
        krs: '0000123456',
        ceidg: null,
        nip: '5252345675',
        regon: '146789017',
        phone: '221234567',
        email: 'sprzedaz@zlotalaka.example.pl',
        fax: null,
        website: 'https://zlotalaka.example.pl',
        seat_voivodeship: 'mazowieckie',
        seat_powiat: 'Warszawa',
        seat_gmina: 'Warszawa',
        seat_city: 'Warszawa',
        seat_street: 'Marszałkowska',
        seat_building_no: '100',
        seat_local_no: '5',
        seat_postal_code: '00-026',
        sales_voivodeship: 'mazowieckie',
        sales_powiat: 'Warszawa',
        sales_gmina: 'Warszawa',
        sales_city: 'Warszawa',
        sales_street: 'Lipowa',
        sales_building_no: '12',
        sales_local_no: null,
        sales_postal_code: '02-495',
        // holds the separator, so the cell must be quoted
        sales_additional_locations: 'Plewiska, ul. Sosnowa 7; Poznań, ul. Półwiejska 2',
        contact_method: 'Telefonicznie, e-mailowo lub osobiście w biurze sprzedaży',
        ...stamp,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const investments = [
      {
        title: 'Osiedle Lipowe',
        slug: 'osiedle-lipowe',
        loc: ['mazowieckie', 'Warszawa', 'Warszawa', 'Warszawa', 'Lipowa', '12', '02-495'],
        prospectus: 'https://zlotalaka.example.pl/prospekty/osiedle-lipowe.pdf',
        offers: LIPOWE,
      },
      {
        title: 'Domy pod Sosnami',
        slug: 'domy-pod-sosnami',
        loc: ['wielkopolskie', 'poznański', 'Komorniki', 'Plewiska', 'Sosnowa', '7', '62-064'],
        prospectus: null,
        offers: SOSNY,
      },
    ]
    for (const investment of investments) {
      const [voivodeship, powiat, gmina, city, street, buildingNo, postalCode] = investment.loc
      const { id: investmentId } = await trx
        .insertInto('investments')
        .values({
          developer_id: developer.id,
          source_id: investment.slug,
          title: investment.title,
          slug: investment.slug,
          content: '',
          excerpt: '',
          loc_voivodeship: voivodeship ?? null,
          loc_powiat: powiat ?? null,
          loc_gmina: gmina ?? null,
          loc_city: city ?? null,
          loc_street: street ?? null,
          loc_building_no: buildingNo ?? null,
          loc_postal_code: postalCode ?? null,
          prospectus_url: investment.prospectus,
          host_status: 'publish',
          visibility: 'public',
          custom_meta: '{}',
          gallery: '[]',
          documents: '[]',
          ...stamp,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      for (const { components = [], ...offer } of investment.offers) {
        const { id } = await trx
          .insertInto('offers')
          .values({ ...offer, investment_id: investmentId, custom_meta: '{}', gallery: '[]', ...stamp })
          .returning('id')
          .executeTakeFirstOrThrow()
        ids.set(offer.code, id)
        for (const component of components)
          await trx
            .insertInto('offer_components')
            .values({ ...component, offer_id: id, ...stamp })
            .execute()
      }
    }
  })
  await setOption(ctx, 'dg_dataset_ext_ident', FIXED_DATASET_EXT_IDENT)
  return ids
}

/** Codes that must appear in the daily file (column 37, or 45/49 for standalone parts). */
export const FIXED_PUBLISHED_CODES = ['A/1', 'A/2', 'A/10', 'MP-50', 'KL-07', 'D/1'] as const
/** Codes that must never appear: sold, and draft host status. */
export const FIXED_HIDDEN_CODES = ['A/3', 'A/4'] as const
