// The offer's price history (GET {base}/offers/{id}/price-history): a step chart and a table,
// newest record first.
import { formatDate, formatMoney, h, replaceChildren, todayInWarsaw } from '../dom.js'
import { tr } from '../i18n.js'
import { channelLabel, componentKindLabel, fieldLabel, recordTypeLabel } from '../editor/editor-labels.js'
import { drawPriceChart } from '../editor/price-chart.js'
import { card, errorBox } from '../ui.js'

/**
 * @typedef {object} PriceHistoryItem one record of GET {base}/offers/{id}/price-history
 * @property {string} price_type total, m2, combined or component
 * @property {number | null} [component_id]
 * @property {string} label
 * @property {string} record_type
 * @property {boolean} [correction]
 * @property {string} valid_from
 * @property {boolean} [announced]
 * @property {{ cents: number | null }} before
 * @property {{ cents: number | null }} after
 * @property {string | null} reason
 * @property {string} channel
 * @property {string} recorded_at
 */

/**
 * Draws the history into its slot once loaded; a failure is shown there, a page left meanwhile is not.
 *
 * @param {import('./offer-fields.js').OfferEditView} view
 */
export async function drawHistory(view) {
  try {
    const { body } = await view.api.get(`${view.path}/price-history`, { signal: view.signal })
    const chart = h('div', { class: 'price-chart', id: 'price-chart' })
    replaceChildren(view.historySlot, historyCard(view.offer, body.items, chart))
    // drawn once in the page, where its width is known; the table holds the same data if it fails
    await drawPriceChart(chart, body.items, todayInWarsaw()).catch(() => chart.remove())
  } catch (error) {
    if (error?.name === 'AbortError') return
    replaceChildren(view.historySlot, card(tr('Historia cen', 'Price history'), errorBox(error)))
  }
}

/**
 * @param {import('./offer-fields.js').EditorOffer} offer
 * @param {PriceHistoryItem[]} items
 * @param {HTMLElement} chart
 */
function historyCard(offer, items, chart) {
  const subject = (item) => {
    if (item.price_type !== 'component') return fieldLabel(`price_${item.price_type}`)
    const component = offer.components.find((c) => c.id === item.component_id)
    const name = component ? (component.kind ? componentKindLabel(component.kind) : component.kind_label) : null
    // the server's label names a removed component too ("Miejsce postojowe MP-1: …")
    return component ? [name, component.designation].filter(Boolean).join(' ') : item.label.replace(/:.*$/, '')
  }
  const amount = (part) => (part.cents === null ? '—' : formatMoney((part.cents / 100).toFixed(2)))
  return card(
    tr('Historia cen', 'Price history'),
    items.length === 0 ? null : chart,
    items.length === 0
      ? h('p', { class: 'muted' }, tr('Ta oferta nie ma jeszcze cen.', 'This offer has no prices yet.'))
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'table', id: 'price-history' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                [
                  tr('Obowiązuje od', 'Valid from'),
                  tr('Cena', 'Price'),
                  tr('Zapis', 'Record'),
                  tr('Było', 'Before'),
                  tr('Jest', 'After'),
                  tr('Powód', 'Reason'),
                  tr('Źródło', 'Source'),
                  tr('Zapisano', 'Recorded'),
                ].map((label) => h('th', { scope: 'col' }, label)),
              ),
            ),
            h(
              'tbody',
              {},
              // newest first: the operator looks for the change just made
              [...items]
                .reverse()
                .map((item) =>
                  h(
                    'tr',
                    { dataset: { recordType: item.record_type, priceType: item.price_type } },
                    h(
                      'td',
                      {},
                      formatDate(item.valid_from),
                      item.announced
                        ? h('span', { class: 'announced' }, ` ${tr('(zapowiedziana)', '(announced)')}`)
                        : '',
                    ),
                    h('td', {}, subject(item)),
                    h(
                      'td',
                      {},
                      recordTypeLabel(item.record_type),
                      item.correction && item.record_type !== 'correction' ? ` (${tr('korekta', 'correction')})` : '',
                    ),
                    h('td', { class: 'num' }, amount(item.before)),
                    h('td', { class: 'num' }, amount(item.after)),
                    h('td', {}, item.reason || '—'),
                    h('td', {}, channelLabel(item.channel)),
                    h('td', {}, formatDate(item.recorded_at)),
                  ),
                ),
            ),
          ),
        ),
  )
}
