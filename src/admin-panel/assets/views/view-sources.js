// Offer sources pulled on a schedule (REST /sources, /source-runs). The list of sources with their
// latest run, the runs waiting for a decision, the form adding a source (its columns assigned with
// the offer import's fields from the header row of its file, fetched once by the server, the
// import's last assignment offered; its schedule with the publication's day and time picker; a
// self-signed server's certificate pasted for it alone), a source's page to change or delete it
// (#/zrodla/zrodlo/ID), and a run's page (#/zrodla/przebieg/ID): what stopped it (a limit, or an
// operator's decision the file would undo, with the units and their values before → after), its
// plan before → after per offer, and "Zastosuj" / "Odrzuć" for a held run.
import {
  badge,
  facts,
  formatBytes,
  formatDate,
  formatDateTime,
  formatMoney,
  formatNumber,
  formatWhen,
  h,
  mono,
  replaceChildren,
} from '../dom.js'
import { offerStatusLabel } from '../editor/editor-labels.js'
import { plural } from '../operator/plural.js'
import { tr } from '../i18n.js'
import { alertBox, card, confirmDialog, errorBox, formField, technicalDetails, toast } from '../ui.js'
import { columnAssignment } from '../fields/column-assignment.js'
import { scheduleField, timeOfDay } from '../fields/schedule-field.js'
import { lastMapping, mappingForShape } from '../operator/import-mapping-memory.js'

