// Offer import (docs/integration/import.md) in the panel's three steps:
// 0. the file's header row: a CSV's read here, a workbook's by POST {base}/imports/offer/headers
//    (nothing written), so the column assignment is offered for both;
// 1. POST {base}/imports/offer multipart (file, mode, mapping[, sheet]) → preview, nothing written;
// 2. the operator reads the counts, the errors and the archiving scope;
// 3. POST {base}/imports/offer form-encoded (job_id, confirm_archiving) with an Idempotency-Key made
//    here once per job, so pressing the button again can only replay, never import twice; while it
//    runs, GET {base}/imports/{id} is polled for the live status.
import {
  badge,
  facts,
  formatArea,
  formatBytes,
  formatDate,
  formatMoney,
  formatNumber,
  formatWhen,
  h,
  mono,
  randomHex,
  replaceChildren,
  sleep,
} from '../dom.js'
import { offerStatusLabel, propertyTypeLabel } from '../editor/editor-labels.js'
import { enableUnlessRefused, gateAction, licensedFunctions } from '../operator/licence-gate.js'
import { plural } from '../operator/plural.js'
import { tr } from '../i18n.js'
import { columnAssignment, FIELDS } from '../fields/column-assignment.js'
import { fileProblem } from '../fields/file-check.js'
import { describeError, importActionLabel, jobStatusLabel } from '../messages.js'
import { alertBox, card, errorBox, filePicker, issueText, technicalDetails, toast } from '../ui.js'
import { lastMapping, mappingForShape, rememberMapping } from '../operator/import-mapping-memory.js'

const POLL_MS = 400
const OPERATIONS_SHOWN = 50
const ERRORS_SHOWN = 200

const FIELD_NAMES = new Map(FIELDS.map(([field, pl, en]) => [field, [pl, en]]))
const fieldName = (field) => {
  const name = FIELD_NAMES.get(field)
  return name ? tr(...name) : field
}

const MONEY_FIELDS = new Set(['price_m2', 'price_total', 'price_combined'])
const DATE_FIELDS = new Set(['price_m2_from', 'price_total_from', 'price_combined_from'])

/** A stored or planned value as the operator reads it: amounts in złoty, statuses and types in words. */
function changeValue(field, value) {
  if (value === undefined || value === null || value === '') return tr('(puste)', '(empty)')
  if (MONEY_FIELDS.has(field)) return formatMoney(value)
  if (DATE_FIELDS.has(field)) return formatDate(value)
  if (field === 'property_status') return offerStatusLabel(value)
  if (field === 'prop_type') return propertyTypeLabel(value, { short: true })
  if (field === 'prop_area') return formatArea(value)
  return String(value)
}

/** An offer key of the API (`investment/unit`, each part with / and % escaped) as "investment / unit". */
/** The offer by its designation and its investment's title (as the API names them) above its import identifiers. */
function offerName(op) {
  const designation = op.designation ?? op.values?.prop_no ?? op.before?.prop_no
  const title = op.investment_title
  if (!designation && !title) return offerKeyText(op.key)
  return [
    designation ? h('strong', { class: 'offer-designation' }, String(designation)) : '',
    designation && title ? ' · ' : '',
    title ? h('span', { class: 'offer-investment' }, String(title)) : '',
    h('br'),
    h('small', { class: 'muted' }, offerKeyText(op.key)),
  ]
}

function offerKeyText(key) {
  return String(key ?? '')
    .split('/')
    .map((part) => part.replace(/%2F/gi, '/').replace(/%25/g, '%'))
    .join(' / ')
}

const MODES = {
  patch: ['tylko zmiany', 'changes only'],
  snapshot: ['pełny stan inwestycji', 'full state of the investments'],
}
const modeLabel = (mode) => (MODES[mode] ? tr(...MODES[mode]) : mode)

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

