// Offer import (contract 4.3) in the panel's three steps:
// 1. POST {base}/imports/offer multipart (file, mode, mapping[, sheet]) → preview, nothing written;
// 2. the operator reads the counts, the errors and the archiving scope;
// 3. POST {base}/imports/offer form-encoded (job_id, confirm_archiving) with an Idempotency-Key made
//    here once per job, so pressing the button again can only replay, never import twice; while it
//    runs, GET {base}/imports/{id} is polled for the live status.
import {
  badge,
  facts,
  formatBytes,
  formatDateTime,
  formatNumber,
  h,
  mono,
  randomHex,
  replaceChildren,
  sleep,
} from './dom.js'
import { ACTION_LABELS, JOB_STATUS_LABELS } from './messages.js'
import { alertBox, card, errorBox, toast } from './ui.js'

const MAPPING_STORAGE_KEY = 'dg-admin.import-mapping'
const POLL_MS = 400
const OPERATIONS_SHOWN = 50
const ERRORS_SHOWN = 200

/** The canonical fields of an offer row (src/offers/canonical-fields.ts), with Polish labels. */
const FIELDS = [
  ['source_investment_id', 'Identyfikator inwestycji', true],
  ['source_property_id', 'Identyfikator lokalu', true],
  ['prop_no', 'Numer lokalu'],
  ['prop_type', 'Rodzaj (mieszkanie, dom, miejsce postojowe…)'],
  ['property_status', 'Status (wolne, rezerwacja, sprzedane…)'],
  ['prop_area', 'Powierzchnia [m²]'],
  ['prop_rooms', 'Liczba pokoi'],
  ['prop_floor', 'Piętro'],
  ['price_m2', 'Cena za m²'],
  ['price_m2_from', 'Cena za m² obowiązuje od'],
  ['price_total', 'Cena całkowita'],
  ['price_total_from', 'Cena całkowita obowiązuje od'],
  ['price_combined', 'Cena łączna'],
  ['price_combined_from', 'Cena łączna obowiązuje od'],
  ['price_combined_variant', 'Wariant ceny łącznej'],
  ['price_combined_status', 'Status ceny łącznej'],
  ['proj_voivod', 'Województwo'],
  ['proj_powiat', 'Powiat'],
  ['proj_gmina', 'Gmina'],
  ['proj_city', 'Miejscowość'],
  ['proj_street', 'Ulica'],
  ['proj_build_no', 'Numer budynku'],
  ['proj_local_no', 'Numer lokalu w adresie'],
  ['proj_zip', 'Kod pocztowy'],
]

/** Column headers commonly used in Polish price lists, matched after lower-casing. */
const HEADER_GUESSES = {
  inwestycja: 'source_investment_id',
  'id inwestycji': 'source_investment_id',
  'id lokalu': 'source_property_id',
  numer: 'prop_no',
  'numer lokalu': 'prop_no',
  rodzaj: 'prop_type',
  status: 'property_status',
  powierzchnia: 'prop_area',
  pokoje: 'prop_rooms',
  'liczba pokoi': 'prop_rooms',
  piętro: 'prop_floor',
  'cena m2': 'price_m2',
  'cena za m2': 'price_m2',
  'cena m2 od': 'price_m2_from',
  cena: 'price_total',
  'cena całkowita': 'price_total',
  'cena od': 'price_total_from',
  miasto: 'proj_city',
  miejscowość: 'proj_city',
  województwo: 'proj_voivod',
  'kod pocztowy': 'proj_zip',
}

function splitCsvLine(line, delimiter) {
  const cells = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"'
        i++
      } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === delimiter) {
      cells.push(cell.trim())
      cell = ''
    } else cell += c
  }
  cells.push(cell.trim())
  return cells.filter(Boolean)
}

/** The header row of a CSV file (UTF-8 or Windows-1250, `;`/`,`/tab), to suggest the mapping. */
async function csvHeaders(file) {
  const bytes = new Uint8Array(await file.slice(0, 64 * 1024).arrayBuffer())
  let text
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    text = new TextDecoder('windows-1250').decode(bytes)
  }
  const line = text.replace(/^\uFEFF/, '').split(/\r?\n/)[0] ?? ''
  const delimiter = [';', '\t', ','].reduce(
    (best, d) => (line.split(d).length > line.split(best).length ? d : best),
    ';',
  )
  return splitCsvLine(line, delimiter)
}

