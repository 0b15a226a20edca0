/*
 * What the operator is told about a source: a held run (what changed, which guard stopped it and,
 * for a decision it would undo, the units with their values before → after; where to decide), a
 * source that could not be read (why, what to do) and a file that has not changed for the days
 * the operator set. Each is raised through src/alerts, once a day per source
 * for a failure or a stale file, once per held run.
 */
import { englishCount, polishCount } from '../host/plural.js'
import { raiseAlert } from '../alerts/alert-service.js'
import type { AlertInput } from '../alerts/alert-causes.js'
import type { HostContext } from '../host/context.js'
import { warsawDate, warsawDayOf } from '../host/warsaw-day.js'
import type { FlaggedOffer, GuardBreach } from './source-guards.js'
import type { SourceRow } from './sources-repository.js'

/** The units' fields as the operator reads them in the alert. */
const FIELD_NAMES: Readonly<Record<string, { pl: string; en: string }>> = {
  property_status: { pl: 'status', en: 'status' },
  price_total: { pl: 'cena całkowita', en: 'total price' },
  price_total_from: { pl: 'data ceny całkowitej', en: 'total price date' },
  price_m2: { pl: 'cena za m²', en: 'price per m²' },
  price_m2_from: { pl: 'data ceny za m²', en: 'price per m² date' },
  price_combined: { pl: 'cena z elementami', en: 'price with parts' },
  price_combined_from: { pl: 'data ceny z elementami', en: 'price with parts date' },
  price_combined_variant: { pl: 'wariant ceny z elementami', en: 'price with parts variant' },
  price_combined_status: { pl: 'status ceny z elementami', en: 'price with parts status' },
  prop_no: { pl: 'numer lokalu', en: 'unit number' },
  prop_type: { pl: 'rodzaj', en: 'type' },
  prop_area: { pl: 'powierzchnia', en: 'area' },
  prop_rooms: { pl: 'pokoje', en: 'rooms' },
  prop_floor: { pl: 'piętro', en: 'floor' },
}
const STATUS_NAMES: Readonly<Record<string, { pl: string; en: string }>> = {
  available: { pl: 'wolne', en: 'available' },
  reserved: { pl: 'zarezerwowane', en: 'reserved' },
  sold: { pl: 'sprzedane', en: 'sold' },
  unavailable: { pl: 'niedostępne', en: 'unavailable' },
  archived: { pl: 'zarchiwizowane', en: 'archived' },
}
const PANEL_CHANNELS: Readonly<Record<string, { pl: string; en: string }>> = {
  editor: { pl: 'w edytorze', en: 'in the editor' },
  bulk_price_change: { pl: 'zmianą cen wielu ofert', en: 'by a bulk price change' },
}
/** How many units an alert names before "and N more". */
const UNITS_NAMED = 5

type Lang = 'pl' | 'en'

function dayText(iso: string, lang: Lang): string {
  const [year, month, date] = warsawDayOf(iso).split('-')
  return lang === 'pl' ? `${date}.${month}.${year}` : `${year}-${month}-${date}`
}

function valueText(field: string, value: FlaggedOffer['before'], lang: Lang): string {
  if (value === null || value === '') return lang === 'pl' ? '(brak)' : '(none)'
  if (field === 'property_status') return STATUS_NAMES[String(value)]?.[lang] ?? String(value)
  if (field.endsWith('_from')) return dayText(String(value), lang)
  if (field.startsWith('price_') && /^-?\d+(\.\d+)?$/.test(String(value))) {
    const [whole = '0', fraction = ''] = String(value).split('.')
    const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, lang === 'pl' ? ' ' : ',')
    return lang === 'pl' ? `${grouped},${fraction.padEnd(2, '0')} zł` : `PLN ${grouped}.${fraction.padEnd(2, '0')}`
  }
  return String(value)
}

