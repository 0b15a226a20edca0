// The type of an offer an import or the webhook sent without one: until it is set, the offer stays
// out of the official file and the catalog.
import { h } from '../dom.js'
import { tr } from '../i18n.js'
import { optionsOf, PROPERTY_TYPES } from '../editor/editor-labels.js'
import { sendVersioned } from '../editor/editor-forms.js'
import { formField } from '../ui.js'
import { WATCHED } from './offer-fields.js'

/** @param {import('./offer-fields.js').OfferEditView} view */
export function qualifyCard(view) {
  const type = h(
    'select',
    { id: 'qualify-type', name: 'prop_type' },
    optionsOf(PROPERTY_TYPES, { blank: tr('— wybierz rodzaj —', '— choose the type —') }),
  )
  const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
  const button = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'qualify-submit' },
    tr('Ustaw rodzaj', 'Set the type'),
  )
  const form = h(
    'form',
    { id: 'qualify-form', novalidate: true },
    h(
      'p',
      {},
      tr(
        'Import albo webhook przysłał tę ofertę bez rodzaju. Dopóki go nie ustawisz, oferta nie trafia do pliku urzędowego ani do katalogu. Rodzaju nigdy nie zgadujemy — wybierz go na podstawie umowy lub prospektu.',
        'An import or the webhook sent this offer without a type. Until you set it, the offer stays out of the official file and the catalog. The type is never guessed — choose it from the contract or the prospectus.',
      ),
    ),
    h(
      'div',
      { class: 'form-row' },
      formField({ label: tr('Rodzaj oferty', 'Type of offer'), input: type, required: true }),
    ),
    message,
    h('div', { class: 'actions' }, button),
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void sendVersioned({
      api: view.api,
      method: 'PATCH',
      path: view.path,
      body: { prop_type: type.value },
      version: view.offer.version,
      before: view.offer,
      watch: WATCHED,
      form,
      message,
      button,
      onSaved: view.saved(tr('Ustawiono rodzaj oferty.', 'The type of the offer is set.')),
      onCurrent: view.draw,
    })
  })
  return h(
    'section',
    { class: 'alert alert-warning alert-large', id: 'qualify' },
    h('h2', { class: 'alert-title' }, tr('Ta oferta nie ma rodzaju', 'This offer has no type')),
    form,
  )
}
