// The offer's data: designation, title, type, statuses, area, rooms, floor, building, variant and
// custom fields, saved through PATCH {base}/offers/{id} with the version shown.
import { h } from '../dom.js'
import { tr } from '../i18n.js'
import { fieldLabel, HOST_STATUSES, OFFER_STATUSES, optionsOf, PROPERTY_TYPES } from '../editor/editor-labels.js'
import { customMetaEditor, sendVersioned } from '../editor/editor-forms.js'
import { card, formField, toast } from '../ui.js'
import { WATCHED } from './offer-fields.js'

/** @param {import('./offer-fields.js').OfferEditView} view */
export function dataCard(view) {
  const { offer } = view
  const text = (name, attributes = {}) =>
    h('input', { id: `offer-${name}`, name, autocomplete: 'off', value: offer[name] ?? '', ...attributes })
  const inputs = {
    prop_no: text('prop_no', { maxlength: 100 }),
    title: text('title', { maxlength: 255 }),
    prop_area: text('prop_area', { inputmode: 'decimal', value: (offer.prop_area ?? '').replace('.', ',') }),
    prop_rooms: text('prop_rooms', { inputmode: 'numeric', value: offer.prop_rooms ?? '' }),
    prop_floor: text('prop_floor', { inputmode: 'numeric', value: offer.prop_floor ?? '' }),
    building: text('building', { maxlength: 100 }),
    variant: text('variant', { maxlength: 100 }),
  }
  const typeOptions = optionsOf(PROPERTY_TYPES, {
    selected: offer.prop_type,
    blank: offer.qualified ? undefined : tr('— bez rodzaju —', '— without type —'),
  })
  const selects = {
    prop_type: h('select', { id: 'offer-prop_type', name: 'prop_type' }, typeOptions),
    // archiving has its own action, which withdraws the prices
    property_status: h(
      'select',
      { id: 'offer-property_status', name: 'property_status' },
      optionsOf(
        Object.fromEntries(
          Object.entries(OFFER_STATUSES).filter(
            ([code]) => code !== 'archived' || offer.property_status === 'archived',
          ),
        ),
        { selected: offer.property_status },
      ),
    ),
    host_status: h(
      'select',
      { id: 'offer-host_status', name: 'host_status' },
      optionsOf(HOST_STATUSES, { selected: offer.host_status }),
    ),
  }
  const meta = customMetaEditor(offer.custom_meta, view.customFields, 'offer')
  const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
  const button = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'save-offer' },
    tr('Zapisz dane oferty', 'Save the offer'),
  )
  const field = (name, input, extra = {}) => formField({ label: fieldLabel(name), input, names: name, ...extra })
  const form = h(
    'form',
    { id: 'offer-form', novalidate: true },
    h(
      'div',
      { class: 'form-row' },
      field('prop_no', inputs.prop_no, { required: true }),
      field('title', inputs.title, { required: true }),
    ),
    h(
      'div',
      { class: 'form-row' },
      field('prop_type', selects.prop_type),
      field('property_status', selects.property_status),
      field('host_status', selects.host_status, {
        hint: tr(
          'Katalog i plik urzędowy pokazują tylko opublikowane.',
          'The catalog and the official file show published ones only.',
        ),
      }),
    ),
    h(
      'div',
      { class: 'form-row' },
      field('prop_area', inputs.prop_area, { className: 'field-narrow' }),
      field('prop_rooms', inputs.prop_rooms, { className: 'field-narrow' }),
      field('prop_floor', inputs.prop_floor, { className: 'field-narrow' }),
      field('building', inputs.building, { className: 'field-narrow' }),
      field('variant', inputs.variant, { className: 'field-narrow' }),
    ),
    h('h3', {}, tr('Pola dodatkowe', 'Custom fields')),
    meta.element,
    message,
    h('div', { class: 'actions' }, button),
  )
  const shown = (name) => {
    if (name === 'prop_area') return (offer.prop_area ?? '').replace('.', ',')
    return offer[name] === null || offer[name] === undefined ? '' : String(offer[name])
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const body = {}
    for (const [name, input] of Object.entries(inputs)) {
      const value = input.value.trim()
      if (value === shown(name)) continue
      // an emptied area, rooms, floor, building or variant is removed; designation and title are never empty
      body[name] = value === '' && name !== 'prop_no' && name !== 'title' ? null : value
    }
    for (const [name, select] of Object.entries(selects))
      if (select.value !== (offer[name] ?? '') && select.value !== '') body[name] = select.value
    const metaChanges = meta.changes()
    if (metaChanges) body.custom_meta = metaChanges
    if (Object.keys(body).length === 0) {
      toast(tr('Nic nie zmieniono.', 'Nothing changed.'), 'info')
      return
    }
    void sendVersioned({
      api: view.api,
      method: 'PATCH',
      path: view.path,
      body,
      version: view.offer.version,
      before: view.offer,
      watch: WATCHED,
      form,
      message,
      button,
      onSaved: view.saved(tr('Zapisano dane oferty.', 'The offer is saved.')),
      onCurrent: view.draw,
    })
  })
  return card(tr('Dane oferty', 'Offer data'), form)
}