const OUTCOMES = {
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
const outcomeBadge = (outcome) => {
  const [pl, en, tone] = OUTCOMES[outcome] ?? [outcome, outcome, 'neutral']
  return badge(tr(pl, en), tone)
}

const GUARDS = {
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
const DECISION_GUARDS = new Set(['back_on_sale', 'announced_price', 'panel_change'])
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

const ACTIONS = {
  create: ['nowa', 'new'],
  update: ['zmiana', 'change'],
  archive: ['archiwizacja', 'archive'],
}

const FAILURES = {
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
function scheduleText(schedule) {
  if (schedule === null) return tr('codziennie, 30 min przed publikacją', 'daily, 30 min before the publication')
  const simple = timeOfDay(schedule)
  if (!simple) return [tr('wzorzec cron ', 'cron pattern '), mono(schedule)]
  if (simple.days.length === 7) return tr(`codziennie o ${simple.time}`, `daily at ${simple.time}`)
  const days = [1, 2, 3, 4, 5, 6, 0].filter((d) => simple.days.includes(d)).map((d) => tr(...WEEKDAYS[d]))
  return tr(`o ${simple.time} (${days.join(', ')})`, `at ${simple.time} (${days.join(', ')})`)
}

function guardLine(guard) {
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
const fieldLabel = (field) => (FIELD_LABELS[field] ? tr(...FIELD_LABELS[field]) : field)

function valueText(field, value) {
  if (value === undefined || value === null || value === '') return tr('(puste)', '(empty)')
  if (field === 'property_status') return offerStatusLabel(value)
  if (String(field).endsWith('_from')) return formatDate(value)
  if (String(field).startsWith('price_')) return formatMoney(value)
  return String(value)
}

/** A flagged value with the date it is valid from (an announced price), when the guard gave one. */
function flaggedValue(field, value, from) {
  const text = valueText(field, value)
  return from ? `${text} ${tr('od', 'from')} ${formatDate(from)}` : text
}

/** What a guard says of one flagged offer: its name, and where and when the panel changed the value. */
function flaggedAction(offer) {
  const name = tr(...(GUARDS[offer.guard] ?? [offer.guard, offer.guard]))
  if (!offer.changed_in) return name
  const where = tr(...(PANEL_CHANNELS[offer.changed_in] ?? [offer.changed_in, offer.changed_in]))
  return `${name} (${tr('zmienione', 'changed')} ${where}, ${formatWhen(offer.changed_at)}${offer.changed_by ? `, ${offer.changed_by}` : ''})`
}

export async function renderSources(page, { api, signal }) {
  const parts = location.hash.replace(/^#\/?/, '').split('/')
  if (parts[1] === 'przebieg' && /^\d+$/.test(parts[2] ?? '')) return renderRun(page, { api, signal, id: parts[2] })
  if (parts[1] === 'zrodlo' && /^\d+$/.test(parts[2] ?? '')) return renderSource(page, { api, signal, id: parts[2] })
  page.append(h('div', { class: 'page-header' }, h('h1', {}, tr('Źródła ofert', 'Offer sources'))))
  page.append(
    h(
      'p',
      { class: 'lead' },
      tr(
        'Plik CSV lub XLSX pobierany z adresu (arkusz Google, OneDrive, eksport z CRM) i wczytywany jak import ofert. Zmiany w granicach limitów są zapisywane same; większe, a także te, które cofnęłyby Twoje decyzje z panelu, czekają tu na Twoją decyzję, a publikacja odbywa się z katalogiem w obecnym stanie.',
        'A CSV or XLSX file fetched from an address (Google Sheets, OneDrive, a CRM export) and read like an offer import. Changes within the limits are written by themselves; larger ones, and those that would undo your decisions made in the panel, wait here for your decision, and the publication goes ahead with the catalog as it stands.',
      ),
    ),
  )
  const [{ body: sourcesBody }, { body: heldBody }, { body: runsBody }] = await Promise.all([
    api.get('/sources', { signal }),
    api.get('/source-runs?outcome=held&limit=50', { signal }),
    api.get('/source-runs?limit=30', { signal }),
  ])
  if (heldBody.runs.length > 0)
    page.append(
      alertBox(
        'warning',
        tr(`Czeka na decyzję: ${heldBody.runs.length}`, `Awaiting a decision: ${heldBody.runs.length}`),
        h(
          'ul',
          { id: 'held-runs' },
          heldBody.runs.map((run) =>
            h(
              'li',
              {},
              h(
                'a',
                { href: `#/zrodla/przebieg/${run.id}` },
                `${run.source_name} — ${tr('przebieg', 'run')} ${run.id}`,
              ),
              ` (${formatDateTime(run.started_at)}): `,
              run.guards.map((g) => tr(...(GUARDS[g.guard] ?? [g.guard, g.guard]))).join(', '),
            ),
          ),
        ),
      ),
    )
  page.append(sourcesCard(sourcesBody.sources, { api, reload: () => rerender(page, { api, signal }) }))
  page.append(runsCard(runsBody.runs))
  page.append(addSourceCard({ api, reload: () => rerender(page, { api, signal }) }))
}

function rerender(page, context) {
  replaceChildren(page)
  return renderSources(page, context).catch((error) => page.append(errorBox(error)))
}

function sourcesCard(sources, { api, reload }) {
  if (sources.length === 0)
    return card(
      tr('Źródła', 'Sources'),
      h('p', { class: 'muted' }, tr('Nie dodano jeszcze żadnego źródła.', 'No source has been added yet.')),
    )
  return card(
    tr('Źródła', 'Sources'),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'table', id: 'sources-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [
              tr('Nazwa', 'Name'),
              tr('Adres', 'Address'),
              tr('Harmonogram', 'Schedule'),
              tr('Ostatni przebieg', 'Latest run'),
              tr('Plik zmieniony', 'File changed'),
              '',
            ].map((t) => h('th', {}, t)),
          ),
        ),
        h(
          'tbody',
          {},
          sources.map((source) => {
            const runButton = h(
              'button',
              { class: 'button', type: 'button', dataset: { source: source.id } },
              tr('Uruchom teraz', 'Run now'),
            )
            runButton.addEventListener('click', async () => {
              runButton.disabled = true
              try {
                const { body } = await api.post(`/sources/${source.id}/run`)
                toast(
                  tr(
                    `Przebieg ${body.id}: ${OUTCOMES[body.outcome]?.[0] ?? body.outcome}`,
                    `Run ${body.id}: ${body.outcome}`,
                  ),
                )
                if (body.outcome === 'held') location.hash = `#/zrodla/przebieg/${body.id}`
                else await reload()
              } catch (error) {
                toast(error.message || String(error), 'error')
                runButton.disabled = false
              }
            })
            return h(
              'tr',
              { dataset: { sourceId: source.id } },
              h(
                'td',
                {},
                h('strong', {}, source.name),
                source.enabled ? null : [' ', badge(tr('wyłączone', 'disabled'))],
              ),
              h(
                'td',
                {},
                mono(source.url.replace(/^https:\/\/([^/?#]+).*$/, '$1')),
                h(
                  'div',
                  { class: 'muted' },
                  source.header_names.length > 0
                    ? tr(`nagłówki: ${source.header_names.join(', ')}`, `headers: ${source.header_names.join(', ')}`)
                    : null,
                ),
              ),
              h('td', {}, scheduleText(source.schedule)),
              h(
                'td',
                {},
                source.last_run
                  ? [
                      h(
                        'a',
                        { href: `#/zrodla/przebieg/${source.last_run.id}` },
                        outcomeBadge(source.last_run.outcome),
                      ),
                      h('div', { class: 'muted' }, formatDateTime(source.last_run.started_at)),
                    ]
                  : tr('jeszcze nie uruchomiono', 'not run yet'),
              ),
              h('td', {}, formatDateTime(source.changed_at)),
              h(
                'td',
                {},
                runButton,
                ' ',
                h(
                  'a',
                  { class: 'button', href: `#/zrodla/zrodlo/${source.id}`, dataset: { editSource: source.id } },
                  tr('Zmień lub usuń', 'Edit or delete'),
                ),
              ),
            )
          }),
        ),
      ),
    ),
  )
}

function runsCard(runs) {
  return card(
    tr('Ostatnie przebiegi', 'Latest runs'),
    runs.length === 0
      ? h('p', { class: 'muted' }, tr('Brak przebiegów.', 'No runs yet.'))
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'table', id: 'runs-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                [
                  tr('Nr', 'No.'),
                  tr('Źródło', 'Source'),
                  tr('Początek', 'Started'),
                  tr('Wynik', 'Outcome'),
                  tr('Plan', 'Plan'),
                  tr('Decyzja', 'Decision'),
                ].map((t) => h('th', {}, t)),
              ),
            ),
            h(
              'tbody',
              {},
              runs.map((run) =>
                h(
                  'tr',
                  { dataset: { runId: run.id } },
                  h('td', {}, h('a', { href: `#/zrodla/przebieg/${run.id}` }, String(run.id))),
                  h(
                    'td',
                    {},
                    run.source_name || h('span', { class: 'muted' }, tr('(usunięte źródło)', '(deleted source)')),
                  ),
                  h('td', {}, formatDateTime(run.started_at)),
                  h('td', {}, outcomeBadge(run.outcome)),
                  h('td', {}, planText(run.summary)),
                  h('td', {}, run.decided_by ? `${run.decided_by.name}, ${formatDateTime(run.decided_at)}` : '—'),
                ),
              ),
            ),
          ),
        ),
  )
}

function planText(summary) {
  const counts = summary?.counts
  if (!counts) return '—'
  return tr(
    `nowe ${counts.create}, zmienione ${counts.update}, archiwizowane ${counts.archive}`,
    `new ${counts.create}, changed ${counts.update}, archived ${counts.archive}`,
  )
}

