/*
 * A realistic, fictional catalog for demonstrations and manual testing: one developer, two
 * published investments (Warszawa, Poznań) with flats, houses and standalone parts, and one draft
 * investment that the catalog must never show. Seeding is idempotent and all-or-nothing.
 */
import { recordAudit } from '../host/audit/audit.js'
import type { Executor, HostContext } from '../host/context.js'
import type { NewDeveloper, NewPriceHistory } from '../host/db/schema.js'

/** The investment whose presence means the demo catalog has already been seeded. */
export const DEMO_MARKER_SOURCE_ID = 'demo-zielone-tarasy'

export interface DemoSeedResult {
  created: boolean
  developers: number
  investments: number
  offers: number
}

type GroupKind = 'part' | 'appurtenant_room' | 'right' | 'other_payment'
type OfferStatus = 'available' | 'reserved' | 'sold' | 'unavailable' | 'archived'
type PropertyType = 'mieszkanie' | 'dom' | 'parking_space' | 'garage' | 'storage_room' | 'other'

interface DemoComponent {
  group: GroupKind
  label: string
  designation: string
  description: string
  priceCents: number | null
}

interface DemoPriceChange {
  /** Price per m² before the change; the offer's own price is the one after it. */
  previousM2Cents: number
  on: string
  reason: string
}

interface DemoOffer {
  sourceId: string
  type: PropertyType
  code: string
  title: string
  status: OfferStatus
  building: string | null
  floor: number | null
  rooms: number | null
  area: string | null
  /** Current price per m²; the total is derived from it so that both always agree. */
  m2Cents: number | null
  /** Total price of offers sold without a price per m² (parking spaces, storage rooms). */
  totalCents?: number
  variant?: string
  hostStatus?: 'publish' | 'draft' | 'private'
  meta?: Record<string, string>
  change?: DemoPriceChange
  components?: DemoComponent[]
  floorPlan?: boolean
}

interface DemoImage {
  file: string
  title: string
  alt: string
}

interface DemoInvestment {
  sourceId: string
  title: string
  slug: string
  excerpt: string
  content: string
  hostStatus: 'publish' | 'draft'
  location: {
    voivodeship: string
    powiat: string
    gmina: string
    city: string
    street: string
    buildingNo: string
    postalCode: string
  }
  prospectusUrl: string | null
  meta: Record<string, string>
  /** First day of the price list; every initial price record is valid from it. */
  listedOn: string
  images: DemoImage[]
  extraDocuments: { title: string; url: string }[]
  offers: DemoOffer[]
}

const zl = (amount: number): number => amount * 100

const ASSET_BASE = 'https://example.com/demo'

const DEVELOPER: Omit<NewDeveloper, 'created_at' | 'modified_at'> = {
  name: 'Przykładowy Deweloper Sp. z o.o.',
  legal_form: 'spółka z ograniczoną odpowiedzialnością',
  krs: '0000987654',
  ceidg: null,
  // NIP and REGON carry valid check digits, so validators accept the demo data
  nip: '5251234560',
  regon: '146123459',
  phone: '221234567',
  email: 'sprzedaz@example.com',
  fax: null,
  website: 'https://www.example.com',
  seat_voivodeship: 'mazowieckie',
  seat_powiat: 'Warszawa',
  seat_gmina: 'Warszawa',
  seat_city: 'Warszawa',
  seat_street: 'Przykładowa',
  seat_building_no: '10',
  seat_local_no: '5',
  seat_postal_code: '00-950',
  sales_voivodeship: 'mazowieckie',
  sales_powiat: 'Warszawa',
  sales_gmina: 'Warszawa',
  sales_city: 'Warszawa',
  sales_street: 'Zielona',
  sales_building_no: '12',
  sales_local_no: 'U1',
  sales_postal_code: '01-234',
  sales_additional_locations: 'Poznań, ul. Nadbrzeżna 5 (biuro sprzedaży na terenie inwestycji Osiedle Nad Wartą)',
  contact_method: 'Telefonicznie, e-mailowo lub osobiście w biurze sprzedaży (pon.–pt. 9:00–17:00, sob. 10:00–14:00)',
}

