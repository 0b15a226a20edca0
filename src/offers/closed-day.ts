/*
 * A published day is closed (docs/decisions/published-record.md): the file of a day is the legal
 * record of the prices offered on it, so no later write may change what it said. A price dated on
 * or before the last published day of its dataset, and before today, would do exactly that (the
 * next file would claim the new price held on days whose files showed another one). The editor
 * refuses it, naming the earliest date that can be used; import, webhook and sources, whose "price
 * from" column is often stale, apply it from the earliest open day and keep the sent date in the
 * history's reason. A change dated today after today's file is published stays allowed: it is a
 * new version of today's file.
 */
import { fieldError, formatDatePl, type RowError } from './validation/row-errors.js'
import { addDays } from '../host/warsaw-day.js'

export const PRICE_DATE_PUBLISHED = 'price_date_published'

/** The earliest "valid from" a change may take: the day after the last published one, today at the latest. */
export function earliestOpenDay(lastPublished: string, today: string): string {
  const next = addDays(lastPublished, 1)
  return next < today ? next : today
}

/** Whether a price dated `from` would change a day already published (before today). */
export function datedOnPublishedDay(from: string, lastPublished: string | undefined, today: string): boolean {
  return lastPublished !== undefined && from < today && from <= lastPublished
}

/** The refusal of a price dated `from` on a published day, at the date's field. */
export function publishedDayError(
  row: number,
  field: string,
  from: string,
  lastPublished: string,
  today: string,
): RowError {
  const earliest = earliestOpenDay(lastPublished, today)
  return fieldError(
    row,
    field,
    PRICE_DATE_PUBLISHED,
    `${from} is on or before ${lastPublished}, the last day whose official file is published: the published files said which price held then, and they are never contradicted. ` +
      `Date the change ${earliest} or later.`,
    `dzień ${formatDatePl(from)} jest objęty opublikowanymi już plikami urzędowymi (ostatni opublikowany dzień: ` +
      `${formatDatePl(lastPublished)}): opublikowane pliki podały, jaka cena obowiązywała w tych dniach, a ich nie ` +
      `wolno podważać. Podaj datę od ${formatDatePl(earliest)} lub późniejszą; jeśli wcześniejsza cena była błędna, ` +
      'wpisz poprawioną cenę z tą datą.',
  )
}