function addSourceCard({ api, reload }) {
  return card(tr('Dodaj źródło', 'Add a source'), sourceForm({ api, reload }))
}

/** The assignment the offer import last used in this browser, offered to a new source. */
function lastImportMapping() {
  const last = lastMapping()
  return Object.keys(last).length > 0 ? last : null
}

/** The form's labels of the fields the server names in a refusal. */
const FORM_LABELS = {
  name: ['Nazwa', 'Name'],
  url: ['Adres pliku', 'File address'],
  headers: ['Nagłówki', 'Headers'],
  mapping: ['Przypisanie kolumn', 'Column assignment'],
  mode: ['Tryb importu', 'Import mode'],
  sheet: ['Arkusz', 'Sheet'],
  schedule: ['Harmonogram', 'Schedule'],
  private_hosts: ['Hosty w sieci wewnętrznej', 'Internal-network hosts'],
  stale_after_days: ['Alarm po dniach bez zmian', 'Alert after days unchanged'],
  ca_certificate: ['Zaufany certyfikat serwera', 'Trusted server certificate'],
  'guards.max_archived_pct': ['Archiwizowane lub wycofane oferty', 'Offers archived or withdrawn'],
  'guards.max_price_change_pct': ['Zmiana ceny lokalu', 'Unit price change'],
  'guards.max_invalid_pct': ['Błędne wiersze', 'Invalid rows'],
  'guards.max_shrink_pct': ['Zmniejszenie pliku', 'File shrinking'],
}
const issueLine = (i) =>
  `${FORM_LABELS[i.field] ? tr(...FORM_LABELS[i.field]) : i.field}: ${
    i.message_pl ? tr(i.message_pl, i.message_en ?? i.message_pl) : i.message
  }`

/** The certificates a source trusts, as its form names them. */
function certificatesText(certificates) {
  return certificates
    .map((c) =>
      tr(`${c.subject} (ważny do ${formatDate(c.valid_to)})`, `${c.subject} (valid until ${formatDate(c.valid_to)})`),
    )
    .join('; ')
}

/**
 * The add form, or the edit form of `source` (#edit-source): a saved header value is never sent to
 * the page, so an empty header box keeps the stored ones and a filled one replaces them all; the
 * same holds for the trusted certificate. The columns are assigned with the offer import's fields,
 * from the header row of the source's own file (fetched once by the server), and the schedule with
 * the publication's day and time picker.
 * @param {{ api: import('../api.js').Api, reload: (warnings?: any[]) => unknown, source?: any }} options
 */