function countsView(counts) {
  return h(
    'div',
    { class: 'counts', id: 'preview-counts' },
    ['create', 'update', 'unchanged', 'archive'].map((action) =>
      h(
        'div',
        { class: `count count-${action}`, dataset: { action } },
        h('strong', {}, formatNumber(counts?.[action] ?? 0)),
        h('span', {}, importActionLabel(action)),
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
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { class: 'number' }, tr('Wiersz', 'Row')),
          h('th', {}, tr('Pole', 'Field')),
          h('th', {}, tr('Co poprawić', 'What to correct')),
        ),
      ),
      h(
        'tbody',
        {},
        shown.map((e) =>
          h(
            'tr',
            { dataset: { code: e.code ?? '' } },
            h('td', { class: 'number' }, e.row ? String(e.row) : tr('plik', 'file')),
            h('td', {}, fieldName(e.field)),
            h('td', {}, issueText(e), ' ', h('code', { class: 'issue-code' }, e.code)),
          ),
        ),
      ),
    ),
    total > shown.length
      ? h(
          'p',
          { class: 'muted' },
          tr(
            `Pokazano ${shown.length} z ${plural(total, ['błędu', 'błędów', 'błędów'], 'pl')}.`,
            `Showing ${shown.length} of ${plural(total, ['error', 'errors'], 'en')}.`,
          ),
        )
      : null,
  )
}