function loadSavedMapping() {
  try {
    const saved = JSON.parse(localStorage.getItem(MAPPING_STORAGE_KEY) ?? '{}')
    return saved && typeof saved === 'object' ? saved : {}
  } catch {
    return {}
  }
}

function countsView(counts) {
  return h(
    'div',
    { class: 'counts', id: 'preview-counts' },
    ['create', 'update', 'unchanged', 'archive'].map((action) =>
      h(
        'div',
        { class: `count count-${action}`, dataset: { action } },
        h('strong', {}, formatNumber(counts?.[action] ?? 0)),
        h('span', {}, ACTION_LABELS[action]),
      ),
    ),
  )
}

function errorsTable(errors, total) {
  if (!Array.isArray(errors) || errors.length === 0) return null
  const shown = errors.slice(0, ERRORS_SHOWN)
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table', id: 'preview-errors' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Wiersz'), h('th', {}, 'Pole'), h('th', {}, 'Kod'), h('th', {}, 'Opis'))),
      h(
        'tbody',
        {},
        shown.map((e) =>
          h(
            'tr',
            {},
            h('td', {}, e.row ? String(e.row) : 'plik'),
            h('td', {}, mono(e.field)),
            h('td', {}, mono(e.code)),
            h('td', {}, e.message),
          ),
        ),
      ),
    ),
    total > shown.length
      ? h('p', { class: 'muted' }, `Pokazano ${shown.length} z ${formatNumber(total)} błędów.`)
      : null,
  )
}

function operationsTable(operations, total) {
  if (!Array.isArray(operations) || operations.length === 0) return null
  const shown = operations.filter((op) => op.action !== 'unchanged').slice(0, OPERATIONS_SHOWN)
  if (shown.length === 0) return h('p', { class: 'muted' }, 'Plik niczego nie zmienia.')
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table', id: 'preview-operations' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Wiersz'),
          h('th', {}, 'Operacja'),
          h('th', {}, 'Oferta'),
          h('th', {}, 'Zmienione pola'),
        ),
      ),
      h(
        'tbody',
        {},
        shown.map((op) =>
          h(
            'tr',
            {},
            h('td', {}, op.row ? String(op.row) : '—'),
            h('td', {}, badge(ACTION_LABELS[op.action] ?? op.action, op.action === 'archive' ? 'warn' : 'neutral')),
            h('td', {}, mono(op.key)),
            h(
              'td',
              {},
              (op.changes ?? []).map((field) => {
                const before = op.before?.[field]
                // an archiving keeps the row's other values; its change is the status
                const after = op.action === 'archive' && field === 'property_status' ? 'archived' : op.values?.[field]
                return h(
                  'div',
                  { class: 'change' },
                  mono(field),
                  ': ',
                  before === undefined || before === null ? '' : h('del', {}, String(before)),
                  before === undefined || before === null ? '' : ' → ',
                  h('ins', {}, after === undefined || after === null ? '∅' : String(after)),
                )
              }),
            ),
          ),
        ),
      ),
    ),
    h(
      'p',
      { class: 'muted' },
      `Pokazano zmiany pierwszych operacji (${shown.length}); wszystkich operacji: ${formatNumber(total)}.`,
    ),
  )
}

function archiveScopeView(scope) {
  if (!scope || !scope.total) return null
  return alertBox(
    'warning',
    `Snapshot zarchiwizuje ${formatNumber(scope.total)} ofert, których nie ma w pliku.`,
    h(
      'ul',
      { id: 'archive-scope' },
      scope.investments
        .filter((i) => i.archived > 0)
        .map((i) => h('li', {}, mono(i.source_investment_id), `: ${formatNumber(i.archived)} ofert`)),
    ),
  )
}