function sourceForm({ api, reload, source = null }) {
  const formId = source ? 'edit-source' : 'add-source'
  const initialMapping = source ? source.mapping : lastImportMapping()
  const input = (attributes) => h('input', { class: 'input', ...attributes })
  const name = input({ name: 'name', required: true, maxlength: 120, value: source?.name ?? '' })
  const url = input({
    name: 'url',
    type: 'url',
    required: true,
    placeholder: 'https://docs.google.com/spreadsheets/d/e/…/pub?output=csv',
    value: source?.url ?? '',
  })
  const headers = h('textarea', { class: 'input', name: 'headers', rows: 2, placeholder: 'Authorization: Bearer …' })
  const mode = h(
    'select',
    { class: 'input', name: 'mode' },
    h('option', { value: 'patch' }, tr('tylko zmiany', 'changes only')),
    h(
      'option',
      { value: 'snapshot' },
      tr('pełny stan inwestycji (brakujące oferty są archiwizowane)', 'full state (missing offers are archived)'),
    ),
  )
  if (source) mode.value = source.mode
  const clearHeaders = h('input', { type: 'checkbox', name: 'clear_headers' })

  // the column assignment, the import's own fields, fed by the header row of the source's file
  let fileHeaders = []
  const headerListId = `${formId}-file-headers`
  const headerList = h('datalist', { id: headerListId })
  const assignment = columnAssignment({
    initial: initialMapping ?? {},
    listId: headerListId,
    idPrefix: `${formId}-map-`,
    present: () => fileHeaders,
  })
  const readHeaders = h(
    'button',
    { class: 'button', type: 'button', id: `${formId}-read-headers` },
    tr('Odczytaj kolumny z pliku', 'Read the columns from the file'),
  )
  const headerPreview = h('div', {
    class: 'source-header-preview',
    id: `${formId}-header-preview`,
    'aria-live': 'polite',
  })

  // the schedule: before the publication, or the publication's own day and time picker
  const beforePublication = h('input', {
    type: 'radio',
    name: `${formId}-schedule-kind`,
    value: 'publication',
    id: `${formId}-schedule-publication`,
    checked: !source?.schedule,
  })
  const ownSchedule = h('input', {
    type: 'radio',
    name: `${formId}-schedule-kind`,
    value: 'own',
    id: `${formId}-schedule-own`,
    checked: Boolean(source?.schedule),
  })
  const picker = scheduleField(
    { schedule: source?.schedule ?? '0 6 * * *' },
    {
      idPrefix: `${formId}-schedule`,
      legend: tr('Godzina pobierania pliku', 'When the file is fetched'),
      dailyDuty: false,
    },
  )
  const showPicker = () => {
    picker.element.hidden = !ownSchedule.checked
  }
  beforePublication.addEventListener('change', showPicker)
  ownSchedule.addEventListener('change', showPicker)
  showPicker()

  const privateHosts = input({
    name: 'private_hosts',
    value: source?.private_hosts.join(', ') ?? '',
    placeholder: tr('puste: tylko adresy publiczne', 'empty: public addresses only'),
  })
  const trusted = source?.trusted_certificates ?? []
  const certificate = h('textarea', {
    class: 'input mono',
    name: 'ca_certificate',
    rows: 3,
    placeholder: '-----BEGIN CERTIFICATE-----\n…\n-----END CERTIFICATE-----',
  })
  const clearCertificate = h('input', { type: 'checkbox', name: 'clear_ca_certificate' })
  const guard = (key, value) => input({ name: key, type: 'number', min: 0, max: 100, step: 1, value })
  const limits = { max_archived_pct: 30, max_price_change_pct: 20, max_invalid_pct: 10, max_shrink_pct: 30 }
  const guards = Object.fromEntries(
    Object.entries(limits).map(([key, value]) => [key, guard(key, source?.guards[key] ?? value)]),
  )
  const staleDays = input({
    name: 'stale_after_days',
    type: 'number',
    min: 1,
    max: 90,
    value: source?.stale_after_days ?? 3,
  })
  const problems = h('div', {})

  const headerPairs = () => {
    const pairs = {}
    for (const line of headers.value.split('\n')) {
      const at = line.indexOf(':')
      if (at > 0) pairs[line.slice(0, at).trim()] = line.slice(at + 1).trim()
    }
    return pairs
  }
  const hostList = () =>
    privateHosts.value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)

  readHeaders.addEventListener('click', async () => {
    readHeaders.disabled = true
    replaceChildren(headerPreview, h('p', { class: 'muted' }, tr('Pobieranie pliku…', 'Fetching the file…')))
    const typed = headerPairs()
    try {
      const { body } = await api.post('/sources/preview-headers', {
        json: {
          url: url.value.trim(),
          ...(source ? { source_id: source.id } : {}),
          ...(Object.keys(typed).length > 0 ? { headers: typed } : {}),
          private_hosts: hostList(),
          ...(certificate.value.trim() ? { ca_certificate: certificate.value } : {}),
        },
      })
      fileHeaders = body.headers
      replaceChildren(
        headerList,
        fileHeaders.map((header) => h('option', { value: header })),
      )
      // a new source's file of a shape the import has seen gets the assignment used for it there
      const remembered = source ? null : mappingForShape(fileHeaders)
      if (remembered && Object.values(remembered).every((header) => fileHeaders.includes(header)))
        assignment.setMapping(remembered)
      const guessed = assignment.matchEmpty(fileHeaders)
      replaceChildren(
        headerPreview,
        h(
          'p',
          { dataset: { format: body.format } },
          tr(
            `Plik ${body.format.toUpperCase()}, kolumny (${fileHeaders.length}):`,
            `${body.format.toUpperCase()} file, columns (${fileHeaders.length}):`,
          ),
        ),
        h(
          'ul',
          { class: 'header-chips', id: `${formId}-file-columns` },
          fileHeaders.map((header) => h('li', {}, mono(header))),
        ),
        h(
          'p',
          { class: 'muted' },
          guessed > 0
            ? tr(
                `Dopasowano automatycznie: ${guessed}. Sprawdź przypisanie poniżej.`,
                `Matched automatically: ${guessed}. Check the assignment below.`,
              )
            : tr(
                'Wybierz kolumnę pliku przy każdym polu oferty (podpowiedzi pojawiają się w polach).',
                'Choose the file’s column for each offer field (the fields suggest them).',
              ),
        ),
      )
    } catch (error) {
      const issues = error.body?.issues
      replaceChildren(
        headerPreview,
        alertBox(
          'error',
          tr('Nie udało się odczytać kolumn pliku.', 'The file’s columns could not be read.'),
          Array.isArray(issues)
            ? h(
                'ul',
                {},
                issues.map((i) => h('li', {}, issueLine(i))),
              )
            : h('p', {}, error.message || String(error)),
        ),
      )
    } finally {
      readHeaders.disabled = false
    }
  })

  const form = h(
    'form',
    { id: formId, novalidate: true },
    h(
      'div',
      { class: 'form-grid' },
      formField({ label: tr('Nazwa', 'Name'), input: name, required: true }),
      formField({
        label: tr('Adres pliku (https)', 'File address (https)'),
        input: url,
        required: true,
        className: 'field-wide',
        hint: tr(
          'Arkusze Google: Plik → Udostępnij → Opublikuj w internecie → CSV. OneDrive: link bezpośredniego pobierania.',
          'Google Sheets: File → Share → Publish to the web → CSV. OneDrive: a direct download link.',
        ),
      }),
      formField({
        label: tr('Nagłówki (np. token), jeden w wierszu', 'Headers (a token, say), one a line'),
        input: headers,
        hint:
          source && source.header_names.length > 0
            ? tr(
                `Zapisane: ${source.header_names.join(', ')} (wartości nie są pokazywane). Zostaw puste, aby je zachować; wpisane zastąpią wszystkie zapisane. Adres na innym serwerze (inny protokół, host lub port) usuwa zapisane nagłówki, chyba że wpiszesz je tu ponownie.`,
                `Saved: ${source.header_names.join(', ')} (values are not shown). Leave empty to keep them; what you type replaces them all. An address on another server (scheme, host or port) removes the saved headers unless you type them here again.`,
              )
            : tr('Zapisywane bezpiecznie i nigdy więcej niepokazywane.', 'Stored safely and never shown again.'),
      }),
      source && source.header_names.length > 0
        ? h('label', { class: 'checkbox' }, clearHeaders, ' ', tr('Usuń zapisane nagłówki', 'Remove the saved headers'))
        : null,
      formField({ label: tr('Tryb importu', 'Import mode'), input: mode }),
      formField({
        label: tr('Hosty w sieci wewnętrznej, na które zezwalasz', 'Internal-network hosts you allow'),
        input: privateHosts,
        hint: tr(
          'Np. crm.firma.local:8443; oddziel przecinkami.',
          'E.g. crm.company.local:8443; separate with commas.',
        ),
      }),
      formField({
        label: tr('Zaufany certyfikat serwera (PEM)', 'Trusted server certificate (PEM)'),
        input: certificate,
        className: 'field-wide',
        hint:
          trusted.length > 0
            ? tr(
                `Zapisany: ${certificatesText(trusted)}. Zostaw puste, aby go zachować; wklejony zastąpi zapisany.`,
                `Saved: ${certificatesText(trusted)}. Leave empty to keep it; a pasted one replaces it.`,
              )
            : tr(
                'Tylko gdy serwer źródła ma certyfikat z podpisem własnym lub firmowego urzędu certyfikacji: wklej go tutaj (tekst od „-----BEGIN CERTIFICATE-----”). Będzie zaufany wyłącznie dla tego źródła.',
                'Only when the source’s server has a self-signed certificate or one from a company’s own authority: paste it here (the text from "-----BEGIN CERTIFICATE-----"). It is trusted for this source only.',
              ),
      }),
      trusted.length > 0
        ? h(
            'label',
            { class: 'checkbox' },
            clearCertificate,
            ' ',
            tr('Usuń zaufany certyfikat', 'Remove the trusted certificate'),
          )
        : null,
    ),
    h(
      'fieldset',
      { class: 'source-mapping', id: `${formId}-mapping` },
      h(
        'legend',
        {},
        tr(
          'Przypisanie kolumn (pole oferty → kolumna w pliku)',
          'Column assignment (offer field → column in the file)',
        ),
      ),
      h(
        'p',
        { class: 'hint' },
        source
          ? tr(
              'Przypisanie zapisane w tym źródle. „Odczytaj kolumny z pliku” pobiera plik raz i podpowiada jego kolumny.',
              'The assignment saved in this source. “Read the columns from the file” fetches the file once and suggests its columns.',
            )
          : initialMapping
            ? tr(
                'Wstawiono przypisanie zapisane przy ostatnim imporcie ofert. „Odczytaj kolumny z pliku” pobiera plik raz i podpowiada jego kolumny.',
                'The assignment saved by the last offer import was filled in. “Read the columns from the file” fetches the file once and suggests its columns.',
              )
            : tr(
                'Podaj adres pliku i wybierz „Odczytaj kolumny z pliku”: plik zostanie pobrany raz, a jego kolumny pojawią się jako podpowiedzi.',
                'Give the file’s address and choose “Read the columns from the file”: the file is fetched once and its columns appear as suggestions.',
              ),
      ),
      h('div', { class: 'actions' }, readHeaders),
      headerPreview,
      assignment.grid,
      headerList,
    ),
    h(
      'fieldset',
      { class: 'source-schedule', id: `${formId}-schedule` },
      h('legend', {}, tr('Harmonogram', 'Schedule')),
      h(
        'label',
        { class: 'radio', for: beforePublication.id },
        beforePublication,
        ' ',
        tr('Codziennie, 30 minut przed publikacją', 'Daily, 30 minutes before the publication'),
      ),
      h(
        'label',
        { class: 'radio', for: ownSchedule.id },
        ownSchedule,
        ' ',
        tr('O wybranej godzinie', 'At a time of my choice'),
      ),
      picker.element,
    ),
    h(
      'h3',
      {},
      tr('Limity (w %) — powyżej nich przebieg czeka na decyzję', 'Limits (%) — above them a run waits for a decision'),
    ),
    h(
      'div',
      { class: 'form-grid' },
      formField({
        label: tr('Archiwizowane lub wycofane oferty', 'Offers archived or withdrawn'),
        input: guards.max_archived_pct,
      }),
      formField({ label: tr('Zmiana ceny lokalu', 'Unit price change'), input: guards.max_price_change_pct }),
      formField({ label: tr('Błędne wiersze', 'Invalid rows'), input: guards.max_invalid_pct }),
      formField({ label: tr('Zmniejszenie pliku', 'File shrinking'), input: guards.max_shrink_pct }),
      formField({
        label: tr('Alarm, gdy plik nie zmienia się przez (dni)', 'Alert when the file is unchanged for (days)'),
        input: staleDays,
      }),
    ),
    h(
      'p',
      { class: 'muted' },
      tr(
        'Bez względu na limity przebieg czeka na decyzję, gdy plik cofnąłby decyzję podjętą w panelu: przywróciłby do sprzedaży lokal sprzedany lub zarezerwowany, zastąpiłby cenę zapowiedzianą od późniejszego dnia albo nadpisałby wartość zmienioną w edytorze lub zmianą cen wielu ofert po poprzednim przebiegu źródła.',
        "Whatever the limits, a run waits for a decision when the file would undo a decision made in the panel: put a sold or reserved unit back on sale, replace a price announced for a later day, or overwrite a value changed in the editor or by a bulk price change after the source's previous run.",
      ),
    ),
    problems,
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { class: 'button button-primary', type: 'submit' },
        source ? tr('Zapisz zmiany', 'Save the changes') : tr('Dodaj źródło', 'Add the source'),
      ),
    ),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replaceChildren(problems)
    const missing = assignment.missingRequired()
    const scheduleProblem = ownSchedule.checked ? picker.problem() : null
    if (missing.length > 0 || scheduleProblem) {
      replaceChildren(
        problems,
        alertBox(
          'error',
          tr('Popraw ustawienia źródła:', 'Correct the source settings:'),
          h(
            'ul',
            {},
            missing.length > 0
              ? h(
                  'li',
                  {},
                  tr(
                    `Przypisz kolumny wymaganych pól: ${missing.join(', ')}.`,
                    `Assign the columns of the required fields: ${missing.join(', ')}.`,
                  ),
                )
              : null,
            scheduleProblem ? h('li', {}, scheduleProblem) : null,
          ),
        ),
      )
      return
    }
    const pairs = headerPairs()
    const body = {
      name: name.value,
      url: url.value.trim(),
      ...(Object.keys(pairs).length > 0 || !source ? { headers: pairs } : {}),
      ...(source && clearHeaders.checked && Object.keys(pairs).length === 0 ? { headers: {} } : {}),
      mapping: assignment.currentMapping(),
      mode: mode.value,
      schedule: ownSchedule.checked ? picker.value() || null : null,
      private_hosts: hostList(),
      ...(certificate.value.trim()
        ? { ca_certificate: certificate.value }
        : source && clearCertificate.checked
          ? { ca_certificate: null }
          : {}),
      guards: Object.fromEntries(Object.entries(guards).map(([key, el]) => [key, Number(el.value)])),
      stale_after_days: Number(staleDays.value),
    }
    try {
      const saved = source
        ? await api.request('PATCH', `/sources/${source.id}`, { json: body })
        : await api.post('/sources', { json: body })
      headers.value = ''
      certificate.value = ''
      toast(
        source ? tr('Zapisano zmiany źródła.', 'The source was saved.') : tr('Dodano źródło.', 'The source was added.'),
      )
      await reload(saved?.body?.warnings ?? [])
    } catch (error) {
      const issues = error.body?.issues
      replaceChildren(
        problems,
        Array.isArray(issues)
          ? alertBox(
              'error',
              tr('Popraw ustawienia źródła:', 'Correct the source settings:'),
              h(
                'ul',
                { id: `${formId}-issues` },
                issues.map((i) => h('li', { dataset: { code: i.code ?? '' } }, issueLine(i))),
              ),
            )
          : errorBox(error),
      )
    }
  })
  return form
}

