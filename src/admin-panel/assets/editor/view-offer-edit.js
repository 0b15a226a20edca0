// One offer in the editor: GET {base}/offers/{id} and every change through PATCH {base}/offers/{id}
// (its data, a price change with its date, reason and correction flag, its type when an import
// sent none), archive and restore, its components (POST/PATCH/DELETE …/components) and its price
// history (GET …/price-history). Each write names the version shown (If-Match), so a change made
// meanwhile is shown to the operator instead of being overwritten. Each card is a module of
// offer-edit/; this view loads the offer and draws them again from every answer.
import { formatArea, h, replaceChildren } from '../dom.js'
import { hostStatusBadge, offerStatusBadge, propertyTypeLabel } from './editor-labels.js'
import { mediaCard } from './editor-media.js'
import { tr } from '../i18n.js'
import { alertBox, toast } from '../ui.js'
import { componentsCard } from '../offer-edit/components-card.js'
import { dataCard } from '../offer-edit/data-card.js'
import { detailsCard } from '../offer-edit/details-card.js'
import { drawHistory } from '../offer-edit/history-card.js'
import { lifecycleCard } from '../offer-edit/lifecycle-card.js'
import { priceCard } from '../offer-edit/price-card.js'
import { qualifyCard } from '../offer-edit/qualify-card.js'

/** @typedef {import('../offer-edit/offer-fields.js').EditorOffer} EditorOffer */

/**
 * @param {HTMLElement} page
 * @param {{ api: import('../api.js').Api, signal: AbortSignal, id: number }} context
 */
export async function renderOfferEditor(page, { api, signal, id }) {
  if (!Number.isSafeInteger(id) || id < 1) {
    page.append(alertBox('error', tr('Nieprawidłowy adres oferty.', 'Invalid offer address.')))
    return
  }
  /** @type {EditorOffer} */
  const offer = (await api.get(`/offers/${id}`, { signal })).body
  const customFields = (await api.get('/custom-fields', { signal })).body.dg_property

  const header = h('div', { class: 'page-header' })
  const qualifySlot = h('div')
  const dataSlot = h('div')
  const priceSlot = h('div')
  const historySlot = h('div')
  const componentSlot = h('div', { id: 'components-card' })
  /** @type {import('../offer-edit/offer-fields.js').OfferEditView} */
  const view = {
    api,
    signal,
    path: `/offers/${id}`,
    offer,
    customFields,
    componentSlot,
    historySlot,
    draw,
    saved: (text) => (updated) => {
      draw(updated)
      toast(text)
    },
  }
  // one media card for the page: uploads in progress and their refusals stay while the page is drawn again
  const media = mediaCard({
    api,
    signal,
    owner: 'offers',
    entity: offer,
    onSaved: (saved) => draw(saved),
    onCurrent: (current) => draw(current),
  })
  const mediaSlot = h('div', { id: 'media-card' }, media.element)
  const lifecycleSlot = h('div')
  const detailsSlot = h('div')
  page.append(
    header,
    qualifySlot,
    h('div', { class: 'grid editor-grid' }, dataSlot, priceSlot),
    componentSlot,
    historySlot,
    mediaSlot,
    h('div', { class: 'grid' }, lifecycleSlot, detailsSlot),
  )

  /**
   * Draws every part from the offer as stored now (after a load, a save or a conflict).
   *
   * @param {EditorOffer} current
   */
  function draw(current) {
    view.offer = current
    document.title = `${current.prop_no} — ${tr('panel operatora', 'operator panel')}`
    replaceChildren(header, pageHeader(current))
    replaceChildren(qualifySlot, current.qualified ? null : qualifyCard(view))
    replaceChildren(dataSlot, dataCard(view))
    replaceChildren(priceSlot, priceCard(view))
    replaceChildren(componentSlot, componentsCard(view))
    media.update(current)
    replaceChildren(lifecycleSlot, lifecycleCard(view))
    replaceChildren(detailsSlot, detailsCard(current))
    void drawHistory(view)
  }

  draw(offer)
}

/** @param {EditorOffer} offer */
function pageHeader(offer) {
  return [
    h(
      'div',
      { class: 'stack-tight' },
      h('a', { href: '#/oferty', class: 'back-link' }, tr('← Wszystkie oferty', '← All offers')),
      h('h1', { id: 'offer-heading' }, offer.title),
      h(
        'p',
        { class: 'muted header-facts' },
        `${tr('Oznaczenie', 'Designation')} `,
        h('strong', {}, offer.prop_no),
        ` · ${tr('Inwestycja', 'Investment')} `,
        h('a', { href: `#/inwestycje/${offer.investment_id}` }, offer.investment_title),
        offer.prop_area ? ` · ${formatArea(offer.prop_area)}` : null,
      ),
    ),
    h(
      'div',
      { class: 'row badges' },
      offer.qualified
        ? h('span', { class: 'badge badge-neutral' }, propertyTypeLabel(offer.prop_type))
        : h('span', { class: 'badge badge-warn', dataset: { unqualified: '' } }, tr('bez rodzaju', 'without type')),
      offerStatusBadge(offer.property_status, offer.prop_type),
      hostStatusBadge(offer.host_status),
    ),
  ]
}
