/*
 * The public price endpoint: what art. 19a of the developer act already makes public about the
 * units on offer of one investment, answered without credentials to any website the developer
 * allows. Only a published investment whose public prices an administrator enabled is answered,
 * whatever its visibility (docs/decisions/public-prices.md: the official file lists its units, and
 * the law asks the same units of the website); only the units the official file lists and that
 * are on sale: published flats, houses and standalone parts whose status is one of the
 * publication's statuses and is available or reserved. Each price is the one in force today in
 * Europe/Warsaw by the one rule (price-in-force.ts), so a price announced for a later day never
 * shows before its day. Nothing personal is held in these rows; only the listed fields are copied
 * into the answer.
 */
import { catalogDay } from '../catalog/catalog-service.js'
import { COMBINED_GROUPS } from '../offers/combined-price.js'
import { unitPricesOnDay } from '../offers/prices-on-day.js'
import { componentKindOf } from '../offers/editor-operation.js'
import { selectPriceRecordsUpTo } from '../offers/offers-repository.js'
import { STANDALONE_PART_TYPES, type StandalonePartType } from '../offers/canonical-fields.js'
import {
  groupPriceRecords,
  NO_PRICE,
  type PriceRecord,
  type PriceState,
  priceInForce,
  priceKey,
} from '../offers/price-in-force.js'
import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { ON_SALE_STATUSES } from '../publication/daily-file/collect-daily-input.js'
import { DEFAULT_PUBLICATION_SETTINGS } from '../publication/settings/publication-settings.js'
import {
  type PublicRequestState,
  selectPartsOf,
  selectPublicInvestment,
  selectPublicRequestState,
  selectUnitsOnOffer,
} from './public-prices-repository.js'

export interface PublicPrice {
  amount: string
  valid_from: string | null
}

export interface PublicPartHistoryEntry {
  valid_from: string
  amount: string | null
}

export interface PublicPart {
  kind: string
  label: string
  designation: string | null
  price: PublicPrice | null
  history: PublicPartHistoryEntry[]
}

export interface PublicOtherPayment {
  description: string
  amount: string | null
  valid_from: string | null
}

export interface PublicHistoryEntry {
  valid_from: string
  price_m2: string | null
  price_total: string | null
}

/** The unit kinds: a flat or a house, or a part sold on its own (STANDALONE_PART_TYPES). */
export type PublicUnitKind = 'flat' | 'house' | StandalonePartType

export interface PublicUnit {
  id: number
  designation: string
  kind: PublicUnitKind
  area_m2: string | null
  rooms: number | null
  floor: number | null
  status: 'available' | 'reserved'
  price_m2: PublicPrice | null
  price_total: PublicPrice | null
  price_combined: PublicPrice | null
  parts: PublicPart[]
  other_payments: PublicOtherPayment[]
  history: PublicHistoryEntry[]
}

export interface PublicPrices {
  investment: { id: number; title: string; city: string | null; address: string | null; developer: string | null }
  day: string
  generated_at: string
  currency: 'PLN'
  units: PublicUnit[]
}

/** The one answer for an investment that may not be answered, whatever the reason (it reveals nothing). */
export function publicPricesUnavailable(): PluginError {
  // a fixed body: any page may read it, so a website's component can say the prices are not available
  return new PluginError('public_prices_unavailable', 404, {}, { 'Access-Control-Allow-Origin': '*' })
}

/**
 * Whether the state lets the investment's prices be answered: enabled and published. Visibility
 * does not hide it: the official file lists a private investment's units as on offer, and art. 19a
 * asks the developer's website for every unit on offer.
 */
export function isAnswerable(state: PublicRequestState): boolean {
  return state.enabled === 1 && state.host_status === 'publish'
}

/**
 * The statuses the website lists: those of the publication's settings (the statuses the official
 * file lists) that are on sale. A sold or unavailable unit is no longer on offer, so it is not on
 * the website even when the file lists it; a reserved one is not when the file leaves it out.
 */