function operationsTable(operations, total) {
  if (!Array.isArray(operations) || operations.length === 0) return null
  const shown = operations.filter((op) => op.action !== 'unchanged').slice(0, OPERATIONS_SHOWN)
  if (shown.length === 0)
    return h('p', { class: 'muted' }, tr('Plik niczego nie zmienia.', 'The file changes nothing.'))
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
          h('th', { class: 'number' }, tr('Wiersz', 'Row')),
          h('th', {}, tr('Operacja', 'Operation')),
          h('th', {}, tr('Oferta (inwestycja / lokal)', 'Offer (investment / unit)')),
          h('th', {}, tr('Zmiany', 'Changes')),
        ),
      ),
      h(
        'tbody',
        {},
        shown.map((op) =>
          h(
            'tr',
            {},
            h('td', { class: 'number' }, op.row ? String(op.row) : '—'),
            h('td', {}, badge(importActionLabel(op.action), op.action === 'archive' ? 'warn' : 'neutral')),
            h('td', {}, offerName(op)),
            h(
              'td',
              {},
              (op.changes ?? []).map((field) => {
                const before = op.before?.[field]
                // an archiving keeps the row's other values; its change is the status
                const after = op.action === 'archive' && field === 'property_status' ? 'archived' : op.values?.[field]
                return h(
                  'div',
                  { class: 'change', dataset: { field } },
                  h('span', { class: 'change-field' }, fieldName(field)),
                  ': ',
                  before === undefined || before === null ? '' : h('del', {}, changeValue(field, before)),
                  before === undefined || before === null ? '' : ' → ',
                  h('ins', {}, changeValue(field, after)),
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
      tr(
        `Pokazano zmiany pierwszych operacji (${shown.length}); wszystkich operacji: ${formatNumber(total)}.`,
        `Showing the changes of the first operations (${shown.length}); all operations: ${formatNumber(total)}.`,
      ),
    ),
  )
}

function archiveScopeView(scope) {
  if (!scope || !scope.total) return null
  return alertBox(
    'warning',
    tr(
      `Import pełnego stanu zarchiwizuje ${plural(scope.total, ['ofertę', 'oferty', 'ofert'], 'pl')}, których nie ma w pliku.`,
      `The full-state import archives ${plural(scope.total, ['offer', 'offers'], 'en')} missing from the file.`,
    ),
    h(
      'ul',
      { id: 'archive-scope' },
      scope.investments
        .filter((i) => i.archived > 0)
        .map((i) =>
          h(
            'li',
            {},
            mono(i.source_investment_id),
            `: ${plural(i.archived, tr(['oferta', 'oferty', 'ofert'], ['offer', 'offers']))}`,
          ),
        ),
    ),
  )
}

function jobView(job) {
  const c = job.counters ?? {}
  return h(
    'div',
    { id: 'job-status', dataset: { status: job.status } },
    facts([
      [
        tr('Stan', 'State'),
        badge(
          jobStatusLabel(job.status),
          job.status === 'completed'
            ? 'ok'
            : job.status === 'running'
              ? 'info'
              : job.status === 'previewed'
                ? 'neutral'
                : 'warn',
        ),
      ],
      [tr('Plik', 'File'), job.file ? `${job.file.name} (${job.file.format.toUpperCase()})` : '—'],
      [tr('Tryb', 'Mode'), modeLabel(job.mode)],
      [
        tr('Wiersze', 'Rows'),
        tr(
          `${formatNumber(c.rows)} (poprawnych ${formatNumber(c.valid_rows)}, błędów ${formatNumber(c.errors)})`,
          `${formatNumber(c.rows)} (valid ${formatNumber(c.valid_rows)}, errors ${formatNumber(c.errors)})`,
        ),
      ],
      [tr('Kto', 'Who'), job.operator?.name ?? '—'],
      [tr('Utworzone', 'Created'), formatWhen(job.created_at, { seconds: true })],
      [tr('Rozpoczęte', 'Started'), formatWhen(job.started_at, { seconds: true })],
      [tr('Zakończone', 'Finished'), formatWhen(job.finished_at, { seconds: true })],
      [tr('Wynik przechowywany do', 'Outcome kept until'), formatWhen(job.expires_at)],
      job.failure ? [tr('Błąd', 'Error'), job.failure] : null,
    ]),
    technicalDetails(facts([[tr('Zadanie', 'Job'), mono(job.id)]])),
    job.status === 'running' ? h('progress', { 'aria-label': tr('Import w toku', 'Import running') }) : null,
  )
}

function resultView(result, replayed) {
  return h(
    'div',
    { id: 'import-result', class: 'stack' },
    alertBox(
      'success',
      replayed
        ? tr(
            'Ten import był już wykonany — pokazano zapisany wynik (nic nie zapisano ponownie).',
            'This import already ran — the stored outcome is shown (nothing was written again).',
          )
        : tr('Import wykonany.', 'The import is done.'),
    ),
    facts([
      [tr('Przetworzone oferty', 'Offers processed'), formatNumber(result.processed)],
      [tr('Nowe', 'New'), formatNumber(result.created)],
      [tr('Zmienione', 'Changed'), formatNumber(result.updated)],
      [tr('Zarchiwizowane', 'Archived'), formatNumber(result.archived)],
    ]),
    technicalDetails(
      facts([
        [
          tr('Numer przebiegu w historii cen (run_id)', 'Run number in the price history (run_id)'),
          mono(String(result.run_id)),
        ],
      ]),
    ),
  )
}

export async function renderImports(root, { api, signal }) {
  const saved = lastMapping()
  const fileInput = h('input', { id: 'import-file', type: 'file', accept: '.csv,.xlsx,text/csv', required: true })
  const fileInfo = h('p', { class: 'muted' })
  const modePatch = h('input', { type: 'radio', name: 'mode', value: 'patch', id: 'mode-patch', checked: true })
  const modeSnapshot = h('input', { type: 'radio', name: 'mode', value: 'snapshot', id: 'mode-snapshot' })
  const sheet = h('input', {
    id: 'import-sheet',
    placeholder: tr('pierwszy arkusz', 'the first sheet'),
    maxlength: 100,
  })
  const headerList = h('datalist', { id: 'file-headers' })
  const sheetList = h('datalist', { id: 'file-sheets' })
  sheet.setAttribute('list', 'file-sheets')
  let headers = []

  const {
    inputs,
    grid: mappingGrid,
    refreshMarks,
    currentMapping,
    setMapping,
    matchEmpty,
  } = columnAssignment({
    initial: saved,
    listId: 'file-headers',
    present: () => headers,
  })

  let fileRefusal = null
  /** Which reading of the headers is current: choosing another file (or sheet) outdates the last one. */
  let reading = 0

  /**
   * The assignment offered for a file with these headers: the one remembered for files of this shape;
   * otherwise the fields' assignments to columns the file has stay, those to columns it lacks are
   * matched again by header name (the previous ones can be put back), and empty fields are matched too.
   */
  function offerAssignment(found, format) {
    headers = found
    replaceChildren(
      headerList,
      headers.map((header) => h('option', { value: header })),
    )
    const columns = tr(`${format} — kolumny: ${headers.length}`, `${format} — columns: ${headers.length}`)
    const remembered = mappingForShape(headers)
    if (remembered && Object.values(remembered).every((header) => headers.includes(header))) {
      setMapping(remembered)
      fileInfo.append(
        h(
          'span',
          { id: 'header-status', dataset: { assignment: 'remembered' } },
          ` — ${columns}; `,
          tr(
            'użyto przypisania zapamiętanego dla plików o tych kolumnach.',
            'the assignment remembered for files with these columns is used.',
          ),
        ),
      )
      return
    }
    const previous = currentMapping()
    let dropped = 0
    for (const input of inputs.values())
      if (input.value.trim() && !headers.includes(input.value.trim())) {
        input.value = ''
        dropped++
      }
    const guessed = matchEmpty(headers)
    const status = h(
      'span',
      { id: 'header-status', dataset: { assignment: dropped ? 'matched-again' : 'matched' } },
      ` — ${columns}`,
      guessed ? tr(`, dopasowano automatycznie: ${guessed}`, `, matched automatically: ${guessed}`) : '',
      dropped
        ? tr(
            `; poprzednie przypisanie wskazywało kolumny, których nie ma w tym pliku (${dropped}), więc dopasowano je od nowa. `,
            `; the previous assignment named columns this file lacks (${dropped}), so it was matched again. `,
          )
        : '.',
    )
    if (dropped) {
      const restore = h(
        'button',
        { type: 'button', class: 'button button-small', id: 'restore-mapping' },
        tr('Przywróć poprzednie przypisanie', 'Restore the previous assignment'),
      )
      restore.addEventListener('click', () => {
        setMapping(previous)
        restore.remove()
      })
      status.append(restore)
    }
    fileInfo.append(status)
  }

  /** Reads the chosen file's header row (a CSV's here, a workbook's on the server) and offers the assignment. */
  async function loadHeaders() {
    const file = fileInput.files?.[0]
    const turn = ++reading
    headers = []
    fileRefusal = null
    replaceChildren(headerList)
    replaceChildren(formMessage)
    if (!file) return replaceChildren(fileInfo)
    replaceChildren(fileInfo, `${file.name}, ${formatBytes(file.size)}`)
    // the file's own problem first; the column assignment is left as it is
    fileRefusal = await fileProblem(file)
    if (turn !== reading) return
    if (fileRefusal) {
      fileInfo.append(
        h('span', { class: 'file-problem', dataset: { code: fileRefusal.code } }, ` — ${fileRefusal.text}`),
      )
      return refreshMarks()
    }
    if (/\.csv$/i.test(file.name)) return offerAssignment(await csvHeaders(file), 'CSV')
    const pending = h('span', { id: 'header-status' }, tr(' — odczytywanie nagłówków…', ' — reading the headers…'))
    fileInfo.append(pending)
    const body = new FormData()
    if (sheet.value.trim()) body.append('sheet', sheet.value.trim())
    body.append('file', file, file.name)
    try {
      const { body: read } = await api.upload('/imports/offer/headers', body, () => {}, signal)
      if (turn !== reading) return
      pending.remove()
      replaceChildren(
        sheetList,
        (read.sheets ?? []).map((name) => h('option', { value: name })),
      )
      offerAssignment(read.headers, read.format === 'xlsx' ? 'XLSX' : 'CSV')
    } catch (error) {
      if (turn !== reading || error?.name === 'AbortError') return
      pending.remove()
      // the preview would refuse the file for the same reason; the assignment is left as it is
      const text =
        error.code === 'import_file_unreadable'
          ? tr(error.body?.message_pl ?? '', error.body?.message_en ?? error.body?.message ?? '')
          : describeError(error).text
      fileInfo.append(
        h(
          'span',
          { class: 'file-problem', dataset: { code: error.body?.reason ?? error.code ?? 'unknown' } },
          ` — ${tr('nie udało się odczytać nagłówków', 'the headers could not be read')}: ${text}`,
        ),
      )
      refreshMarks()
    }
  }
  fileInput.addEventListener('change', () => void loadHeaders())
  // another sheet of the same workbook has other headers
  sheet.addEventListener('change', () => {
    const file = fileInput.files?.[0]
    if (file && !/\.csv$/i.test(file.name)) void loadHeaders()
  })

  const licence = await licensedFunctions(api)
  const previewButton = h(
    'button',
    { class: 'button button-primary', type: 'submit', id: 'run-preview' },
    tr('Podgląd importu', 'Import preview'),
  )
  const licenceReason = gateAction(previewButton, 'offer_import', licence)

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
        h('label', { for: 'import-file' }, tr('Plik z cennikiem (CSV lub XLSX)', 'Price list file (CSV or XLSX)')),
        filePicker(fileInput),
        fileInfo,
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'import-sheet' }, tr('Arkusz (tylko XLSX, opcjonalnie)', 'Sheet (XLSX only, optional)')),
        sheet,
      ),
    ),
    h(
      'fieldset',
      { class: 'modes' },
      h('legend', {}, tr('Co plik zawiera', 'What the file holds')),
      h(
        'label',
        { for: 'mode-patch', class: 'radio' },
        modePatch,
        h(
          'span',
          {},
          h('strong', {}, tr('Tylko zmiany', 'Changes only')),
          tr(
            ' — zmienia tylko to, co jest w pliku; pusta komórka niczego nie czyści',
            ' — changes only what the file holds; an empty cell clears nothing',
          ),
        ),
      ),
      h(
        'label',
        { for: 'mode-snapshot', class: 'radio' },
        modeSnapshot,
        h(
          'span',
          {},
          h('strong', {}, tr('Pełny stan inwestycji', 'Full state of the investments')),
          tr(
            ' — plik jest pełną listą ofert inwestycji, które wymienia; oferty spoza pliku zostaną zarchiwizowane',
            ' — the file is the full list of offers of the investments it names; offers missing from it are archived',
          ),
        ),
      ),
    ),
    h(
      'details',
      { class: 'mapping-details', open: true },
      h(
        'summary',
        {},
        tr(
          'Przypisanie kolumn (pole oferty → nagłówek w pliku)',
          'Column assignment (offer field → header in the file)',
        ),
      ),
      mappingGrid,
    ),
    headerList,
    sheetList,
    formMessage,
    h('div', { class: 'actions' }, previewButton, uploadProgress),
    licenceReason,
  )

  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Import ofert', 'Offer import'))),
    card(
      tr('1. Plik i przypisanie kolumn', '1. File and column assignment'),
      h(
        'p',
        { class: 'lead' },
        tr(
          'Podgląd niczego nie zapisuje: pokazuje, co import zmieni, i wszystkie błędy pliku.',
          'The preview writes nothing: it shows what the import would change, and every error of the file.',
        ),
      ),
      form,
    ),
    previewArea,
    jobArea,
  )

  /** @type {{ id: string, key: string, archive: number } | null} the previewed job the button runs */
  let current = null

  async function poll(id, until) {
    let done = false
    void until.finally(() => {
      done = true
    })
    while (!done && !signal.aborted) {
      try {
        const { body } = await api.get(`/imports/${id}?per_page=1`, { signal })
        if (!done)
          replaceChildren(jobArea, card(tr('3. Wykonanie — stan na żywo', '3. Execution — live state'), jobView(body)))
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
      replaceChildren(
        jobArea,
        alertBox('error', tr('Zaznacz potwierdzenie archiwizacji.', 'Tick the confirmation of the archiving.')),
      )
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
          tr('3. Wykonanie', '3. Execution'),
          h(
            'div',
            { class: 'stack' },
            resultView(body.result, body.replayed),
            h('h3', {}, tr('Zadanie', 'Job')),
            jobView(job),
          ),
        ),
      )
      toast(
        body.replayed
          ? tr('Import był już wykonany.', 'The import already ran.')
          : tr('Import wykonany.', 'The import is done.'),
      )
    } catch (error) {
      button.disabled = false
      replaceChildren(
        jobArea,
        card(
          tr('3. Wykonanie', '3. Execution'),
          errorBox(error, error.body?.archive_scope ? archiveScopeView(error.body.archive_scope) : null),
        ),
      )
    }
  }

  function showPreview(id, preview, invalid) {
    current = invalid ? null : { id, key: `panel-${randomHex(16)}`, archive: preview.archive_scope?.total ?? 0 }
    replaceChildren(jobArea)
    /** @type {(Node | null)[]} */
    const parts = [
      facts([
        [tr('Tryb', 'Mode'), modeLabel(preview.mode)],
        [tr('Wiersze danych', 'Data rows'), formatNumber(preview.rows)],
        // an invalid file is not planned: its offers are not counted, so none is claimed
        [
          tr('Oferty w pliku', 'Offers in the file'),
          invalid
            ? tr('nie policzono (plik ma błędy)', 'not counted (the file has errors)')
            : formatNumber(preview.operations_total),
        ],
      ]),
    ]
    if (invalid) {
      parts.unshift(
        alertBox(
          'error',
          tr(
            `Plik ma błędy (${formatNumber(preview.errors_total)}). Nic nie zostało zapisane; popraw plik i wczytaj go ponownie.`,
            `The file has errors (${formatNumber(preview.errors_total)}). Nothing was saved; correct the file and load it again.`,
          ),
        ),
      )
      parts.push(errorsTable(preview.errors, preview.errors_total))
    } else {
      parts.push(
        countsView(preview.counts),
        archiveScopeView(preview.archive_scope),
        operationsTable(preview.operations, preview.operations_total),
      )
      const plan = /** @type {{ key: string, archive: number }} */ (current)
      const confirmBox = plan.archive > 0 ? h('input', { type: 'checkbox', id: 'confirm-archiving' }) : null
      const executeButton = h(
        'button',
        { class: 'button button-primary', type: 'button', id: 'run-import' },
        tr('Wykonaj import', 'Run the import'),
      )
      executeButton.addEventListener('click', () => void execute(executeButton, confirmBox))
      parts.push(
        confirmBox
          ? h(
              'label',
              { class: 'checkbox', for: 'confirm-archiving' },
              confirmBox,
              tr(
                ` Potwierdzam archiwizację ${plural(plan.archive, ['oferty', 'ofert', 'ofert'], 'pl')}`,
                ` I confirm archiving ${plural(plan.archive, ['offer', 'offers'], 'en')}`,
              ),
            )
          : null,
        h(
          'div',
          { class: 'actions' },
          executeButton,
          h(
            'span',
            { class: 'muted' },
            tr(
              'Ponowne kliknięcie nie wykona importu drugi raz.',
              'Pressing the button again never runs the import twice.',
            ),
          ),
        ),
        technicalDetails(
          facts([
            [tr('Zadanie', 'Job'), mono(id)],
            [tr('Klucz powtórzenia (Idempotency-Key)', 'Repeat key (Idempotency-Key)'), mono(plan.key)],
          ]),
        ),
      )
    }
    replaceChildren(
      previewArea,
      card(tr('2. Podgląd', '2. Preview'), h('div', { id: 'import-preview', class: 'stack' }, parts)),
    )
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replaceChildren(formMessage)
    const file = fileInput.files?.[0]
    if (!file) return replaceChildren(formMessage, alertBox('error', tr('Wybierz plik.', 'Choose a file.')))
    // the file's own problem is said first and nothing is sent (nor the assignment saved)
    if (fileRefusal)
      return replaceChildren(
        formMessage,
        h(
          'div',
          { class: 'alert alert-error', role: 'alert', dataset: { code: fileRefusal.code } },
          h('p', { class: 'alert-title' }, fileRefusal.text),
        ),
      )
    const mapping = currentMapping()
    const missing = FIELDS.filter(([field, , , required]) => required && !mapping[field]).map(([field]) =>
      fieldName(field),
    )
    if (missing.length > 0)
      return replaceChildren(
        formMessage,
        alertBox(
          'error',
          tr(
            `Przypisz kolumny wymaganych pól: ${missing.join(', ')}.`,
            `Assign the columns of the required fields: ${missing.join(', ')}.`,
          ),
        ),
      )
    const absent = headers.length > 0 ? Object.values(mapping).filter((header) => !headers.includes(header)) : []
    if (absent.length > 0)
      return replaceChildren(
        formMessage,
        alertBox(
          'error',
          tr(`W pliku nie ma kolumn: ${absent.join(', ')}.`, `The file has no columns: ${absent.join(', ')}.`),
        ),
      )
    rememberMapping(mapping, headers)

    const body = new FormData()
    body.append('mode', modeSnapshot.checked ? 'snapshot' : 'patch')
    body.append('mapping', JSON.stringify(mapping))
    if (sheet.value.trim()) body.append('sheet', sheet.value.trim())
    body.append('file', file, file.name)

    previewButton.disabled = true
    uploadProgress.hidden = false
    uploadProgress.value = 0
    replaceChildren(
      previewArea,
      alertBox('info', tr('Wysyłanie i sprawdzanie pliku…', 'Uploading and checking the file…')),
    )
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
      enableUnlessRefused(previewButton)
      uploadProgress.hidden = true
    }
  })
}
