// The form that adds a part, room or right to a flat or a house, or changes one, with its price,
// the price's date, reason and correction flag.
import { formatMoney, h, moneyInputText, moneyToCents, replaceChildren, todayInWarsaw } from '../dom.js'
import { tr } from '../i18n.js'
import {
  COMPONENT_GROUPS,
  COMPONENT_KINDS,
  componentKindLabel,
  fieldLabel,
  optionsOf,
} from '../editor/editor-labels.js'
import { conflictRowsOf, readField, sendVersioned } from '../editor/editor-forms.js'
import { dateInput, dayOf } from '../fields/date-input.js'
import { formField, toast } from '../ui.js'
import { WATCHED } from './offer-fields.js'
import { priceHint } from './price-text.js'

/**
 * The form that adds a component (`component` null) or changes one, drawn into `slot`.
 *
 * @param {import('./offer-fields.js').OfferEditView} view
 * @param {import('./offer-fields.js').OfferComponent | null} component
 * @param {HTMLElement} slot
 * @returns {HTMLFormElement}
 */
export function componentForm(view, component, slot) {
  const { offer } = view
  const today = todayInWarsaw()
  const kindOf = (c) => (c === null ? 'parking_space' : (c.kind ?? 'custom'))
  const kind = h(
    'select',
    { id: 'component-kind', name: 'kind' },
    optionsOf(COMPONENT_KINDS, { selected: kindOf(component) }),
  )
  const group = h(
    'select',
    { id: 'component-group', name: 'group' },
    optionsOf(COMPONENT_GROUPS, { selected: component?.group ?? 'appurtenant_room' }),
  )
  const text = (name, attributes = {}) =>
    h('input', { id: `component-${name}`, name, autocomplete: 'off', value: component?.[name] ?? '', ...attributes })
  const inputs = {
    kind_label: text('kind_label', { maxlength: 255, placeholder: tr('np. Piwnica', 'e.g. Piwnica') }),
    designation: text('designation', { maxlength: 100, placeholder: tr('np. MP-12', 'e.g. MP-12') }),
    price: text('price', {
      inputmode: 'decimal',
      value: moneyInputText(component?.price),
      placeholder: 'np. 45 000,00',
    }),
    relation: text('relation', {
      maxlength: 255,
      placeholder: tr('np. przynależne do lokalu', 'e.g. przynależne do lokalu'),
    }),
    requirement: text('requirement', {
      maxlength: 255,
      placeholder: tr('np. obowiązkowy zakup', 'e.g. obowiązkowy zakup'),
    }),
    legal_title: text('legal_title', {
      maxlength: 255,
      placeholder: tr('np. odrębna własność', 'e.g. odrębna własność'),
    }),
    variant: text('variant', { maxlength: 100 }),
    description: text('description', { maxlength: 1000 }),
  }
  // a new price holds from today unless told otherwise; the stored date is shown beside the price
  const priceFrom = dateInput({ id: 'component-price_from', name: 'price_from', value: today })
  const reason = h('input', { id: 'component-reason', name: 'reason', maxlength: 500, autocomplete: 'off' })
  const correction = h('input', { id: 'component-correction', name: 'correction', type: 'checkbox' })
  const customFields = h(
    'div',
    { class: 'form-row' },
    formField({ label: fieldLabel('group'), input: group, names: 'group' }),
    formField({ label: fieldLabel('kind_label'), input: inputs.kind_label, names: 'kind_label', required: true }),
  )
  const showCustom = () => (customFields.hidden = kind.value !== 'custom')
  kind.addEventListener('change', showCustom)
  showCustom()
  const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
  const button = h(
    'button',
    { type: 'submit', class: 'button button-primary', id: 'save-component' },
    component ? tr('Zapisz element', 'Save the part') : tr('Dodaj element', 'Add the part'),
  )
  const field = (name, input, extra = {}) => formField({ label: fieldLabel(name), input, names: name, ...extra })
  const form = h(
    'form',
    { id: 'component-form', class: 'subform', novalidate: true },
    h('h3', {}, component ? tr('Zmiana elementu', 'Change the part') : tr('Nowy element', 'New part or room')),
    h('div', { class: 'form-row' }, field('kind', kind), field('designation', inputs.designation)),
    customFields,
    h(
      'div',
      { class: 'form-row' },
      field('price', inputs.price, {
        label: `${fieldLabel('price')} (zł)`,
        hint:
          component?.price != null
            ? priceHint(
                component.price,
                component.price_from,
                offer.in_force?.components.find((c) => c.id === component.id),
              )
            : null,
      }),
      field('price_from', priceFrom),
      formField({
        label: tr('Powód zmiany ceny (opcjonalnie)', 'Reason for the price (optional)'),
        input: reason,
        names: 'reason',
      }),
    ),
    component
      ? formField({
          label: tr('Nowa cena to korekta błędnej ceny', 'The new price corrects a wrong one'),
          input: correction,
          names: 'correction',
        })
      : null,
    h(
      'div',
      { class: 'form-row' },
      field('relation', inputs.relation),
      field('legal_title', inputs.legal_title),
      field('requirement', inputs.requirement),
    ),
    h('div', { class: 'form-row' }, field('variant', inputs.variant), field('description', inputs.description)),
    message,
    h(
      'div',
      { class: 'actions' },
      button,
      h(
        'button',
        { type: 'button', class: 'button button-quiet', onclick: () => replaceChildren(slot) },
        tr('Anuluj', 'Cancel'),
      ),
    ),
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const body = {}
    if (kind.value === 'custom') {
      if (!component || group.value !== component.group) body.group = group.value
      if (!component || inputs.kind_label.value.trim() !== component.kind_label)
        body.kind_label = inputs.kind_label.value.trim()
    } else if (!component || kind.value !== component.kind) body.kind = kind.value
    for (const [name, input] of Object.entries(inputs)) {
      if (name === 'kind_label') continue
      const typed = input.value.trim()
      const was = name === 'price' ? moneyInputText(component?.price) : (component?.[name] ?? '')
      if (typed === was) continue
      if (name === 'price' && typed !== '' && component?.price && moneyToCents(typed) === moneyToCents(component.price))
        continue
      body[name] = typed === '' ? null : typed
    }
    // the date goes with a new or changed price, or alone when the operator moved it (the
    // current price's date corrected); an unchanged price keeps its own date
    if (priceFrom.value && (!component || body.price !== undefined || dayOf(priceFrom) !== today))
      body.price_from = dayOf(priceFrom)
    if (component && Object.keys(body).length === 0) {
      toast(tr('Nic nie zmieniono.', 'Nothing changed.'), 'info')
      return
    }
    if (reason.value.trim()) body.reason = reason.value.trim()
    if (correction.checked) body.correction = true
    void sendVersioned({
      api: view.api,
      method: component ? 'PATCH' : 'POST',
      path: component ? `${view.path}/components/${component.id}` : `${view.path}/components`,
      body,
      version: view.offer.version,
      before: view.offer,
      watch: WATCHED,
      form,
      message,
      button,
      rowsOf: (sent, current) => {
        const stored = component ? current.components.find((c) => c.id === component.id) : undefined
        return conflictRowsOf(sent, (name) => readField(stored, name)).concat(componentSummaryRows(current))
      },
      onSaved: view.saved(
        component ? tr('Zapisano element.', 'The part is saved.') : tr('Dodano element.', 'The part is added.'),
      ),
      onCurrent: view.draw,
    })
  })
  return form
}

/**
 * After a conflict on a component: what the offer holds now, so the operator sees a duplicate coming.
 *
 * @param {import('./offer-fields.js').EditorOffer} current
 */
export function componentSummaryRows(current) {
  return [
    {
      label: tr('Elementy oferty teraz', 'The offer’s parts now'),
      mine: '—',
      current:
        current.components
          .map((c) =>
            `${c.kind ? componentKindLabel(c.kind) : c.kind_label} ${c.designation ?? ''} ${formatMoney(c.price)}`.trim(),
          )
          .join('; ') || tr('brak', 'none'),
    },
  ]
}