export function listedStatusesOf(state: Pick<PublicRequestState, 'publication_settings'>): string[] {
  let published: unknown
  try {
    published = state.publication_settings === null ? undefined : (JSON.parse(state.publication_settings) as unknown)
  } catch {
    published = undefined
  }
  const stored =
    published !== null && typeof published === 'object'
      ? (published as { published_statuses?: unknown }).published_statuses
      : undefined
  const statuses = Array.isArray(stored) ? stored : DEFAULT_PUBLICATION_SETTINGS.published_statuses
  return ON_SALE_STATUSES.filter((status) => statuses.includes(status))
}

export function allowedOriginsOf(state: Pick<PublicRequestState, 'allowed_origins'>): string[] {
  if (state.allowed_origins === null) return []
  try {
    const parsed: unknown = JSON.parse(state.allowed_origins)
    return Array.isArray(parsed) ? parsed.filter((value): value is string => typeof value === 'string') : []
  } catch {
    return []
  }
}

export function readPublicRequestState(ctx: HostContext, investmentId: number): Promise<PublicRequestState> {
  return selectPublicRequestState(ctx.db, investmentId)
}

/** Grosze as a decimal string with two places. */
export function formatAmount(cents: number): string {
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}

function priceOf(state: PriceState): PublicPrice | null {
  return state.cents === null ? null : { amount: formatAmount(state.cents), valid_from: state.from }
}

/** A stored area (decimal text) with at least two decimal places, as the official file writes it. */
function formatArea(area: string | null): string | null {
  if (area === null || area.trim() === '') return null
  const text = area.trim().replace(',', '.')
  if (!/^\d+(\.\d+)?$/.test(text)) return text
  const [whole = '0', fraction = ''] = text.split('.')
  return `${whole}.${fraction.padEnd(2, '0')}`
}

function addressOf(street: string | null, buildingNo: string | null): string | null {
  const text = [street, buildingNo].filter((part) => part !== null && part.trim() !== '').join(' ')
  return text === '' ? null : text
}

/**
 * The unit's price history up to `day`, newest first: one entry per date on which its price per
 * m² or its total took effect, with both as in force on that date by the same rule as today's.
 */
function historyOf(
  m2Records: readonly PriceRecord[],
  m2Stored: PriceState,
  totalRecords: readonly PriceRecord[],
  totalStored: PriceState,
  day: string,
): PublicHistoryEntry[] {
  const dates = new Set<string>()
  for (const record of [...m2Records, ...totalRecords]) if (record.validFrom <= day) dates.add(record.validFrom)
  for (const stored of [m2Stored, totalStored])
    if (stored.cents !== null && stored.from !== null && stored.from <= day) dates.add(stored.from)
  const entries: PublicHistoryEntry[] = []
  for (const date of [...dates].sort().reverse()) {
    const m2 = priceInForce(m2Records, m2Stored, date)
    const total = priceInForce(totalRecords, totalStored, date)
    entries.push({
      valid_from: date,
      price_m2: m2.cents === null ? null : formatAmount(m2.cents),
      price_total: total.cents === null ? null : formatAmount(total.cents),
    })
  }
  return entries
}

/**
 * A part's price history up to `day`, newest first: each date on which its price took effect, with
 * the price in force from that date (null: withdrawn), as the official files of those days carry
 * it in columns 44–54.
 */
function partHistoryOf(records: readonly PriceRecord[], stored: PriceState, day: string): PublicPartHistoryEntry[] {
  const dates = new Set<string>()
  for (const record of records) if (record.validFrom <= day) dates.add(record.validFrom)
  if (stored.cents !== null && stored.from !== null && stored.from <= day) dates.add(stored.from)
  return [...dates]
    .sort()
    .reverse()
    .map((date) => {
      const price = priceInForce(records, stored, date)
      return { valid_from: date, amount: price.cents === null ? null : formatAmount(price.cents) }
    })
}

function isStandaloneType(type: string): type is StandalonePartType {
  return (STANDALONE_PART_TYPES as readonly string[]).includes(type)
}