/**
 * A source's own page (#/zrodla/zrodlo/ID): its settings to change, and its removal. `warnings`:
 * what the last change did besides what was asked (headers removed with a move to another server),
 * shown until the operator leaves the page rather than in a toast that fades.
 * @param {HTMLElement} page
 * @param {{ api: import('../api.js').Api, signal: AbortSignal, id: string, warnings?: any[] }} context
 */
async function renderSource(page, { api, signal, id, warnings = [] }) {
  const { body: source } = await api.get(`/sources/${id}`, { signal })
  page.append(
    h('p', {}, h('a', { href: '#/zrodla' }, tr('← Źródła ofert', '← Offer sources'))),
    h('div', { class: 'page-header' }, h('h1', {}, tr(`Źródło: ${source.name}`, `Source: ${source.name}`))),
    ...(warnings.length > 0
      ? [
          h(
            'div',
            { id: 'source-warnings' },
            alertBox(
              'warning',
              tr('Zapisano, ale zwróć uwagę:', 'Saved, but note:'),
              h(
                'ul',
                {},
                warnings.map((w) => h('li', {}, tr(w.message_pl, w.message_en))),
              ),
            ),
          ),
        ]
      : []),
    card(
      tr('Ustawienia źródła', 'Source settings'),
      sourceForm({
        api,
        source,
        reload: async (warnings) => {
          replaceChildren(page)
          await renderSource(page, { api, signal, id, warnings }).catch((error) => page.append(errorBox(error)))
        },
      }),
    ),
  )
  const remove = h(
    'button',
    { class: 'button button-danger', type: 'button', id: 'delete-source' },
    tr('Usuń źródło', 'Delete the source'),
  )
  remove.addEventListener('click', async () => {
    const ok = await confirmDialog({
      title: tr(`Usunąć źródło „${source.name}”?`, `Delete the source “${source.name}”?`),
      body: [
        tr(
          'Serwis przestanie pobierać ten plik. Oferty już zapisane w katalogu zostają bez zmian.',
          'The service stops fetching this file. The offers already in the catalog stay as they are.',
        ),
        tr(
          'Dotychczasowe przebiegi zostają w historii (z wynikiem i decyzjami), a przebiegi czekające na decyzję nie będą już mogły zostać zastosowane.',
          'Its runs stay in the history (with outcomes and decisions); runs awaiting a decision can no longer be applied.',
        ),
      ],
      okLabel: tr('Usuń źródło', 'Delete the source'),
      danger: true,
    })
    if (!ok) return
    try {
      await api.request('DELETE', `/sources/${source.id}`)
      toast(tr(`Usunięto źródło „${source.name}”.`, `The source “${source.name}” was deleted.`))
      location.hash = '#/zrodla'
    } catch (error) {
      toast(error.message || String(error), 'error')
    }
  })
  page.append(
    card(
      tr('Usunięcie źródła', 'Deleting the source'),
      h(
        'p',
        { class: 'muted' },
        tr(
          'Oferty w katalogu zostają; przebiegi tego źródła pozostają w historii.',
          'The offers stay in the catalog; the runs of this source stay in the history.',
        ),
      ),
      h('div', { class: 'actions' }, remove),
    ),
  )
}

