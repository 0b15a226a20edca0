/*
 * What an alert says, per cause, in Polish and English. Each text tells what happened, what it
 * means for the legal duty and what to do, so that the e-mail or the chat message is enough to act.
 */
import { englishCount, polishCount } from '../host/plural.js'

export type AlertCause =
  | 'publication_failed'
  | 'missed_days'
  | 'delivery_failed'
  | 'row_drop'
  | 'license_continuity'
  | 'publication_gaps'
  | 'source_held'
  | 'source_failed'
  | 'source_stale'
  | 'publication_audit'
  | 'test'

export type AlertSeverity = 'critical' | 'warning' | 'info'

export interface AlertDataset {
  id: number
  name: string
}

/** An alert before it is claimed: cause, day and dataset make it unique. */
export interface AlertInput {
  cause: AlertCause
  day: string
  dataset: AlertDataset | null
  severity: AlertSeverity
  message_pl: string
  message_en: string
  details: Record<string, unknown>
}

export const ALERT_TITLES: Record<AlertCause, { pl: string; en: string }> = {
  publication_failed: {
    pl: 'Publikacja z harmonogramu nie powiodła się',
    en: 'The scheduled publication failed',
  },
  missed_days: { pl: 'Brak opublikowanego pliku za miniony dzień', en: 'A past day has no published file' },
  delivery_failed: {
    pl: 'Pliki nie są poprawnie udostępniane portalowi',
    en: 'The files are not served correctly to the portal',
  },
  row_drop: { pl: 'Dzisiejszy plik ma znacznie mniej wierszy', en: "Today's file has far fewer rows" },
  license_continuity: { pl: 'Licencja wygasła: tryb ciągłości', en: 'The licence lapsed: continuity mode' },
  publication_gaps: {
    pl: 'Dzisiejszy plik pokazuje ofertę niepełnie',
    en: "Today's file shows the offer incompletely",
  },
  source_held: { pl: 'Zmiany ze źródła czekają na decyzję', en: 'Changes from a source await a decision' },
  source_failed: { pl: 'Źródło ofert nie zostało wczytane', en: 'An offer source could not be read' },
  source_stale: { pl: 'Plik źródła od dawna się nie zmienił', en: "A source's file has not changed for days" },
  publication_audit: {
    pl: 'Audyt opublikowanych plików znalazł błędy',
    en: 'The audit of the published files found errors',
  },
  test: { pl: 'Alert testowy', en: 'Test alert' },
}

function inDataset(dataset: AlertDataset | null): { pl: string; en: string } {
  return dataset
    ? { pl: ` (zbiór dewelopera ${dataset.name})`, en: ` (dataset of ${dataset.name})` }
    : { pl: '', en: '' }
}

function listed(values: readonly string[], max = 10): string {
  return values.length > max ? `${values.slice(0, max).join(', ')} …` : values.join(', ')
}

/**
 * `earlierFileServed`: the dataset already serves a file, which the portal keeps fetching; when it
 * serves none yet (a first publication failed) the text must not promise a previous version.
 */
export function publicationFailedAlert(
  day: string,
  dataset: AlertDataset | null,
  issues: readonly { code: string; message_pl?: string; message_en?: string }[],
  earlierFileServed: boolean,
): AlertInput {
  const where = inDataset(dataset)
  const codes = issues.map((i) => i.code)
  const first = issues[0]
  const served = earlierFileServed
    ? {
        pl: 'Poprzednia wersja jest nadal udostępniana, ale pliku za dziś nie ma',
        en: 'The previous version is still served, but today has no file',
      }
    : {
        pl: 'Nie opublikowano jeszcze żadnego pliku, więc portal nie ma na razie żadnych danych',
        en: 'No file has been published yet, so the portal has no data so far',
      }
  return {
    cause: 'publication_failed',
    day,
    dataset,
    severity: 'critical',
    message_pl: `Codzienna publikacja z dnia ${day}${where.pl} nie powiodła się: ${first?.message_pl || 'nieznana przyczyna.'}${codes.length > 1 ? ` Pozostałe przyczyny (${polishCount(codes.length - 1, ['kolejna', 'kolejne', 'kolejnych'])}) w panelu „Historia publikacji”.` : ''} ${served.pl}: usuń przyczynę i opublikuj dzień ponownie (panel „Publikacja”).`,
    message_en: `The daily publication of ${day}${where.en} failed: ${first?.message_en || 'unknown cause.'}${codes.length > 1 ? ` The other causes (${codes.length - 1}) in the admin panel's publication history.` : ''} ${served.en}: remove the cause and publish the day again (admin panel "Publikacja" or POST /publications).`,
    details: { issues: codes, earlier_file_served: earlierFileServed },
  }
}