function jobView(job) {
  const c = job.counters ?? {}
  return h(
    'div',
    { id: 'job-status', dataset: { status: job.status } },
    facts([
      ['Zadanie', mono(job.id)],
      [
        'Status',
        badge(
          JOB_STATUS_LABELS[job.status] ?? job.status,
          job.status === 'completed'
            ? 'ok'
            : job.status === 'running'
              ? 'info'
              : job.status === 'previewed'
                ? 'neutral'
                : 'warn',
        ),
      ],
      ['Plik', job.file ? `${job.file.name} (${job.file.format})` : '—'],
      ['Tryb', job.mode],
      [
        'Wiersze',
        `${formatNumber(c.rows)} (poprawnych ${formatNumber(c.valid_rows)}, błędów ${formatNumber(c.errors)})`,
      ],
      ['Operator', job.operator?.name ?? '—'],
      ['Utworzone', formatDateTime(job.created_at)],
      ['Rozpoczęte', formatDateTime(job.started_at)],
      ['Zakończone', formatDateTime(job.finished_at)],
      ['Wygasa', formatDateTime(job.expires_at)],
      job.failure ? ['Błąd', job.failure] : null,
    ]),
    job.status === 'running' ? h('progress', { 'aria-label': 'Import w toku' }) : null,
  )
}

function resultView(result, replayed) {
  return h(
    'div',
    { id: 'import-result', class: 'stack' },
    alertBox(
      'success',
      replayed
        ? 'Ten import był już wykonany — pokazano zapisany wynik (nic nie zapisano ponownie).'
        : 'Import wykonany.',
    ),
    facts([
      ['Przetworzone', formatNumber(result.processed)],
      ['Nowe', formatNumber(result.created)],
      ['Zmienione', formatNumber(result.updated)],
      ['Zarchiwizowane', formatNumber(result.archived)],
      ['Przebieg (run_id)', mono(String(result.run_id))],
    ]),
  )
}

