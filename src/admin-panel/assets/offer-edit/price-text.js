// How the editor words a stored price beside the one in force today and the next one announced:
// the hints under the price fields, and the offer list's announced price.
import { formatDate, formatMoney } from '../dom.js'
import { tr } from '../i18n.js'

/** @typedef {import('./offer-fields.js').PriceInForce} PriceInForce */
/** @typedef {import('./offer-fields.js').CombinedPriceInForce} CombinedPriceInForce */

/**
 * "teraz 500 000,00 zł od 01.11.2026", and for an announced price also
 * "; 519 000,00 zł od 01.12.2026 (zapowiedziana)": the file, the catalog and the website show the
 * price in force until the announced one's date.
 *
 * @param {string | null | undefined} stored the stored price
 * @param {string | null | undefined} storedFrom the stored price's day
 * @param {PriceInForce | undefined} inForce
 * @returns {string}
 */
export function priceHint(stored, storedFrom, inForce) {
  if (!inForce) {
    if (stored === null || stored === undefined) return tr('brak', 'none')
    return tr(
      `teraz ${formatMoney(stored)} od ${formatDate(storedFrom)}`,
      `now ${formatMoney(stored)} since ${formatDate(storedFrom)}`,
    )
  }
  const now =
    inForce.amount === null
      ? tr('teraz brak ceny', 'no price now')
      : tr(
          `teraz ${formatMoney(inForce.amount)} od ${formatDate(inForce.from)}`,
          `now ${formatMoney(inForce.amount)} since ${formatDate(inForce.from)}`,
        )
  if (!inForce.next) return now
  return `${now}; ${announcedText(inForce.next)}`
}

/**
 * Where column 42 comes from: the sum of the unit's and its parts' prices, or the package price;
 * a package set aside because a price changed after it is named, with what to do.
 *
 * @param {CombinedPriceInForce | undefined} inForce
 * @returns {string}
 */
export function combinedSourceText(inForce) {
  if (!inForce) return ''
  const source =
    inForce.source === 'derived'
      ? tr(' (suma ceny lokalu i części)', ' (total plus the parts)')
      : inForce.source === 'package'
        ? tr(' (cena pakietowa)', ' (package price)')
        : ''
  if (!inForce.held_package) return source
  return (
    source +
    tr(
      `; cena pakietowa ${formatMoney(inForce.held_package.amount)} od ${formatDate(inForce.held_package.from)} jest wstrzymana, bo cena lokalu lub części zmieniła się później: wpisz ją ponownie albo usuń`,
      `; the package price ${formatMoney(inForce.held_package.amount)} since ${formatDate(inForce.held_package.from)} is set aside because the unit's or a part's price changed after it: enter it again or remove it`,
    )
  )
}

/**
 * "519 000,00 zł od 01.12.2026 (zapowiedziana)": the next price announced after today.
 *
 * @param {NonNullable<PriceInForce["next"]>} next
 */
export function announcedText(next) {
  return next.amount === null
    ? tr(`bez ceny od ${formatDate(next.from)} (zapowiedziane)`, `no price from ${formatDate(next.from)} (announced)`)
    : tr(
        `${formatMoney(next.amount)} od ${formatDate(next.from)} (zapowiedziana)`,
        `${formatMoney(next.amount)} from ${formatDate(next.from)} (announced)`,
      )
}
