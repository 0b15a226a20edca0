// Publication: POST {base}/publications/preflight shows what a publication of the day would meet;
// POST {base}/publications runs the same atomic pipeline as the schedule and shows its outcome or
// the 422 issues. The call is synchronous, so the live status is the elapsed time of the request.
// Leaving the view does not abort it: the server would finish the publication anyway.
import {
  badge,
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
import { tr } from '../i18n.js'
import { triggerLabel } from '../messages.js'
import { dateInput, isoDate } from '../fields/date-input.js'
import { enableUnlessRefused, gateAction, licensedFunctions } from '../operator/licence-gate.js'
import { alertBox, card, confirmDialog, errorBox, issuesList, technicalDetails, toast } from '../ui.js'

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
  ready: ['gotowe', 'ready'],
  invalid: ['błędne', 'invalid'],
  ok: ['w porządku', 'all right'],
  failed: ['błędy', 'problems'],
  not_published: ['jeszcze nie opublikowano', 'not published yet'],
  not_checked: ['nie sprawdzano', 'not checked'],
  missing_resource: ['portal nie ma jeszcze pliku tego dnia', 'the portal does not list the day’s file yet'],
  unreachable: ['portal nieosiągalny', 'portal unreachable'],
  dataset_not_found: ['portal nie zna jeszcze zbioru', 'the portal does not know the dataset yet'],
  production: ['pełny', 'full'],
  continuity: ['tryb ciągłości', 'continuity mode'],
}

const statusBadge = (value) => {
  const pair = STATUS_LABELS[value]
  const element = badge(pair ? tr(pair[0], pair[1]) : value, STATUS_TONES[value] ?? 'neutral')
  element.dataset.status = value
  return element
}
const yesNo = (value) => (value ? badge(tr('tak', 'yes'), 'ok') : badge(tr('nie', 'no'), 'error'))

function issuesSection(title, issues, className) {
  if (!Array.isArray(issues) || issues.length === 0) return null
  return h('div', { class: 'issues-block' }, h('h3', {}, `${title} (${issues.length})`), issuesList(issues, className))
}

/**
 * What the delivery check (the served files, fetched as the portal would) and the portal check
 * (dane.gov.pl's public API) found; shared with the publication history's on-demand check.
 */
export function deliveryReport(report) {
  return h(
    'div',
    { class: 'stack', id: 'delivery-report' },
    facts([
      [
        tr('Udostępnianie plików', 'Files served'),
        h(
          'span',
          {},
          statusBadge(report.delivery_status),
          report.delivery_checked_at ? ` (${formatWhen(report.delivery_checked_at)})` : '',
        ),
      ],
      [tr('Portal dane.gov.pl', 'Portal dane.gov.pl'), statusBadge(report.portal_status)],
    ]),
    issuesSection(tr('Problemy z udostępnianiem', 'Problems serving the files'), report.delivery_issues),
    report.portal
      ? h(
          'div',
          { class: 'issues-block' },
          h('h3', {}, tr('Co widzi portal', 'What the portal shows')),
          facts([
            [
              tr('Zbiór', 'Dataset'),
              report.portal.dataset
                ? report.portal.dataset.title
                : report.portal_status === 'unreachable'
                  ? tr('nie sprawdzono (portal nie odpowiada)', 'not checked (the portal does not answer)')
                  : tr('nie znaleziono', 'not found'),
            ],
            [
              tr('Plik dnia', 'The day’s file'),
              report.portal.resource ? report.portal.resource.title : tr('brak', 'none'),
            ],
            [tr('Plików w zbiorze', 'Files in the dataset'), formatNumber(report.portal.resources_seen)],
            [
              tr('Ostatni dzień danych', 'Latest data day'),
              report.portal.latest_data_date ? formatDate(report.portal.latest_data_date) : '—',
            ],
            [tr('Sprawdzono', 'Checked'), formatWhen(report.portal.checked_at)],
            report.portal.error
              ? [
                  tr('Błąd', 'Error'),
                  h(
                    'span',
                    { id: 'portal-error', dataset: { code: report.portal.error_code ?? '' } },
                    report.portal.error_pl ? tr(report.portal.error_pl, report.portal.error_en) : report.portal.error,
                    report.portal.error_pl ? technicalDetails(h('p', {}, report.portal.error)) : '',
                  ),
                ]
              : null,
          ]),
          h(
            'p',
            { class: 'hint' },
            tr(
              'Portal pobiera pliki raz na dobę, a jego wyszukiwarka bywa opóźniona o kilka godzin: to ostrzeżenie, nie błąd.',
              'The portal fetches the files once a day and its index can lag by hours: a warning, not an error.',
            ),
          ),
        )
      : null,
  )
}