async function renderRun(page, { api, signal, id }) {
  const { body } = await api.get(`/source-runs/${id}?per_page=200`, { signal })
  const { run, plan } = body
  page.append(
    h('p', {}, h('a', { href: '#/zrodla' }, tr('← Źródła ofert', '← Offer sources'))),
    h(
      'div',
      { class: 'page-header' },
      h('h1', {}, tr(`Przebieg ${run.id}`, `Run ${run.id}`), ' ', outcomeBadge(run.outcome)),
    ),
  )
  const summary = run.summary ?? {}
  page.append(
    card(
      null,
      facts([
        [tr('Początek', 'Started'), formatDateTime(run.started_at)],
        [tr('Koniec', 'Finished'), formatDateTime(run.finished_at)],
        [
          tr('Uruchomiony', 'Triggered'),
          run.trigger === 'schedule' ? tr('z harmonogramu', 'by the schedule') : tr('ręcznie', 'by hand'),
        ],
        [
          tr('Pobrany plik', 'Fetched file'),
          run.bytes === null ? '—' : `${formatBytes(run.bytes)}, HTTP ${run.http_status}`,
        ],
        [tr('Suma kontrolna (SHA-256)', 'Checksum (SHA-256)'), mono(run.content_sha256)],
        [
          tr('Wiersze', 'Rows'),
          summary.rows === undefined
            ? '—'
            : `${formatNumber(summary.rows)}${summary.errors_total ? tr(`, błędnych ${summary.errors_total}`, `, ${summary.errors_total} invalid`) : ''}`,
        ],
        [tr('Plan', 'Plan'), planText(summary)],
        run.decided_by
          ? [tr('Decyzja', 'Decision'), `${run.decided_by.name}, ${formatDateTime(run.decided_at)}`]
          : null,
      ]),
    ),
  )
  if (run.failure) {
    const [pl, en] = FAILURES[run.failure.code] ?? [run.failure.code, run.failure.code]
    page.append(
      alertBox(
        'error',
        tr(pl, en),
        run.failure.message_pl
          ? h('p', { class: 'network-error' }, tr(run.failure.message_pl, run.failure.message_en))
          : '',
        technicalDetails(h('p', {}, `${run.failure.code}: ${run.failure.message}`)),
      ),
    )
  }
  if (run.guards.length > 0) {
    page.append(
      alertBox(
        run.outcome === 'held' ? 'warning' : 'info',
        run.outcome === 'held'
          ? tr('Przebieg wstrzymano: nic nie zapisano. Powody:', 'The run was held: nothing was written. Why:')
          : tr('Powody, dla których przebieg czekał na decyzję:', 'Why this run waited for a decision:'),
        h('ul', { id: 'run-guards' }, run.guards.map(guardLine)),
      ),
    )
    const flagged = run.guards.flatMap((g) => g.offers.map((offer) => ({ ...offer, guard: g.guard })))
    if (flagged.length > 0)
      page.append(
        card(
          run.guards.some((g) => DECISION_GUARDS.has(g.guard))
            ? tr('Lokale, przy których przebieg wstrzymano', 'Units the run was held at')
            : tr('Oferty, przy których zadziałały limity', 'Offers the limits stopped at'),
          changesTable(
            'flagged-offers',
            flagged.map((o) => ({
              key: o.key,
              unit: o.unit,
              offerId: o.offer_id,
              action: flaggedAction(o),
              field: fieldLabel(o.field),
              before: flaggedValue(o.field, o.before, o.before_from),
              after:
                flaggedValue(o.field, o.after, o.after_from) +
                (o.change_pct === undefined
                  ? ''
                  : tr(` (zmiana o ${o.change_pct}%)`, ` (a change of ${o.change_pct}%)`)),
            })),
          ),
        ),
      )
  }
  if (summary.errors?.length > 0)
    page.append(
      card(
        tr('Błędy w pliku', 'Errors in the file'),
        h(
          'ul',
          {},
          summary.errors.map((e) =>
            h('li', {}, tr(`wiersz ${e.row}: ${e.message_pl ?? e.code}`, `row ${e.row}: ${e.message ?? e.code}`)),
          ),
        ),
      ),
    )
  if (run.outcome === 'held') page.append(decisionCard(api, run, () => rerenderRun(page, { api, signal, id })))
  const rows = []
  for (const item of plan.items)
    if (item.action === 'update')
      for (const field of item.changes)
        rows.push({
          key: item.key,
          action: tr(...ACTIONS.update),
          field: fieldLabel(field),
          before: valueText(field, item.before[field]),
          after: valueText(field, item.values[field]),
        })
    else
      rows.push({
        key: item.key,
        action: tr(...(ACTIONS[item.action] ?? [item.action, item.action])),
        field: item.action === 'archive' ? fieldLabel('property_status') : '',
        before: '',
        after: '',
      })
  page.append(
    card(
      tr('Plan: przed → po', 'Plan: before → after'),
      planKept(plan),
      plan.available
        ? rows.length > 0
          ? [
              changesTable('plan-changes', rows),
              plan.total_items > plan.per_page
                ? h(
                    'p',
                    { class: 'muted' },
                    tr(
                      `Pokazano pierwsze ${plan.per_page} pozycji planu z ${plan.total_items}.`,
                      `The first ${plan.per_page} of ${plan.total_items} plan items are shown.`,
                    ),
                  )
                : null,
            ]
          : h('p', { class: 'muted' }, tr('Plan nie zmienia żadnej oferty.', 'The plan changes no offer.'))
        : null,
    ),
  )
}

