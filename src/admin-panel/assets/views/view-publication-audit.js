// Audyt publikacji (audit of everything published): GET {base}/publication/audit re-reads every
// file of every developer entity's dataset and lists each problem with its day, file and unit;
// a day and a dataset narrow it. Run on demand: it reads every published file.
import { badge, facts, formatNumber, formatWhen, h, mono, replaceChildren } from '../dom.js'
import { tr } from '../i18n.js'
import { dateInput, isoDate } from '../fields/date-input.js'
import { card, errorBox, formField, withBusy } from '../ui.js'

function severityBadge(severity) {
  const element = severity === 'error' ? badge(tr('błąd', 'error'), 'error') : badge(tr('luka', 'gap'), 'warn')
  element.dataset.severity = severity
  return element
}

function problemsTable(problems) {
  return h(
    'table',
    { class: 'table', id: `audit-problems` },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        [
          tr('Rodzaj', 'Kind'),
          tr('Dzień', 'Day'),
          tr('Lokal', 'Unit'),
          tr('Plik', 'File'),
          tr('Co jest nie tak', 'What is wrong'),
        ].map((title) => h('th', { scope: 'col' }, title)),
      ),
    ),
    h(
      'tbody',
      {},
      problems.map((p) =>
        h(
          'tr',
          { dataset: { code: p.code, severity: p.severity } },
          h('td', {}, severityBadge(p.severity)),
          h('td', {}, p.day ?? tr('cały zbiór (XML)', 'the whole dataset (XML)')),
          h(
            'td',
            {},
            p.unit ?? '—',
            p.line ? h('span', { class: 'hint' }, ` (${tr('wiersz', 'line')} ${p.line})`) : null,
          ),
          h('td', {}, p.file ? h('span', { class: 'wrap' }, p.file) : '—'),
          h('td', {}, tr(p.message_pl, p.message_en), h('div', { class: 'hint' }, mono(p.code))),
        ),
      ),
    ),
  )
}

function datasetCard(dataset) {
  const summary = facts([
    [tr('Identyfikator zbioru (extIdent)', 'Dataset id (extIdent)'), mono(dataset.public_dataset_id)],
    [tr('Adres XML', 'XML address'), dataset.xml_url ? h('span', { class: 'wrap' }, dataset.xml_url) : '—'],
    [tr('Zasoby w pliku XML', 'Resources in the XML'), formatNumber(dataset.resources)],
    [tr('Sprawdzone pliki dni', 'Day files checked'), formatNumber(dataset.files_checked)],
    [tr('Błędy', 'Errors'), formatNumber(dataset.errors)],
    [tr('Luki (lokale bez ceny)', 'Gaps (units without a price)'), formatNumber(dataset.gaps)],
  ])
  return card(
    tr(`Zbiór dewelopera ${dataset.developer_name}`, `Dataset of ${dataset.developer_name}`),
    h(
      'div',
      { class: 'stack', dataset: { developerId: String(dataset.developer_id) } },
      summary,
      dataset.problems.length === 0
        ? h(
            'p',
            { class: 'audit-clean' },
            tr('Wszystkie opublikowane pliki są poprawne.', 'Every published file is correct.'),
          )
        : h('div', { class: 'table-wrap' }, problemsTable(dataset.problems)),
    ),
  )
}

export async function renderPublicationAudit(root, { api }) {
  const { body: developers } = await api.get('/developers')
  const day = dateInput({ id: 'audit-day' })
  const developer = h(
    'select',
    { id: 'audit-developer' },
    h('option', { value: '' }, tr('wszystkie zbiory', 'every dataset')),
    developers.items.map((d) => h('option', { value: String(d.id) }, d.name)),
  )
  const run = h('button', { type: 'submit', class: 'button button-primary', id: 'run-audit' }, tr('Sprawdź', 'Check'))
  const result = h('div', { id: 'audit-result', 'aria-live': 'polite' })
  const form = h(
    'form',
    { class: 'filters', id: 'audit-form' },
    formField({
      label: tr('Dzień (puste: wszystkie dni)', 'Day (empty: every day)'),
      input: day,
      names: 'date',
    }),
    formField({ label: tr('Zbiór', 'Dataset'), input: developer, names: 'developer_id' }),
    h('div', { class: 'actions' }, run),
  )
  const load = async () => {
    const params = new URLSearchParams()
    const date = isoDate(day)
    if (date) params.set('date', date)
    if (developer.value) params.set('developer_id', developer.value)
    try {
      const { body } = await withBusy(run, tr('Sprawdzanie…', 'Checking…'), () =>
        api.get(`/publication/audit${params.size > 0 ? `?${params}` : ''}`),
      )
      replaceChildren(
        result,
        h(
          'p',
          { id: 'audit-summary', dataset: { valid: String(body.valid) } },
          body.valid
            ? badge(tr('bez błędów', 'no error'), 'ok')
            : badge(tr(`błędy: ${body.errors}`, `errors: ${body.errors}`), 'error'),
          ' ',
          tr(
            `Sprawdzono ${body.day ? `pliki z dnia ${body.day}` : 'wszystkie opublikowane pliki'} (${formatWhen(body.checked_at, { seconds: true })}); luki: ${body.gaps}.`,
            `Checked ${body.day ? `the files of ${body.day}` : 'every published file'} (${formatWhen(body.checked_at, { seconds: true })}); gaps: ${body.gaps}.`,
          ),
        ),
        body.datasets.length === 0
          ? h('p', {}, tr('Nie ma jeszcze opublikowanych zbiorów.', 'No dataset is published yet.'))
          : body.datasets.map(datasetCard),
      )
    } catch (error) {
      replaceChildren(result, errorBox(error))
    }
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void load()
  })
  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Audyt publikacji', 'Publication audit'))),
    card(
      tr('Audyt opublikowanych plików', 'Audit of the published files'),
      h(
        'p',
        {},
        tr(
          'Odczytuje ponownie każdy opublikowany plik każdego zbioru i sprawdza go tak jak harvester portalu dane.gov.pl (mechanizm pobierania danych) i prawnik: plik XML ze schematem XSD i sumą .md5, obecność każdego zasobu z zapisaną sumą kontrolną oraz reguły pliku dnia (daty cen nie późniejsze niż dzień pliku, ceny lokali w ofercie, kolumna 42 nie mniejsza niż 40, jedna wartość w komórce). Każdy problem podaje dzień, plik i lokal.',
          'Reads every published file of every dataset again and checks it as the portal’s harvester and a lawyer would: the XML against the XSD and its .md5, every resource present with its recorded checksum, and the day-file rules (price dates not after the file’s day, prices of units on offer, column 42 not below 40, one value per cell). Each problem names the day, the file and the unit.',
        ),
      ),
      form,
    ),
    result,
  )
  await load()
}
