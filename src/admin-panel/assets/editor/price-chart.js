// An offer's prices over time as a chart: uPlot (a small, well-kept chart library, served by the
// panel as uplot.js and uplot.css from its npm package) loaded on the first offer page, drawn from
// the same records as the history table (GET {base}/offers/{id}/price-history). Each price holds
// from its valid-from date until the next record, so the lines are steps; a withdrawn price is a gap.
import { formatDate, formatMoney, h } from '../dom.js'
import { priceTypeLabel } from './editor-labels.js'
import { locale, tr } from '../i18n.js'

const CHARTED = ['total', 'combined', 'm2']
const COLOURS = { total: '#1d4e89', m2: '#c2410c', combined: '#067647' }
const DAY = 24 * 3600 * 1000

let library = null

/** uPlot, loaded once (a script of this origin, as the CSP allows). */
function loadChartLibrary() {
  library ??= new Promise((resolve, reject) => {
    document.head.append(h('link', { rel: 'stylesheet', href: 'uplot.css' }))
    const script = h('script', { src: 'uplot.js' })
    script.addEventListener('load', () => resolve(/** @type {any} */ (window).uPlot))
    script.addEventListener('error', () => {
      library = null
      script.remove()
      reject(new Error('uplot.js could not be loaded'))
    })
    document.head.append(script)
  })
  return library
}

const dayOf = (date) => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY)
const dateOfDay = (day) => new Date(day * DAY).toISOString().slice(0, 10)

/**
 * The stepped series of the offer's own prices: for each day a record starts (and today), the
 * amount in force, null before the first price and after a withdrawal.
 * @returns {{ types: string[], days: number[], values: (number|null)[][] }}
 */
export function priceSeries(items, today) {
  // the price per m² moves with the total (total = price per m² × area), so it would only hide
  // behind it: it is drawn for an offer without a total price
  const present = CHARTED.filter((type) => items.some((item) => item.price_type === type))
  const types = present.includes('total') || present.includes('combined') ? present.filter((t) => t !== 'm2') : present
  const records = items.filter((item) => types.includes(item.price_type))
  const dated = [...new Set([...records.map((item) => dayOf(item.valid_from)), dayOf(today)])].sort((a, b) => a - b)
  // the prices in force today are drawn a little past it, so that a change made lately shows as a step
  const first = dated[0]
  const last = dated[dated.length - 1]
  const days = [...dated, last + Math.max(7, Math.round((last - first) / 12))]
  // the server lists records by valid-from date, then as written: the last one of a day holds
  const values = types.map((type) => {
    const own = records.filter((item) => item.price_type === type)
    return days.map((day) => {
      let cents = null
      for (const item of own) if (dayOf(item.valid_from) <= day) cents = item.after.cents
      return cents === null ? null : cents / 100
    })
  })
  return { types, days, values }
}

/** A scale from a little below the lowest price to a little above the highest, so no step hides on an edge. */
function padded(_u, min, max) {
  if (min === null || max === null) return [0, 1]
  const pad = max > min ? (max - min) * 0.15 : Math.max(max * 0.02, 1)
  return [Math.max(0, min - pad), max + pad]
}

function compact(value) {
  return new Intl.NumberFormat(locale(), { notation: 'compact', maximumFractionDigits: 1 }).format(value)
}

/** Draws the chart into `container` (already in the page); nothing when there is no price to show. */
export async function drawPriceChart(container, items, today) {
  const { types, days, values } = priceSeries(items, today)
  if (types.length === 0) return
  const uPlot = await loadChartLibrary()
  const money = (_u, value) => (value === null || value === undefined ? '—' : formatMoney(value.toFixed(2)))
  // uPlot asks for an axis's labels with no splits while a chart being redrawn has no size yet
  // (a language switch): a page error otherwise
  const axes = [
    {
      space: 90,
      values: (_u, splits) => (splits ?? []).map((day) => formatDate(dateOfDay(day))),
    },
    {
      scale: 'zl',
      label: types.includes('m2') ? 'zł/m²' : 'zł',
      labelSize: 20,
      size: 70,
      values: (_u, splits) => (splits ?? []).map(compact),
    },
  ]
  const options = {
    width: Math.max(container.clientWidth, 320),
    height: 260,
    scales: { x: { time: false }, zl: { range: padded } },
    // the legend shows today's prices whenever the pointer is not on another day
    hooks: {
      ready: [(chart) => chart.setLegend({ idx: days.length - 2 })],
      setLegend: [
        (chart) => {
          if (chart.legend.idx === null || chart.legend.idx === undefined) chart.setLegend({ idx: days.length - 2 })
        },
      ],
    },
    legend: { live: true },
    cursor: { points: { size: 8 } },
    series: [
      { label: tr('Dzień', 'Day'), value: (_u, day) => (day === null ? '—' : formatDate(dateOfDay(day))) },
      ...types.map((type) => ({
        label: priceTypeLabel(type),
        scale: 'zl',
        stroke: COLOURS[type],
        width: 2,
        paths: uPlot.paths.stepped({ align: 1 }),
        points: { show: true, size: 6, fill: COLOURS[type] },
        value: money,
      })),
    ],
    axes,
  }
  container.setAttribute('role', 'img')
  container.setAttribute(
    'aria-label',
    tr(
      'Wykres zmian cen w czasie; te same dane są w tabeli poniżej.',
      'Chart of the prices over time; the table below holds the same data.',
    ),
  )
  return new uPlot(options, [days, ...values], container)
}