function parking(designation: string, price: number): DemoComponent {
  return {
    group: 'part',
    label: 'Miejsce postojowe',
    designation,
    description: 'Miejsce postojowe w hali garażowej na poziomie -1',
    priceCents: zl(price),
  }
}

function storage(designation: string, price: number): DemoComponent {
  return {
    group: 'appurtenant_room',
    label: 'Komórka lokatorska',
    designation,
    description: 'Komórka lokatorska w części piwnicznej budynku',
    priceCents: zl(price),
  }
}

function flat(
  prefix: string,
  code: string,
  floor: number,
  rooms: number,
  area: string,
  m2Zl: number,
  status: OfferStatus,
  extra: Partial<DemoOffer> = {},
): DemoOffer {
  return {
    sourceId: `${prefix}-${code.replace('/', '-')}`,
    type: 'mieszkanie',
    code,
    title: `Mieszkanie ${code}`,
    status,
    building: code.split('/')[0] ?? null,
    floor,
    rooms,
    area,
    m2Cents: zl(m2Zl),
    ...extra,
  }
}

const INVESTMENTS: DemoInvestment[] = [
  {
    sourceId: DEMO_MARKER_SOURCE_ID,
    title: 'Zielone Tarasy',
    slug: 'zielone-tarasy',
    excerpt: 'Kameralne osiedle z zielonymi tarasami na warszawskiej Woli, 10 minut od stacji metra.',
    content:
      'Zielone Tarasy to dwa pięciokondygnacyjne budynki z halą garażową, zielonym dziedzińcem i tarasami na dachach.\n\n' +
      'Mieszkania od 1 do 5 pokoi mają przemyślane układy, duże okna i balkony lub ogródki. ' +
      'W pobliżu znajdują się szkoły, przedszkola, park oraz stacja metra.',
    hostStatus: 'publish',
    location: {
      voivodeship: 'mazowieckie',
      powiat: 'Warszawa',
      gmina: 'Warszawa',
      city: 'Warszawa',
      street: 'Zielona',
      buildingNo: '12',
      postalCode: '01-234',
    },
    prospectusUrl: `${ASSET_BASE}/zielone-tarasy/prospekt-informacyjny.pdf`,
    meta: { energy_class: 'A', completion_quarter: '2027-Q2' },
    listedOn: '2026-02-16',
    images: [
      {
        file: 'wizualizacja-ulica.jpg',
        title: 'Zielone Tarasy – widok od ulicy',
        alt: 'Wizualizacja budynków od ulicy',
      },
      {
        file: 'wizualizacja-dziedziniec.jpg',
        title: 'Zielone Tarasy – dziedziniec',
        alt: 'Zielony dziedziniec osiedla',
      },
    ],
    extraDocuments: [
      { title: 'Standard wykończenia części wspólnych', url: `${ASSET_BASE}/zielone-tarasy/standard-wykonczenia.pdf` },
    ],
    offers: [
      flat('ZT', 'A/0.01', 0, 2, '45.20', 20_900, 'available', { variant: 'z ogródkiem', meta: { exposure: 'S' } }),
      flat('ZT', 'A/0.02', 0, 3, '62.75', 20_500, 'sold'),
      flat('ZT', 'A/1.01', 1, 2, '48.60', 21_400, 'available', {
        change: { previousM2Cents: zl(20_800), on: '2026-06-01', reason: 'Aktualizacja cennika' },
        components: [parking('MP 12', 65_000), storage('KL 3', 18_000)],
        floorPlan: true,
      }),
      flat('ZT', 'A/1.02', 1, 3, '64.10', 21_100, 'reserved'),
      flat('ZT', 'A/2.01', 2, 1, '29.85', 23_900, 'available', {
        change: { previousM2Cents: zl(23_200), on: '2026-09-01', reason: 'Aktualizacja cennika' },
      }),
      flat('ZT', 'A/3.01', 3, 4, '82.40', 21_800, 'available', {
        meta: { exposure: 'S-W' },
        components: [parking('MP 14', 65_000), storage('KL 5', 16_500)],
        floorPlan: true,
      }),
      flat('ZT', 'A/5.01', 5, 5, '118.30', 23_600, 'reserved', { variant: 'penthouse z tarasem' }),
      flat('ZT', 'B/1.01', 1, 2, '42.90', 19_800, 'available', {
        change: { previousM2Cents: zl(20_400), on: '2026-06-01', reason: 'Obniżka ceny w promocji wiosennej' },
      }),
      flat('ZT', 'B/2.03', 2, 3, '57.35', 20_100, 'sold'),
      flat('ZT', 'B/4.02', 4, 4, '76.80', 21_900, 'available', { components: [parking('MP 15', 60_000)] }),
      // a draft not on sale yet: a draft unit on sale would be a gap of the file (offers_hidden_in_draft)
      flat('ZT', 'B/4.03', 4, 2, '44.10', 21_300, 'unavailable', { hostStatus: 'draft' }),
      flat('ZT', 'B/3.02', 3, 3, '59.40', 20_700, 'archived', { hostStatus: 'private' }),
      {
        sourceId: 'ZT-MP-24',
        type: 'parking_space',
        code: 'MP 24',
        title: 'Miejsce postojowe MP 24',
        status: 'available',
        building: 'A',
        floor: -1,
        rooms: null,
        area: null,
        m2Cents: null,
        totalCents: zl(85_000),
      },
      {
        sourceId: 'ZT-KL-7',
        type: 'storage_room',
        code: 'KL 7',
        title: 'Komórka lokatorska KL 7',
        status: 'available',
        building: 'B',
        floor: 0,
        rooms: null,
        area: '4.20',
        m2Cents: null,
        totalCents: zl(24_000),
      },
    ],
  },
  {
    sourceId: 'demo-nad-warta',
    title: 'Osiedle Nad Wartą',
    slug: 'osiedle-nad-warta',
    excerpt: 'Mieszkania i domy w zabudowie szeregowej nad Wartą, blisko bulwarów i centrum Poznania.',
    content:
      'Osiedle Nad Wartą łączy dwa niskie budynki wielorodzinne z zabudową szeregową. ' +
      'Mieszkańcy mają do dyspozycji plac zabaw, rowerownię i zieleń wzdłuż bulwarów.\n\n' +
      'Domy mają po pięć pokoi, własne ogrody i udział w drodze wewnętrznej.',
    hostStatus: 'publish',
    location: {
      voivodeship: 'wielkopolskie',
      powiat: 'Poznań',
      gmina: 'Poznań',
      city: 'Poznań',
      street: 'Nadbrzeżna',
      buildingNo: '5',
      postalCode: '61-101',
    },
    prospectusUrl: `${ASSET_BASE}/nad-warta/prospekt-informacyjny.pdf`,
    meta: { energy_class: 'B', completion_quarter: '2026-Q4' },
    listedOn: '2026-03-09',
    images: [
      { file: 'wizualizacja-bulwar.jpg', title: 'Osiedle Nad Wartą – widok od bulwaru', alt: 'Budynki nad rzeką' },
      { file: 'wizualizacja-domy.jpg', title: 'Osiedle Nad Wartą – domy', alt: 'Domy w zabudowie szeregowej' },
    ],
    extraDocuments: [],
    offers: [
      flat('NW', 'A/0.01', 0, 2, '44.50', 11_900, 'available', { variant: 'z ogródkiem' }),
      flat('NW', 'A/1.01', 1, 3, '61.20', 12_300, 'sold', {
        components: [parking('MP 3', 35_000), storage('KL 2', 12_000)],
        floorPlan: true,
      }),
      flat('NW', 'A/1.02', 1, 2, '39.80', 12_750, 'reserved', {
        change: { previousM2Cents: zl(12_400), on: '2026-07-01', reason: 'Aktualizacja cennika' },
      }),
      flat('NW', 'A/2.01', 2, 4, '78.65', 12_100, 'available', { components: [parking('MP 7', 35_000)] }),
      flat('NW', 'A/3.01', 3, 1, '27.40', 13_900, 'available'),
      flat('NW', 'B/0.01', 0, 3, '58.90', 11_600, 'available', {
        variant: 'z ogródkiem',
        change: { previousM2Cents: zl(11_950), on: '2026-07-01', reason: 'Obniżka ceny' },
      }),
      flat('NW', 'B/2.02', 2, 2, '47.15', 12_250, 'sold'),
      {
        sourceId: 'NW-D1',
        type: 'dom',
        code: 'D1',
        title: 'Dom D1',
        status: 'available',
        building: 'D1',
        floor: 0,
        rooms: 5,
        area: '132.40',
        m2Cents: zl(11_200),
        meta: { plot_area: '310.00' },
        floorPlan: true,
        components: [
          {
            group: 'right',
            label: 'Udział we współwłasności drogi wewnętrznej',
            designation: 'dz. ewid. 123/4',
            description: 'Udział 1/8 w działce drogowej zapewniającej dojazd do domu',
            priceCents: zl(15_000),
          },
        ],
      },
      {
        sourceId: 'NW-D2',
        type: 'dom',
        code: 'D2',
        title: 'Dom D2',
        status: 'reserved',
        building: 'D2',
        floor: 0,
        rooms: 5,
        area: '128.75',
        m2Cents: zl(11_500),
        meta: { plot_area: '285.00' },
      },
      {
        sourceId: 'NW-MP-5',
        type: 'parking_space',
        code: 'MP 5',
        title: 'Miejsce postojowe MP 5',
        status: 'available',
        building: 'A',
        floor: -1,
        rooms: null,
        area: null,
        m2Cents: null,
        totalCents: zl(45_000),
      },
    ],
  },
  {
    sourceId: 'demo-przy-parku',
    title: 'Apartamenty Przy Parku',
    slug: 'apartamenty-przy-parku',
    excerpt: 'Projekt w przygotowaniu – sprzedaż jeszcze nie ruszyła.',
    content: 'Szkic opisu inwestycji w Krakowie. Oferta zostanie opublikowana po uzyskaniu pozwolenia na budowę.',
    hostStatus: 'draft',
    location: {
      voivodeship: 'małopolskie',
      powiat: 'Kraków',
      gmina: 'Kraków',
      city: 'Kraków',
      street: 'Parkowa',
      buildingNo: '3',
      postalCode: '30-001',
    },
    prospectusUrl: null,
    meta: { completion_quarter: '2028-Q1' },
    listedOn: '2026-10-01',
    images: [],
    extraDocuments: [],
    offers: [],
  },
]

