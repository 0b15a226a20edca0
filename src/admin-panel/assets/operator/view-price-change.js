// Eksport i zmiana cen: the offers (of an investment, a status) as XLSX or CSV in the import's own
// columns (GET {base}/offers/export), the import template (GET {base}/imports/template), and a
// price change of an investment or chosen offers: percent, rounding, valid-from date and reason,
// previewed before → after per offer (POST …/price-change/preview, an import preview: nothing
// written), then executed as one import run (POST …/price-change/execute).
import { formatMoney, formatNumber, h, randomHex, replaceChildren } from '../dom.js'
import { offerStatusLabel } from '../editor/editor-labels.js'
import { tr } from '../i18n.js'
import { alertBox, card, confirmDialog, errorBox, formField, showFieldErrors, toast, withBusy } from '../ui.js'
import { dateInput, isoDate, polishDate } from '../fields/date-input.js'
import { helpLink } from './help-links.js'
import { plural } from './plural.js'

const STATUSES = ['available', 'reserved', 'sold', 'unavailable']
const SKIP_REASONS = {
  standalone_part: ['część samodzielna (zmień w edytorze oferty)', 'a standalone part (change it in the offer editor)'],
  no_import_identifier: ['brak identyfikatorów importu', 'no import identifiers'],
  no_price_or_area: ['brak ceny albo powierzchni', 'no price or area'],
}

/** Downloads a file the API answers (the session's nonce goes in a header, so no plain link). */
async function download(api, path, fallbackName) {
  const response = await fetch(api.url(path), { credentials: 'same-origin', headers: api.headers({ Accept: '*/*' }) })
  if (!response.ok) {
    let body = {}
    try {
      body = await response.json()
    } catch {
      // not JSON: the status says enough
    }
    const error = new Error(body.message ?? `HTTP ${response.status}`)
    Object.assign(error, { status: response.status, code: body.code ?? body.error ?? 'unknown', body })
    throw error
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName
  const url = globalThis.URL.createObjectURL(await response.blob())
  const link = h('a', { href: url, download: name, hidden: true })
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => globalThis.URL.revokeObjectURL(url), 10_000)
  return { name, leftOut: Number(response.headers.get('x-dg-left-out') ?? 0) }
}

