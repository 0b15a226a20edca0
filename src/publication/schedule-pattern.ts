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
