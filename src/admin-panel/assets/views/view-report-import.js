// Import raportu (docs/decisions/report-import-and-legacy.md): the developer's own 58-column report (CSV or XLSX) becomes the
// published file of a day. 1. POST {base}/imports/report multipart → preview (rows, warnings,
// errors; nothing published); 2. POST {base}/imports/report form-encoded (job_id, confirm=true,
// date) publishes exactly that file through the publication pipeline; the result is in the history.
import {
  externalLink,
  facts,
  formatBytes,
  formatDate,
  formatNumber,
  formatWhen,
  h,
  mono,
  replaceChildren,
  todayInWarsaw,
} from '../dom.js'
import { enableUnlessRefused, gateAction, licensedFunctions } from '../operator/licence-gate.js'
import { plural } from '../operator/plural.js'
import { tr } from '../i18n.js'
import { dateInput, isoDate } from '../fields/date-input.js'
import { alertBox, card, errorBox, filePicker, formField, issueText, technicalDetails, toast, withBusy } from '../ui.js'

const ERRORS_SHOWN = 200

function warningsList(warnings) {
  if (!Array.isArray(warnings) || warnings.length === 0) return null
  return h(
    'ul',
    { class: 'issues issues-warnings', id: 'report-warnings' },
    warnings.map((warning) =>
      h(
        'li',
        { dataset: { code: warning.code } },
        h('span', { class: 'issue-text' }, issueText(warning)),
        h('code', { class: 'issue-code' }, warning.code),
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
      { class: 'table', id: 'report-errors' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { class: 'number' }, tr('Wiersz', 'Row')),
          h('th', { class: 'number' }, tr('Kolumna', 'Column')),
          h('th', {}, tr('Co poprawić', 'What to correct')),
        ),
      ),
      h(
        'tbody',
        {},
        shown.map((e) =>
          h(
            'tr',
            { dataset: { code: e.code } },
            h('td', { class: 'number' }, e.row ? String(e.row) : tr('plik', 'file')),
            h('td', { class: 'number' }, e.column ? String(e.column) : '—'),
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

function resultView(result, replayed) {
  return h(
    'div',
    { class: 'stack', id: 'report-result' },
    alertBox(
      'success',
      replayed
        ? tr(
            `Ten raport był już opublikowany za ${formatDate(result.date)} — pokazano zapisany wynik.`,
            `This report was already published for ${formatDate(result.date)} — the stored outcome is shown.`,
          )
        : tr(
            `Opublikowano raport jako plik za ${formatDate(result.date)}.`,
            `The report is published as the file of ${formatDate(result.date)}.`,
          ),
    ),
    facts([
      [tr('Wiersze', 'Rows'), formatNumber(result.record_count)],
      [tr('Plik dnia', 'The day’s file'), result.csv ? externalLink(result.csv.url, result.csv.file_name) : '—'],
      [tr('Opublikowano', 'Published at'), formatWhen(result.published_at)],
    ]),
    technicalDetails(
      facts([
        [tr('Suma kontrolna CSV (MD5)', 'CSV checksum (MD5)'), mono(result.csv?.md5)],
        [tr('Suma kontrolna XML (MD5)', 'XML checksum (MD5)'), mono(result.xml?.md5)],
      ]),
    ),
    h(
      'p',
      {},
      h(
        'a',
        { href: '#/historia', id: 'report-history-link' },
        tr('Zobacz w historii publikacji →', 'See it in the publication history →'),
      ),
    ),
  )
}

export async function renderReportImport(root, { api }) {
  const fileInput = h('input', { id: 'report-file', type: 'file', accept: '.csv,.xlsx,text/csv' })
  const fileInfo = h('p', { class: 'muted' })
  const licence = await licensedFunctions(api)
  const previewButton = h(
    'button',
    { class: 'button button-primary', type: 'submit', id: 'report-preview' },
    tr('Sprawdź raport', 'Check the report'),
  )
  const licenceReason = gateAction(previewButton, 'report_import', licence)

  const progress = h('progress', { max: 100, value: 0, hidden: true })
  const previewArea = h('div', { class: 'stack', 'aria-live': 'polite' })
  const confirmArea = h('div', { class: 'stack' })

  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0]
    replaceChildren(fileInfo, file ? `${file.name}, ${formatBytes(file.size)}` : '')
  })

  function showPreview(id, preview) {
    replaceChildren(confirmArea)
    const summary = facts([
      [tr('Wiersze danych', 'Data rows'), h('strong', { id: 'report-rows' }, formatNumber(preview.row_count))],
      [tr('Format pliku', 'File format'), preview.format === 'xlsx' ? 'Excel (XLSX)' : 'CSV'],
      preview.sheet ? [tr('Arkusz', 'Sheet'), preview.sheet] : null,
      [tr('Ostrzeżenia', 'Warnings'), formatNumber(preview.warnings?.length ?? 0)],
      [tr('Błędy', 'Errors'), formatNumber(preview.errors_total ?? 0)],
    ])
    const parts = [
      preview.valid
        ? alertBox(
            'success',
            tr(
              'Raport jest poprawny. Nic jeszcze nie opublikowano — potwierdź niżej.',
              'The report is valid. Nothing is published yet — confirm below.',
            ),
          )
        : alertBox(
            'error',
            tr(
              'Raport ma błędy i nie może zostać opublikowany. Popraw plik i wczytaj go ponownie.',
              'The report has errors and cannot be published. Correct the file and load it again.',
            ),
          ),
      summary,
      warningsList(preview.warnings),
      errorsTable(preview.errors, preview.errors_total),
      technicalDetails(facts([[tr('Zadanie', 'Job'), mono(id)]])),
    ]
    replaceChildren(
      previewArea,
      card(
        tr('2. Wynik sprawdzenia', '2. Check result'),
        h('div', { class: 'stack', id: 'report-preview-result', dataset: { valid: String(preview.valid) } }, parts),
      ),
    )
    if (!preview.valid) return

    const date = dateInput({ id: 'report-date', value: todayInWarsaw(), max: todayInWarsaw(), required: true })
    const confirm = h('input', { type: 'checkbox', id: 'report-confirm' })
    const publish = h(
      'button',
      { type: 'button', class: 'button button-primary', id: 'report-publish' },
      tr('Opublikuj raport', 'Publish the report'),
    )
    const message = h('div', { 'aria-live': 'polite' })
    publish.addEventListener('click', async () => {
      replaceChildren(message)
      if (!isoDate(date) || !date.checkValidity()) {
        replaceChildren(
          message,
          alertBox('error', date.validationMessage || tr('Podaj dzień danych.', 'Give the data day.')),
        )
        date.focus()
        return
      }
      if (!confirm.checked) {
        replaceChildren(message, alertBox('error', tr('Zaznacz potwierdzenie.', 'Tick the confirmation.')))
        confirm.focus()
        return
      }
      try {
        const form = new URLSearchParams({ job_id: id, confirm: 'true', date: /** @type {string} */ (isoDate(date)) })
        const { body } = await withBusy(publish, tr('Publikowanie…', 'Publishing…'), () =>
          api.post('/imports/report', { form }),
        )
        replaceChildren(
          confirmArea,
          card(tr('3. Publikacja', '3. Publication'), resultView(body.result, body.replayed)),
        )
        toast(tr('Opublikowano raport.', 'The report is published.'))
      } catch (error) {
        replaceChildren(
          message,
          errorBox(
            error,
            error.body?.issues
              ? h(
                  'ul',
                  { class: 'issues' },
                  error.body.issues.map((i) =>
                    h(
                      'li',
                      { dataset: { code: i.code } },
                      h('span', { class: 'issue-text' }, issueText(i)),
                      h('code', { class: 'issue-code' }, i.code),
                    ),
                  ),
                )
              : null,
          ),
        )
      }
    })
    replaceChildren(
      confirmArea,
      card(
        tr('3. Publikacja raportu', '3. Publishing the report'),
        h(
          'p',
          {},
          tr(
            'Raport zostanie opublikowany jako plik wybranego dnia, bez zmian w ofertach i na stronie WWW. Dzień musi być dzisiejszy albo miniony dzień, za który nic nie opublikowano, i nie wcześniejszy niż najpóźniejsza data „od której obowiązuje” w raporcie.',
            'The report is published as the file of the chosen day, changing no offer and nothing on the website. The day must be today, or a past day nothing was published for, and not before the report’s latest “valid from” date.',
          ),
        ),
        h(
          'div',
          { class: 'form-row' },
          formField({ label: tr('Dzień danych', 'Data day'), input: date, names: 'date' }),
        ),
        formField({
          label: tr(
            ` Potwierdzam publikację ${plural(preview.row_count, ['wiersza', 'wierszy', 'wierszy'], 'pl')} tego raportu na portalu dane.gov.pl`,
            ` I confirm publishing the ${plural(preview.row_count, ['row', 'rows'], 'en')} of this report on the portal dane.gov.pl`,
          ),
          input: confirm,
          names: 'confirm',
        }),
        message,
        h('div', { class: 'actions' }, publish),
      ),
    )
  }

  const form = h(
    'form',
    { id: 'report-form', novalidate: true },
    h(
      'p',
      { class: 'lead' },
      tr(
        'Raport to plik w urzędowym układzie 58 kolumn (tak jak eksportuje go arkusz lub system sprzedaży). Sprawdzenie niczego nie publikuje: pokazuje liczbę wierszy, ostrzeżenia i błędy.',
        'A report is a file in the official 58-column layout (as a spreadsheet or a sales system exports it). The check publishes nothing: it shows the rows, warnings and errors.',
      ),
    ),
    h(
      'div',
      { class: 'field', dataset: { field: 'file' } },
      h('label', { for: 'report-file' }, tr('Plik raportu (CSV lub XLSX)', 'Report file (CSV or XLSX)')),
      filePicker(fileInput),
      fileInfo,
      h('p', { class: 'field-error', id: 'report-file-error', hidden: true }),
    ),
    h('div', { class: 'actions' }, previewButton, progress),
    licenceReason,
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const file = fileInput.files?.[0]
    if (!file) {
      replaceChildren(previewArea, alertBox('error', tr('Wybierz plik raportu.', 'Choose the report file.')))
      return
    }
    const body = new FormData()
    body.append('file', file, file.name)
    previewButton.disabled = true
    progress.hidden = false
    replaceChildren(confirmArea)
    replaceChildren(
      previewArea,
      alertBox('info', tr('Wysyłanie i sprawdzanie raportu…', 'Uploading and checking the report…')),
    )
    try {
      const { body: outcome } = await api.upload('/imports/report', body, (sent, total) => {
        progress.value = Math.round((sent / total) * 100)
      })
      showPreview(outcome.id, outcome.preview)
    } catch (error) {
      if (error.code === 'import_invalid' && error.body?.preview) showPreview(error.body.id, error.body.preview)
      else replaceChildren(previewArea, errorBox(error))
    } finally {
      enableUnlessRefused(previewButton)
      progress.hidden = true
    }
  })

  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Import raportu urzędowego', 'Official report import'))),
    card(tr('1. Plik raportu', '1. Report file'), form),
    previewArea,
    confirmArea,
  )
}
