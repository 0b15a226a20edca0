// What every card of the offer editor (editor/view-offer-edit.js) shares: the offer as the editor
// API answers it (GET {base}/offers/{id}), the page the cards draw into, and the fields a stale
// edit compares.

/**
 * @typedef {object} PriceInForce the price in force today and the next one announced after today
 * @property {string | null} amount
 * @property {string | null} from
 * @property {boolean} announced
 * @property {{ amount: string | null, from: string } | null} next
 */

/**
 * @typedef {PriceInForce & {
 *   source: 'package' | 'derived' | 'none',
 *   held_package: { amount: string | null, from: string | null } | null,
 * }} CombinedPriceInForce column 42 in force today, and where it comes from
 */

/**
 * @typedef {object} OfferComponent a part, room or right sold with a flat or a house
 * @property {number} id
 * @property {string | null} kind parking_space, garage, storage_room, other_room; null when named by kind_label
 * @property {string} group
 * @property {string} kind_label
 * @property {string | null} designation
 * @property {string | null} description
 * @property {string | null} price decimal text, e.g. "45000.00"
 * @property {string | null} price_from
 * @property {string | null} relation
 * @property {string | null} requirement
 * @property {string | null} variant
 * @property {string | null} legal_title
 * @property {number} position
 */

/**
 * @typedef {object} EditorOffer an offer as the editor shows it, in any host status
 * @property {number} id
 * @property {number} investment_id
 * @property {string} investment_title
 * @property {string | null} source_investment_id
 * @property {string | null} source_property_id
 * @property {string} offer_kind property or standalone_part
 * @property {string} prop_type empty for an offer without a type
 * @property {boolean} qualified
 * @property {string} prop_no
 * @property {string} title
 * @property {string} property_status
 * @property {string} host_status
 * @property {string | null} prop_area
 * @property {number | null} prop_rooms
 * @property {number | null} prop_floor
 * @property {string | null} building
 * @property {string | null} variant
 * @property {string | null} price_total
 * @property {string | null} price_total_from
 * @property {string | null} price_m2
 * @property {string | null} price_m2_from
 * @property {string | null} price_combined
 * @property {string | null} price_combined_from
 * @property {string | null} price_combined_variant
 * @property {string | null} price_combined_status
 * @property {Record<string, unknown>} custom_meta
 * @property {number | null} thumbnail_id
 * @property {number[]} gallery
 * @property {OfferComponent[]} components
 * @property {{
 *   day: string,
 *   price_total: PriceInForce,
 *   price_m2: PriceInForce,
 *   price_combined: CombinedPriceInForce,
 *   components: (PriceInForce & { id: number })[],
 * }} [in_force] the prices in force today, as the official file, the catalog and the website show them
 * @property {string} created_at
 * @property {string} modified_at
 * @property {string} version the ETag to send back with a change
 */

/**
 * @typedef {object} OfferEditView the editor's page, shared by its cards
 * @property {import('../api.js').Api} api
 * @property {AbortSignal} signal
 * @property {string} path `/offers/{id}`
 * @property {EditorOffer} offer the offer as stored now, replaced by every draw (read it again after an await)
 * @property {{ key: string, type: string, label: string, description: string }[]} customFields the custom fields of offers (GET {base}/custom-fields)
 * @property {HTMLElement} componentSlot where the components card is drawn
 * @property {HTMLElement} historySlot where the price history is drawn
 * @property {(current: EditorOffer) => void} draw draws every card from the offer as stored now
 * @property {(text: string) => (updated: EditorOffer) => void} saved draws a saved offer and says so
 */

export const PRICES = ['price_total', 'price_m2', 'price_combined']

/** Fields a stale edit compares between the offer as shown and as stored now. */
export const WATCHED = [
  'prop_no',
  'title',
  'prop_type',
  'property_status',
  'host_status',
  'prop_area',
  'prop_rooms',
  'prop_floor',
  'building',
  'variant',
  ...PRICES,
]