export async function renderImports(root, { api, signal }) {
  const saved = loadSavedMapping()
  const fileInput = h('input', { id: 'import-file', type: 'file', accept: '.csv,.xlsx,text/csv', required: true })
  const fileInfo = h('p', { class: 'muted' })
  const modePatch = h('input', { type: 'radio', name: 'mode', value: 'patch', id: 'mode-patch', checked: true })
  const modeSnapshot = h('input', { type: 'radio', name: 'mode', value: 'snapshot', id: 'mode-snapshot' })
  const sheet = h('input', { id: 'import-sheet', placeholder: 'pierwszy arkusz', maxlength: 100 })
  const headerList = h('datalist', { id: 'file-headers' })
  let headers = []

  const inputs = new Map(
    FIELDS.map(([field]) => [
      field,
      h('input', {
        id: `map-${field}`,
        list: 'file-headers',
        value: typeof saved[field] === 'string' ? saved[field] : '',
        autocomplete: 'off',
        maxlength: 200,
      }),
    ]),
  )
  const marks = new Map(FIELDS.map(([field]) => [field, h('span', { class: 'mapping-mark' })]))

  function refreshMarks() {
    for (const [field, input] of inputs) {
      const value = input.value.trim()
      const missing = value !== '' && headers.length > 0 && !headers.includes(value)
      marks.get(field).textContent = missing ? 'brak takiej kolumny w pliku' : ''
      input.classList.toggle('invalid', missing)
    }
  }
  for (const input of inputs.values()) input.addEventListener('input', refreshMarks)

  const mappingGrid = h(
    'div',
    { class: 'mapping-grid' },
    FIELDS.map(([field, label, required]) =>
      h(
        'div',
        { class: 'mapping-item' },
        h(
          'label',
          { for: `map-${field}` },
          h('span', {}, label, required ? h('span', { class: 'required', title: 'wymagane' }, ' *') : null),
          h('code', { class: 'mono' }, field),
        ),
        h('div', {}, inputs.get(field), marks.get(field)),
      ),
    ),
  )

  fileInput.addEventListener('change', async () => {
    const file = fileInput.files?.[0]
    headers = []
    replaceChildren(headerList)
    if (!file) return replaceChildren(fileInfo)
    replaceChildren(fileInfo, `${file.name}, ${formatBytes(file.size)}`)
    if (!/\.csv$/i.test(file.name)) {
      fileInfo.append(' — nagłówków XLSX przeglądarka nie odczytuje; wpisz je ręcznie.')
      return refreshMarks()
    }
    headers = await csvHeaders(file)
    replaceChildren(
      headerList,
      headers.map((header) => h('option', { value: header })),
    )
    // a remembered mapping is only a suggestion: a column this file lacks would fail the preview
    let dropped = 0
    for (const input of inputs.values()) {
      if (input.value.trim() && !headers.includes(input.value.trim())) {
        input.value = ''
        dropped++
      }
    }
    let guessed = 0
    for (const header of headers) {
      const key = header.toLowerCase()
      const field = inputs.has(key) ? key : HEADER_GUESSES[key]
      const input = field && inputs.get(field)
      if (input && !input.value.trim()) {
        input.value = header
        guessed++
      }
    }
    fileInfo.append(
      ` — kolumny: ${headers.length}${guessed ? `, dopasowano automatycznie: ${guessed}` : ''}` +
        `${dropped ? `, usunięto przypisania do kolumn, których nie ma w pliku: ${dropped}` : ''}.`,
    )
    refreshMarks()
  })

  const previewButton = h(
    'button',
    { class: 'button button-primary', type: 'submit', id: 'run-preview' },
    'Podgląd importu',
  )
  const uploadProgress = h('progress', { id: 'upload-progress', max: 100, value: 0, hidden: true })
  const formMessage = h('div', { 'aria-live': 'polite' })
  const previewArea = h('div', { class: 'stack' })
  const jobArea = h('div', { class: 'stack' })

  const form = h(
    'form',
    { id: 'import-form', novalidate: true },
    h(
      'div',
      { class: 'form-row' },
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'import-file' }, 'Plik z cennikiem (CSV lub XLSX)'),
        fileInput,
        fileInfo,
      ),
      h('div', { class: 'field' }, h('label', { for: 'import-sheet' }, 'Arkusz (tylko XLSX, opcjonalnie)'), sheet),
    ),
    h(
      'fieldset',
      { class: 'modes' },
      h('legend', {}, 'Tryb'),
      h(
        'label',
        { for: 'mode-patch', class: 'radio' },
        modePatch,
        h(
          'span',
          {},
          h('strong', {}, 'patch'),
          ' — zmienia tylko to, co jest w pliku; pusta komórka niczego nie czyści',
        ),
      ),
      h(
        'label',
        { for: 'mode-snapshot', class: 'radio' },
        modeSnapshot,
        h(
          'span',
          {},
          h('strong', {}, 'snapshot'),
          ' — plik jest pełnym stanem inwestycji, które wymienia; oferty spoza pliku zostaną zarchiwizowane',
        ),
      ),
    ),
    h(
      'details',
      { class: 'mapping-details', open: true },
      h('summary', {}, 'Mapowanie kolumn (pole oferty → nagłówek w pliku)'),
      mappingGrid,
    ),
    headerList,
    formMessage,
    h('div', { class: 'actions' }, previewButton, uploadProgress),
  )

  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, 'Import ofert')),
    card(
      '1. Plik i mapowanie',
      h('p', { class: 'lead' }, 'Podgląd niczego nie zapisuje: pokazuje, co import zmieni, i wszystkie błędy pliku.'),
      form,
    ),
    previewArea,
    jobArea,
  )

  let current = null // { id, key, archive }

  async function poll(id, until) {
    let done = false
    void until.finally(() => {
      done = true
    })
    while (!done && !signal.aborted) {
      try {
        const { body } = await api.get(`/imports/${id}?per_page=1`, { signal })
        if (!done) replaceChildren(jobArea, card('3. Wykonanie — stan na żywo', jobView(body)))
      } catch {
        // a failed poll is not the import's failure; the POST's answer decides
      }
      await sleep(POLL_MS, signal)
    }
  }

  async function execute(button, confirmBox) {
    if (!current) return
    const confirmArchiving = confirmBox ? confirmBox.checked : false
    if (current.archive > 0 && !confirmArchiving) {
      replaceChildren(jobArea, alertBox('error', 'Zaznacz potwierdzenie archiwizacji, aby wykonać snapshot.'))
      return
    }
    button.disabled = true
    const form = new URLSearchParams({ job_id: current.id, confirm_archiving: String(confirmArchiving) })
    const request = api.post('/imports/offer', { form, headers: { 'Idempotency-Key': current.key } })
    void poll(current.id, request)
    try {
      const { body } = await request
      const { body: job } = await api.get(`/imports/${current.id}?per_page=1`)
      replaceChildren(
        jobArea,
        card(
          '3. Wykonanie',
          h('div', { class: 'stack' }, resultView(body.result, body.replayed), h('h3', {}, 'Zadanie'), jobView(job)),
        ),
      )
      toast(body.replayed ? 'Import był już wykonany.' : 'Import wykonany.')
    } catch (error) {
      button.disabled = false
      replaceChildren(
        jobArea,
        card(
          '3. Wykonanie',
          errorBox(error, error.body?.archive_scope ? archiveScopeView(error.body.archive_scope) : null),
        ),
      )
    }
  }

  function showPreview(id, preview, invalid) {
    current = invalid ? null : { id, key: `panel-${randomHex(16)}`, archive: preview.archive_scope?.total ?? 0 }
    replaceChildren(jobArea)
    const parts = [
      facts([
        ['Zadanie', mono(id)],
        ['Tryb', preview.mode],
        ['Wiersze danych', formatNumber(preview.rows)],
        ['Operacje', formatNumber(preview.operations_total)],
      ]),
    ]
    if (invalid) {
      parts.unshift(
        alertBox(
          'error',
          `Plik ma błędy (${formatNumber(preview.errors_total)}). Nic nie zostało zapisane; popraw plik i wczytaj go ponownie.`,
        ),
      )
      parts.push(errorsTable(preview.errors, preview.errors_total))
    } else {
      parts.push(
        countsView(preview.counts),
        archiveScopeView(preview.archive_scope),
        operationsTable(preview.operations, preview.operations_total),
      )
      const confirmBox = current.archive > 0 ? h('input', { type: 'checkbox', id: 'confirm-archiving' }) : null
      const executeButton = h(
        'button',
        { class: 'button button-primary', type: 'button', id: 'run-import' },
        'Wykonaj import',
      )
      executeButton.addEventListener('click', () => void execute(executeButton, confirmBox))
      parts.push(
        confirmBox
          ? h(
              'label',
              { class: 'checkbox', for: 'confirm-archiving' },
              confirmBox,
              ` Potwierdzam archiwizację ${formatNumber(current.archive)} ofert`,
            )
          : null,
        h(
          'div',
          { class: 'actions' },
          executeButton,
          h(
            'span',
            { class: 'muted' },
            'Klucz idempotencji: ',
            mono(current.key),
            ' — ponowne kliknięcie nie wykona importu drugi raz.',
          ),
        ),
      )
    }
    replaceChildren(previewArea, card('2. Podgląd', h('div', { id: 'import-preview', class: 'stack' }, parts)))
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replaceChildren(formMessage)
    const file = fileInput.files?.[0]
    if (!file) return replaceChildren(formMessage, alertBox('error', 'Wybierz plik.'))
    const mapping = {}
    for (const [field, input] of inputs) if (input.value.trim()) mapping[field] = input.value.trim()
    const missing = FIELDS.filter(([field, , required]) => required && !mapping[field]).map(([field]) => field)
    if (missing.length > 0)
      return replaceChildren(formMessage, alertBox('error', `Przypisz kolumny wymaganych pól: ${missing.join(', ')}.`))
    const absent = headers.length > 0 ? Object.values(mapping).filter((header) => !headers.includes(header)) : []
    if (absent.length > 0)
      return replaceChildren(formMessage, alertBox('error', `W pliku nie ma kolumn: ${absent.join(', ')}.`))
    localStorage.setItem(MAPPING_STORAGE_KEY, JSON.stringify(mapping))

    const body = new FormData()
    body.append('mode', modeSnapshot.checked ? 'snapshot' : 'patch')
    body.append('mapping', JSON.stringify(mapping))
    if (sheet.value.trim()) body.append('sheet', sheet.value.trim())
    body.append('file', file, file.name)

    previewButton.disabled = true
    uploadProgress.hidden = false
    uploadProgress.value = 0
    replaceChildren(previewArea, alertBox('info', 'Wysyłanie i sprawdzanie pliku…'))
    replaceChildren(jobArea)
    try {
      const { body: outcome } = await api.upload('/imports/offer', body, (sent, total) => {
        uploadProgress.value = Math.round((sent / total) * 100)
      })
      showPreview(outcome.id, outcome.preview, false)
    } catch (error) {
      if (error.code === 'import_invalid' && error.body?.preview) showPreview(error.body.id, error.body.preview, true)
      else replaceChildren(previewArea, errorBox(error))
    } finally {
      previewButton.disabled = false
      uploadProgress.hidden = true
    }
  })
}
