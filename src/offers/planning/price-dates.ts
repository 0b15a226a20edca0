/*
 * The rules on the dates of an offer's prices that only the catalog can check (the validator has
 * checked each date itself): no change before the offer's first record of the price, no pair of
 * prices dated apart so that the file would show a pair that disagrees, and no change on a day whose
 * official file is published (closed-day.ts). Shared by the row and the editor planning.
 */
import { datedOnPublishedDay, publishedDayError } from '../closed-day.js'
import { priceWithinRounding } from '../validation/price-consistency.js'
import { fieldError, formatAreaPl, formatCentsPl, formatDatePl, type RowError } from '../validation/row-errors.js'
import type { NormalizedOfferValues } from '../validation/validate-offer-row.js'

/** Per offer id, the earliest "valid from" date of each of its offer-level prices. */
export type FirstPriceDates = ReadonlyMap<number, ReadonlyMap<string, string>>

const FIRST_DATE_PRICES = [
  { type: 'total', field: 'price_total', date: 'priceTotalFrom' },
  { type: 'm2', field: 'price_m2', date: 'priceM2From' },
  { type: 'combined', field: 'price_combined', date: 'priceCombinedFrom' },
] as const

/**
 * A plain change of a price dated before the offer's first record of that price would rewrite the
 * past the published files show (the file of that day said there was no such price, or another
 * one): refused on every channel. A correction (the editor's flag) fixes a recorded amount instead.
 */
export function priceBeforeFirstRecord(
  row: number,
  offerId: number | undefined,
  values: NormalizedOfferValues,
  changes: ReadonlySet<string>,
  firstDates: FirstPriceDates,
  correction: boolean,
): RowError | undefined {
  if (offerId === undefined || correction) return undefined
  const firsts = firstDates.get(offerId)
  if (!firsts) return undefined
  for (const price of FIRST_DATE_PRICES) {
    const from = values[price.date]
    const first = firsts.get(price.type)
    if (from === undefined || from === null || first === undefined || from >= first) continue
    if (!changes.has(price.field) && !changes.has(`${price.field}_from`)) continue
    return fieldError(
      row,
      `${price.field}_from`,
      'price_before_first_record',
      `${from} is before the first recorded ${price.field} of this offer (${first}); a change cannot start before the offer had that price`,
      `data ${formatDatePl(from)} jest wcześniejsza niż pierwsza zapisana cena tej oferty (od ${formatDatePl(first)}): ` +
        'zmiana ceny nie może obowiązywać przed pierwszą ceną. Podaj datę od dnia pierwszej ceny lub późniejszą; ' +
        'jeśli pierwsza cena była błędna, popraw ją jako korektę (w edytorze zaznacz „To korekta błędnie wpisanej ceny, nie zmiana ceny”).',
    )
  }
  return undefined
}

/**
 * Both prices changed with different dates: between the two dates the file would pair the new
 * price with the old other one (a total from 07.11 beside the old price per m² until 09.11), which
 * must agree with the area as any pair does. Checked when the prices are entered, at the field of
 * the earlier date, rather than first by the night's publication.
 */
export function splitDatedPrices(
  row: number,
  values: NormalizedOfferValues,
  changes: ReadonlySet<string>,
  stored: { price_total_cents: number | null; price_m2_cents: number | null },
  area: string | null,
): RowError | undefined {
  if (!changes.has('price_total') || !changes.has('price_m2') || area === null) return undefined
  const totalFrom = values.priceTotalFrom
  const m2From = values.priceM2From
  if (!totalFrom || !m2From || totalFrom === m2From) return undefined
  const totalFirst = totalFrom < m2From
  const total = totalFirst ? values.priceTotalCents : stored.price_total_cents
  const m2 = totalFirst ? stored.price_m2_cents : values.priceM2Cents
  if (total === undefined || total === null || m2 === undefined || m2 === null || total <= 0) return undefined
  if (priceWithinRounding(total, m2, area)) return undefined
  const [earlier, later] = totalFirst ? [totalFrom, m2From] : [m2From, totalFrom]
  return fieldError(
    row,
    totalFirst ? 'price_total_from' : 'price_m2_from',
    'inconsistent_price_dates',
    `the total takes effect on ${totalFrom} and the price per m² on ${m2From}: from ${earlier} until ${later} ` +
      `${(total / 100).toFixed(2)} would stand beside ${(m2 / 100).toFixed(2)} per m² × ${area}, which do not agree; give both the same date`,
    `cena całkowita obowiązuje od ${formatDatePl(totalFrom)}, a cena za m² od ${formatDatePl(m2From)}: ` +
      `od ${formatDatePl(earlier)} do dnia przed ${formatDatePl(later)} w pliku byłaby cena całkowita ${formatCentsPl(total)} zł ` +
      `obok ceny za m² ${formatCentsPl(m2)} zł × ${formatAreaPl(area)} m², a te się nie zgadzają. Podaj obu cenom tę samą datę.`,
  )
}

/**
 * The date sent with the other price of the pair (total and price per m²), which an undated one of
 * them takes: a row that dates its total and leaves the price per m² undated means one price list,
 * not a price per m² of today beside a total of months ago.
 */
export function pairDate(sent: NormalizedOfferValues, date: 'priceM2From' | 'priceTotalFrom' | 'priceCombinedFrom') {
  if (date === 'priceM2From') return sent.priceTotalCents !== undefined ? sent.priceTotalFrom : undefined
  if (date === 'priceTotalFrom') return sent.priceM2Cents !== undefined ? sent.priceM2From : undefined
  return undefined
}

/** A change of an offer-level price (or of its date alone) dated on a published day, before today. */
export function pricesOnPublishedDays(
  row: number,
  values: NormalizedOfferValues,
  changes: ReadonlySet<string>,
  closedThrough: string | undefined,
  today: string,
): RowError[] {
  if (closedThrough === undefined) return []
  const out: RowError[] = []
  for (const price of FIRST_DATE_PRICES) {
    const from = values[price.date]
    if (from === undefined || from === null) continue
    if (!changes.has(price.field) && !changes.has(`${price.field}_from`)) continue
    if (datedOnPublishedDay(from, closedThrough, today))
      out.push(publishedDayError(row, `${price.field}_from`, from, closedThrough, today))
  }
  return out
}
