/*
 * The public price endpoint's SQL: its settings per investment (migration 0020), and the rows it
 * answers. Every offer read keeps host status `publish` on the offer and on its investment, a
 * flat, house or standalone part, and a status of the ones the service passes (those on sale that
 * the official file lists): nothing else can reach an answer whatever the service above does with
 * the rows.
 */
import type { Executor } from '../host/context.js'
import type { DialectCaps } from '../host/db/dialect.js'
import type { Flag } from '../host/db/schema.js'
import { PROPERTY_TYPES, STANDALONE_PART_TYPES } from '../offers/canonical-fields.js'
import { PUBLICATION_SETTINGS_OPTION } from '../publication/settings/publication-settings.js'

const PUBLISHED = 'publish'

/**
 * What one public request needs before any offer is read, in one statement: the catalog's
 * revision and time, the investment's publication, its public-price settings and the official
 * publication's settings (which statuses the file lists). Investment columns are null when
 * it does not exist, settings columns when it has none (off), `publication_settings` when the
 * publication was never set up (its defaults hold).
 */
export interface PublicRequestState {
  revision: number
  modified_at: string
  host_status: string | null
  enabled: Flag | null
  allowed_origins: string | null
  publication_settings: string | null
}

export async function selectPublicRequestState(db: Executor, investmentId: number): Promise<PublicRequestState> {
  const row = await db
    .selectFrom('catalog_state')
    .leftJoin('investments', (join) => join.on('investments.id', '=', investmentId))
    .leftJoin('public_prices_settings', (join) => join.on('public_prices_settings.investment_id', '=', investmentId))
    .leftJoin('options', (join) => join.on('options.name', '=', PUBLICATION_SETTINGS_OPTION))
    .select([
      'catalog_state.revision',
      'catalog_state.modified_at',
      'investments.host_status',
      'public_prices_settings.enabled',
      'public_prices_settings.allowed_origins',
      'options.value as publication_settings',
    ])
    .where('catalog_state.id', '=', 1)
    .executeTakeFirst()
  if (!row) throw new Error('catalog_state has no row')
  return { ...row, revision: Number(row.revision) }
}

/**
 * The investment's public facts (those of the official file's columns 29–35 and 1), if it may be
 * answered: published, whatever its visibility, as the official file lists it.
 */
export async function selectPublicInvestment(db: Executor, investmentId: number) {
  return db
    .selectFrom('investments')
    .leftJoin('developers', 'developers.id', 'investments.developer_id')
    .select([
      'investments.id',
      'investments.title',
      'investments.loc_city',
      'investments.loc_street',
      'investments.loc_building_no',
      'developers.name as developer_name',
    ])
    .where('investments.id', '=', investmentId)
    .where('investments.host_status', '=', PUBLISHED)
    .executeTakeFirst()
}

/**
 * The investment's published flats, houses and standalone parts (parking spaces, garages, storage
 * rooms sold on their own) whose status is one of `statuses`, with their stored prices: the offers
 * of the investment that the official file lists, less those not on sale. An offer without a type
 * (not qualified yet) is in neither.
 */
export async function selectUnitsOnOffer(db: Executor, investmentId: number, statuses: readonly string[]) {
  if (statuses.length === 0) return []
  return db
    .selectFrom('offers')
    .innerJoin('investments', 'investments.id', 'offers.investment_id')
    .select([
      'offers.id',
      'offers.code',
      'offers.offer_kind',
      'offers.property_type',
      'offers.area',
      'offers.rooms',
      'offers.floor',
      'offers.status',
      'offers.price_m2_cents',
      'offers.price_m2_from',
      'offers.price_total_cents',
      'offers.price_total_from',
      'offers.price_combined_cents',
      'offers.price_combined_from',
    ])
    .where('offers.investment_id', '=', investmentId)
    .where('investments.host_status', '=', PUBLISHED)
    .where('offers.host_status', '=', PUBLISHED)
    .where((eb) =>
      eb.or([
        eb.and([eb('offers.offer_kind', '=', 'property'), eb('offers.property_type', 'in', [...PROPERTY_TYPES])]),
        eb.and([
          eb('offers.offer_kind', '=', 'standalone_part'),
          eb('offers.property_type', 'in', [...STANDALONE_PART_TYPES]),
        ]),
      ]),
    )
    .where('offers.status', 'in', [...statuses])
    .orderBy('offers.code')
    .orderBy('offers.id')
    .execute()
}

const PART_BATCH = 500

/** The parts, rooms, rights and other payments of these offers, in their order. */
export async function selectPartsOf(db: Executor, offerIds: readonly number[]) {
  const out: Array<{
    id: number
    offer_id: number
    group_kind: string
    kind_label: string
    designation: string | null
    description: string | null
    price_cents: number | null
    price_from: string | null
  }> = []
  for (let i = 0; i < offerIds.length; i += PART_BATCH) {
    out.push(
      ...(await db
        .selectFrom('offer_components')
        .select([
          'id',
          'offer_id',
          'group_kind',
          'kind_label',
          'designation',
          'description',
          'price_cents',
          'price_from',
        ])
        .where('offer_id', 'in', offerIds.slice(i, i + PART_BATCH))
        .orderBy('offer_id')
        .orderBy('position')
        .orderBy('id')
        .execute()),
    )
  }
  return out
}

export async function selectInvestmentTitle(db: Executor, investmentId: number) {
  return db.selectFrom('investments').select(['id', 'title']).where('id', '=', investmentId).executeTakeFirst()
}

/**
 * The investment's row locked until the transaction ends on PostgreSQL, so that two changes of its
 * settings take turns and each audits the values it replaced (SQLite's single writer already does).
 */
export async function lockInvestmentRow(db: Executor, caps: DialectCaps, investmentId: number): Promise<void> {
  if (caps.concurrentWriters)
    await db.selectFrom('investments').select('id').where('id', '=', investmentId).forUpdate().execute()
}

export async function selectPublicPricesSettings(db: Executor, investmentId: number) {
  return db
    .selectFrom('public_prices_settings')
    .select(['enabled', 'allowed_origins', 'updated_at'])
    .where('investment_id', '=', investmentId)
    .executeTakeFirst()
}

export async function upsertPublicPricesSettings(
  db: Executor,
  row: { investment_id: number; enabled: Flag; allowed_origins: string; updated_at: string },
): Promise<void> {
  await db
    .insertInto('public_prices_settings')
    .values(row)
    .onConflict((conflict) =>
      conflict.column('investment_id').doUpdateSet({
        enabled: row.enabled,
        allowed_origins: row.allowed_origins,
        updated_at: row.updated_at,
      }),
    )
    .execute()
}
