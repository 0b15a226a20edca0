// The words of the sources' pages: outcomes, guards and decisions, failures, schedules and the
// values a run would write, in Polish and English.
import { badge, formatDate, formatMoney, formatWhen, h, mono } from '../dom.js'
import { offerStatusLabel } from '../editor/editor-labels.js'
import { plural } from '../operator/plural.js'
import { tr } from '../i18n.js'
import { timeOfDay } from '../fields/schedule-field.js'

export const OUTCOMES = {
  running: ['w toku', 'running', 'info'],
  unchanged: ['bez zmian', 'unchanged', 'neutral'],
  applied: ['zastosowano', 'applied', 'ok'],
  held: ['wstrzymano — czeka na decyzję', 'held — awaiting a decision', 'warn'],
  rejected: ['odrzucono', 'rejected', 'neutral'],
  superseded: ['zastąpiony nowszym', 'superseded', 'neutral'],
  stale: ['nieaktualny', 'stale', 'neutral'],
  invalid: ['plik z błędami', 'file with errors', 'error'],
  failed: ['błąd', 'failed', 'error'],
}
export const outcomeBadge = (outcome) => {
  const [pl, en, tone] = OUTCOMES[outcome] ?? [outcome, outcome, 'neutral']
  return badge(tr(pl, en), tone)
}

export const GUARDS = {
  archived: ['Archiwizacja lub wycofanie ofert', 'Offers archived or withdrawn'],
  price_change: ['Zmiana ceny lokalu', 'Unit price change'],
  invalid_rows: ['Błędne wiersze pliku', 'Invalid rows of the file'],
  shrink: ['Plik się skurczył', 'The file shrank'],
  back_on_sale: [
    'Sprzedany lub zarezerwowany lokal wróciłby do sprzedaży',
    'A sold or reserved unit would be back on sale',
  ],
  announced_price: ['Zapowiedziana cena zostałaby zastąpiona', 'An announced price would be replaced'],
  panel_change: ['Zmiana z panelu zostałaby nadpisana', 'A change made in the panel would be overwritten'],
}
/** Guards that protect an operator's decision: one unit is enough to hold the run. */
export const DECISION_GUARDS = new Set(['back_on_sale', 'announced_price', 'panel_change'])
const DECISION_TEXT = {
  back_on_sale: [
    'plik podaje status „wolne” lokalu, który w katalogu jest sprzedany lub zarezerwowany',
    'the file gives “available” for a unit the catalog has as sold or reserved',
  ],
  announced_price: [
    'plik zmienia cenę, która w katalogu obowiązuje dopiero od późniejszego dnia',
    'the file changes a price the catalog has valid only from a later day',
  ],
  panel_change: [
    'plik zmienia wartość poprawioną w panelu (w edytorze lub zmianą cen wielu ofert) po poprzednim przebiegu źródła',
    "the file changes a value corrected in the panel (in the editor or by a bulk price change) after the source's previous run",
  ],
}
const PANEL_CHANNELS = {
  editor: ['w edytorze', 'in the editor'],
  bulk_price_change: ['zmianą cen wielu ofert', 'by a bulk price change'],
}

export const ACTIONS = {
  create: ['nowa', 'new'],
  update: ['zmiana', 'change'],
  archive: ['archiwizacja', 'archive'],
}

export const FAILURES = {
  source_unreachable: ['Serwer źródła jest nieosiągalny.', 'The source server cannot be reached.'],
  source_timeout: ['Serwer źródła nie odpowiedział na czas.', 'The source server did not answer in time.'],
  source_http_error: ['Serwer źródła odpowiedział błędem HTTP.', 'The source server answered an HTTP error.'],
  source_content_type: ['Pod adresem nie ma pliku CSV ani XLSX.', 'The address serves no CSV or XLSX file.'],
  source_too_large: ['Plik przekracza limit rozmiaru.', 'The file exceeds the size limit.'],
  source_too_many_redirects: ['Zbyt wiele przekierowań.', 'Too many redirects.'],
  source_private_address: [
    'Adres lub przekierowanie prowadzi do sieci wewnętrznej, na którą administrator nie zezwolił.',
    'The address or a redirect leads to an internal network an administrator did not allow.',
  ],
  source_address_refused: ['Pobierane są tylko adresy https.', 'Only https addresses are fetched.'],
  source_file_invalid: ['Plik nie daje się wczytać jako import ofert.', 'The file does not read as an offer import.'],
  source_apply_failed: [
    'Zapis planu nie powiódł się; nic nie zapisano.',
    'Writing the plan failed; nothing was written.',
  ],
}

const WEEKDAYS = [
  ['nd', 'Sun'],
  ['pn', 'Mon'],
  ['wt', 'Tue'],
  ['śr', 'Wed'],
  ['czw', 'Thu'],
  ['pt', 'Fri'],
  ['sob', 'Sat'],
]

