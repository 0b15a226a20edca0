/*
 * How catalog values are presented to a Polish website: money as `1 234 567,89 zł` from integer
 * grosze (no floating point anywhere), areas as `54,30 m²`, dates as DD.MM.YYYY, Polish labels.
 * Amounts that do not exist are empty strings, never "X" (that sign belongs to the official file).
 * The offer types' names and slugs are the offers' own (src/offers/names-and-slugs.ts).
 */
export { OFFER_TYPE_LABELS, slugify } from '../offers/names-and-slugs.js'

export function formatPln(cents: number | null | undefined): string {
  if (cents === null || cents === undefined) return ''
  const negative = cents < 0
  const abs = Math.abs(Math.trunc(cents))
  const zloty = Math.floor(abs / 100).toString()
  const grosze = (abs % 100).toString().padStart(2, '0')
  const grouped = zloty.replace(/\B(?=(\d{3})+(?!\d))/g, ' ')
  return `${negative ? '-' : ''}${grouped},${grosze} zł`
}

export function formatArea(area: string | null): string {
  if (!area) return ''
  const [whole = '0', fraction = ''] = area.split('.')
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ' ')},${fraction.padEnd(2, '0')} m²`
}

export function formatDate(isoDate: string | null): string {
  if (!isoDate) return ''
  const [year, month, day] = isoDate.slice(0, 10).split('-')
  return year && month && day ? `${day}.${month}.${year}` : ''
}

export const STATUS_LABELS: Record<string, string> = {
  available: 'Dostępne',
  reserved: 'Zarezerwowane',
  sold: 'Sprzedane',
  unavailable: 'Niedostępne',
  archived: 'Archiwalne',
}

export const PRICE_TYPE_LABELS: Record<string, string> = {
  total: 'Cena całkowita',
  m2: 'Cena za m²',
  combined: 'Cena z elementami dodatkowymi',
  component: 'Cena elementu',
}

export const RECORD_TYPE_LABELS: Record<string, string> = {
  first: 'pierwsza cena',
  change: 'zmiana ceny',
  withdrawal: 'wycofanie ceny',
  correction: 'korekta ceny',
}