/** One flagged value: "A/2.01: status sprzedane → wolne", with the dates or the panel change it concerns. */
function flaggedText(offer: FlaggedOffer, lang: Lang): string {
  const field = FIELD_NAMES[offer.field]?.[lang] ?? offer.field
  const from = (date: string | undefined) =>
    date === undefined ? '' : lang === 'pl' ? ` od ${dayText(date, lang)}` : ` from ${dayText(date, lang)}`
  let text = `${offer.unit ?? offer.key}: ${field} ${valueText(offer.field, offer.before, lang)}${from(offer.before_from)} → ${valueText(offer.field, offer.after, lang)}${from(offer.after_from)}`
  if (offer.changed_in && offer.changed_at) {
    const channel = PANEL_CHANNELS[offer.changed_in]?.[lang] ?? offer.changed_in
    text +=
      lang === 'pl'
        ? ` (zmienione ${channel} ${dayText(offer.changed_at, lang)}${offer.changed_by ? `, ${offer.changed_by}` : ''})`
        : ` (changed ${channel} on ${dayText(offer.changed_at, lang)}${offer.changed_by ? ` by ${offer.changed_by}` : ''})`
  }
  return text
}

function flaggedList(b: GuardBreach, lang: Lang): string {
  const named = b.offers.slice(0, UNITS_NAMED).map((o) => flaggedText(o, lang))
  const more = b.offers.length > UNITS_NAMED || b.count > UNITS_NAMED
  return `${named.join(', ')}${more ? (lang === 'pl' ? ' i kolejne (lista w panelu)' : ' and more (listed in the panel)') : ''}`
}

const GUARD_TEXT: Record<GuardBreach['guard'], { pl: (b: GuardBreach) => string; en: (b: GuardBreach) => string }> = {
  archived: {
    pl: (b) => `ofert zarchiwizowanych lub wycofanych: ${b.count} (${b.actual_pct}% katalogu, limit ${b.limit_pct}%)`,
    en: (b) => `${b.count} offers archived or withdrawn (${b.actual_pct}% of the catalog, limit ${b.limit_pct}%)`,
  },
  price_change: {
    pl: (b) => `cen zmienionych o więcej niż ${b.limit_pct}%: ${b.count} (najwięcej o ${b.actual_pct}%)`,
    en: (b) => `${b.count} prices change by more than ${b.limit_pct}% (at most by ${b.actual_pct}%)`,
  },
  invalid_rows: {
    pl: (b) => `wierszy pliku z błędami: ${b.count} z ${b.of} (${b.actual_pct}%, limit ${b.limit_pct}%)`,
    en: (b) => `${b.count} of ${b.of} rows have errors (${b.actual_pct}%, limit ${b.limit_pct}%)`,
  },
  shrink: {
    pl: (b) => `liczba wierszy pliku spadła z ${b.of} do ${b.count} (o ${b.actual_pct}%, limit ${b.limit_pct}%)`,
    en: (b) => `the file has ${b.count} rows, ${b.of} before (${b.actual_pct}% fewer, limit ${b.limit_pct}%)`,
  },
  back_on_sale: {
    pl: (b) =>
      `sprzedane lub zarezerwowane lokale wróciłyby do sprzedaży (${polishCount(b.count, ['lokal', 'lokale', 'lokali'])}): ${flaggedList(b, 'pl')}`,
    en: (b) =>
      `sold or reserved units would be back on sale (${englishCount(b.count, ['unit', 'units'])}): ${flaggedList(b, 'en')}`,
  },
  announced_price: {
    pl: (b) =>
      `zapowiedziane ceny (obowiązujące dopiero od późniejszego dnia) zostałyby zastąpione (${polishCount(b.count, ['lokal', 'lokale', 'lokali'])}): ${flaggedList(b, 'pl')}`,
    en: (b) =>
      `announced prices (valid from a later day) would be replaced (${englishCount(b.count, ['unit', 'units'])}): ${flaggedList(b, 'en')}`,
  },
  panel_change: {
    pl: (b) =>
      `wartości zmienione w panelu od poprzedniego przebiegu źródła zostałyby nadpisane (${polishCount(b.count, ['lokal', 'lokale', 'lokali'])}): ${flaggedList(b, 'pl')}`,
    en: (b) =>
      `values changed in the panel since the source's previous run would be overwritten (${englishCount(b.count, ['unit', 'units'])}): ${flaggedList(b, 'en')}`,
  },
}

