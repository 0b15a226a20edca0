// The offer's identifiers, kind, dates and version, for the operator who reports a problem.
import { facts, formatWhen, mono } from '../dom.js'
import { tr } from '../i18n.js'
import { fieldLabel } from '../editor/editor-labels.js'
import { card } from '../ui.js'

/** @param {import('./offer-fields.js').EditorOffer} offer */
export function detailsCard(offer) {
  return card(
    tr('Szczegóły techniczne', 'Technical details'),
    facts([
      [tr('Identyfikator oferty', 'Offer id'), mono(String(offer.id))],
      [fieldLabel('source_property_id'), offer.source_property_id ? mono(offer.source_property_id) : '—'],
      [
        tr('Identyfikator inwestycji (źródło)', 'Investment id (source)'),
        offer.source_investment_id ? mono(offer.source_investment_id) : '—',
      ],
      [
        tr('Rodzaj oferty', 'Kind of offer'),
        offer.offer_kind === 'standalone_part'
          ? tr('część sprzedawana osobno', 'part sold on its own')
          : tr('lokal lub dom', 'flat or house'),
      ],
      [tr('Utworzono', 'Created'), formatWhen(offer.created_at)],
      [tr('Zmieniono', 'Changed'), formatWhen(offer.modified_at)],
      [tr('Wersja', 'Version'), mono(offer.version)],
    ]),
  )
}
