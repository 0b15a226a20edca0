// Historia publikacji (publication history): GET {base}/publications, every attempt newest first with
// its files and checksums, a failure with what to correct; and, on demand, the delivery and portal
// checks of the preflight (POST {base}/publications/preflight with verify_portal).
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
} from '../dom.js'
import { tr } from '../i18n.js'
import { actorLabel, runByLabel, triggerLabel } from '../messages.js'
import { dateInput, isoDate } from '../fields/date-input.js'
import { card, errorBox, formField, issuesList, pagedTable, technicalDetails, withBusy } from '../ui.js'
import { deliveryReport } from './view-publication.js'

const TRIGGER_CODES = ['schedule', 'api', 'report_import', 'legacy_generate', 'cli']

function statusBadge(status) {
  const element =
    status === 'published' ? badge(tr('opublikowano', 'published'), 'ok') : badge(tr('błąd', 'failed'), 'error')
  element.dataset.status = status
  return element
}

function filesCell(p) {
  if (!p.csv) return '—'
  return h(
    'div',
    { class: 'files' },
    externalLink(p.csv.served_path, tr('plik CSV dnia', 'the day’s CSV')),
    p.xml ? [' · ', externalLink(p.xml.served_path, 'XML')] : null,
  )
}

/** Everything recorded of one attempt: what to correct, warnings, files and their checksums. */
function publicationDetails(p) {
  const gaps = Object.entries(p.gaps ?? {}).filter(([, n]) => n > 0)
  return h(
    'div',
    { class: 'stack', id: 'publication-details', dataset: { id: String(p.id), status: p.status } },
    facts([
      [tr('Dzień danych', 'Data day'), formatDate(p.date)],
      [tr('Wynik', 'Outcome'), statusBadge(p.status)],
      [
        tr('Początek — koniec', 'Start — end'),
        `${formatWhen(p.started_at, { seconds: true })} — ${formatWhen(p.finished_at, { seconds: true })}`,
      ],
      [tr('Sposób / kto', 'How / who'), runByLabel(p.actor, p.trigger)],
      [tr('Wiersze', 'Rows'), p.record_count === null ? '—' : formatNumber(p.record_count)],
    ]),
    p.issues.length > 0 ? [h('h3', {}, tr('Co poprawić', 'What to correct')), issuesList(p.issues)] : null,
    p.warnings.length > 0
      ? [h('h3', {}, tr('Ostrzeżenia', 'Warnings')), issuesList(p.warnings, 'issues issues-warnings')]
      : null,
    p.csv
      ? [
          h('h3', {}, tr('Pliki', 'Files')),
          facts([
            [tr('Plik CSV dnia', 'The day’s CSV file'), externalLink(p.csv.served_path, p.csv.file_name)],
            [tr('Adres dla portalu', 'Address for the portal'), h('span', { class: 'wrap' }, p.csv.url)],
            [tr('Suma kontrolna CSV (MD5)', 'CSV checksum (MD5)'), mono(p.csv.md5)],
            [tr('Rozmiar', 'Size'), formatBytes(p.csv.bytes)],
            p.xml ? [tr('Suma kontrolna XML (MD5)', 'XML checksum (MD5)'), mono(p.xml.md5)] : null,
            p.xml
              ? [
                  tr('Pliki CSV w pliku XML (zasoby)', 'CSV files in the XML (resources)'),
                  formatNumber(p.xml.resources),
                ]
              : null,
            p.offers_without_type
              ? [
                  tr('Pominięte oferty bez rodzaju', 'Offers left out without a type'),
                  formatNumber(p.offers_without_type),
                ]
              : null,
            gaps.length > 0
              ? [
                  tr('Niepełne dane w pliku', 'Incomplete data in the file'),
                  gaps.map(([k, n]) => `${gapLabel(k)}: ${n}`).join(', '),
                ]
              : null,
          ]),
          h(
            'p',
            { class: 'hint' },
            tr(
              'MD5 to suma kontrolna pliku: portal porównuje ją z pobranym plikiem, żeby wykryć uszkodzenie.',
              'MD5 is the file’s checksum: the portal compares it with the file it fetched to detect damage.',
            ),
          ),
        ]
      : null,
    technicalDetails(
      facts([
        [tr('Numer próby', 'Attempt number'), mono(String(p.id))],
        [tr('Wersja plików', 'Files version'), mono(p.version)],
      ]),
    ),
  )
}

const GAPS = {
  offers_without_price: ['oferty bez ceny', 'offers without a price'],
  combined_price_missing: ['brak ceny łącznej (kol. 42)', 'no combined price (col. 42)'],
  investments_without_location: ['inwestycje bez lokalizacji', 'investments without a location'],
  investments_without_prospectus: ['inwestycje bez prospektu', 'investments without a prospectus'],
}
const gapLabel = (code) => (GAPS[code] ? tr(...GAPS[code]) : code)