export async function renderPriceChange(root, { api }) {
  const { body: investments } = await api.get('/investments?per_page=100')
  const investment = h(
    'select',
    { id: 'pc-investment' },
    h('option', { value: '' }, tr('— wszystkie inwestycje —', '— every investment —')),
    investments.map((i) => h('option', { value: String(i.id) }, i.title)),
  )
  const status = h(
    'select',
    { id: 'pc-status' },
    h('option', { value: '' }, tr('— każdy status —', '— any status —')),
    STATUSES.map((s) => h('option', { value: s }, offerStatusLabel(s))),
  )
  const exportMessage = h('div', { 'aria-live': 'polite' })
  // an operator's file has Polish headers and statuses; an integration may want the technical names
  const technical = h('input', { type: 'checkbox', id: 'export-technical-names' })
  const columnsParam = () => (technical.checked ? '&columns=technical' : '')
  const query = (format) => {
    const params = new URLSearchParams({ format })
    if (technical.checked) params.set('columns', 'technical')
    if (investment.value) params.set('investment', investment.value)
    if (status.value) params.set('status', status.value)
    return `/offers/export?${params}`
  }
  const exportButton = (format, label) => {
    const button = h('button', { type: 'button', class: 'button', id: `export-${format}` }, label)
    button.addEventListener('click', async () => {
      try {
        const { name, leftOut } = await withBusy(button, tr('Przygotowywanie…', 'Preparing…'), () =>
          download(api, query(format), `oferty.${format}`),
        )
        replaceChildren(
          exportMessage,
          alertBox(
            'success',
            tr(`Pobrano plik ${name}.`, `Downloaded ${name}.`),
            leftOut
              ? h(
                  'p',
                  {},
                  tr(
                    `Pominięto ${plural(leftOut, ['ofertę', 'oferty', 'ofert'])}, których import nie obsługuje (części samodzielne lub oferty bez identyfikatorów importu).`,
                    `Left out ${plural(leftOut, ['offer', 'offers', 'offers'], 'en')} the import cannot address (standalone parts or offers without import identifiers).`,
                  ),
                )
              : null,
          ),
        )
      } catch (error) {
        replaceChildren(exportMessage, errorBox(error))
      }
    })
    return button
  }
  const templateButton = (format) => {
    const button = h(
      'button',
      { type: 'button', class: 'button button-quiet', id: `template-${format}` },
      tr(`Szablon importu (${format.toUpperCase()})`, `Import template (${format.toUpperCase()})`),
    )
    button.addEventListener('click', async () => {
      try {
        await withBusy(button, tr('Przygotowywanie…', 'Preparing…'), () =>
          download(api, `/imports/template?format=${format}${columnsParam()}`, `szablon-importu.${format}`),
        )
      } catch (error) {
        replaceChildren(exportMessage, errorBox(error))
      }
    })
    return button
  }

  // price change
  const percent = h('input', { id: 'pc-percent', name: 'percent', inputmode: 'decimal', placeholder: '3', size: 6 })
  const rounding = h(
    'select',
    { id: 'pc-rounding', name: 'rounding' },
    h('option', { value: 'zloty', selected: true }, tr('do pełnego złotego', 'to the whole złoty')),
    h('option', { value: 'hundred' }, tr('do pełnych 100 zł', 'to whole 100 PLN')),
    h('option', { value: 'grosz' }, tr('do grosza', 'to the grosz')),
  )
  const year = new Date().getFullYear() + 1
  const validFrom = dateInput({ id: 'pc-valid-from', name: 'valid_from', value: `${year}-01-01` })
  const reason = h('input', {
    id: 'pc-reason',
    name: 'reason',
    maxlength: 500,
    placeholder: tr('np. waloryzacja cen od nowego roku', 'e.g. price indexation from the new year'),
  })
  // a price change reprices the units on sale: a sold flat's price is its sale's, never raised by default
  const changeStatuses = STATUSES.map((code) =>
    h('input', {
      type: 'checkbox',
      id: `pc-status-${code}`,
      name: 'statuses',
      value: code,
      checked: code === 'available',
    }),
  )
  const previewButton = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'pc-preview' },
    tr('Pokaż zmiany', 'Show the changes'),
  )
  const result = h('div', { class: 'stack', 'aria-live': 'polite' })
  const form = h(
    'form',
    { id: 'price-change-form', class: 'stack', novalidate: true },
    h(
      'p',
      { class: 'hint' },
      tr(
        'Zmiana obejmuje oferty inwestycji wybranej wyżej, o statusach zaznaczonych poniżej. Przed zapisem zobaczysz każdą ofertę: cenę przed i po zmianie; zapis to jeden import z historią cen i wpisem w dzienniku zdarzeń.',
        'The change covers the offers of the investment chosen above with the statuses ticked below. Before saving you see every offer: the price before and after; saving is one import with its price history and an audit entry.',
      ),
    ),
    h(
      'fieldset',
      { class: 'field', dataset: { field: 'statuses' } },
      h('legend', {}, tr('Statusy ofert objętych zmianą', 'Statuses of the offers changed')),
      h(
        'div',
        { class: 'form-row' },
        changeStatuses.map((input) =>
          h('label', { class: 'checkbox', for: input.id }, input, ` ${offerStatusLabel(input.value)}`),
        ),
      ),
      h(
        'p',
        { class: 'hint' },
        tr(
          'Domyślnie tylko wolne, czyli lokale w sprzedaży. Cena sprzedanego lokalu to cena jego sprzedaży: zaznacz inne statusy tylko wtedy, gdy naprawdę ich ceny też mają się zmienić.',
          'By default only available units, those on sale. A sold unit’s price is its sale’s: tick other statuses only when their prices really change too.',
        ),
      ),
      h('p', { class: 'field-error', id: 'pc-statuses-error', hidden: true }),
    ),
    h(
      'div',
      { class: 'form-row' },
      formField({
        label: tr('Zmiana ceny (%)', 'Price change (%)'),
        input: percent,
        names: 'percent',
        hint: tr('np. 3 albo -2,5', 'e.g. 3 or -2.5'),
      }),
      formField({
        label: tr('Zaokrąglenie ceny całkowitej', 'Rounding of the total'),
        input: rounding,
        names: 'rounding',
      }),
      formField({
        label: tr('Obowiązuje od', 'Valid from'),
        input: validFrom,
        names: 'valid_from',
        hint: tr('dd.mm.rrrr', 'dd.mm.yyyy'),
      }),
    ),
    formField({ label: tr('Powód zmiany', 'Reason for the change'), input: reason, names: 'reason' }),
    h('div', { class: 'actions' }, previewButton),
  )

  const showPreview = (plan) => {
    const execute = h(
      'button',
      { type: 'button', class: 'button button-primary', id: 'pc-execute' },
      tr('Zapisz nowe ceny', 'Save the new prices'),
    )
    execute.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: tr('Zapisać nowe ceny?', 'Save the new prices?'),
        body: [
          tr(
            `${plural(plan.lines.length, ['oferta dostanie', 'oferty dostaną', 'ofert dostanie'])} nową cenę obowiązującą od ${polishDate(plan.valid_from)}.`,
            `${plural(plan.lines.length, ['offer gets', 'offers get', 'offers get'], 'en')} a new price valid from ${polishDate(plan.valid_from)}.`,
          ),
        ],
        okLabel: tr('Zapisz', 'Save'),
      })
      if (!ok) return
      try {
        const { body } = await withBusy(execute, tr('Zapisywanie…', 'Saving…'), () =>
          api.post('/offers/price-change/execute', {
            json: { job_id: plan.job_id, reason: plan.reason },
            headers: { 'Idempotency-Key': `price-change-${randomHex(12)}` },
          }),
        )
        replaceChildren(
          result,
          alertBox(
            'success',
            tr(
              `Zapisano nowe ceny: ${plural(body.result.updated, ['oferta', 'oferty', 'ofert'])}.`,
              `New prices saved: ${plural(body.result.updated, ['offer', 'offers', 'offers'], 'en')}.`,
            ),
            h('p', {}, h('a', { href: '#/audyt' }, tr('Zobacz wpis w dzienniku zdarzeń', 'See the audit log entry'))),
          ),
        )
        toast(tr('Zapisano nowe ceny.', 'New prices saved.'))
      } catch (error) {
        replaceChildren(result, errorBox(error))
      }
    })
    replaceChildren(
      result,
      plan.valid
        ? alertBox(
            'info',
            tr(
              `Podgląd: ${plural(plan.lines.length, ['oferta', 'oferty', 'ofert'])} do zmiany. Nic jeszcze nie zapisano.`,
              `Preview: ${plural(plan.lines.length, ['offer', 'offers', 'offers'], 'en')} to change. Nothing is saved yet.`,
            ),
          )
        : alertBox('error', tr('Import odrzuciłby te ceny.', 'The import would refuse these prices.')),
      h(
        'p',
        { class: 'hint', id: 'pc-rule' },
        tr(
          `Zasada zaokrąglenia: ${plan.rounding_rule.pl}. Obowiązuje od ${polishDate(plan.valid_from)}. Powód: ${plan.reason}.`,
          `Rounding rule: ${plan.rounding_rule.en}. Valid from ${polishDate(plan.valid_from)}. Reason: ${plan.reason}.`,
        ),
      ),
      h(
        'table',
        { class: 'table bulk-table', id: 'pc-lines' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [
              tr('Inwestycja', 'Investment'),
              tr('Lokal', 'Unit'),
              tr('Powierzchnia', 'Area'),
              tr('Cena przed', 'Price before'),
              tr('Cena po', 'Price after'),
              tr('Cena za m² po', 'Price per m² after'),
            ].map((t) => h('th', {}, t)),
          ),
        ),
        h(
          'tbody',
          {},
          plan.lines.map((l) =>
            h(
              'tr',
              { dataset: { offer: String(l.offer_id) } },
              h('td', {}, l.investment_title),
              h(
                'td',
                {},
                l.designation || l.source_property_id,
                h('br'),
                h('small', { class: 'muted' }, l.source_property_id),
              ),
              h('td', {}, `${l.area.replace('.', ',')} m²`),
              h('td', {}, formatMoney(l.before_total)),
              h('td', { class: 'changed' }, formatMoney(l.after_total)),
              h('td', {}, formatMoney(l.after_m2)),
            ),
          ),
        ),
      ),
      plan.skipped.length
        ? h(
            'div',
            { class: 'issues-block' },
            h(
              'h3',
              {},
              tr(`Pominięte (${formatNumber(plan.skipped.length)})`, `Skipped (${formatNumber(plan.skipped.length)})`),
            ),
            h(
              'ul',
              {},
              plan.skipped.map((s) =>
                h('li', {}, `${s.designation}: ${tr(...(SKIP_REASONS[s.reason] ?? [s.reason, s.reason]))}`),
              ),
            ),
          )
        : null,
      plan.valid ? h('div', { class: 'actions' }, execute) : null,
    )
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    replaceChildren(result)
    const day = isoDate(validFrom)
    if (!investment.value) {
      replaceChildren(
        result,
        alertBox(
          'error',
          tr('Wybierz inwestycję, której ceny zmieniasz.', 'Choose the investment whose prices you change.'),
        ),
      )
      investment.focus()
      return
    }
    const statuses = changeStatuses.filter((input) => input.checked).map((input) => input.value)
    if (statuses.length === 0) {
      showFieldErrors(form, [
        {
          field: 'statuses',
          message_pl: 'Zaznacz co najmniej jeden status.',
          message_en: 'Tick at least one status.',
        },
      ])
      return
    }
    if (!day) {
      showFieldErrors(form, [
        { field: 'valid_from', message_pl: 'Podaj datę jako dd.mm.rrrr.', message_en: 'Give the date as dd.mm.yyyy.' },
      ])
      return
    }
    try {
      const { body } = await withBusy(previewButton, tr('Liczenie…', 'Calculating…'), () =>
        api.post('/offers/price-change/preview', {
          json: {
            investment: Number(investment.value),
            statuses,
            percent: percent.value.trim(),
            rounding: rounding.value,
            valid_from: day,
            reason: reason.value.trim() || ' ',
          },
        }),
      )
      showPreview(body)
    } catch (error) {
      const rest = error.body?.issues ? showFieldErrors(form, error.body.issues) : []
      if (!error.body?.issues || rest.length) replaceChildren(result, errorBox(error))
    }
  })

  root.append(
    h(
      'div',
      { class: 'page-header' },
      h('h1', {}, tr('Eksport i zmiana cen', 'Export and price change')),
      helpLink('zmiana-cen'),
    ),
    card(
      tr('Które oferty', 'Which offers'),
      h(
        'div',
        { class: 'form-row' },
        formField({ label: tr('Inwestycja', 'Investment'), input: investment }),
        formField({ label: tr('Status', 'Status'), input: status }),
      ),
    ),
    card(
      tr('Eksport do pliku', 'Export to a file'),
      h(
        'p',
        { class: 'hint' },
        tr(
          'Plik ma kolumny importu: po edycji w arkuszu wczytaj go w „Import ofert” — zmieni się tylko to, co poprawisz.',
          'The file has the import’s columns: after editing it in a spreadsheet load it in “Offer import” — only what you change is changed.',
        ),
      ),
      h(
        'div',
        { class: 'actions' },
        exportButton('xlsx', tr('Pobierz XLSX', 'Download XLSX')),
        exportButton('csv', tr('Pobierz CSV', 'Download CSV')),
        templateButton('xlsx'),
        templateButton('csv'),
      ),
      h(
        'label',
        { class: 'checkbox', for: technical.id },
        technical,
        ` ${tr(
          'Nazwy techniczne kolumn i statusów, jak w API — dla integracji z CRM',
          'Technical names of columns and statuses, as in the API — for CRM integrations',
        )}`,
      ),
      exportMessage,
    ),
    card(tr('Zmiana cen', 'Price change'), form, result),
  )
}
