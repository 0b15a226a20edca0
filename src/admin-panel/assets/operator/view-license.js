// Licencja: GET {base}/license — the plan, its status, what each entitlement unlocks and what the
// licence lets run now; PUT {base}/license installs one (as `dg license set`), audited. Without an
// active licence the service is in continuity mode: the daily scheduled publication goes on, the
// licensed functions are refused and the panel says so beside each.
import { badge, facts, formatDate, formatWhen, h, replaceChildren } from '../dom.js'
import { tr } from '../i18n.js'
import { licenseLabel } from '../messages.js'
import { alertBox, card, errorBox, formField, toast, withBusy } from '../ui.js'
import { dateInput, isoDate } from '../fields/date-input.js'
import { helpLink } from './help-links.js'
import { ENTITLEMENT_LABELS, FUNCTION_LABELS } from './licence-gate.js'

function effectBox(license) {
  if (license.status === 'active')
    return alertBox(
      'success',
      tr('Licencja jest aktywna.', 'The licence is active.'),
      h(
        'p',
        {},
        license.valid_until
          ? tr(
              `Ważna do ${formatDate(license.valid_until)} włącznie.`,
              `Valid until ${formatDate(license.valid_until)} inclusive.`,
            )
          : tr('Bez daty końcowej.', 'No end date.'),
      ),
    )
  return alertBox(
    'warning',
    tr('Tryb ciągłości: licencja nie jest aktywna.', 'Continuity mode: the licence is not active.'),
    h(
      'p',
      {},
      tr(
        'Codzienna publikacja z harmonogramu działa dalej — obowiązek ustawowy nie czeka na licencję. Funkcje oznaczone niżej jako niedostępne są wyłączone (w panelu i przez API), dopóki nie zainstalujesz aktywnej licencji.',
        'The daily scheduled publication goes on — the legal duty does not wait for a licence. The functions marked unavailable below are off (in the panel and over the API) until an active licence is installed.',
      ),
    ),
  )
}

function functionsTable(license) {
  return h(
    'table',
    { class: 'table', id: 'licence-functions' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', {}, tr('Funkcja', 'Function')),
        h('th', {}, tr('Potrzebne uprawnienie', 'Entitlement needed')),
        h('th', {}, tr('Teraz', 'Now')),
      ),
    ),
    h(
      'tbody',
      {},
      license.functions.map((f) =>
        h(
          'tr',
          { dataset: { function: f.function } },
          h('td', {}, tr(...(FUNCTION_LABELS[f.function] ?? [f.function, f.function]))),
          h('td', {}, tr(...(ENTITLEMENT_LABELS[f.entitlement] ?? [f.entitlement, f.entitlement]))),
          h(
            'td',
            {},
            f.allowed ? badge(tr('dostępna', 'available'), 'ok') : badge(tr('niedostępna', 'unavailable'), 'warn'),
          ),
        ),
      ),
    ),
  )
}

export async function renderLicense(root, { api }) {
  const { body: license } = await api.get('/license')
  const summary = h('div', { class: 'stack', id: 'licence-summary' })
  const drawSummary = (state) =>
    replaceChildren(
      summary,
      effectBox(state),
      facts([
        [tr('Stan', 'Status'), badge(licenseLabel(state.status), state.status === 'active' ? 'ok' : 'warn')],
        [tr('Plan', 'Plan'), state.plan === 'pro' ? 'PRO' : state.plan === 'free' ? tr('bezpłatny', 'free') : '—'],
        [
          tr('Uprawnienia', 'Entitlements'),
          state.entitlements.length
            ? state.entitlements.map((e) => tr(...(ENTITLEMENT_LABELS[e] ?? [e, e]))).join('; ')
            : '—',
        ],
        [
          tr('Ważna do', 'Valid until'),
          state.valid_until ? formatDate(state.valid_until) : tr('bez daty końcowej', 'no end date'),
        ],
        [tr('Zmieniona', 'Changed'), state.updated_at ? formatWhen(state.updated_at) : '—'],
      ]),
      functionsTable(state),
    )
  drawSummary(license)

  const plan = h(
    'select',
    { id: 'licence-plan', name: 'plan' },
    h('option', { value: 'pro', selected: true }, 'PRO'),
    h(
      'option',
      { value: 'free', selected: license.plan === 'free' },
      tr('bezpłatny (tryb ciągłości)', 'free (continuity mode)'),
    ),
  )
  const entitlements = Object.keys(ENTITLEMENT_LABELS).map((code) =>
    h('input', {
      type: 'checkbox',
      id: `licence-entitlement-${code}`,
      value: code,
      checked: license.plan !== 'pro' || license.entitlements.includes(code),
    }),
  )
  const validUntil = dateInput({ id: 'licence-valid-until', name: 'valid_until', value: license.valid_until ?? '' })
  const message = h('div', { 'aria-live': 'polite' })
  const save = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'install-licence' },
    tr('Zainstaluj licencję', 'Install the licence'),
  )
  const form = h(
    'form',
    { id: 'licence-form', class: 'stack', novalidate: true },
    h(
      'p',
      { class: 'hint' },
      tr(
        'Wpisz dane z umowy licencyjnej: plan, uprawnienia i ostatni dzień ważności. Zmiana działa od razu na każdej instancji usługi i trafia do dziennika zdarzeń.',
        'Enter the data of the licence agreement: the plan, the entitlements and the last valid day. The change applies at once on every instance of the service and is recorded in the audit log.',
      ),
    ),
    formField({ label: tr('Plan', 'Plan'), input: plan, names: 'plan' }),
    h(
      'fieldset',
      { class: 'field', dataset: { field: 'entitlements' } },
      h('legend', {}, tr('Uprawnienia', 'Entitlements')),
      entitlements.map((input) =>
        h('label', { class: 'checkbox', for: input.id }, input, ` ${tr(...ENTITLEMENT_LABELS[input.value])}`),
      ),
    ),
    formField({
      label: tr('Ważna do (włącznie)', 'Valid until (inclusive)'),
      input: validUntil,
      names: 'valid_until',
      hint: tr('dd.mm.rrrr; puste = bez daty końcowej.', 'dd.mm.yyyy; empty = no end date.'),
    }),
    message,
    h('div', { class: 'actions' }, save),
  )
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const day = isoDate(validUntil)
    if (day === null) {
      replaceChildren(
        message,
        alertBox(
          'error',
          tr('Podaj datę jako dd.mm.rrrr, np. 31.12.2027.', 'Give the date as dd.mm.yyyy, e.g. 31.12.2027.'),
        ),
      )
      validUntil.focus()
      return
    }
    try {
      const { body } = await withBusy(save, tr('Instalowanie…', 'Installing…'), () =>
        api.request('PUT', '/license', {
          json: {
            plan: plan.value,
            entitlements: entitlements.filter((e) => e.checked).map((e) => e.value),
            valid_until: day || null,
          },
        }),
      )
      drawSummary(body)
      replaceChildren(message, alertBox('success', tr('Licencja zainstalowana.', 'The licence is installed.')))
      toast(tr('Licencja zainstalowana.', 'The licence is installed.'))
    } catch (error) {
      replaceChildren(message, errorBox(error))
    }
  })

  root.append(
    h('div', { class: 'page-header' }, h('h1', {}, tr('Licencja', 'Licence')), helpLink('licencja')),
    card(tr('Obecna licencja', 'Current licence'), summary),
    card(tr('Instalacja licencji', 'Installing a licence'), form),
  )
}