function preflightReport(report) {
  return h(
    'div',
    { id: 'preflight-report', class: 'stack' },
    report.valid
      ? alertBox(
          'success',
          tr(
            `Plik za ${formatDate(report.date)} przejdzie kontrolę.`,
            `The file of ${formatDate(report.date)} passes the check.`,
          ),
        )
      : alertBox(
          'error',
          tr(
            `Publikacja za ${formatDate(report.date)} zostałaby odrzucona.`,
            `A publication of ${formatDate(report.date)} would be refused.`,
          ),
          h('p', {}, tr('Popraw problemy wymienione niżej.', 'Correct the problems listed below.')),
        ),
    facts([
      [tr('Dzień danych', 'Data day'), formatDate(report.date)],
      [tr('Wiersze pliku', 'Rows of the file'), formatNumber(report.record_count)],
      [tr('Tryb', 'Mode'), statusBadge(report.mode)],
      [
        tr('Można publikować dla portalu', 'Can be published for the portal'),
        h(
          'span',
          {},
          yesNo(report.production_allowed),
          report.production_allowed
            ? ''
            : tr(
                ' (potrzebne: brak błędów, aktywna licencja i adres https)',
                ' (needs: no errors, an active licence and an https address)',
              ),
        ),
      ],
      [tr('Pliki dnia', 'The day’s files'), statusBadge(report.artifact_status)],
      [
        tr('Standard danych ministerstwa', 'Ministry’s data standard'),
        tr(
          `ważny do ${formatDate(report.contract?.valid_until)}`,
          `valid until ${formatDate(report.contract?.valid_until)}`,
        ),
      ],
    ]),
    issuesSection(tr('Problemy blokujące publikację', 'Problems that stop the publication'), report.issues),
    issuesSection(
      tr('Ostrzeżenia (nie blokują)', 'Warnings (not blocking)'),
      report.warnings,
      'issues issues-warnings',
    ),
    deliveryReport(report),
    technicalDetails(facts([[tr('Standard (identyfikator)', 'Standard (id)'), mono(report.contract?.id)]])),
  )
}

function publicationOutcome(outcome) {
  return h(
    'div',
    { id: 'publication-result', class: 'stack' },
    alertBox(
      'success',
      tr(`Opublikowano plik za ${formatDate(outcome.date)}.`, `The file of ${formatDate(outcome.date)} is published.`),
    ),
    facts([
      [tr('Wiersze', 'Rows'), formatNumber(outcome.record_count)],
      [
        tr('Plik CSV dnia', 'The day’s CSV file'),
        outcome.csv ? externalLink(outcome.csv.url, outcome.csv.file_name) : '—',
      ],
      [tr('Rozmiar', 'Size'), formatBytes(outcome.csv?.bytes)],
      [tr('Plik XML dla portalu', 'XML file for the portal'), outcome.xml ? externalLink(outcome.xml.url) : '—'],
      [
        tr('Suma kontrolna XML (plik .md5)', 'XML checksum (.md5 file)'),
        outcome.xml ? externalLink(outcome.xml.md5_url) : '—',
      ],
      [tr('Pliki CSV w pliku XML (zasoby)', 'CSV files in the XML (resources)'), formatNumber(outcome.xml?.resources)],
      [tr('Opublikowano', 'Published at'), formatWhen(outcome.published_at, { seconds: true })],
      [tr('Sposób', 'How'), triggerLabel(outcome.trigger)],
    ]),
    issuesSection(tr('Ostrzeżenia', 'Warnings'), outcome.warnings, 'issues issues-warnings'),
    technicalDetails(
      facts([
        [tr('Suma MD5 pliku CSV', 'MD5 of the CSV'), mono(outcome.csv?.md5)],
        [tr('Suma MD5 pliku XML', 'MD5 of the XML'), mono(outcome.xml?.md5)],
        [tr('Wersja plików', 'Files version'), mono(outcome.version)],
      ]),
      h(
        'p',
        { class: 'hint' },
        tr(
          'MD5 to suma kontrolna: portal porównuje ją z pobranym plikiem, żeby wykryć uszkodzenie.',
          'MD5 is a checksum: the portal compares it with the file it fetched to detect damage.',
        ),
      ),
    ),
  )
}