export async function renderHistory(root, { api }) {
  const status = h(
    'select',
    { id: 'history-status' },
    h('option', { value: '' }, tr('wszystkie', 'all')),
    h('option', { value: 'published' }, tr('opublikowane', 'published')),
    h('option', { value: 'failed' }, tr('nieudane', 'failed')),
  )
  const trigger = h(
    'select',
    { id: 'history-trigger' },
    h('option', { value: '' }, tr('każdy', 'any')),
    TRIGGER_CODES.map((code) => h('option', { value: code }, triggerLabel(code))),
  )
  const from = dateInput({ id: 'history-from' })
  const to = dateInput({ id: 'history-to' })
  const filters = h(
    'form',
    { class: 'filters', id: 'history-filters' },
    formField({ label: tr('Wynik', 'Outcome'), input: status, names: 'status' }),
    formField({ label: tr('Sposób', 'How'), input: trigger, names: 'trigger' }),
    formField({ label: tr('Dzień danych od', 'Data day from'), input: from, names: 'from' }),
    formField({ label: tr('do', 'to'), input: to, names: 'to' }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button' }, tr('Pokaż', 'Show'))),
  )

  const table = pagedTable({
    id: 'history-table',
    state: { perPage: 20 },
    perPageOptions: [20, 50, 100],
    empty: tr('Brak publikacji dla tych warunków.', 'No publication matches.'),
    rowAttributes: (p) => ({ dataset: { status: p.status, date: p.date } }),
    columns: [
      { label: tr('Dzień danych', 'Data day'), render: (p) => h('strong', {}, formatDate(p.date)) },
      { label: tr('Kiedy', 'When'), render: (p) => formatWhen(p.finished_at ?? p.started_at) },
      { label: tr('Wynik', 'Outcome'), render: (p) => statusBadge(p.status) },
      {
        label: tr('Wiersze', 'Rows'),
        className: 'number',
        render: (p) => (p.record_count === null ? '—' : formatNumber(p.record_count)),
      },
      {
        label: tr('Sposób / kto', 'How / who'),
        render: (p) =>
          actorLabel(p.actor) === triggerLabel(p.trigger)
            ? triggerLabel(p.trigger)
            : [triggerLabel(p.trigger), h('br'), h('span', { class: 'muted' }, actorLabel(p.actor))],
      },
      { label: tr('Pliki', 'Files'), render: filesCell },
      {
        label: '',
        className: 'details-cell',
        render: (p) =>
          h(
            'button',
            {
              type: 'button',
              class: 'button button-small',
              dataset: { publication: String(p.id) },
              onclick: () => showDetails(p),
            },
            p.status === 'failed' ? tr('Co poprawić', 'What to correct') : tr('Szczegóły', 'Details'),
          ),
      },
    ],
    load: async (state) => {
      const params = new URLSearchParams({ page: String(state.page), per_page: String(state.perPage) })
      if (status.value) params.set('status', status.value)
      if (trigger.value) params.set('trigger', trigger.value)
      const fromDay = isoDate(from)
      const toDay = isoDate(to)
      if (fromDay) params.set('from', fromDay)
      if (toDay) params.set('to', toDay)
      const { body } = await api.get(`/publications?${params}`)
      return { items: body.items, total: body.total, totalPages: body.total_pages }
    },
  })
  const detailsArea = h('div', { 'aria-live': 'polite' })
  function showDetails(p) {
    replaceChildren(
      detailsArea,
      card(tr(`Publikacja za ${formatDate(p.date)}`, `Publication of ${formatDate(p.date)}`), publicationDetails(p)),
    )
    detailsArea.scrollIntoView({ block: 'start' })
  }
  filters.addEventListener('submit', (event) => {
    event.preventDefault()
    void table.reload({ page: 1 })
  })

  const checkResult = h('div', { 'aria-live': 'polite' })
  const checkButton = h(
    'button',
    { type: 'button', class: 'button', id: 'check-delivery' },
    tr('Sprawdź udostępnianie plików i portal', 'Check the served files and the portal'),
  )
  checkButton.addEventListener('click', async () => {
    replaceChildren(checkResult)
    try {
      const { body } = await withBusy(checkButton, tr('Sprawdzanie…', 'Checking…'), () =>
        api.post('/publications/preflight', { json: { verify_portal: true } }),
      )
      replaceChildren(checkResult, deliveryReport(body))
    } catch (error) {
      if (error.code === 'preflight_failed' && error.body?.date)
        replaceChildren(checkResult, deliveryReport(error.body))
      else replaceChildren(checkResult, errorBox(error))
    }
  })

  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Historia publikacji', 'Publication history'))),
    card(
      tr('Czy portal dostaje to, co opublikowano?', 'Does the portal get what was published?'),
      h(
        'p',
        {},
        tr(
          'Pobiera opublikowane pliki spod adresu publicznego tak, jak robi to portal, porównuje je z zapisanymi i pyta portal dane.gov.pl o dzisiejszy plik.',
          'Fetches the published files from the public address as the portal does, compares them with those recorded and asks the portal dane.gov.pl about today’s file.',
        ),
      ),
      h('div', { class: 'actions' }, checkButton),
      checkResult,
    ),
    card(null, filters, table.element),
    detailsArea,
  )
  await table.reload()
}
