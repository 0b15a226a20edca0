/*
 * What a bulk price change does to each offer: the operator's percent applied to the total in force
 * on the change's date, rounded as asked, and the price per m² made from the new total (the total ÷
 * area, rounded to the grosz, which the shared price rule accepts). An offer the change cannot
 * address is skipped with why.
 */
import { withPricesInForce } from '../catalog/current-prices.js'
import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { isCalendarDate } from '../host/warsaw-day.js'
import { selectOffersToReprice } from './bulk-changes-repository.js'

export type Rounding = 'grosz' | 'zloty' | 'hundred'

export const ROUNDING_UNIT: Readonly<Record<Rounding, number>> = { grosz: 1, zloty: 100, hundred: 10_000 }

export const ROUNDING_RULES: Readonly<Record<Rounding, { pl: string; en: string }>> = {
  grosz: {
    pl: 'cena całkowita zaokrąglona do pełnego grosza (połówki w górę); cena za m² = cena całkowita ÷ powierzchnia, zaokrąglona do grosza',
    en: 'total rounded to the grosz (halves up); price per m² = total ÷ area, rounded to the grosz',
  },
  zloty: {
    pl: 'cena całkowita zaokrąglona do pełnego złotego (połówki w górę); cena za m² = cena całkowita ÷ powierzchnia, zaokrąglona do grosza',
    en: 'total rounded to the whole złoty (halves up); price per m² = total ÷ area, rounded to the grosz',
  },
  hundred: {
    pl: 'cena całkowita zaokrąglona do pełnych 100 zł (połówki w górę); cena za m² = cena całkowita ÷ powierzchnia, zaokrąglona do grosza',
    en: 'total rounded to whole 100 PLN (halves up); price per m² = total ÷ area, rounded to the grosz',
  },
}

/** The statuses an offer may have in a price change (an archived one is never changed). */
export const PRICE_CHANGE_STATUSES = ['available', 'reserved', 'sold', 'unavailable'] as const

/** A change of an investment reprices the units on sale unless told otherwise: never a sold flat by default. */
export const DEFAULT_PRICE_CHANGE_STATUSES: readonly string[] = ['available']

export interface PriceChangeInput {
  offerIds?: number[] | undefined
  investment?: number | undefined
  /**
   * The statuses of the offers changed; when omitted, an investment's units on sale
   * (`available`), and offers chosen by id whatever their status (the operator picked each).
   */
  statuses?: readonly string[] | undefined
  /** e.g. "3", "-2.5", "+3,5": at most two decimals, between -50 and +100. */
  percent: string
  rounding: Rounding
  validFrom: string
  reason: string
}

export interface PriceChangeLine {
  offer_id: number
  designation: string
  investment_title: string
  source_investment_id: string
  source_property_id: string
  area: string
  before_total: string
  after_total: string
  before_m2: string | null
  after_m2: string
}

export interface SkippedOffer {
  offer_id: number
  designation: string
  reason: 'standalone_part' | 'no_import_identifier' | 'no_price_or_area'
}

const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`

function percentHundredths(text: string): number {
  const match = /^([+-]?)(\d{1,3})(?:[.,](\d{1,2}))?$/.exec(text.trim())
  if (!match)
    throw invalidPriceChange(
      'percent',
      'Podaj zmianę w procentach, np. 3 albo -2,5.',
      'Give the change in percent, e.g. 3 or -2.5.',
    )
  const value = (Number(match[2]) * 100 + Number((match[3] ?? '').padEnd(2, '0'))) * (match[1] === '-' ? -1 : 1)
  if (value === 0 || value < -5000 || value > 10_000)
    throw invalidPriceChange(
      'percent',
      'Zmiana musi być różna od zera, od -50% do +100%.',
      'The change must be non-zero, from -50% to +100%.',
    )
  return value
}

export function invalidPriceChange(field: string, pl: string, en: string): PluginError {
  return new PluginError('invalid_price_change', 422, {
    issues: [{ field, code: 'invalid_price_change', message_pl: pl, message_en: en }],
  })
}

/** Area text ("54.3", "54.30") in hundredths of a m². */
function areaHundredths(area: string): number {
  const [whole = '0', fraction = ''] = area.split('.')
  return Number(whole) * 100 + Number((fraction + '00').slice(0, 2))
}

/** The statuses a change covers (undefined: every one). */
export function priceChangeStatuses(input: PriceChangeInput): readonly string[] | undefined {
  if (input.statuses !== undefined) return input.statuses
  return (input.offerIds?.length ?? 0) > 0 ? undefined : DEFAULT_PRICE_CHANGE_STATUSES
}

/** Checks the operator's input and gives each offer in scope before → after, or why it is skipped. */
export async function planPriceChange(ctx: HostContext, input: PriceChangeInput) {
  const hundredths = percentHundredths(input.percent)
  if (!isCalendarDate(input.validFrom))
    throw invalidPriceChange(
      'valid_from',
      'Podaj datę, od której obowiązują nowe ceny.',
      'Give the date the new prices apply from.',
    )
  if (!input.reason.trim())
    throw invalidPriceChange(
      'reason',
      'Podaj powód zmiany cen (trafi do historii i dziennika zdarzeń).',
      'Give the reason for the change (it goes to the history and the audit log).',
    )
  if ((input.offerIds?.length ?? 0) === 0 && input.investment === undefined)
    throw invalidPriceChange('offer_ids', 'Wybierz inwestycję albo oferty.', 'Choose an investment or offers.')
  // the change applies to the prices in force on its date, not to a price announced for a later day
  const { offers } = await withPricesInForce(
    ctx.db,
    await selectOffersToReprice(ctx.db, {
      investment: input.investment,
      offerIds: input.offerIds,
      statuses: priceChangeStatuses(input),
    }),
    [],
    input.validFrom,
  )
  const unit = ROUNDING_UNIT[input.rounding]
  const lines: PriceChangeLine[] = []
  const skipped: SkippedOffer[] = []
  for (const o of offers) {
    const skip = (reason: SkippedOffer['reason']) => skipped.push({ offer_id: o.id, designation: o.code, reason })
    if (o.offer_kind !== 'property') {
      skip('standalone_part')
      continue
    }
    if (!o.source_property_id || !o.source_id) {
      skip('no_import_identifier')
      continue
    }
    if (o.price_total_cents === null || o.area === null || areaHundredths(o.area) === 0) {
      skip('no_price_or_area')
      continue
    }
    const total = Math.round((o.price_total_cents * (10_000 + hundredths)) / 10_000 / unit) * unit
    const m2 = Math.round((total * 100) / areaHundredths(o.area))
    lines.push({
      offer_id: o.id,
      designation: o.code,
      investment_title: o.title,
      source_investment_id: o.source_id,
      source_property_id: o.source_property_id,
      area: o.area,
      before_total: money(o.price_total_cents),
      after_total: money(total),
      before_m2: o.price_m2_cents === null ? null : money(o.price_m2_cents),
      after_m2: money(m2),
    })
  }
  return { lines, skipped, hundredths }
}