/** The answer's body for an investment whose state was found answerable; undefined if it no longer is. */
export async function buildPublicPrices(
  ctx: HostContext,
  investmentId: number,
  state: PublicRequestState,
): Promise<PublicPrices | undefined> {
  const day = catalogDay(ctx)
  const investment = await selectPublicInvestment(ctx.db, investmentId)
  if (!investment) return undefined
  const units = await selectUnitsOnOffer(ctx.db, investmentId, listedStatusesOf(state))
  const ids = units.map((unit) => unit.id)
  const [parts, records] = await Promise.all([
    selectPartsOf(ctx.db, ids),
    ids.length === 0 ? Promise.resolve([]) : selectPriceRecordsUpTo(ctx.db, ids, day),
  ])
  const recordsByOffer = groupPriceRecords(records)
  const partsByOffer = new Map<number, typeof parts>()
  for (const part of parts) {
    const list = partsByOffer.get(part.offer_id) ?? []
    list.push(part)
    partsByOffer.set(part.offer_id, list)
  }
  return {
    investment: {
      id: investment.id,
      title: investment.title,
      city: investment.loc_city,
      address: addressOf(investment.loc_street, investment.loc_building_no),
      developer: investment.developer_name,
    },
    day,
    // the time of the catalog's last write: the same answer has the same bytes on every instance
    generated_at: new Date(state.modified_at).toISOString(),
    currency: 'PLN',
    units: units.map((unit): PublicUnit => {
      const own = recordsByOffer.get(unit.id)
      // a part sold on its own has only its total in the official file (46 or 50): no m², no column 42
      const standalone = unit.offer_kind === 'standalone_part' && isStandaloneType(unit.property_type)
      const m2Records = standalone ? [] : (own?.get('m2') ?? [])
      const m2Stored = standalone ? NO_PRICE : { cents: unit.price_m2_cents, from: unit.price_m2_from }
      const totalStored = { cents: unit.price_total_cents, from: unit.price_total_from }
      const unitParts = partsByOffer.get(unit.id) ?? []
      // the prices of the day as the official file reads them (offers/prices-on-day.ts), column 42 included
      const prices = unitPricesOnDay(
        {
          id: unit.id,
          price_m2_cents: m2Stored.cents,
          price_m2_from: m2Stored.from,
          price_total_cents: unit.price_total_cents,
          price_total_from: unit.price_total_from,
          price_combined_cents: standalone ? null : unit.price_combined_cents,
          price_combined_from: standalone ? null : unit.price_combined_from,
        },
        unitParts,
        standalone && own ? new Map([...own].filter(([key]) => key !== 'm2' && key !== 'combined')) : own,
        day,
      )
      const m2 = prices.m2
      const total = prices.total
      const inForceParts = unitParts.map((part) => ({
        ...part,
        price: prices.components.get(part.id) ?? NO_PRICE,
        history: partHistoryOf(
          own?.get(priceKey('component', part.id)) ?? [],
          { cents: part.price_cents, from: part.price_from },
          day,
        ),
      }))
      const combined = standalone ? NO_PRICE : prices.combined
      return {
        id: unit.id,
        designation: unit.code,
        kind: standalone ? (unit.property_type as StandalonePartType) : unit.property_type === 'dom' ? 'house' : 'flat',
        area_m2: formatArea(unit.area),
        rooms: unit.rooms,
        floor: unit.floor,
        status: unit.status as PublicUnit['status'],
        price_m2: priceOf(m2),
        price_total: priceOf(total),
        price_combined: priceOf(combined),
        parts: inForceParts
          .filter((part) => COMBINED_GROUPS.includes(part.group_kind))
          .map((part) => ({
            kind: componentKindOf(part.group_kind, part.kind_label) ?? part.group_kind,
            label: part.kind_label,
            designation: part.designation,
            price: priceOf(part.price),
            history: part.history,
          })),
        other_payments: inForceParts
          .filter((part) => part.group_kind === 'other_payment')
          .map((part) => ({
            description: part.description ?? part.kind_label,
            amount: part.price.cents === null ? null : formatAmount(part.price.cents),
            valid_from: part.price.cents === null ? null : part.price.from,
          })),
        history: historyOf(m2Records, m2Stored, own?.get('total') ?? [], totalStored, day),
      }
    }),
  }
}