export function describeBreaches(breaches: readonly GuardBreach[]): { pl: string; en: string } {
  return {
    pl: breaches.map((b) => GUARD_TEXT[b.guard].pl(b)).join('; '),
    en: breaches.map((b) => GUARD_TEXT[b.guard].en(b)).join('; '),
  }
}

function day(ctx: HostContext): string {
  return warsawDate(ctx.now())
}

export async function alertHeldRun(
  ctx: HostContext,
  source: SourceRow,
  runId: number,
  counts: Record<string, number>,
  breaches: readonly GuardBreach[],
): Promise<void> {
  const why = describeBreaches(breaches)
  const plan = `+${counts.create ?? 0} / ~${counts.update ?? 0} / -${counts.archive ?? 0}`
  const input: AlertInput = {
    cause: 'source_held',
    day: day(ctx),
    dataset: null,
    severity: 'warning',
    message_pl: `Zmiany ze źródła „${source.name}” wstrzymano, nic nie zapisano: ${why.pl}. Plan (nowe / zmienione / archiwizowane): ${plan}. Otwórz w panelu „Źródła ofert” przebieg nr ${runId}, sprawdź zmiany i wybierz „Zastosuj” albo „Odrzuć”. Dzisiejsza publikacja odbędzie się z katalogiem w obecnym stanie.`,
    message_en: `Changes from the source "${source.name}" were held, nothing was written: ${why.en}. Plan (new / changed / archived): ${plan}. Open run ${runId} under "Źródła ofert" in the panel, check the changes and choose apply or reject. Today's publication goes ahead with the catalog as it stands.`,
    details: { source_id: source.id, run_id: runId, guards: breaches.map((b) => b.guard), counts },
  }
  await raiseAlert(ctx, input, { unique: `source:${source.id}:run:${runId}` }).catch((error: unknown) =>
    ctx.log.error({ err: error, source: source.id }, 'source alert not raised'),
  )
}

/** What to do about a failed fetch or run, by its code (the alert's advice and the header preview's refusal). */
export const FAILURE_ADVICE: Record<string, { pl: string; en: string }> = {
  source_unreachable: {
    pl: 'Sprawdź, czy adres jest poprawny i serwer działa (otwórz go w przeglądarce).',
    en: 'Check that the address is right and its server is up (open it in a browser).',
  },
  source_timeout: {
    pl: 'Serwer źródła odpowiada zbyt wolno; spróbuj później lub sprawdź jego działanie.',
    en: "The source's server answers too slowly; try later or check it.",
  },
  source_http_error: {
    pl: 'Serwer odrzucił żądanie: sprawdź adres i token (nagłówek) w ustawieniach źródła; link mógł wygasnąć.',
    en: "The server refused the request: check the address and the token (header) in the source's settings; the link may have expired.",
  },
  source_content_type: {
    pl: 'Pod adresem nie ma pliku CSV ani XLSX (np. strona logowania); użyj bezpośredniego linku do pliku (w Arkuszach Google: „Opublikuj w internecie” jako CSV).',
    en: 'The address serves no CSV or XLSX file (a login page, say); use a direct link to the file (Google Sheets: "Publish to the web" as CSV).',
  },
  source_too_large: {
    pl: 'Plik przekracza limit rozmiaru importu; podziel ofertę na mniejsze pliki.',
    en: 'The file exceeds the import size limit; split the offers into smaller files.',
  },
  source_too_many_redirects: {
    pl: 'Adres przekierowuje zbyt wiele razy; podaj adres docelowy pliku.',
    en: "The address redirects too many times; give the file's final address.",
  },
  source_private_address: {
    pl: 'Adres (lub przekierowanie) prowadzi do sieci wewnętrznej; jeśli to zamierzone, administrator musi zezwolić na ten host w ustawieniach źródła.',
    en: "The address (or a redirect) leads to an internal network; if intended, an administrator must allow that host in the source's settings.",
  },
  source_address_refused: {
    pl: 'Pobierane są wyłącznie adresy https.',
    en: 'Only https addresses are fetched.',
  },
  source_file_invalid: {
    pl: 'Plik nie daje się wczytać jako import ofert; otwórz przebieg w panelu, popraw wskazane wiersze lub przypisanie kolumn.',
    en: 'The file does not read as an offer import; open the run in the panel and fix the rows or the column assignment it names.',
  },
  source_apply_failed: {
    pl: 'Zapis planu nie powiódł się i został wycofany; uruchom źródło ponownie z panelu.',
    en: 'Writing the plan failed and was rolled back; run the source again from the panel.',
  },
}

