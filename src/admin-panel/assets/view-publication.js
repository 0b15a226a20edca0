// Publication: POST {base}/publications/preflight shows what a publication of the day would meet;
// POST {base}/publications runs the same atomic pipeline as the schedule and shows its outcome or
// the 422 issues. The call is synchronous, so the live status is the elapsed time of the request.
// Leaving the view does not abort it: the server would finish the publication anyway.
import {
  badge,
  externalLink,
  facts,
  formatBytes,
  formatDateTime,
  formatNumber,
  h,
  mono,
  replaceChildren,
  todayInWarsaw,
} from './dom.js'
import { TRIGGER_LABELS } from './messages.js'
import { alertBox, card, confirmDialog, errorBox, issuesList, toast } from './ui.js'

const STATUS_TONES = {
  ok: 'ok',
  ready: 'ok',
  failed: 'error',
  invalid: 'error',
  missing_resource: 'warn',
  unreachable: 'warn',
  dataset_not_found: 'warn',
}

const STATUS_LABELS = {
  ready: 'gotowe',
  invalid: 'błędne',
  ok: 'w porządku',
  failed: 'błędy',
  not_published: 'jeszcze nie opublikowano',
  not_checked: 'nie sprawdzano',
  missing_resource: 'brak zasobu dnia',
  unreachable: 'portal nieosiągalny',
  dataset_not_found: 'zbiór nieznany portalowi',
  production: 'produkcyjny',
  continuity: 'tryb ciągłości',
}

const statusBadge = (value) => badge(STATUS_LABELS[value] ?? value, STATUS_TONES[value] ?? 'neutral')
const yesNo = (value) => (value ? badge('tak', 'ok') : badge('nie', 'error'))

function issuesSection(title, issues) {
  if (!Array.isArray(issues) || issues.length === 0) return null
  return h('div', { class: 'issues-block' }, h('h3', {}, `${title} (${issues.length})`), issuesList(issues))
}

function preflightReport(report) {
  return h(
    'div',
    { id: 'preflight-report', class: 'stack' },
    report.valid
      ? alertBox('success', `Plik za ${report.date} przejdzie walidację.`)
      : alertBox(
          'error',
          `Publikacja za ${report.date} zostałaby odrzucona.`,
          h('p', {}, 'Popraw problemy wymienione niżej.'),
        ),
    facts([
      ['Dzień', report.date],
      ['Wiersze pliku', formatNumber(report.record_count)],
      ['Tryb', statusBadge(report.mode)],
      ['Publikacja produkcyjna możliwa', yesNo(report.production_allowed)],
      ['Pliki dnia', statusBadge(report.artifact_status)],
      [
        'Udostępnianie plików',
        h(
          'span',
          {},
          statusBadge(report.delivery_status),
          report.delivery_checked_at ? ` (${formatDateTime(report.delivery_checked_at)})` : '',
        ),
      ],
      ['Portal dane.gov.pl', statusBadge(report.portal_status)],
      ['Standard danych', `${report.contract?.id ?? '—'} (ważny do ${report.contract?.valid_until ?? '—'})`],
    ]),
    issuesSection('Problemy blokujące', report.issues),
    issuesSection('Problemy z udostępnianiem', report.delivery_issues),
    issuesSection('Ostrzeżenia', report.warnings),
    report.portal
      ? h(
          'div',
          { class: 'issues-block' },
          h('h3', {}, 'Odpowiedź portalu'),
          facts([
            [
              'Zbiór',
              report.portal.dataset ? `${report.portal.dataset.title} (${report.portal.dataset.id})` : 'nie znaleziono',
            ],
            ['Zasób dnia', report.portal.resource ? report.portal.resource.title : 'brak'],
            ['Zasobów w zbiorze', formatNumber(report.portal.resources_seen)],
            ['Ostatni dzień danych', report.portal.latest_data_date ?? '—'],
            ['Sprawdzono', formatDateTime(report.portal.checked_at)],
            report.portal.error ? ['Błąd', report.portal.error] : null,
          ]),
        )
      : null,
  )
}

function publicationOutcome(outcome) {
  return h(
    'div',
    { id: 'publication-result', class: 'stack' },
    alertBox('success', `Opublikowano plik za ${outcome.date}.`),
    facts([
      ['Wiersze', formatNumber(outcome.record_count)],
      ['Plik CSV', outcome.csv ? externalLink(outcome.csv.url, outcome.csv.file_name) : '—'],
      ['MD5 pliku CSV', mono(outcome.csv?.md5)],
      ['Rozmiar CSV', formatBytes(outcome.csv?.bytes)],
      ['XML (harvester)', outcome.xml ? externalLink(outcome.xml.url) : '—'],
      ['Plik MD5', outcome.xml ? externalLink(outcome.xml.md5_url) : '—'],
      ['MD5 pliku XML', mono(outcome.xml?.md5)],
      ['Dni w pliku XML', formatNumber(outcome.xml?.resources)],
      ['Opublikowano', formatDateTime(outcome.published_at)],
      ['Wyzwalacz', TRIGGER_LABELS[outcome.trigger] ?? outcome.trigger],
      ['Wersja', mono(outcome.version)],
    ]),
  )
}