export function missedDaysAlert(day: string, dataset: AlertDataset | null, dates: readonly string[]): AlertInput {
  const where = inDataset(dataset)
  return {
    cause: 'missed_days',
    day,
    dataset,
    severity: 'critical',
    message_pl: `Nie opublikowano pliku za ${polishCount(dates.length, ['dzień', 'dni', 'dni'])}${where.pl}: ${listed(dates)}. Pliku za miniony dzień nie da się odtworzyć z dzisiejszych cen; jeśli masz raport z tamtego dnia, opublikuj go importem raportu (58 kolumn) z datą tego dnia, i sprawdź, dlaczego publikacja się nie odbyła.`,
    message_en: `No file was published for ${englishCount(dates.length, ['day', 'days'])}${where.en}: ${listed(dates)}. A past day's file cannot be rebuilt from today's prices; if you have that day's report, publish it with the report import for its date, and find out why the publication did not happen.`,
    details: { dates },
  }
}

export function deliveryFailedAlert(
  day: string,
  dataset: AlertDataset | null,
  issues: readonly { code: string; message_pl: string; message_en: string }[],
): AlertInput {
  const where = inDataset(dataset)
  const first = issues[0]
  return {
    cause: 'delivery_failed',
    day,
    dataset,
    severity: 'critical',
    message_pl: `Kontrola udostępniania plików${where.pl} nie powiodła się.${first ? ` ${first.message_pl}` : ''} Harvester dane.gov.pl (mechanizm pobierania danych portalu) pobierze to samo; sprawdź serwer, proxy i publiczny adres plików w Ustawieniach.`,
    message_en: `The delivery check of the files${where.en} failed.${first ? ` ${first.message_en}` : ''} The dane.gov.pl harvester will download the same; check the server, the proxy and the public address of the files in Settings.`,
    details: { issues: issues.map((i) => i.code), first_issue: first ?? null },
  }
}

export function rowDropAlert(
  day: string,
  dataset: AlertDataset | null,
  rows: number,
  previous: { date: string; rows: number },
  share: number,
): AlertInput {
  const where = inDataset(dataset)
  const drop = 1 - rows / previous.rows
  const percent = (value: number) => `${(Math.round(value * 1000) / 10).toLocaleString('pl-PL')}%`
  const percentEn = (value: number) => `${Math.round(value * 1000) / 10}%`
  return {
    cause: 'row_drop',
    day,
    dataset,
    severity: 'warning',
    message_pl: `Plik z dnia ${day}${where.pl} ma ${polishCount(rows, ['wiersz', 'wiersze', 'wierszy'])}, o ${percent(drop)} mniej niż plik z dnia ${previous.date} (${previous.rows}); próg alertu to ${percent(share)}. Taki spadek to zwykle zepsuty import lub przerwany kanał danych z CRM, a nie sprzedaż: sprawdź ostatnie importy i webhooki, a po poprawce opublikuj dzień ponownie.`,
    message_en: `The file of ${day}${where.en} has ${englishCount(rows, ['row', 'rows'])}, ${percentEn(drop)} fewer than the file of ${previous.date} (${previous.rows}); the alert threshold is ${percentEn(share)}. A drop like this is usually a broken import or CRM feed, not sales: check the latest imports and webhooks, then publish the day again once corrected.`,
    details: {
      rows,
      previous_date: previous.date,
      previous_rows: previous.rows,
      drop_share: Math.round(drop * 10_000) / 10_000,
      threshold: share,
    },
  }
}

/**
 * A published file with gaps (an offered unit without a price, column 42 left X, offers left out
 * for want of a type, an investment without location or prospectus): published, but legally
 * incomplete until an operator fills them in. Each warning's own message says what to do.
 */
export function publicationGapsAlert(
  day: string,
  dataset: AlertDataset | null,
  warnings: readonly { code: string; message_pl: string; message_en: string; details?: unknown }[],
): AlertInput {
  const where = inDataset(dataset)
  return {
    cause: 'publication_gaps',
    day,
    dataset,
    severity: 'warning',
    message_pl: `Plik z dnia ${day}${where.pl} został opublikowany, ale pokazuje ofertę niepełnie:\n${warnings.map((w) => `- ${w.message_pl}`).join('\n')}`,
    message_en: `The file of ${day}${where.en} was published but shows the offer incompletely:\n${warnings.map((w) => `- ${w.message_en}`).join('\n')}`,
    details: { codes: warnings.map((w) => w.code) },
  }
}

