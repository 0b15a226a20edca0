/*
 * Which days may get a file, and which were missed. A day's file reflects that day and never
 * changes once the day has ended (Europe/Warsaw); a day nobody published stays missed until a
 * report import fills it.
 */
import type { HostContext } from '../../host/context.js'
import { englishCount, polishCount } from '../../host/plural.js'
import { addDays, todayInWarsaw } from '../../host/warsaw-day.js'
import { issue, type PublicationIssue } from '../publication-issue.js'

/**
 * Days nobody published: every date from the first listed day to the day before `date` without a
 * file of its own, gaps between published days included (a missed day stays missed until a report
 * import fills it), at most the latest 1000.
 */
export function missedDays(listedDates: readonly string[], date: string): string[] {
  const listed = new Set(listedDates)
  const first = [...listed].filter((d) => d < date).sort()[0]
  if (first === undefined) return []
  const missed: string[] = []
  for (let day = addDays(first, 1); day < date; day = addDays(day, 1)) {
    if (!listed.has(day)) missed.push(day)
  }
  return missed.slice(-1000)
}

/**
 * The days missed since the latest listed day before `date`: what a publication of `date` or an
 * alert of that day newly has to tell (older gaps were told when they were new, and stay listed
 * by missedDays until a report fills them).
 */
export function daysMissedSinceLastFile(listedDates: readonly string[], date: string): string[] {
  const last = listedDates
    .filter((d) => d < date)
    .sort()
    .at(-1)
  return last === undefined ? [] : missedDays([last], date)
}

export function missedDaysWarning(dates: string[]): PublicationIssue {
  const shown = dates.length > 10 ? `${dates.slice(0, 10).join(', ')} …` : dates.join(', ')
  return issue(
    'publication_days_missed',
    `Nie opublikowano pliku za ${polishCount(dates.length, ['dzień', 'dni', 'dni'])}: ${shown}. Pliku za miniony dzień nie da się odtworzyć z dzisiejszych cen; jeśli masz raport z tamtego dnia, opublikuj go importem raportu (58 kolumn) z datą tego dnia.`,
    `No file was published for ${englishCount(dates.length, ['day', 'days'])}: ${shown}. A past day's file cannot be rebuilt from today's prices; if you have that day's report, publish it with the report import for its date.`,
    { dates },
  )
}

/**
 * Only today is built from the catalog; a past day only by the report import, which carries that
 * day's own data, and only when nothing was published for it.
 */
export function publicationDayFinding(
  ctx: HostContext,
  date: string,
  ownData: boolean,
  published: boolean,
): PublicationIssue | undefined {
  const today = todayInWarsaw(ctx)
  if (date > today)
    return issue(
      'publication_date_future',
      `Nie można opublikować cennika z datą przyszłą (${date}); dzisiaj jest ${today}. Plik dnia powstaje z cen obowiązujących tego dnia.`,
      `A future date (${date}) cannot be published; today is ${today}. A day's file is made from the prices of that day.`,
      { date, today },
    )
  if (date < today && published)
    return issue(
      'publication_day_closed',
      `Plik z dnia ${date} został już opublikowany, a ten dzień się skończył: jego treść i adres nie mogą się zmienić. Zmiany cen trafią do pliku dzisiejszego (${today}).`,
      `The file of ${date} was published and that day has ended: its content and URL never change. Price changes go into today's file (${today}).`,
      { date, today },
    )
  if (date < today && !ownData)
    return issue(
      'publication_date_past',
      `Dzień ${date} minął i nie ma dla niego pliku; nie da się go odtworzyć z dzisiejszych cen. Opublikuj go importem raportu (58 kolumn) z danymi z tamtego dnia albo opublikuj dzisiejszy plik (${today}).`,
      `${date} has passed without a file; it cannot be rebuilt from today's prices. Publish that day's report with the report import, or publish today's file (${today}).`,
      { date, today },
    )
  return undefined
}