export async function renderPublication(root, { api, signal }) {
  const date = h('input', { id: 'publication-date', type: 'date', value: todayInWarsaw(), required: true })
  const verifyPortal = h('input', { id: 'verify-portal', type: 'checkbox' })
  const preflightButton = h('button', { class: 'button', type: 'button', id: 'run-preflight' }, 'Sprawdź (preflight)')
  const publishButton = h(
    'button',
    { class: 'button button-primary', type: 'button', id: 'run-publication' },
    'Publikuj',
  )
  const result = h('div', { class: 'result', 'aria-live': 'polite' })

  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, 'Publikacja na dane.gov.pl')),
    card(
      null,
      h(
        'p',
        { class: 'lead' },
        'Publikacja buduje z katalogu dzienny plik CSV (58 kolumn) i plik XML dla portalu, sprawdza je i dopiero wtedy podmienia udostępnianą wersję. ',
        'Błąd niczego nie zmienia: portal dalej pobiera poprzednią wersję.',
      ),
      h(
        'div',
        { class: 'form-row' },
        h('div', { class: 'field' }, h('label', { for: 'publication-date' }, 'Dzień danych'), date),
        h(
          'label',
          { class: 'checkbox', for: 'verify-portal' },
          verifyPortal,
          ' sprawdź także portal dane.gov.pl (wolniej)',
        ),
      ),
      h('div', { class: 'actions' }, preflightButton, publishButton),
    ),
    result,
  )

  const busy = (on) => {
    preflightButton.disabled = on
    publishButton.disabled = on
  }

  /** Shows an indeterminate progress bar with the elapsed seconds while `work` runs. */
  async function withProgress(label, work) {
    const seconds = h('span', {}, '0 s')
    const started = Date.now()
    replaceChildren(
      result,
      h(
        'div',
        { class: 'progress-panel', id: 'operation-progress' },
        h('p', {}, label, ' ', seconds),
        h('progress', { 'aria-label': label }),
      ),
    )
    const timer = setInterval(() => {
      seconds.textContent = `${Math.round((Date.now() - started) / 1000)} s`
    }, 500)
    busy(true)
    try {
      return await work()
    } finally {
      clearInterval(timer)
      busy(false)
    }
  }

  const validDate = () => {
    if (/^\d{4}-\d{2}-\d{2}$/.test(date.value)) return true
    replaceChildren(result, alertBox('error', 'Podaj dzień danych (RRRR-MM-DD).'))
    date.focus()
    return false
  }

  preflightButton.addEventListener('click', async () => {
    if (!validDate()) return
    try {
      const { body } = await withProgress('Sprawdzanie…', () =>
        api.post('/publications/preflight', { json: { date: date.value, verify_portal: verifyPortal.checked } }),
      )
      replaceChildren(result, card('Wynik kontroli', preflightReport(body)))
    } catch (error) {
      if (signal.aborted) return
      // 422 preflight_failed carries the whole report
      if (error.code === 'preflight_failed' && error.body?.date)
        replaceChildren(result, card('Wynik kontroli', preflightReport(error.body)))
      else replaceChildren(result, errorBox(error))
    }
  })

  publishButton.addEventListener('click', async () => {
    if (!validDate()) return
    const day = date.value
    const confirmed = await confirmDialog({
      title: `Opublikować plik za ${day}?`,
      body: [
        'Plik dnia zostanie zbudowany z bieżącego katalogu, sprawdzony i udostępniony portalowi dane.gov.pl.',
        'Ponowna publikacja tego samego dnia zastępuje plik tego dnia; pliki innych dni zostają.',
      ],
      okLabel: 'Publikuj',
    })
    if (!confirmed) return
    try {
      const { body } = await withProgress(`Publikacja za ${day} w toku…`, () =>
        api.post('/publications', { json: { date: day } }),
      )
      replaceChildren(result, card('Wynik publikacji', publicationOutcome(body)))
      toast(`Opublikowano plik za ${day}.`)
    } catch (error) {
      if (signal.aborted) return
      replaceChildren(
        result,
        h(
          'div',
          { id: 'publication-error', class: 'stack' },
          errorBox(error, error.body?.issues ? issuesList(error.body.issues) : null),
        ),
      )
    }
  })
}
