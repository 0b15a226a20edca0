// Archive and restore (POST {base}/offers/{id}/archive and …/restore): an archived offer leaves
// the catalog and the official file and its prices are withdrawn; restoring publishes it again.
import { h } from '../dom.js'
import { tr } from '../i18n.js'
import { OFFER_STATUSES, optionsOf } from '../editor/editor-labels.js'
import { sendVersioned } from '../editor/editor-forms.js'
import { card, confirmDialog, formField } from '../ui.js'
import { WATCHED } from './offer-fields.js'

/** @param {import('./offer-fields.js').OfferEditView} view */
export function lifecycleCard(view) {
  const { offer } = view
  const message = h('div', { class: 'form-message', 'aria-live': 'assertive' })
  if (offer.property_status === 'archived') {
    const status = h(
      'select',
      { id: 'restore-status' },
      optionsOf(Object.fromEntries(Object.entries(OFFER_STATUSES).filter(([code]) => code !== 'archived')), {
        selected: 'available',
      }),
    )
    const button = h(
      'button',
      { type: 'button', class: 'button button-primary', id: 'restore-offer' },
      tr('Przywróć do sprzedaży', 'Put back on sale'),
    )
    const form = h(
      'div',
      {},
      h(
        'p',
        {},
        tr(
          'Oferta jest zarchiwizowana: nie ma jej w katalogu ani w pliku urzędowym. Przywrócenie opublikuje ją z jej cenami (zapis w historii cen).',
          'The offer is archived: neither the catalog nor the official file shows it. Restoring publishes it with its prices (recorded in the price history).',
        ),
      ),
      h(
        'div',
        { class: 'form-row' },
        formField({
          label: tr('Status po przywróceniu', 'Status once restored'),
          input: status,
          names: 'property_status',
        }),
      ),
      message,
      h('div', { class: 'actions' }, button),
    )
    button.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: tr(`Przywrócić ofertę ${offer.prop_no}?`, `Restore offer ${offer.prop_no}?`),
        body: [
          tr(
            'Oferta wróci do katalogu i do następnego pliku urzędowego.',
            'The offer returns to the catalog and to the next official file.',
          ),
        ],
        okLabel: tr('Przywróć', 'Restore'),
      })
      if (!ok) return
      await sendVersioned({
        api: view.api,
        method: 'POST',
        path: `${view.path}/restore`,
        body: { property_status: status.value },
        version: view.offer.version,
        before: view.offer,
        watch: WATCHED,
        form,
        message,
        button,
        onSaved: view.saved(tr('Przywrócono ofertę.', 'The offer is restored.')),
        onCurrent: view.draw,
      })
    })
    return card(tr('Archiwum', 'Archive'), form)
  }
  const button = h(
    'button',
    { type: 'button', class: 'button button-danger', id: 'archive-offer' },
    tr('Archiwizuj ofertę', 'Archive the offer'),
  )
  const form = h(
    'div',
    {},
    h(
      'p',
      {},
      tr(
        'Oferta wycofana ze sprzedaży: znika z katalogu i z pliku urzędowego, a jej ceny zostają wycofane dzisiejszą datą. Historia zostaje; ofertę można przywrócić.',
        'An offer taken off sale: it leaves the catalog and the official file and its prices are withdrawn today. The history stays; the offer can be restored.',
      ),
    ),
    message,
    h('div', { class: 'actions' }, button),
  )
  button.addEventListener('click', async () => {
    const reason = h('input', { id: 'archive-reason', maxlength: 500, autocomplete: 'off' })
    const ok = await confirmDialog({
      title: tr(`Zarchiwizować ofertę ${offer.prop_no}?`, `Archive offer ${offer.prop_no}?`),
      body: [
        tr(
          'Oferta zniknie z katalogu i z następnego pliku urzędowego; jej ceny zostaną wycofane dzisiejszą datą.',
          'The offer leaves the catalog and the next official file; its prices are withdrawn today.',
        ),
        formField({ label: tr('Powód (opcjonalnie)', 'Reason (optional)'), input: reason }),
      ],
      okLabel: tr('Archiwizuj', 'Archive'),
      danger: true,
    })
    if (!ok) return
    await sendVersioned({
      api: view.api,
      method: 'POST',
      path: `${view.path}/archive`,
      body: reason.value.trim() ? { reason: reason.value.trim() } : {},
      version: view.offer.version,
      before: view.offer,
      watch: WATCHED,
      form,
      message,
      button,
      onSaved: view.saved(tr('Zarchiwizowano ofertę.', 'The offer is archived.')),
      onCurrent: view.draw,
    })
  })
  return card(tr('Archiwizacja', 'Archiving'), form)
}
