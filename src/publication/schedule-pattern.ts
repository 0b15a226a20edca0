/*
 * The daily publication's schedule is stored as a cron pattern in Europe/Warsaw; operators set it
 * as a time of day and, rarely, the days of the week. These helpers turn one into the other and
 * say when it runs next, so the panel can show the next run as soon as a change is saved.
 */
import { Cron } from 'croner'

const TIMEZONE = 'Europe/Warsaw'

/** The next `count` runs of `pattern` after `from` (ISO), or [] when the pattern is not valid cron. */
export function nextScheduledRuns(pattern: string, from: Date, count = 1): string[] {
  let cron: Cron
  try {
    cron = new Cron(pattern, { paused: true, timezone: TIMEZONE })
  } catch {
    return []
  }
  try {
    return cron.nextRuns(count, from).map((run) => run.toISOString())
  } finally {
    cron.stop()
  }
}

export interface TimeOfDaySchedule {
  /** HH:MM in Polish time. */
  time: string
  /** Days of the week, 0 = Sunday … 6 = Saturday; all seven for every day. */
  days: number[]
}

/**
 * The time of day and days of a pattern of the form "M H * * D" (D = * or a list of days), or
 * null for any other pattern (then it is shown as cron, the advanced form).
 */
export function timeOfDayOf(pattern: string): TimeOfDaySchedule | null {
  const fields = pattern.trim().split(/\s+/)
  if (fields.length !== 5 || fields[2] !== '*' || fields[3] !== '*') return null
  const [minute, hour, , , days] = fields as [string, string, string, string, string]
  if (!/^\d{1,2}$/.test(minute) || !/^\d{1,2}$/.test(hour)) return null
  const m = Number(minute)
  const hr = Number(hour)
  if (m > 59 || hr > 23) return null
  let list: number[]
  if (days === '*') list = [0, 1, 2, 3, 4, 5, 6]
  else {
    if (!/^[0-7](,[0-7])*$/.test(days)) return null
    list = [...new Set(days.split(',').map((d) => Number(d) % 7))].sort((a, b) => a - b)
  }
  return { time: `${String(hr).padStart(2, '0')}:${String(m).padStart(2, '0')}`, days: list }
}

/*
 * Any 62 days in a row hold a 31st of a month, so a pattern of days of the month shows within them
 * every day it skips; days of the week repeat within any seven.
 */
const CHECKED_DAYS = 62
const DAY_MS = 24 * 3600 * 1000

export interface SkippedDays {
  /** Days of the week without any run, 0 = Sunday … 6 = Saturday. */
  weekdays: number[]
  /** Every date (YYYY-MM-DD, Polish time) without a run in the days checked, from tomorrow on. */
  dates: string[]
}

const warsawDay = (at: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: TIMEZONE }).format(at)
const dayAfter = (date: string, days = 1) =>
  new Date(Date.parse(`${date}T12:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)

/**
 * The days `pattern` publishes nothing on, from the day after `from` on; null when every day has a
 * run or the pattern is not valid cron. The law asks for a file every day, so a schedule with a
 * day off is worth a word wherever it is set.
 */
export function daysWithoutRun(pattern: string, from: Date): SkippedDays | null {
  let cron: Cron
  try {
    cron = new Cron(pattern, { paused: true, timezone: TIMEZONE })
  } catch {
    return null
  }
  try {
    const first = dayAfter(warsawDay(from))
    const last = dayAfter(first, CHECKED_DAYS - 1)
    const covered = new Set<string>()
    // midnight in Warsaw is 22:00 or 23:00 UTC the day before: start early and skip what is earlier
    let cursor = new Date(Date.parse(`${first}T00:00:00Z`) - 2 * 3600 * 1000 - 1)
    for (let run = cron.nextRun(cursor); run; run = cron.nextRun(cursor)) {
      const day = warsawDay(run)
      if (day > last) break
      if (day >= first) covered.add(day)
      // on to the next day: a pattern running every minute is not walked minute by minute
      const next = new Date(Date.parse(`${dayAfter(day)}T00:00:00Z`) - 2 * 3600 * 1000 - 1)
      cursor = next > run ? next : run
    }
    const dates: string[] = []
    for (let i = 0; i < CHECKED_DAYS; i++) {
      const day = dayAfter(first, i)
      if (!covered.has(day)) dates.push(day)
    }
    if (dates.length === 0) return null
    const weekdayOf = (date: string) => new Date(`${date}T12:00:00Z`).getUTCDay()
    const runWeekdays = new Set([...covered].map(weekdayOf))
    const weekdays = [0, 1, 2, 3, 4, 5, 6].filter((d) => !runWeekdays.has(d))
    return { weekdays, dates }
  } finally {
    cron.stop()
  }
}