/** A schedule as the operator set it: a time and days when it is one, the cron pattern otherwise. */
export function scheduleText(schedule) {
  if (schedule === null) return tr('codziennie, 30 min przed publikacją', 'daily, 30 min before the publication')
  const simple = timeOfDay(schedule)
  if (!simple) return [tr('wzorzec cron ', 'cron pattern '), mono(schedule)]
  if (simple.days.length === 7) return tr(`codziennie o ${simple.time}`, `daily at ${simple.time}`)
  const days = [1, 2, 3, 4, 5, 6, 0].filter((d) => simple.days.includes(d)).map((d) => tr(...WEEKDAYS[d]))
  return tr(`o ${simple.time} (${days.join(', ')})`, `at ${simple.time} (${days.join(', ')})`)
}

export function guardLine(guard) {
  const [pl, en] = GUARDS[guard.guard] ?? [guard.guard, guard.guard]
  const what = DECISION_GUARDS.has(guard.guard)
    ? `${tr(...DECISION_TEXT[guard.guard])} (${tr(
        plural(guard.count, ['lokal', 'lokale', 'lokali'], 'pl'),
        plural(guard.count, ['unit', 'units'], 'en'),
      )})`
    : guard.guard === 'price_change'
      ? tr(
          `cen zmienionych o więcej niż ${guard.limit_pct}%: ${guard.count} (najwięcej o ${guard.actual_pct}%)`,
          `${guard.count} prices change by more than ${guard.limit_pct}% (at most ${guard.actual_pct}%)`,
        )
      : guard.guard === 'shrink'
        ? tr(
            `${plural(guard.count, ['wiersz', 'wiersze', 'wierszy'], 'pl')} zamiast ${guard.of} (−${guard.actual_pct}%, limit ${guard.limit_pct}%)`,
            `${plural(guard.count, ['row', 'rows'], 'en')} instead of ${guard.of} (−${guard.actual_pct}%, limit ${guard.limit_pct}%)`,
          )
        : tr(
            `${guard.count} z ${guard.of} (${guard.actual_pct}%, limit ${guard.limit_pct}%)`,
            `${guard.count} of ${guard.of} (${guard.actual_pct}%, limit ${guard.limit_pct}%)`,
          )
  return h('li', { dataset: { guard: guard.guard } }, h('strong', {}, tr(pl, en)), ': ', what)
}

const FIELD_LABELS = {
  price_total: ['Cena całkowita', 'Total price'],
  price_m2: ['Cena za m²', 'Price per m²'],
  price_combined: ['Cena z elementami', 'Price with parts'],
  property_status: ['Status', 'Status'],
  prop_area: ['Powierzchnia', 'Area'],
  prop_rooms: ['Pokoje', 'Rooms'],
  prop_floor: ['Piętro', 'Floor'],
  prop_no: ['Numer lokalu', 'Unit number'],
  prop_type: ['Rodzaj', 'Type'],
  price_total_from: ['Cena całkowita od', 'Total price from'],
  price_m2_from: ['Cena za m² od', 'Price per m² from'],
  price_combined_from: ['Cena z elementami od', 'Price with parts from'],
}
export const fieldLabel = (field) => (FIELD_LABELS[field] ? tr(...FIELD_LABELS[field]) : field)

export function valueText(field, value) {
  if (value === undefined || value === null || value === '') return tr('(puste)', '(empty)')
  if (field === 'property_status') return offerStatusLabel(value)
  if (String(field).endsWith('_from')) return formatDate(value)
  if (String(field).startsWith('price_')) return formatMoney(value)
  return String(value)
}

/** A flagged value with the date it is valid from (an announced price), when the guard gave one. */
export function flaggedValue(field, value, from) {
  const text = valueText(field, value)
  return from ? `${text} ${tr('od', 'from')} ${formatDate(from)}` : text
}

/** What a guard says of one flagged offer: its name, and where and when the panel changed the value. */
export function flaggedAction(offer) {
  const name = tr(...(GUARDS[offer.guard] ?? [offer.guard, offer.guard]))
  if (!offer.changed_in) return name
  const where = tr(...(PANEL_CHANNELS[offer.changed_in] ?? [offer.changed_in, offer.changed_in]))
  return `${name} (${tr('zmienione', 'changed')} ${where}, ${formatWhen(offer.changed_at)}${offer.changed_by ? `, ${offer.changed_by}` : ''})`
}

export function planText(summary) {
  const counts = summary?.counts
  if (!counts) return '—'
  return tr(
    `nowe ${counts.create}, zmienione ${counts.update}, archiwizowane ${counts.archive}`,
    `new ${counts.create}, changed ${counts.update}, archived ${counts.archive}`,
  )
}