export async function alertFailedRun(
  ctx: HostContext,
  source: SourceRow,
  runId: number,
  failure: { code: string; message: string; message_pl?: string; message_en?: string },
): Promise<void> {
  const advice = FAILURE_ADVICE[failure.code] ?? FAILURE_ADVICE.source_unreachable!
  await raiseAlert(
    ctx,
    {
      cause: 'source_failed',
      day: day(ctx),
      dataset: null,
      severity: 'critical',
      message_pl: `Nie udało się wczytać źródła „${source.name}” (${failure.message_pl ?? `${failure.code}: ${failure.message}`}). Nic nie zapisano; oferty zostają w dotychczasowym stanie, a dzisiejsza publikacja odbędzie się z nimi. ${advice.pl} Przebieg nr ${runId} w panelu „Źródła ofert”.`,
      message_en: `The source "${source.name}" could not be read (${failure.message_en ? `${failure.message_en} — ` : ''}${failure.code}: ${failure.message}). Nothing was written; the offers stay as they were and today's publication goes ahead with them. ${advice.en} Run ${runId} under "Źródła ofert" in the panel.`,
      details: { source_id: source.id, run_id: runId, code: failure.code },
    },
    { unique: `source:${source.id}` },
  ).catch((error: unknown) => ctx.log.error({ err: error, source: source.id }, 'source alert not raised'))
}

export async function alertStaleSource(ctx: HostContext, source: SourceRow, days: number): Promise<void> {
  await raiseAlert(
    ctx,
    {
      cause: 'source_stale',
      day: day(ctx),
      dataset: null,
      severity: 'warning',
      message_pl: `Plik źródła „${source.name}” nie zmienił się od ${polishCount(days, ['dnia', 'dni', 'dni'])} (próg: ${polishCount(source.stale_after_days, ['dzień', 'dni', 'dni'])}). Jeśli ceny się zmieniały, eksport z arkusza lub CRM mógł przestać działać: sprawdź, czy plik pod adresem jest aktualny. Jeśli oferta naprawdę się nie zmienia, zwiększ próg w ustawieniach źródła.`,
      message_en: `The file of the source "${source.name}" has not changed for ${englishCount(days, ['day', 'days'])} (threshold: ${englishCount(source.stale_after_days, ['day', 'days'])}). If prices changed meanwhile, the export from the sheet or CRM may have stopped: check that the file at the address is current. If the offers really do not change, raise the threshold in the source's settings.`,
      details: { source_id: source.id, days, changed_at: source.changed_at },
    },
    { unique: `source:${source.id}` },
  ).catch((error: unknown) => ctx.log.error({ err: error, source: source.id }, 'source alert not raised'))
}
