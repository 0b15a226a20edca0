// @ts-check
/*
 * The price history as a small step chart in inline SVG, drawn on the server: no script, no
 * library, readable without CSS. It plots the total price (or, for an offer priced per m² only,
 * the price per m²) from the catalog's records; the labels are the catalog's own formatted amounts
 * and dates, so the chart says exactly what the table below it says.
 */
import { html } from './html.js'

/** @typedef {import('dg-offers/client').PriceHistoryItem} PriceHistoryItem */

const WIDTH = 640
const HEIGHT = 220
const LEFT = 120
const RIGHT = 16
const TOP = 16
const BOTTOM = 36
const DAY = 86_400_000

/** @param {string} date YYYY-MM-DD */
function dayOf(date) {
  return Date.parse(`${date}T00:00:00Z`)
}

/**
 * The records of the price shown, in date order: each is a step that lasts until the next one.
 * An announced record (valid from a day after today) is not a price the offer had: the chart
 * ends at today's price, and the table below lists the announcement as such.
 * @param {PriceHistoryItem[]} items
 */
export function chartPoints(items) {
  const ofType = (/** @type {string} */ type) =>
    items
      .filter((item) => item.price_type === type && !item.announced && /^\d{4}-\d{2}-\d{2}$/.test(item.valid_from))
      .sort((a, b) => a.valid_from.localeCompare(b.valid_from) || a.recorded_at.localeCompare(b.recorded_at))
  const total = ofType('total')
  const records = total.length > 0 ? total : ofType('m2')
  // a correction on the same day replaces the amount of that day
  /** @type {Map<string, PriceHistoryItem>} */
  const byDay = new Map()
  for (const record of records) byDay.set(record.valid_from, record)
  return {
    type: total.length > 0 ? 'total' : 'm2',
    points: [...byDay.values()].map((record) => ({
      date: record.valid_from,
      cents: record.after.cents,
      label: record.after.formatted,
    })),
  }
}

/**
 * @param {PriceHistoryItem[]} items
 * @param {string} today YYYY-MM-DD, where the last step ends
 */
export function priceChart(items, today) {
  const { type, points } = chartPoints(items)
  const priced = points.filter((p) => p.cents !== null)
  if (priced.length === 0) return ''
  const first = dayOf(points[0]?.date ?? today)
  const last = Math.max(dayOf(today), dayOf(points[points.length - 1]?.date ?? today) + 30 * DAY)
  const cents = priced.map((p) => /** @type {number} */ (p.cents))
  const low = Math.min(...cents)
  const high = Math.max(...cents)
  const pad = Math.max((high - low) * 0.15, high * 0.02, 100)
  const yMin = Math.max(0, low - pad)
  const yMax = high + pad
  const x = (/** @type {number} */ t) => LEFT + ((t - first) / Math.max(DAY, last - first)) * (WIDTH - LEFT - RIGHT)
  const y = (/** @type {number} */ c) => TOP + (1 - (c - yMin) / (yMax - yMin)) * (HEIGHT - TOP - BOTTOM)
  const round = (/** @type {number} */ n) => Math.round(n * 10) / 10

  // horizontal steps, joined by vertical lines where the price changed; a withdrawal ends a step
  const segments = []
  for (let i = 0; i < points.length; i++) {
    const point = points[i]
    if (!point || point.cents === null) continue
    const start = x(dayOf(point.date))
    const end = x(i + 1 < points.length ? dayOf(points[i + 1]?.date ?? today) : last)
    const level = y(point.cents)
    segments.push(`M${round(start)} ${round(level)}H${round(end)}`)
    const next = points[i + 1]
    if (next && next.cents !== null) segments.push(`M${round(end)} ${round(level)}V${round(y(next.cents))}`)
  }
  const lowPoint = priced.find((p) => p.cents === low)
  const highPoint = priced.find((p) => p.cents === high)
  const name = type === 'total' ? 'Cena całkowita' : 'Cena za m²'
  return html`<figure class="price-chart">
    <svg
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      role="img"
      aria-labelledby="price-chart-title"
      xmlns="http://www.w3.org/2000/svg"
    >
      <title id="price-chart-title">${name}: ${priced.map((p) => `${p.date} ${p.label}`).join('; ')}</title>
      <line class="axis" x1="${LEFT}" y1="${HEIGHT - BOTTOM}" x2="${WIDTH - RIGHT}" y2="${HEIGHT - BOTTOM}" />
      <line class="axis" x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${HEIGHT - BOTTOM}" />
      <text class="tick" x="${LEFT - 8}" y="${round(y(high)) + 4}" text-anchor="end">${highPoint?.label ?? ''}</text>
      ${low !== high
        ? html`<text class="tick" x="${LEFT - 8}" y="${round(y(low)) + 4}" text-anchor="end"
            >${lowPoint?.label ?? ''}</text
          >`
        : ''}
      <text class="tick" x="${LEFT}" y="${HEIGHT - BOTTOM + 20}" text-anchor="start">${points[0]?.date ?? ''}</text>
      <text class="tick" x="${WIDTH - RIGHT}" y="${HEIGHT - BOTTOM + 20}" text-anchor="end">${today}</text>
      <path class="line" d="${segments.join('')}" />
      ${priced.map(
        (p) =>
          html`<circle
            class="dot"
            cx="${round(x(dayOf(p.date)))}"
            cy="${round(y(/** @type {number} */ (p.cents)))}"
            r="4"
          >
            <title>${p.date}: ${p.label}</title>
          </circle>`,
      )}
    </svg>
    <figcaption>${name} w czasie (od daty obowiązywania)</figcaption>
  </figure>`
}