/**
 * How long the run's plan is kept, from the plan's own expiry: the run made none, it is kept
 * until a time, or it expired (only once that time has passed).
 */
function planKept(plan) {
  const hours = plan.retention_hours ?? 24
  const kept = tr(
    `Plan, którego nikt nie zastosował, jest przechowywany ${plural(hours, ['godzinę', 'godziny', 'godzin'], 'pl')} od przebiegu.`,
    `A plan nobody applied is kept ${plural(hours, ['hour', 'hours'], 'en')} after the run.`,
  )
  if (plan.state === 'none')
    return h(
      'p',
      { class: 'muted', id: 'plan-kept', dataset: { state: 'none' } },
      tr(
        'Ten przebieg nie przygotował planu zmian: plik nie został pobrany, nie zmienił się od poprzedniego przebiegu albo nie dał się wczytać.',
        'This run made no plan: the file was not fetched, had not changed since the previous run, or could not be read.',
      ),
    )
  if (plan.state === 'expired')
    return h(
      'p',
      { class: 'muted', id: 'plan-kept', dataset: { state: 'expired' } },
      plan.expires_at
        ? tr(
            `Plan tego przebiegu wygasł ${formatDateTime(plan.expires_at)}. `,
            `This run's plan expired on ${formatDateTime(plan.expires_at)}. `,
          )
        : tr('Plan tego przebiegu już usunięto. ', "This run's plan has been removed. "),
      kept,
    )
  return h(
    'p',
    { class: 'muted', id: 'plan-kept', dataset: { state: 'available' } },
    plan.expires_at
      ? tr(
          `Plan jest dostępny do ${formatDateTime(plan.expires_at)}.`,
          `The plan is available until ${formatDateTime(plan.expires_at)}.`,
        )
      : '',
  )
}

