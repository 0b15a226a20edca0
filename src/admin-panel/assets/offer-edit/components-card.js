// The parts, rooms and rights sold with a flat or a house (POST/PATCH/DELETE
// {base}/offers/{id}/components): their table, the form that adds or changes one, and removal.
import { formatDate, formatMoney, h, replaceChildren } from '../dom.js'
import { tr } from '../i18n.js'
import { componentKindLabel } from '../editor/editor-labels.js'
import { sendVersioned } from '../editor/editor-forms.js'
import { card, confirmDialog, formField } from '../ui.js'
import { componentForm, componentSummaryRows } from './component-form.js'

/** @param {import('./offer-fields.js').OfferEditView} view */
export function componentsCard(view) {
  const { offer } = view
  if (offer.offer_kind === 'standalone_part')
    return card(
      tr('Elementy dodatkowe', 'Parts and rooms'),
      h(
        'p',
        { class: 'muted' },
        tr(
          'To część sprzedawana osobno (własny wiersz w pliku urzędowym); nie ma elementów dodatkowych.',
          'This is a part sold on its own (a row of its own in the official file); it has no parts or rooms.',
        ),
      ),
    )
  const formSlot = h('div', { id: 'component-form-slot' })
  const add = h(
    'button',
    {
      type: 'button',
      class: 'button',
      id: 'add-component',
      onclick: () => replaceChildren(formSlot, componentForm(view, null, formSlot)),
    },
    tr('+ Dodaj element', '+ Add a part or room'),
  )
  const rows = offer.components.map((component) =>
    h(
      'tr',
      { dataset: { componentId: String(component.id) } },
      h('td', {}, component.kind ? componentKindLabel(component.kind) : component.kind_label),
      h('td', {}, component.designation ?? '—'),
      h('td', { class: 'num' }, formatMoney(component.price)),
      h('td', {}, formatDate(component.price_from)),
      h('td', {}, component.relation ?? '—'),
      h('td', {}, component.legal_title ?? '—'),
      h(
        'td',
        { class: 'row-actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'button button-quiet edit-component',
            onclick: () => {
              replaceChildren(formSlot, componentForm(view, component, formSlot))
              formSlot.scrollIntoView({ block: 'nearest' })
            },
          },
          tr('Zmień', 'Edit'),
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'button button-quiet delete-component',
            onclick: () => void removeComponent(view, component),
          },
          tr('Usuń', 'Remove'),
        ),
      ),
    ),
  )
  return card(
    tr(
      'Elementy dodatkowe (miejsca postojowe, komórki, pomieszczenia)',
      'Parts and rooms (parking spaces, storage rooms)',
    ),
    h(
      'p',
      { class: 'hint' },
      tr(
        'Sprzedawane razem z lokalem. Pierwsza część i pierwsze pomieszczenie trafiają do wiersza lokalu w pliku urzędowym (kolumny 44–51), kolejne do osobnych wierszy.',
        'Sold with the flat. The first part and the first room go on the flat’s row of the official file (columns 44–51), further ones on rows of their own.',
      ),
    ),
    offer.components.length === 0
      ? h('p', { class: 'muted', id: 'no-components' }, tr('Brak elementów dodatkowych.', 'No parts or rooms.'))
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'table', id: 'components' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                [
                  tr('Rodzaj', 'Kind'),
                  tr('Oznaczenie', 'Designation'),
                  tr('Cena', 'Price'),
                  tr('Cena od', 'Price since'),
                  tr('Związek z lokalem', 'Relation'),
                  tr('Tytuł prawny', 'Legal title'),
                  '',
                ].map((label) => h('th', { scope: 'col' }, label)),
              ),
            ),
            h('tbody', {}, rows),
          ),
        ),
    h('div', { class: 'actions' }, add),
    formSlot,
  )
}

/**
 * @param {import('./offer-fields.js').OfferEditView} view
 * @param {import('./offer-fields.js').OfferComponent} component
 */
async function removeComponent(view, component) {
  const reason = h('input', { id: 'remove-component-reason', maxlength: 500, autocomplete: 'off' })
  const name =
    `${component.kind ? componentKindLabel(component.kind) : component.kind_label} ${component.designation ?? ''}`.trim()
  const ok = await confirmDialog({
    title: tr(`Usunąć ${name}?`, `Remove ${name}?`),
    body: [
      tr(
        'Element zniknie z oferty, a jego cena zostanie wycofana dzisiejszą datą (zapis w historii cen).',
        'The part leaves the offer and its price is withdrawn today (recorded in the price history).',
      ),
      formField({ label: tr('Powód (opcjonalnie)', 'Reason (optional)'), input: reason }),
    ],
    okLabel: tr('Usuń element', 'Remove the part'),
    danger: true,
  })
  if (!ok) return
  const query = new URLSearchParams()
  if (reason.value.trim()) query.set('reason', reason.value.trim())
  const message = /** @type {HTMLElement} */ (view.componentSlot.querySelector('#component-form-slot'))
  await sendVersioned({
    api: view.api,
    method: 'DELETE',
    path: `${view.path}/components/${component.id}${query.toString() ? `?${query}` : ''}`,
    version: view.offer.version,
    form: view.componentSlot,
    message,
    rowsOf: (_sent, current) => componentSummaryRows(current),
    onSaved: view.saved(tr('Usunięto element.', 'The part is removed.')),
    onCurrent: view.draw,
  })
}
