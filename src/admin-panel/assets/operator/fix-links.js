// Where each of the dashboard's warnings is fixed: a publication's issue by its code (a missing price
// → that offer's edit view, a missing dataset page → the developer's settings, the licence → the
// licence view), an alert by its cause. Each answer is [{ href, label }], empty when the warning
// names no place (the text says what to do).
import { h } from '../dom.js'
import { tr } from '../i18n.js'

const MAX_NAMED = 5

const SETTINGS_PUBLICATION = () => ({
  href: '#/ustawienia/publikacja',
  label: tr('Ustawienia publikacji', 'Publication settings'),
})
const LICENCE = () => ({ href: '#/licencja', label: tr('Licencja', 'Licence') })
const PUBLICATION = () => ({ href: '#/publikacja', label: tr('Publikacja', 'Publication') })

/** The offers an issue names, each to its edit view (by id, else found by its designation). */
function offerLinks(details) {
  const offers = Array.isArray(details?.offers) ? details.offers : []
  const units = Array.isArray(details?.units) ? details.units : []
  const named = offers.length > 0 ? offers : units
  const links = named
    .slice(0, MAX_NAMED)
    .map((offer) =>
      offer.id
        ? { href: `#/oferty/${offer.id}`, label: offer.code || offer.title || `#${offer.id}` }
        : { href: `#/oferty?search=${encodeURIComponent(offer.code)}`, label: offer.code },
    )
  if (named.length > MAX_NAMED) links.push({ href: '#/oferty', label: tr('Wszystkie oferty', 'All offers') })
  return links.length > 0 ? links : [{ href: '#/oferty', label: tr('Oferty', 'Offers') }]
}

function investmentLinks(details) {
  const investments = Array.isArray(details?.investments) ? details.investments : []
  const links = investments.slice(0, MAX_NAMED).map((investment) => ({
    href: `#/ustawienia/lokalizacje?inwestycja=${investment.id}`,
    label: investment.title || `#${investment.id}`,
  }))
  return links.length > 0
    ? links
    : [{ href: '#/ustawienia/lokalizacje', label: tr('Lokalizacje inwestycji', 'Investment locations') }]
}

function developerLink(details) {
  const id = details?.developer_id
  return {
    href: id ? `#/ustawienia/deweloper?deweloper=${id}` : '#/ustawienia/deweloper',
    label: tr('Dane dewelopera', 'Developer data'),
  }
}

/** Where a publication issue (a failure's or a warning's) is fixed. */
export function issueFixLinks(issue) {
  const code = issue?.code ?? ''
  const details = issue?.details
  if (/^(offer_|offers_|price_combined_)/.test(code)) return offerLinks(details)
  if (/^investment_/.test(code)) return investmentLinks(details)
  if (code === 'dataset_url_missing' || /^developer_/.test(code) || /^dev_/.test(code)) return [developerLink(details)]
  if (/^public_(base_)?url/.test(code) || code === 'published_statuses_incomplete') return [SETTINGS_PUBLICATION()]
  if (/licen[cs]e|pro_feature|api_webhooks/.test(code)) return [LICENCE()]
  if (/^(publication_days_missed|report_)/.test(code))
    return [{ href: '#/raport', label: tr('Import raportu', 'Report import') }]
  if (/^(delivery_|portal_|csv_|xml_|audit_)/.test(code)) return [PUBLICATION()]
  return []
}

const ALERT_PLACES = {
  publication_failed: PUBLICATION,
  missed_days: () => ({ href: '#/raport', label: tr('Import raportu', 'Report import') }),
  delivery_failed: () => ({ href: '#/historia', label: tr('Sprawdzenie udostępniania', 'Delivery check') }),
  row_drop: () => ({ href: '#/oferty', label: tr('Oferty', 'Offers') }),
  license_continuity: LICENCE,
  publication_gaps: () => ({ href: '#/oferty', label: tr('Oferty', 'Offers') }),
  source_held: () => ({ href: '#/zrodla', label: tr('Źródła ofert', 'Offer sources') }),
  source_failed: () => ({ href: '#/zrodla', label: tr('Źródła ofert', 'Offer sources') }),
  source_stale: () => ({ href: '#/zrodla', label: tr('Źródła ofert', 'Offer sources') }),
  publication_audit: () => ({ href: '#/audyt-publikacji', label: tr('Audyt publikacji', 'Publication audit') }),
  test: () => ({ href: '#/alerty', label: tr('Alerty', 'Alerts') }),
}

/** Where an alert's cause is fixed. */
export function alertFixLinks(alert) {
  const place = ALERT_PLACES[alert?.cause]
  return place ? [place()] : []
}

/** "Popraw: A1 · A2" — the links after a warning's text; null when there is none. */
export function fixLinks(links) {
  if (links.length === 0) return null
  return h(
    'span',
    { class: 'fix-links' },
    tr('Popraw: ', 'Fix: '),
    links.flatMap((link, index) => [
      index > 0 ? ' · ' : null,
      h('a', { href: link.href, class: 'fix-link', dataset: { fix: link.href } }, link.label),
    ]),
  )
}