export async function renderPublication(root, { signal, api }) {
  const date = dateInput({ id: 'publication-date', value: todayInWarsaw(), required: true })
  const verifyPortal = h('input', { id: 'verify-portal', type: 'checkbox' })
  const preflightButton = h(
    'button',
    { class: 'button', type: 'button', id: 'run-preflight' },
    tr('Sprawdź przed publikacją', 'Check before publishing'),
  )
  const publishButton = h(
    'button',
    { class: 'button button-primary', type: 'button', id: 'run-publication' },
    tr('Publikuj', 'Publish'),
  )
  const result = h('div', { class: 'result', 'aria-live': 'polite' })
  // the licence's refusals are said beside the buttons, before the operator presses one
  const licence = await licensedFunctions(api)
  const reasons = [gateAction(preflightButton, 'preflight', licence), gateAction(publishButton, 'publication', licence)]

  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Publikacja na dane.gov.pl', 'Publication on dane.gov.pl'))),
    card(
      null,
      h(
        'p',
        { class: 'lead' },
        tr(
          'Publikacja buduje z katalogu dzienny plik CSV (58 kolumn) i plik XML dla portalu, sprawdza je i dopiero wtedy podmienia udostępnianą wersję. Błąd niczego nie zmienia: portal dalej pobiera poprzednią wersję.',
          'The publication builds the daily CSV (58 columns) and the XML for the portal from the catalog, checks them, and only then replaces the served version. A failure changes nothing: the portal keeps fetching the previous version.',
        ),
      ),
      h(
        'div',
        { class: 'form-row' },
        h('div', { class: 'field' }, h('label', { for: 'publication-date' }, tr('Dzień danych', 'Data day')), date),
        h(
          'label',
          { class: 'checkbox', for: 'verify-portal' },
          verifyPortal,
          tr(' sprawdź także portal dane.gov.pl (wolniej)', ' also check the portal dane.gov.pl (slower)'),
        ),
      ),
      h('div', { class: 'actions' }, preflightButton, publishButton),
      reasons,
    ),
    result,
  )

  const busy = (on) => {
    enableUnlessRefused(preflightButton, !on)
    enableUnlessRefused(publishButton, !on)
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
    if (isoDate(date)) return true
    replaceChildren(
      result,
      alertBox('error', tr('Podaj dzień danych jako dd.mm.rrrr.', 'Give the data day as dd.mm.yyyy.')),
    )
    date.focus()
    return false
  }

  preflightButton.addEventListener('click', async () => {
    if (!validDate()) return
    try {
      const { body } = await withProgress(tr('Sprawdzanie…', 'Checking…'), () =>
        api.post('/publications/preflight', { json: { date: isoDate(date), verify_portal: verifyPortal.checked } }),
      )
      replaceChildren(result, card(tr('Wynik kontroli', 'Check result'), preflightReport(body)))
    } catch (error) {
      if (signal.aborted) return
      // 422 preflight_failed carries the whole report
      if (error.code === 'preflight_failed' && error.body?.date)
        replaceChildren(result, card(tr('Wynik kontroli', 'Check result'), preflightReport(error.body)))
      else replaceChildren(result, errorBox(error))
    }
  })

  publishButton.addEventListener('click', async () => {
    if (!validDate()) return
    const day = isoDate(date)
    const confirmed = await confirmDialog({
      title: tr(`Opublikować plik za ${formatDate(day)}?`, `Publish the file of ${formatDate(day)}?`),
      body: [
        tr(
          'Plik dnia zostanie zbudowany z bieżącego katalogu, sprawdzony i udostępniony portalowi dane.gov.pl.',
          'The day’s file is built from the current catalog, checked and served to the portal dane.gov.pl.',
        ),
        tr(
          'Ponowna publikacja tego samego dnia po zmianie cen dodaje nowy plik tego dnia; wcześniejsze pliki zostają.',
          'Publishing the same day again after a price change adds a new file of the day; earlier files stay.',
        ),
      ],
      okLabel: tr('Publikuj', 'Publish'),
    })
    if (!confirmed) return
    try {
      const { body } = await withProgress(
        tr(`Publikacja za ${formatDate(day)} w toku…`, `Publishing ${formatDate(day)}…`),
        () => api.post('/publications', { json: { date: day } }),
      )
      replaceChildren(result, card(tr('Wynik publikacji', 'Publication result'), publicationOutcome(body)))
      toast(tr(`Opublikowano plik za ${formatDate(day)}.`, `Published the file of ${formatDate(day)}.`))
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