/**
 * The nightly audit of everything published found errors (publication-audit.ts): each line names
 * the day and the file it is about, and the files' own problems (missing, changed, retitled) come
 * before the rows they break, so that many rows of one file do not hide another file.
 */
export function publicationAuditAlert(
  day: string,
  dataset: AlertDataset | null,
  problems: readonly {
    code: string
    message_pl: string
    message_en: string
    unit?: string | null
    day?: string | null
    file?: string | null
  }[],
): AlertInput {
  const where = inDataset(dataset)
  const fileProblem = (p: { code: string }) => (p.code.startsWith('audit_') ? 0 : 1)
  const ordered = [...problems].sort(
    (a, b) => fileProblem(a) - fileProblem(b) || (a.day ?? '').localeCompare(b.day ?? ''),
  )
  const shown = ordered.slice(0, 10)
  const more = problems.length - shown.length
  // a message that does not name its file (a row's rule) gets the day and the file before it
  const line = (p: (typeof problems)[number], message: string) =>
    `- ${p.file && !message.includes(p.file) ? `${p.day ?? ''} ${p.file}: `.trimStart() : ''}${message}`
  const days = [...new Set(problems.flatMap((p) => (p.day ? [p.day] : [])))].sort()
  const inDays =
    days.length === 0
      ? { pl: '', en: '' }
      : days.length === 1
        ? { pl: ` w pliku z dnia ${days[0]}`, en: ` in the file of ${days[0]}` }
        : { pl: ` w plikach z dni ${listed(days)}`, en: ` in the files of ${listed(days)}` }
  return {
    cause: 'publication_audit',
    day,
    dataset,
    severity: 'critical',
    message_pl: `Nocny audyt z ${day} wszystkich opublikowanych plików${where.pl} znalazł ${polishCount(problems.length, ['błąd', 'błędy', 'błędów'])}${inDays.pl}:\n${shown.map((p) => line(p, p.message_pl)).join('\n')}${more > 0 ? `\n… i ${polishCount(more, ['inny', 'inne', 'innych'])}` : ''}\nPełna lista: panel „Audyt publikacji”.`,
    message_en: `The nightly audit of ${day} of everything published${where.en} found ${englishCount(problems.length, ['error', 'errors'])}${inDays.en}:\n${shown.map((p) => line(p, p.message_en)).join('\n')}${more > 0 ? `\n… and ${more} more` : ''}\nThe whole list: admin panel "Audyt publikacji", dg audit or GET /publication/audit.`,
    details: {
      codes: [...new Set(problems.map((p) => p.code))],
      days,
      files: [...new Set(problems.flatMap((p) => (p.file ? [p.file] : [])))],
      units: problems.flatMap((p) => (p.unit ? [p.unit] : [])),
    },
  }
}

const LICENSE_STATUS_WORDS: Readonly<Record<string, string>> = {
  active: 'aktywna',
  expired: 'wygasła',
  suspended: 'zawieszona',
  inactive: 'nieaktywna',
}

export function licenseContinuityAlert(day: string, status: string, validUntil: string | null): AlertInput {
  const statusPl = LICENSE_STATUS_WORDS[status] ?? status
  return {
    cause: 'license_continuity',
    day,
    dataset: null,
    severity: 'warning',
    message_pl: `Licencja nie jest aktywna (${statusPl}${validUntil ? `, ważna do ${validUntil}` : ''}): usługa działa w trybie ciągłości. Codzienna publikacja z harmonogramu trwa, ale katalog dla strony WWW, strona stanu usługi, webhook z CRM, import plików i publikacja przez API są zablokowane. Odnów licencję (panel „Licencja”).`,
    message_en: `The licence is not active (${status}${validUntil ? `, valid until ${validUntil}` : ''}): the service runs in continuity mode. The scheduled daily publication goes on, but the website's catalog, /status, the webhook, file import and publishing through the API answer 403 pro_feature_required. Renew the licence (dg license set).`,
    details: { license_status: status, valid_until: validUntil },
  }
}

export function testAlert(day: string, from: 'cli' | 'panel' = 'cli'): AlertInput {
  return {
    cause: 'test',
    day,
    dataset: null,
    severity: 'info',
    message_pl:
      from === 'panel'
        ? 'Alert testowy wysłany z panelu operatora: ten kanał powiadomień działa.'
        : 'Alert testowy wysłany poleceniem dg alerts test: ten kanał powiadomień działa.',
    message_en:
      from === 'panel'
        ? 'Test alert sent from the operator panel: this notification channel works.'
        : 'Test alert sent with dg alerts test: this notification channel works.',
    details: {},
  }
}
