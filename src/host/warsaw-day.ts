/*
 * The legal day of a Polish developer is the calendar day in Europe/Warsaw: the day a price holds,
 * the day a file is published for, the day the catalog shows. Every date the service reasons
 * about is such a day, written YYYY-MM-DD.
 */
import type { HostContext } from './context.js'

// building an Intl formatter costs ~0.3 ms, so it is made once and reused on every request
const WARSAW_DATE = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Warsaw',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
})

/*
 * Formatting costs several microseconds and the catalog asks on every request (the licence's
 * validity), so the last minute's answer is kept: Warsaw's offsets are whole hours, so its date
 * changes only on a minute boundary.
 */
let lastMinute = Number.NaN
let lastDate = ''

/** Today's calendar date in Europe/Warsaw, where the legal day of a Polish developer is. */
export function warsawDate(at: Date): string {
  const minute = Math.floor(at.getTime() / 60_000)
  if (minute !== lastMinute) {
    lastDate = WARSAW_DATE.format(at)
    lastMinute = minute
  }
  return lastDate
}

/**
 * The Warsaw calendar day of a stored instant (an ISO timestamp in UTC): a price recorded at 00:17
 * on 29.11 in Warsaw was recorded on the 29th, the day its default "valid from" takes, not on the
 * 28th its UTC text starts with. A value without a time is already a day.
 */
export function warsawDayOf(stored: string): string {
  if (stored.length <= 10) return stored
  const at = new Date(stored)
  return Number.isNaN(at.getTime()) ? stored.slice(0, 10) : WARSAW_DATE.format(at)
}

export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false
  const parsed = new Date(`${value}T00:00:00Z`)
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value
}

/** Today in Europe/Warsaw by the app's clock. */
export function todayInWarsaw(ctx: Pick<HostContext, 'now'>): string {
  return warsawDate(ctx.now())
}

/** The calendar day `days` after `day` (before, when negative). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`)
  date.setUTCDate(date.getUTCDate() + days)
  return date.toISOString().slice(0, 10)
}
