// What the licence lets run now (GET {base}/license: `functions`), so a view never offers an
// action the licence refuses without saying why beside it: the button is disabled and a line next
// to it names the function, the entitlement it needs and links to the licence view.
import { h } from '../dom.js'
import { tr } from '../i18n.js'

/** Each entitlement as an operator knows it: what it unlocks. */
export const ENTITLEMENT_LABELS = {
  api_webhooks: [
    'publikacja z panelu, status, katalog dla strony WWW i webhook CRM',
    'publication from the panel, status, the website’s catalog and the CRM webhook',
  ],
  bulk_import: ['import ofert z plików', 'offer import from files'],
  publishing_gov: ['kontrola przed publikacją', 'the check before publishing'],
}

/** The functions the licence governs (the API's `functions[].function`). */
export const FUNCTION_LABELS = {
  publication: ['publikowanie z panelu', 'publishing from the panel'],
  status: ['status usługi przez API', 'the service status over the API'],
  catalog: ['katalog dla strony WWW', 'the catalog for the website'],
  webhook: ['webhook z CRM', 'the CRM webhook'],
  legacy_generate: ['stary adres generate', 'the legacy generate address'],
  report_import: ['import raportu', 'report import'],
  offer_import: ['import ofert z pliku', 'offer import from a file'],
  preflight: ['kontrola przed publikacją', 'the check before publishing'],
}

export const entitlementLabel = (code) => {
  const pair = ENTITLEMENT_LABELS[code]
  return pair ? tr(...pair) : code
}

/** { function: { allowed, entitlement } } of the current licence; everything allowed when it cannot be read. */
export async function licensedFunctions(api) {
  try {
    const { body } = await api.get('/license')
    return { state: body, functions: Object.fromEntries(body.functions.map((f) => [f.function, f])) }
  } catch {
    // the API refuses on its own anyway; the panel must not block what it cannot judge
    return { state: null, functions: {} }
  }
}

/**
 * Disables `button` when the licence refuses `fn`, with the reason beside it (returned, to be
 * placed after the button's row). `button.dataset.licenceRefused` keeps it disabled when a view
 * re-enables its buttons after work.
 */
export function gateAction(button, fn, licence) {
  const entry = licence.functions[fn]
  if (!entry || entry.allowed) return null
  button.disabled = true
  button.dataset.licenceRefused = fn
  const label = FUNCTION_LABELS[fn] ?? [fn, fn]
  const lapsed = licence.state && licence.state.status !== 'active' && licence.state.status !== 'inactive'
  return h(
    'p',
    { class: 'licence-reason', dataset: { refused: fn } },
    tr(
      `Niedostępne: ${label[0]} wymaga ${lapsed ? 'ważnej' : 'aktywnej'} licencji PRO z uprawnieniem „${ENTITLEMENT_LABELS[entry.entitlement]?.[0] ?? entry.entitlement}”. `,
      `Unavailable: ${label[1]} needs ${lapsed ? 'a valid' : 'an active'} PRO licence with the entitlement “${ENTITLEMENT_LABELS[entry.entitlement]?.[1] ?? entry.entitlement}”. `,
    ),
    h('a', { href: '#/licencja' }, tr('Zobacz licencję', 'See the licence')),
    tr(
      ' Codzienna publikacja z harmonogramu działa także bez licencji.',
      ' The daily scheduled publication runs without a licence too.',
    ),
  )
}

/** Re-enables a button after work unless the licence refuses it. */
export function enableUnlessRefused(button, on = true) {
  button.disabled = !on || Boolean(button.dataset.licenceRefused)
}