function rerenderRun(page, context) {
  replaceChildren(page)
  return renderRun(page, context).catch((error) => page.append(errorBox(error)))
}

function changesTable(id, rows) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table', id },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          [
            tr('Oferta', 'Offer'),
            tr('Zmiana', 'Change'),
            tr('Pole', 'Field'),
            tr('Przed', 'Before'),
            tr('Po', 'After'),
          ].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((row) =>
          h(
            'tr',
            {},
            h('td', {}, row.unit ? unitCell(row) : mono(row.key.replaceAll('/', ' / '))),
            h('td', {}, row.action),
            h('td', {}, row.field),
            h('td', {}, row.before),
            h('td', {}, h('strong', {}, row.after)),
          ),
        ),
      ),
    ),
  )
}

/** A unit by its designation, linked to its page in the editor, with the source's key beneath. */
function unitCell(row) {
  const name = row.offerId ? h('a', { href: `#/oferty/${row.offerId}` }, row.unit) : row.unit
  return [h('strong', {}, name), h('br'), mono(row.key.replaceAll('/', ' / '))]
}

function decisionCard(api, run, reload) {
  const apply = h(
    'button',
    { class: 'button button-primary', type: 'button', id: 'apply-run' },
    tr('Zastosuj', 'Apply'),
  )
  const reject = h(
    'button',
    { class: 'button button-danger', type: 'button', id: 'reject-run' },
    tr('Odrzuć', 'Reject'),
  )
  const decide = async (verb) => {
    const ok = await confirmDialog({
      title:
        verb === 'apply'
          ? tr('Zastosować zmiany z pliku?', 'Apply the changes from the file?')
          : tr('Odrzucić zmiany z pliku?', 'Reject the changes from the file?'),
      body: [
        verb === 'apply'
          ? tr(
              'Plan zostanie zapisany w katalogu z historią cen, tak jak import ofert. Jutrzejsza publikacja pokaże nowe ceny.',
              'The plan is written to the catalog with price history, as an offer import. The next publication shows the new prices.',
            )
          : tr(
              'Nic nie zostanie zapisane. Popraw plik u źródła; kolejny przebieg pobierze go ponownie po zmianie.',
              'Nothing is written. Fix the file at its source; the next run fetches it again once it changes.',
            ),
      ],
      okLabel: verb === 'apply' ? tr('Zastosuj', 'Apply') : tr('Odrzuć', 'Reject'),
      danger: verb === 'reject',
    })
    if (!ok) return
    apply.disabled = true
    reject.disabled = true
    try {
      await api.post(`/source-runs/${run.id}/${verb}`)
      toast(
        verb === 'apply'
          ? tr('Zmiany zapisano.', 'The changes were written.')
          : tr('Zmiany odrzucono.', 'The changes were rejected.'),
      )
      await reload()
    } catch (error) {
      toast(error.message || String(error), 'error')
      apply.disabled = false
      reject.disabled = false
    }
  }
  apply.addEventListener('click', () => void decide('apply'))
  reject.addEventListener('click', () => void decide('reject'))
  return card(
    tr('Decyzja', 'Decision'),
    h(
      'p',
      {},
      tr(
        'Sprawdź zmiany poniżej. Dopóki nie zdecydujesz, katalog i publikacja pozostają bez tych zmian.',
        'Check the changes below. Until you decide, the catalog and the publication stay without them.',
      ),
    ),
    h('div', { class: 'actions' }, apply, reject),
  )
}

/** The dashboard's line about the sources: runs waiting for a decision and failing sources, else nothing. */
export function sourcesNotice(overview) {
  if (!overview || (overview.held_runs === 0 && overview.failing === 0)) return null
  return alertBox(
    overview.held_runs > 0 ? 'warning' : 'error',
    tr('Źródła ofert wymagają uwagi', 'Offer sources need attention'),
    h(
      'p',
      { id: 'sources-notice' },
      overview.held_runs > 0
        ? tr(
            `Przebiegi czekające na decyzję: ${overview.held_runs}. `,
            `Runs awaiting a decision: ${overview.held_runs}. `,
          )
        : null,
      overview.failing > 0
        ? tr(
            `Źródła z błędem ostatniego przebiegu: ${overview.failing}. `,
            `Sources whose latest run failed: ${overview.failing}. `,
          )
        : null,
      h('a', { href: '#/zrodla' }, tr('Przejdź do źródeł ofert', 'Go to the offer sources')),
    ),
  )
}