const STANDALONE_TYPES: readonly PropertyType[] = ['parking_space', 'garage', 'storage_room', 'other']

function pricesFor(offer: DemoOffer, m2Cents: number | null): { total: number | null; m2: number | null } {
  if (m2Cents !== null && offer.area !== null) {
    return { total: Math.round(m2Cents * Number(offer.area)), m2: m2Cents }
  }
  return { total: offer.totalCents ?? null, m2: m2Cents }
}

/** Price records are stamped at the start of the business day they took effect on. */
function recordedAt(date: string): string {
  return `${date}T08:00:00.000Z`
}

interface SeedTally {
  offers: number
  components: number
  priceRecords: number
  attachments: number
}

async function insertImage(
  trx: Executor,
  owner: { investment_id: number | null; offer_id: number | null },
  image: { title: string; alt: string; url: string },
  position: number,
  now: string,
): Promise<number> {
  const row = await trx
    .insertInto('attachments')
    .values({
      ...owner,
      kind: 'image',
      title: image.title,
      url: image.url,
      mime_type: 'image/jpeg',
      alt: image.alt,
      position,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

async function insertInvestment(
  trx: Executor,
  developerId: number,
  investment: DemoInvestment,
  now: string,
  tally: SeedTally,
): Promise<void> {
  const documents = [
    ...(investment.prospectusUrl ? [{ title: 'Prospekt informacyjny', url: investment.prospectusUrl }] : []),
    ...investment.extraDocuments,
  ]
  const { id: investmentId } = await trx
    .insertInto('investments')
    .values({
      developer_id: developerId,
      source_id: investment.sourceId,
      title: investment.title,
      slug: investment.slug,
      content: investment.content,
      excerpt: investment.excerpt,
      loc_voivodeship: investment.location.voivodeship,
      loc_powiat: investment.location.powiat,
      loc_gmina: investment.location.gmina,
      loc_city: investment.location.city,
      loc_street: investment.location.street,
      loc_building_no: investment.location.buildingNo,
      loc_postal_code: investment.location.postalCode,
      prospectus_url: investment.prospectusUrl,
      host_status: investment.hostStatus,
      visibility: 'public',
      custom_meta: JSON.stringify(investment.meta),
      thumbnail_id: null,
      gallery: '[]',
      documents: JSON.stringify(documents),
      created_at: now,
      modified_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()

  const imageIds: number[] = []
  for (const [position, image] of investment.images.entries()) {
    const url = `${ASSET_BASE}/${investment.slug}/${image.file}`
    const owner = { investment_id: investmentId, offer_id: null }
    imageIds.push(await insertImage(trx, owner, { title: image.title, alt: image.alt, url }, position, now))
  }
  tally.attachments += imageIds.length
  if (investment.prospectusUrl) {
    await trx
      .insertInto('attachments')
      .values({
        investment_id: investmentId,
        offer_id: null,
        kind: 'document',
        title: 'Prospekt informacyjny',
        url: investment.prospectusUrl,
        mime_type: 'application/pdf',
        alt: '',
        position: imageIds.length,
        created_at: now,
      })
      .execute()
    tally.attachments++
  }
  if (imageIds.length > 0) {
    await trx
      .updateTable('investments')
      .set({ thumbnail_id: imageIds[0] ?? null, gallery: JSON.stringify(imageIds) })
      .where('id', '=', investmentId)
      .execute()
  }

  for (const offer of investment.offers) {
    await insertOffer(trx, investmentId, investment, offer, now, tally)
  }
}

async function insertOffer(
  trx: Executor,
  investmentId: number,
  investment: DemoInvestment,
  offer: DemoOffer,
  now: string,
  tally: SeedTally,
): Promise<void> {
  const current = pricesFor(offer, offer.m2Cents)
  const initial = offer.change ? pricesFor(offer, offer.change.previousM2Cents) : current
  const priceFrom = offer.change?.on ?? investment.listedOn
  // a flat sold with priced parking spaces or storage rooms states its price including them (column 42)
  const partsCents = (offer.components ?? []).reduce((sum, c) => sum + (c.priceCents ?? 0), 0)
  const combined = (total: number | null) => (total === null || partsCents === 0 ? null : total + partsCents)
  const { id: offerId } = await trx
    .insertInto('offers')
    .values({
      investment_id: investmentId,
      source_property_id: offer.sourceId,
      offer_kind: STANDALONE_TYPES.includes(offer.type) ? 'standalone_part' : 'property',
      property_type: offer.type,
      code: offer.code,
      title: offer.title,
      status: offer.status,
      area: offer.area,
      rooms: offer.rooms,
      floor: offer.floor,
      building: offer.building,
      price_total_cents: current.total,
      price_total_from: current.total === null ? null : priceFrom,
      price_m2_cents: current.m2,
      price_m2_from: current.m2 === null ? null : priceFrom,
      price_combined_cents: combined(current.total),
      price_combined_from: combined(current.total) === null ? null : priceFrom,
      price_combined_variant: null,
      price_combined_status: null,
      variant: offer.variant ?? null,
      host_status: offer.hostStatus ?? 'publish',
      custom_meta: JSON.stringify(offer.meta ?? {}),
      thumbnail_id: null,
      gallery: '[]',
      created_at: now,
      modified_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  tally.offers++

  if (offer.floorPlan) {
    const planId = await insertImage(
      trx,
      { investment_id: null, offer_id: offerId },
      {
        url: `${ASSET_BASE}/${investment.slug}/rzut-${offer.sourceId.toLowerCase()}.jpg`,
        title: `Rzut – ${offer.title}`,
        alt: `Rzut ${offer.title.toLowerCase()}`,
      },
      0,
      now,
    )
    tally.attachments++
    await trx
      .updateTable('offers')
      .set({ thumbnail_id: planId, gallery: JSON.stringify([planId]) })
      .where('id', '=', offerId)
      .execute()
  }

  const history = {
    offer_id: offerId,
    correction: 0 as const,
    run_id: null,
  }
  const firstRecord = (
    priceType: 'total' | 'm2' | 'combined' | 'component',
    after: number,
    componentId: number | null = null,
  ) => ({
    ...history,
    component_id: componentId,
    price_type: priceType,
    record_type: 'first',
    before_cents: null,
    after_cents: after,
    valid_from: investment.listedOn,
    recorded_at: recordedAt(investment.listedOn),
    reason: '',
  })

  const records: NewPriceHistory[] = []
  if (initial.total !== null) records.push(firstRecord('total', initial.total))
  if (initial.m2 !== null) records.push(firstRecord('m2', initial.m2))
  const initialCombined = combined(initial.total)
  if (initialCombined !== null) records.push(firstRecord('combined', initialCombined))

  for (const [position, component] of (offer.components ?? []).entries()) {
    const { id: componentId } = await trx
      .insertInto('offer_components')
      .values({
        offer_id: offerId,
        position,
        group_kind: component.group,
        kind_label: component.label,
        designation: component.designation,
        description: component.description,
        price_cents: component.priceCents,
        price_from: component.priceCents === null ? null : investment.listedOn,
        relation: null,
        requirement: null,
        variant: null,
        legal_title: null,
        created_at: now,
        modified_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    tally.components++
    if (component.priceCents !== null) records.push(firstRecord('component', component.priceCents, componentId))
  }

  if (offer.change) {
    const change = offer.change
    const changeRecord = (priceType: 'total' | 'm2' | 'combined', before: number | null, after: number | null) => ({
      ...history,
      component_id: null,
      price_type: priceType,
      record_type: 'change',
      before_cents: before,
      after_cents: after,
      valid_from: change.on,
      recorded_at: recordedAt(change.on),
      reason: change.reason,
    })
    records.push(changeRecord('total', initial.total, current.total))
    records.push(changeRecord('m2', initial.m2, current.m2))
    if (initialCombined !== null) records.push(changeRecord('combined', initialCombined, combined(current.total)))
  }

  // one row at a time keeps the ids in the order the prices took effect on every database
  for (const record of records) {
    await trx.insertInto('price_history').values(record).execute()
  }
  tally.priceRecords += records.length
}

async function countCatalog(db: Executor): Promise<Omit<DemoSeedResult, 'created'>> {
  const count = async (table: 'developers' | 'investments' | 'offers'): Promise<number> => {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }
  return {
    developers: await count('developers'),
    investments: await count('investments'),
    offers: await count('offers'),
  }
}

/**
 * Writes the demo catalog in one transaction. When it is already present nothing is written and
 * the counts describe the whole catalog as it is now; otherwise they count what was created.
 */
export async function seedDemoCatalog(ctx: HostContext): Promise<DemoSeedResult> {
  return ctx.db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('investments')
      .select('id')
      .where('source_id', '=', DEMO_MARKER_SOURCE_ID)
      .executeTakeFirst()
    if (existing) return { created: false, ...(await countCatalog(trx)) }

    const now = ctx.now().toISOString()
    const { id: developerId } = await trx
      .insertInto('developers')
      .values({ ...DEVELOPER, created_at: now, modified_at: now })
      .returning('id')
      .executeTakeFirstOrThrow()

    const tally: SeedTally = { offers: 0, components: 0, priceRecords: 0, attachments: 0 }
    for (const investment of INVESTMENTS) {
      await insertInvestment(trx, developerId, investment, now, tally)
    }

    const counts = { developers: 1, investments: INVESTMENTS.length, offers: tally.offers }
    await recordAudit(
      ctx,
      {
        actor: { type: 'cli' },
        action: 'demo.seed',
        outcome: 'success',
        details: {
          ...counts,
          components: tally.components,
          price_records: tally.priceRecords,
          attachments: tally.attachments,
        },
      },
      trx,
    )
    return { created: true, ...counts }
  })
}
