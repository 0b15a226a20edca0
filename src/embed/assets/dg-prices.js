/*
 * dg-prices.js: the developer's offer prices on any website (art. 19a of the developer act), as
 * custom elements reading the service's public price endpoint:
 *   <dg-offer-table investment="3">, <dg-offer-card investment="3" unit="A/1.01">,
 *   <dg-price-history investment="3" unit="A/1.01">.
 * A classic script served as written (no build step), so what the developer's page runs is this file.
 * It works under a strict Content-Security-Policy of the host page: no inline style or script, only
 * constructed style sheets (adoptedStyleSheets) and DOM calls, never innerHTML. It reads and sets no
 * cookies and sends no credentials; the only request is the price endpoint.
 */
;(() => {
  'use strict'
  if (customElements.get('dg-offer-table')) return

  const script = /** @type {HTMLScriptElement | null} */ (document.currentScript)
  // the script's own address, …/wp-json/dg/v2/embed/{version}/dg-prices.js, names the service
  const scriptSrc = script && script.src ? script.src : ''
  const defaultService = scriptSrc.includes('/embed/') ? scriptSrc.slice(0, scriptSrc.lastIndexOf('/embed/')) : ''
  const NBSP = '\u00a0'

  /** Every phrase as [Polish, English]; the lists of kinds and statuses follow for each language. */
  const WORDS = {
    loading: ['Wczytywanie cen…', 'Loading prices…'],
    unavailable: ['Ceny nie są teraz dostępne.', 'Prices are not available right now.'],
    unitMissing: ['Tego lokalu nie ma teraz w ofercie.', 'This unit is not on offer right now.'],
    caption: [(inv) => `Ceny lokali: ${inv}`, (inv) => `Unit prices: ${inv}`],
    unit: ['Lokal', 'Unit'],
    kind: ['Rodzaj', 'Type'],
    area: ['Powierzchnia', 'Area'],
    rooms: ['Pokoje', 'Rooms'],
    floor: ['Piętro', 'Floor'],
    status: ['Status', 'Status'],
    priceM2: ['Cena za m²', 'Price per m²'],
    priceTotal: ['Cena całkowita', 'Total price'],
    priceCombined: ['Cena z elementami dodatkowymi', 'Price with additional parts'],
    withParts: ['z częściami', 'with parts'],
    parts: ['Części i inne opłaty', 'Parts and other payments'],
    history: ['Historia cen', 'Price history'],
    partsHistory: ['Historia cen części i pomieszczeń', 'Price history of the parts and rooms'],
    part: ['Część', 'Part'],
    price: ['Cena', 'Price'],
    historyShort: ['Historia', 'History'],
    historyOf: [(d) => `Historia cen lokalu ${d}`, (d) => `Price history of unit ${d}`],
    historyButton: [(d) => `Historia cen lokalu ${d}`, (d) => `Price history of unit ${d}`],
    close: ['Zamknij', 'Close'],
    validFrom: ['Obowiązuje od', 'In force from'],
    since: ['od', 'from'],
    filters: ['Filtry', 'Filters'],
    any: ['Wszystkie', 'All'],
    kindFilter: ['Rodzaj', 'Type'],
    roomsFilter: ['Liczba pokoi', 'Rooms'],
    statusFilter: ['Status', 'Status'],
    floorFilter: ['Piętro', 'Floor'],
    areaFrom: ['Powierzchnia od (m²)', 'Area from (m²)'],
    areaTo: ['Powierzchnia do (m²)', 'Area to (m²)'],
    priceFrom: ['Cena od (zł)', 'Price from (PLN)'],
    priceTo: ['Cena do (zł)', 'Price to (PLN)'],
    clear: ['Wyczyść filtry', 'Clear filters'],
    ground: ['parter', 'ground'],
    count: [
      (shown, all) => `Pokazano ${shown} z ${all} ${plural('pl', all, ['lokalu', 'lokali', 'lokali', 'lokalu'])}.`,
      (shown, all) => `Showing ${shown} of ${all} ${plural('en', all, ['unit', 'units'])}.`,
    ],
    none: ['Żaden lokal nie spełnia wybranych warunków.', 'No unit matches the chosen conditions.'],
    listed: [
      (n) => ` Na liście ${plural('pl', n, ['pierwszy', 'pierwsze', 'pierwszych', 'pierwszych'])} ${n}.`,
      (n) => ` The first ${n} are listed.`,
    ],
    more: [
      (n) =>
        `Pokaż ${plural('pl', n, ['kolejny', 'kolejne', 'kolejnych', 'kolejnego'])} ${n} ${plural('pl', n, ['lokal', 'lokale', 'lokali', 'lokalu'])}`,
      (n) => `Show ${n} more ${plural('en', n, ['unit', 'units'])}`,
    ],
    roomsCount: [
      (n) => `${n} ${plural('pl', n, ['pokój', 'pokoje', 'pokoi', 'pokoju'])}`,
      (n) => `${n} ${plural('en', n, ['room', 'rooms'])}`,
    ],
    noPrice: ['brak ceny', 'no price'],
    chart: [
      (first, last, n) =>
        `Wykres ceny całkowitej: ${n} ${plural('pl', n, ['zmiana', 'zmiany', 'zmian', 'zmiany'])}, od ${first} do ${last}.`,
      (first, last, n) =>
        `Chart of the total price: ${n} ${plural('en', n, ['change', 'changes'])}, from ${first} to ${last}.`,
    ],
    chartEmpty: ['Brak cen do pokazania na wykresie.', 'No prices to chart.'],
    pricesOn: [(day) => `Ceny obowiązujące w dniu ${day}.`, (day) => `Prices in force on ${day}.`],
    sortBy: [(col) => `Sortuj według: ${col}`, (col) => `Sort by: ${col}`],
  }
  const wordsIn = (index) => Object.fromEntries(Object.entries(WORDS).map(([key, pair]) => [key, pair[index]]))
  /** @type {Record<'pl' | 'en', Record<string, any>>} */
  const TEXT = {
    pl: {
      ...wordsIn(0),
      kinds: {
        flat: 'Mieszkanie',
        house: 'Dom',
        parking_space: 'Miejsce postojowe',
        garage: 'Garaż',
        storage_room: 'Komórka lokatorska',
        other: 'Inna część nieruchomości',
      },
      statuses: { available: 'Dostępny', reserved: 'Zarezerwowany' },
      partKinds: {
        parking_space: 'Miejsce postojowe',
        garage: 'Garaż',
        storage_room: 'Komórka lokatorska',
        other_room: 'Pomieszczenie przynależne',
      },
    },
    en: {
      ...wordsIn(1),
      kinds: {
        flat: 'Flat',
        house: 'House',
        parking_space: 'Parking space',
        garage: 'Garage',
        storage_room: 'Storage room',
        other: 'Other part of the property',
      },
      statuses: { available: 'Available', reserved: 'Reserved' },
      partKinds: {
        parking_space: 'Parking space',
        garage: 'Garage',
        storage_room: 'Storage room',
        other_room: 'Adjoining room',
        part: 'Part of the property',
        appurtenant_room: 'Adjoining room',
        right: 'Right',
      },
    },
  }

  /** forms: Polish [one, few, many, other], English [one, other] (Intl.PluralRules categories). */
  function plural(lang, n, forms) {
    const category = new Intl.PluralRules(lang === 'en' ? 'en' : 'pl').select(n)
    if (lang === 'en') return category === 'one' ? forms[0] : forms[1]
    return forms[['one', 'few', 'many', 'other'].indexOf(category)] || forms[2]
  }

  /*
   * Amounts arrive as decimal strings with two places and are formatted from the digits, so no
   * rounding through floating point and no dependence on the browser's locale data:
   * "651600.00" → "651 600,00 zł" (Polish groups from five digits on) or "PLN 651,600.00".
   */
  function money(amount, lang) {
    if (amount === null || amount === undefined) return null
    const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(amount))
    if (!match) return String(amount)
    const [, sign, whole, fraction = ''] = match
    const cents = fraction.padEnd(2, '0')
    const group = (separator) => whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator)
    if (lang === 'en') return `${sign}PLN${NBSP}${group(',')}.${cents}`
    return `${sign}${whole.length > 4 ? group(NBSP) : whole},${cents}${NBSP}zł`
  }

  function number(value, lang) {
    return lang === 'en' ? String(value) : String(value).replace('.', ',')
  }

  /** "2026-11-01" → "01.11.2026" (Polish) or "1 Nov 2026". */
  function date(iso, lang) {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso || '')
    if (!match) return iso || ''
    if (lang !== 'en') return `${match[3]}.${match[2]}.${match[1]}`
    return new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(new Date(`${iso}T00:00:00Z`))
  }

  /** A DOM element with properties/attributes and children; no markup strings anywhere. */
  function h(tag, props, ...children) {
    const node = document.createElement(tag)
    if (props)
      for (const [key, value] of Object.entries(props)) {
        if (value === null || value === undefined || value === false) continue
        if (key === 'text') node.textContent = value
        else if (key.startsWith('on')) node.addEventListener(key.slice(2), value)
        else node.setAttribute(key, value === true ? '' : value)
      }
    for (const child of children.flat(Infinity))
      if (child !== null && child !== undefined && child !== false) node.append(child)
    return node
  }

  const SVG_NS = 'http://www.w3.org/2000/svg'
  function s(tag, attributes, ...children) {
    const node = document.createElementNS(SVG_NS, tag)
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, String(value))
    for (const child of children) node.append(child)
    return node
  }

  const SHEET_TEXT = `
:host { display: block; container-type: inline-size; font: var(--dg-font, inherit); font-size: var(--dg-font-size, 1rem);
  color: var(--dg-color, inherit); --_accent: var(--dg-accent, #1d4ed8); --_border: var(--dg-border, #d4d4d8);
  --_muted: var(--dg-muted, #52525b); --_bg: var(--dg-background, transparent); --_radius: var(--dg-radius, 6px); }
/* a button in the flow of text; sized by its content, so no size container */
:host(dg-price-history) { display: inline-block; container-type: normal; }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
.box { background: var(--_bg); }
.message { margin: .5em 0; padding: .75em 1em; border: 1px solid var(--_border); border-radius: var(--_radius); color: var(--_muted); }
button { font: inherit; cursor: pointer; border-radius: var(--_radius); }
button:focus-visible, input:focus-visible, select:focus-visible, .scroll:focus-visible {
  outline: 3px solid var(--dg-focus, #f59e0b); outline-offset: 2px; }
.action { white-space: nowrap; color: var(--dg-button-color, #fff); background: var(--dg-button-background, var(--_accent));
  border: 1px solid var(--dg-button-background, var(--_accent)); padding: .35em .75em; }
.action:hover { filter: brightness(1.1); }
.filters { display: flex; flex-wrap: wrap; gap: .5em 1em; align-items: flex-end; margin: 0 0 .75em; padding: .75em;
  border: 1px solid var(--_border); border-radius: var(--_radius); }
.filters legend { font-weight: 600; padding: 0 .25em; }
.field { display: flex; flex-direction: column; gap: .2em; font-size: .875em; color: var(--_muted); }
.field input, .field select { font: inherit; font-size: 1rem; color: var(--dg-color, inherit); padding: .3em .4em;
  border: 1px solid var(--_border); border-radius: var(--_radius); background: var(--dg-input-background, #fff); min-width: 7em; }
.field input { width: 8em; }
.reset { background: transparent; color: var(--_accent); border: 1px solid var(--_border); padding: .35em .75em; }
.count { margin: 0 0 .5em; color: var(--_muted); }
.more { display: block; margin: .75em auto 0; }
.more[hidden] { display: none; }
.scroll { overflow-x: auto; position: relative; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: start; font-weight: 600; font-size: 1.1em; padding: 0 0 .5em; }
th, td { padding: .45em .6em; border-bottom: 1px solid var(--_border); text-align: start; vertical-align: top; }
thead th { background: var(--dg-header-background, transparent); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: end; white-space: nowrap; }
th .sort { all: unset; cursor: pointer; font-weight: 600; display: inline-flex; gap: .3em; align-items: center; border-radius: var(--_radius); }
th .sort:focus-visible { outline: 3px solid var(--dg-focus, #f59e0b); outline-offset: 2px; }
th .arrow { color: var(--_muted); min-width: 1ch; }
tbody tr:hover { background: var(--dg-row-hover, rgba(0, 0, 0, .03)); }
.badge { display: inline-block; padding: .1em .5em; border-radius: 999px; font-size: .85em; white-space: nowrap; }
.available { background: var(--dg-available-background, #dcfce7); color: var(--dg-available-color, #14532d); }
.reserved { background: var(--dg-reserved-background, #fef3c7); color: var(--dg-reserved-color, #713f12); }
.since { display: block; color: var(--_muted); font-size: .8rem; font-weight: normal; }
ul.extras { margin: 0; padding: 0; list-style: none; font-size: .9em; }
ul.extras li + li { margin-top: .2em; }
.muted { color: var(--_muted); }
.card { border: 1px solid var(--_border); border-radius: var(--_radius); padding: 1em; background: var(--_bg); }
.card h3 { margin: 0 0 .5em; font-size: 1.25em; }
.card dl { display: grid; grid-template-columns: max-content 1fr; gap: .3em 1em; margin: 0 0 .75em; }
.card dt { color: var(--_muted); }
.card dd { margin: 0; }
.card .total { font-size: 1.3em; font-weight: 700; }
dialog { border: 1px solid var(--_border); border-radius: var(--_radius); padding: 0; max-width: min(40rem, calc(100vw - 2rem));
  width: 100%; color: var(--dg-dialog-color, #18181b); background: var(--dg-dialog-background, #fff); }
dialog::backdrop { background: rgba(0, 0, 0, .45); }
.dialog-head { display: flex; justify-content: space-between; align-items: center; gap: 1em; padding: .75em 1em;
  border-bottom: 1px solid var(--_border); }
.dialog-head h2 { margin: 0; font-size: 1.15em; }
.dialog-body { padding: 1em; }
.close { background: transparent; border: 1px solid var(--_border); color: inherit; padding: .3em .7em; }
svg.chart { display: block; width: 100%; height: auto; margin: 0 0 1em; overflow: visible; }
.chart .axis { stroke: var(--_border); stroke-width: 1; }
.chart .line { fill: none; stroke: var(--dg-chart-color, var(--_accent)); stroke-width: 2.5; }
.chart .dot { fill: var(--dg-chart-color, var(--_accent)); }
.chart text { fill: var(--_muted); font-size: 11px; font-family: inherit; }
table.parts-history { margin-top: 1em; }
table.parts-history tbody th { font-weight: 600; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
@container (max-width: 640px) {
  .filters .field { flex: 1 1 8em; }
  .field input, .field select { width: 100%; min-width: 0; }
  table.offers, table.offers thead, table.offers tbody, table.offers tr, table.offers td { display: block; width: 100%; }
  /* the header row becomes a bar of sort buttons above the cards */
  table.offers thead tr { display: flex; flex-wrap: wrap; gap: .25em .75em; border: 0; padding: 0 0 .5em; margin: 0; }
  table.offers thead th { display: block; width: auto; padding: .2em 0; border: 0; background: none; }
  table.offers thead th:not([aria-sort]):not(:has(.sort)) { display: none; }
  table.offers tr { border: 1px solid var(--_border); border-radius: var(--_radius); margin: 0 0 .75em; padding: .25em 0; }
  table.offers td { display: grid; grid-template-columns: 42% 1fr; gap: .5em; border: 0; padding: .3em .75em; text-align: start; white-space: normal; }
  table.offers td::before { content: attr(data-label); color: var(--_muted); font-size: .9em; }
  table.offers td.lead { font-weight: 700; font-size: 1.1em; }
  table.offers caption { display: block; }
  .card dl { grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); }
  .card dt, .card dd, .extras li { overflow-wrap: anywhere; }
}
`
  let sheet = null
  function styles() {
    if (!sheet && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
      sheet = new CSSStyleSheet()
      sheet.replaceSync(SHEET_TEXT)
    }
    return sheet ? [sheet] : []
  }

  /*
   * One request per investment and page, shared by every element showing it. A first load leaves
   * the browser's HTTP cache to the endpoint's Cache-Control; refresh() revalidates (If-None-Match,
   * a 304 costs almost nothing) and every element showing the investment is redrawn.
   */
  const mark = (name) => {
    if (typeof performance !== 'undefined' && performance.mark) performance.mark(name)
  }

  const stores = new Map()
  function store(service, investment) {
    const key = `${service}|${investment}`
    let entry = stores.get(key)
    if (!entry) {
      entry = { promise: null, listeners: new Set(), hiddenAt: 0 }
      stores.set(key, entry)
    }
    entry.load = (revalidate) => {
      if (!entry.promise || revalidate) {
        const url = `${service}/public/investments/${encodeURIComponent(investment)}/prices`
        const request = fetch(url, {
          credentials: 'omit',
          mode: 'cors',
          referrerPolicy: 'strict-origin-when-cross-origin',
          headers: { Accept: 'application/json' },
          cache: revalidate ? 'no-cache' : 'default',
        })
          .then((response) => {
            // a refusal's body is read too, so that the connection is free for the page again
            if (!response.ok)
              return response.text().then(() => {
                throw new Error(`HTTP ${response.status}`)
              })
            return response.text()
          })
          .then((text) => {
            // marks for the page's own measurements (and the benchmark): data here, drawn in show()
            mark('dg-prices:data')
            return JSON.parse(text)
          })
        const previous = entry.promise
        entry.promise = request
        // a revalidation redraws every element of the investment; one that fails (a network blip)
        // leaves the prices shown and the last good answer in place
        if (previous)
          request.then(
            (data) => entry.listeners.forEach((listener) => listener(data, null)),
            () => {
              if (entry.promise === request) entry.promise = previous
              entry.listeners.forEach((listener) => listener(null, new Error('revalidation failed'), true))
            },
          )
      }
      return entry.promise
    }
    return entry
  }

  // a page left open in a background tab revalidates when it is looked at again, after a minute
  document.addEventListener('visibilitychange', () => {
    const now = Date.now()
    for (const entry of stores.values()) {
      if (document.visibilityState === 'hidden') entry.hiddenAt = now
      else if (entry.hiddenAt && now - entry.hiddenAt > 60_000 && entry.promise) entry.load(true)
    }
  })

  class PriceElement extends HTMLElement {
    static get observedAttributes() {
      return ['investment', 'unit', 'lang', 'service', 'page-size']
    }

    constructor() {
      super()
      this.root = this.attachShadow({ mode: 'open' })
      this.root.adoptedStyleSheets = styles()
      this.data = null
      this.listener = (data, error, revalidation) => {
        if (!(revalidation && this.data)) this.show(data, error)
      }
    }

    get language() {
      return (this.getAttribute('lang') || 'pl').toLowerCase().startsWith('en') ? 'en' : 'pl'
    }

    get t() {
      return TEXT[this.language]
    }

    connectedCallback() {
      this.start()
    }

    disconnectedCallback() {
      if (this.entry) this.entry.listeners.delete(this.listener)
    }

    attributeChangedCallback(_name, before, after) {
      if (before !== after && this.isConnected) this.start()
    }

    /** Fetches the prices again, revalidating the browser's copy; resolves when redrawn. */
    async refresh() {
      if (!this.entry) return this.start()
      // the store's listeners redraw this element and every other one showing the investment
      await this.entry.load(true).catch(() => undefined)
    }

    async start() {
      const investment = (this.getAttribute('investment') || '').trim()
      const service = (this.getAttribute('service') || defaultService).replace(/\/+$/, '')
      if (this.entry) this.entry.listeners.delete(this.listener)
      this.entry = null
      if (!/^[1-9]\d{0,9}$/.test(investment) || !service) return this.show(null, new Error('bad attributes'))
      this.message(this.t.loading, true)
      const entry = store(service, investment)
      this.entry = entry
      entry.listeners.add(this.listener)
      try {
        const data = await entry.load(false)
        if (this.entry === entry) this.show(data, null)
      } catch (error) {
        if (this.entry === entry) this.show(null, error)
      }
    }

    show(data, error) {
      this.removeAttribute('aria-busy')
      if (error || !data || !Array.isArray(data.units)) {
        this.data = null
        this.message(this.t.unavailable, false)
        this.dispatchEvent(new CustomEvent('dg-error', { bubbles: true, composed: true }))
        return
      }
      // each unit once, whatever the answer holds: a row, a card and a history per unit
      const seen = new Set()
      this.data = { ...data, units: data.units.filter((unit) => unit && !seen.has(unit.id) && seen.add(unit.id)) }
      this['render'](this.data) // each kind of element draws the answer its own way
      mark('dg-prices:rendered')
      this.dispatchEvent(new CustomEvent('dg-ready', { bubbles: true, composed: true }))
    }

    message(text, busy) {
      if (busy) this.setAttribute('aria-busy', 'true')
      this.root.replaceChildren(
        h('p', { class: 'message', part: busy ? 'loading' : 'unavailable', role: 'status', text }),
      )
    }

    findUnit(data) {
      const wanted = (this.getAttribute('unit') || '').trim()
      return data.units.find((u) => u.designation === wanted) || data.units.find((u) => String(u.id) === wanted) || null
    }

    /** The price history dialog of one unit, built on demand; focus returns to the opener on close. */
    openHistory(unit, opener) {
      const t = this.t
      const lang = this.language
      const titleId = 'dg-history-title'
      const close = h('button', {
        type: 'button',
        class: 'close',
        part: 'button close-button',
        autofocus: true,
        text: t.close,
      })
      const dialog = h(
        'dialog',
        { part: 'dialog', 'aria-labelledby': titleId },
        h('div', { class: 'dialog-head' }, h('h2', { id: titleId, text: t.historyOf(unit.designation) }), close),
        h(
          'div',
          { class: 'dialog-body' },
          historyChart(unit, this.data.day, t, lang),
          historyTable(unit, t, lang),
          partsHistoryTable(unit, t, lang),
        ),
      )
      close.addEventListener('click', () => dialog.close())
      // a click on the backdrop (outside the dialog's box) closes it too
      dialog.addEventListener('click', (event) => {
        if (event.target !== dialog) return
        const box = dialog.getBoundingClientRect()
        const inside =
          event.clientX >= box.left &&
          event.clientX <= box.right &&
          event.clientY >= box.top &&
          event.clientY <= box.bottom
        if (!inside) dialog.close()
      })
      dialog.addEventListener('close', () => {
        dialog.remove()
        if (opener && opener.isConnected) opener.focus()
      })
      this.root.append(dialog)
      dialog.showModal()
      close.focus()
      return dialog
    }

    historyButton(unit, label) {
      const button = h('button', {
        type: 'button',
        class: 'action',
        part: 'button history-button',
        'aria-haspopup': 'dialog',
        text: label,
      })
      if (label !== this.t.historyButton(unit.designation))
        button.setAttribute('aria-label', this.t.historyButton(unit.designation))
      button.addEventListener('click', () => this.openHistory(unit, button))
      return button
    }
  }

  function priceCell(price, lang, t) {
    if (!price) return h('span', { class: 'muted', text: t.noPrice })
    return [
      h('span', { part: 'price', text: money(price.amount, lang) }),
      price.valid_from ? h('span', { class: 'since', text: `${t.since} ${date(price.valid_from, lang)}` }) : null,
    ]
  }

  function extrasList(unit, lang, t) {
    const items = []
    for (const part of unit.parts || [])
      items.push(h('li', null, `${partName(part, lang, t)}: `, part.price ? money(part.price.amount, lang) : t.noPrice))
    for (const payment of unit.other_payments || [])
      items.push(h('li', null, `${payment.description}: `, money(payment.amount, lang)))
    return items.length ? h('ul', { class: 'extras', part: 'extras' }, items) : h('span', { class: 'muted', text: '—' })
  }

  function statusBadge(status, t) {
    return h('span', { class: `badge ${status}`, part: `status status-${status}`, text: t.statuses[status] || status })
  }

  function floorText(floor, t) {
    if (floor === null || floor === undefined) return '—'
    return floor === 0 ? `0 (${t.ground})` : String(floor)
  }

  function historyTable(unit, t, lang) {
    const rows = (unit.history || []).map((record) =>
      h(
        'tr',
        null,
        h('th', { scope: 'row', text: date(record.valid_from, lang) }),
        h('td', { class: 'num', text: money(record.price_m2, lang) || '—' }),
        h('td', { class: 'num', text: money(record.price_total, lang) || '—' }),
      ),
    )
    return h(
      'table',
      { part: 'history-table' },
      h('caption', { text: t.history }),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col', text: t.validFrom }),
          h('th', { scope: 'col', class: 'num', text: t.priceM2 }),
          h('th', { scope: 'col', class: 'num', text: t.priceTotal }),
        ),
      ),
      h('tbody', null, rows),
    )
  }

  function partName(part, lang, t) {
    // the Polish name is the official file's (label); English names the known kinds
    const kind = (lang === 'en' ? t.partKinds[part.kind] : part.label) || part.label || t.partKinds[part.kind] || ''
    return `${kind}${part.designation ? ` ${part.designation}` : ''}`
  }

  /**
   * Each price change of the parts, rooms and rights sold with the unit, with its date (the
   * official file's columns 44–54 over the days): one row per change, the part named on its first.
   */
  function partsHistoryTable(unit, t, lang) {
    const parts = (unit.parts || []).filter((part) => (part.history || []).length)
    if (!parts.length) return null
    // one row group per part, named once in its first row
    const groups = parts.map((part) =>
      h(
        'tbody',
        null,
        part.history.map((record, index) =>
          h(
            'tr',
            null,
            index === 0
              ? h('th', { scope: 'rowgroup', rowspan: String(part.history.length), text: partName(part, lang, t) })
              : null,
            h('td', { text: date(record.valid_from, lang) }),
            h('td', { class: 'num', text: money(record.amount, lang) || '—' }),
          ),
        ),
      ),
    )
    return h(
      'table',
      { part: 'history-table parts-history-table', class: 'parts-history' },
      h('caption', { text: t.partsHistory }),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col', text: t.part }),
          h('th', { scope: 'col', text: t.validFrom }),
          h('th', { scope: 'col', class: 'num', text: t.price }),
        ),
      ),
      groups,
    )
  }

  /*
   * A step chart of the total price from its first record to the day the prices are for: a price
   * holds until the next one, so the line is flat between records and steps at each change. Drawn
   * with SVG elements (presentation attributes and classes; nothing a style-src policy blocks).
   */
  function historyChart(unit, day, t, lang) {
    const points = (unit.history || [])
      .filter((r) => r.price_total !== null && r.price_total !== undefined)
      .map((r) => ({ time: Date.parse(`${r.valid_from}T00:00:00Z`), value: Number(r.price_total), record: r }))
      .filter((p) => Number.isFinite(p.time) && Number.isFinite(p.value))
      .sort((a, b) => a.time - b.time)
    if (!points.length) return h('p', { class: 'muted', text: t.chartEmpty })
    const width = 560
    const height = 200
    const left = 92
    const right = 12
    const top = 12
    const bottom = 30
    const end = Math.max(Date.parse(`${day}T00:00:00Z`) || 0, points[points.length - 1].time)
    const start = points[0].time
    const span = Math.max(end - start, 86_400_000)
    let low = Math.min(...points.map((p) => p.value))
    let high = Math.max(...points.map((p) => p.value))
    if (high === low) {
      low -= Math.max(1, low * 0.05)
      high += Math.max(1, high * 0.05)
    }
    const x = (time) => left + ((time - start) / span) * (width - left - right)
    const y = (value) => top + (1 - (value - low) / (high - low)) * (height - top - bottom)
    let path = `M${x(points[0].time).toFixed(1)},${y(points[0].value).toFixed(1)}`
    for (let i = 1; i < points.length; i++) path += `H${x(points[i].time).toFixed(1)}V${y(points[i].value).toFixed(1)}`
    path += `H${x(end).toFixed(1)}`
    const label = (text, attributes) => s('text', attributes, document.createTextNode(text))
    const first = points[0]
    const last = points[points.length - 1]
    const description = t.chart(
      `${money(first.record.price_total, lang)} (${date(first.record.valid_from, lang)})`,
      `${money(last.record.price_total, lang)} (${date(last.record.valid_from, lang)})`,
      points.length - 1,
    )
    const svg = s(
      'svg',
      { class: 'chart', part: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': description },
      s('line', { class: 'axis', x1: left, y1: height - bottom, x2: width - right, y2: height - bottom }),
      s('line', { class: 'axis', x1: left, y1: top, x2: left, y2: height - bottom }),
      label(money(String(high.toFixed(2)), lang), { x: left - 6, y: top + 4, 'text-anchor': 'end' }),
      label(money(String(low.toFixed(2)), lang), { x: left - 6, y: height - bottom, 'text-anchor': 'end' }),
      label(date(first.record.valid_from, lang), { x: left, y: height - 10, 'text-anchor': 'start' }),
      label(date(day, lang), { x: width - right, y: height - 10, 'text-anchor': 'end' }),
      s('path', { class: 'line', d: path }),
      ...points.map((p) => s('circle', { class: 'dot', cx: x(p.time).toFixed(1), cy: y(p.value).toFixed(1), r: 3.5 })),
    )
    return svg
  }

  /** @type {{ key: string, label: string, sortable?: boolean, numeric?: boolean, value?: (unit: any) => any }[]} */
  const COLUMNS = [
    { key: 'designation', label: 't.unit', sortable: true, value: (u) => u.designation },
    { key: 'kind', label: 't.kind' },
    { key: 'area', label: 't.area', sortable: true, numeric: true, value: (u) => areaOf(u) },
    { key: 'rooms', label: 't.rooms', sortable: true, numeric: true, value: (u) => u.rooms },
    { key: 'floor', label: 't.floor', sortable: true, numeric: true, value: (u) => u.floor },
    { key: 'status', label: 't.status' },
    { key: 'price_m2', label: 't.priceM2', sortable: true, numeric: true, value: (u) => amountOf(u.price_m2) },
    { key: 'price_total', label: 't.priceTotal', sortable: true, numeric: true, value: (u) => amountOf(u.price_total) },
    { key: 'extras', label: 't.parts' },
    { key: 'history', label: 't.history' },
  ]

  function amountOf(price) {
    return price ? Number(price.amount) : null
  }

  /** A part sold on its own may have no area: it sorts last and no area filter matches it. */
  function areaOf(unit) {
    return unit.area_m2 === null || unit.area_m2 === undefined ? null : Number(unit.area_m2)
  }

  /** A flat or a house; a part sold on its own has a total only (no price per m², as in the official file). */
  function isDwelling(unit) {
    return unit.kind === 'flat' || unit.kind === 'house'
  }

  function areaText(unit, lang) {
    const area = areaOf(unit)
    return area === null ? '—' : `${number(unit.area_m2, lang)}${NBSP}m²`
  }

  const collator = new Intl.Collator('pl', { numeric: true, sensitivity: 'base' })

  function compare(a, b, column) {
    const va = column.value(a)
    const vb = column.value(b)
    // units without a value go last in both directions
    if (va === null || va === undefined) return vb === null || vb === undefined ? 0 : 1
    if (vb === null || vb === undefined) return -1
    return typeof va === 'string' ? collator.compare(va, vb) : va - vb
  }

  class OfferTable extends PriceElement {
    constructor() {
      super()
      this.sort = { key: 'designation', direction: 'ascending' }
      this.limit = 0
      this.rows = new Map()
      this.headers = new Map()
      this.filter = { kind: '', rooms: '', status: '', floor: '', areaFrom: '', areaTo: '', priceFrom: '', priceTo: '' }
    }

    render(data) {
      const t = this.t
      const lang = this.language
      const units = data.units
      const uid = `dg${Math.random().toString(36).slice(2, 8)}`
      const field = (name, label, control) =>
        h('label', { class: 'field', part: 'filter', for: `${uid}-${name}` }, label, control)
      const select = (name, options) => {
        const control = h(
          'select',
          { id: `${uid}-${name}`, name, part: 'select' },
          h('option', { value: '', text: t.any }),
          options.map(([value, text]) => h('option', { value: String(value), text })),
        )
        control.value = this.filter[name]
        return control
      }
      const input = (name, step) => {
        const control = h('input', {
          id: `${uid}-${name}`,
          name,
          type: 'number',
          min: '0',
          step,
          inputmode: 'decimal',
          part: 'input',
        })
        control.value = this.filter[name]
        return control
      }
      const distinct = (pick) =>
        [...new Set(units.map(pick).filter((v) => v !== null && v !== undefined))].sort((a, b) => a - b)
      const roomOptions = distinct((u) => u.rooms).map((n) => [n, String(n)])
      const floorOptions = distinct((u) => u.floor).map((n) => [n, floorText(n, t)])
      const kindOptions = Object.keys(t.kinds)
        .filter((kind) => units.some((u) => u.kind === kind))
        .map((kind) => [kind, t.kinds[kind]])
      const statusOptions = ['available', 'reserved']
        .filter((st) => units.some((u) => u.status === st))
        .map((st) => [st, t.statuses[st]])
      const form = h(
        'form',
        { class: 'filters', part: 'filters', role: 'search', 'aria-label': t.filters },
        // flats and parts sold on their own in one list: the kind filter when there is more than one
        kindOptions.length > 1 ? field('kind', t.kindFilter, select('kind', kindOptions)) : null,
        field('rooms', t.roomsFilter, select('rooms', roomOptions)),
        field('status', t.statusFilter, select('status', statusOptions)),
        field('floor', t.floorFilter, select('floor', floorOptions)),
        field('areaFrom', t.areaFrom, input('areaFrom', '0.01')),
        field('areaTo', t.areaTo, input('areaTo', '0.01')),
        field('priceFrom', t.priceFrom, input('priceFrom', '1000')),
        field('priceTo', t.priceTo, input('priceTo', '1000')),
        h('button', { type: 'reset', class: 'reset', part: 'button reset-button', text: t.clear }),
      )
      form.addEventListener('submit', (event) => event.preventDefault())
      form.addEventListener('input', () => {
        for (const name of Object.keys(this.filter))
          this.filter[name] = form.elements[name] ? form.elements[name].value : ''
        this.limit = this.pageSize
        this.drawRows()
      })
      form.addEventListener('reset', () => {
        for (const name of Object.keys(this.filter)) this.filter[name] = ''
        this.limit = this.pageSize
        // the form's own reset empties the controls after this event
        setTimeout(() => this.drawRows(), 0)
      })
      this.count = h('p', { class: 'count', part: 'count', role: 'status', 'aria-live': 'polite' })
      this.headers = new Map()
      const headRow = h(
        'tr',
        null,
        COLUMNS.map((column) => {
          const label = t[column.label.slice(2)]
          const th = h('th', { scope: 'col', class: column.numeric ? 'num' : null, part: 'header-cell' })
          if (column.sortable) {
            const button = h(
              'button',
              { type: 'button', class: 'sort', part: 'sort-button' },
              label,
              h('span', { class: 'arrow', 'aria-hidden': 'true' }),
            )
            button.addEventListener('click', () => {
              const direction =
                this.sort.key === column.key && this.sort.direction === 'ascending' ? 'descending' : 'ascending'
              this.sort = { key: column.key, direction }
              this.drawRows()
            })
            th.append(button)
            this.headers.set(column.key, th)
          } else if (column.key === 'history') th.append(h('span', { class: 'visually-hidden', text: label }))
          else th.textContent = label
          return th
        }),
      )
      this.body = h('tbody', { part: 'body' })
      this.rows = new Map()
      if (!this.limit || this.appliedPageSize !== this.pageSize) {
        this.limit = this.pageSize
        this.appliedPageSize = this.pageSize
      }
      this.more = h('button', { type: 'button', class: 'reset more', part: 'button more-button' })
      this.more.addEventListener('click', () => {
        this.limit += this.pageSize
        this.drawRows()
        // the button goes when every unit is listed: focus moves to the last row's button
        if (this.more.hidden) this.body.querySelector('tr:last-child button')?.focus()
      })
      const title = data.investment ? [data.investment.title, data.investment.city].filter(Boolean).join(', ') : ''
      const table = h(
        'table',
        { class: 'offers', part: 'table' },
        h(
          'caption',
          { part: 'caption' },
          t.caption(title),
          h('span', { class: 'since', text: t.pricesOn(date(data.day, lang)) }),
        ),
        h('thead', null, headRow),
        this.body,
      )
      this.root.replaceChildren(
        h(
          'div',
          { class: 'box', part: 'container' },
          form,
          this.count,
          h(
            'div',
            { class: 'scroll', part: 'scroll', tabindex: '0', role: 'region', 'aria-label': t.caption(title) },
            table,
          ),
          this.more,
        ),
      )
      this.drawRows()
    }

    /** How many rows are listed before "show more" (page-size, 50 by default; 0 lists every unit). */
    get pageSize() {
      const size = Number.parseInt(this.getAttribute('page-size') ?? '', 10)
      return Number.isFinite(size) && size >= 0 ? size || Infinity : 50
    }

    matches(unit) {
      const f = this.filter
      const num = (value) => (value === '' ? null : Number(String(value).replace(',', '.')))
      if (f.kind !== '' && unit.kind !== f.kind) return false
      if (f.rooms !== '' && String(unit.rooms) !== f.rooms) return false
      if (f.status !== '' && unit.status !== f.status) return false
      if (f.floor !== '' && String(unit.floor) !== f.floor) return false
      // a bound given leaves out a unit without the value (no area, no price)
      const within = (value, from, to) =>
        (from === null || (value !== null && value >= from)) && (to === null || (value !== null && value <= to))
      if (!within(areaOf(unit), num(f.areaFrom), num(f.areaTo))) return false
      return within(amountOf(unit.price_total), num(f.priceFrom), num(f.priceTo))
    }

    drawRows() {
      const t = this.t
      const column = /** @type {Required<(typeof COLUMNS)[number]>} */ (COLUMNS.find((c) => c.key === this.sort.key))
      const sign = this.sort.direction === 'ascending' ? 1 : -1
      const shown = this.data.units
        .filter((unit) => this.matches(unit))
        .sort((a, b) => {
          const order = compare(a, b, column)
          // missing values stay last whichever the direction
          const missing =
            column.value(a) === null ||
            column.value(a) === undefined ||
            column.value(b) === null ||
            column.value(b) === undefined
          return (missing ? order : order * sign) || collator.compare(a.designation, b.designation)
        })
      for (const [key, th] of this.headers) {
        const active = key === this.sort.key
        if (active) th.setAttribute('aria-sort', this.sort.direction)
        else th.removeAttribute('aria-sort')
        const arrow = /** @type {HTMLElement} */ (th.querySelector('.arrow'))
        arrow.textContent = active ? (this.sort.direction === 'ascending' ? '▲' : '▼') : ''
      }
      const rows = shown.slice(0, this.limit).map((unit) => this.rowOf(unit))
      if (!rows.length)
        rows.push(
          h('tr', null, h('td', { colspan: String(COLUMNS.length), class: 'muted', part: 'cell', text: t.none })),
        )
      this.body.replaceChildren(...rows)
      const listed = Math.min(shown.length, this.limit)
      this.count.textContent =
        t.count(shown.length, this.data.units.length) + (listed < shown.length ? t.listed(listed) : '')
      this.more.hidden = listed >= shown.length
      this.more.textContent = t.more(Math.min(this.pageSize, shown.length - listed))
    }

    /** A unit's row, built once per answer: sorting and filtering move rows, they do not rebuild them. */
    rowOf(unit) {
      const cached = this.rows.get(unit)
      if (cached) return cached
      const t = this.t
      const lang = this.language
      const label = (key) =>
        t[/** @type {(typeof COLUMNS)[number]} */ (COLUMNS.find((c) => c.key === key)).label.slice(2)]
      // one wrapper per cell, so the narrow layout's label and value are the two columns of its grid
      const cell = (key, content, numeric) =>
        h('td', { 'data-label': label(key), class: numeric ? 'num' : null, part: 'cell' }, h('div', null, content))
      const row = h(
        'tr',
        { part: 'row', 'data-unit': unit.designation },
        h('td', { 'data-label': label('designation'), class: 'lead', part: 'cell' }, unit.designation),
        cell('kind', t.kinds[unit.kind] || unit.kind),
        cell('area', areaText(unit, lang), true),
        cell('rooms', unit.rooms === null || unit.rooms === undefined ? '—' : String(unit.rooms), true),
        cell('floor', floorText(unit.floor, t), true),
        cell('status', statusBadge(unit.status, t)),
        cell('price_m2', isDwelling(unit) ? priceCell(unit.price_m2, lang, t) : '—', true),
        cell(
          'price_total',
          [
            priceCell(unit.price_total, lang, t),
            unit.price_combined
              ? h('span', {
                  class: 'since',
                  text: `${t.withParts}: ${money(unit.price_combined.amount, lang)}`,
                  title: t.priceCombined,
                })
              : null,
          ],
          true,
        ),
        cell('extras', extrasList(unit, lang, t)),
        cell('history', this.historyButton(unit, t.historyShort)),
      )
      this.rows.set(unit, row)
      return row
    }
  }

  class OfferCard extends PriceElement {
    render(data) {
      const t = this.t
      const lang = this.language
      const unit = this.findUnit(data)
      if (!unit) return this.message(t.unitMissing, false)
      const row = (term, ...value) => [h('dt', { text: term }), h('dd', null, ...value)]
      const details = [
        row(t.kind, t.kinds[unit.kind] || unit.kind),
        row(t.status, statusBadge(unit.status, t)),
        areaOf(unit) === null ? [] : row(t.area, areaText(unit, lang)),
        unit.rooms === null || unit.rooms === undefined ? [] : row(t.rooms, t.roomsCount(unit.rooms)),
        unit.floor === null || unit.floor === undefined ? [] : row(t.floor, floorText(unit.floor, t)),
        row(t.priceTotal, h('span', { class: 'total' }, priceCell(unit.price_total, lang, t))),
        isDwelling(unit) ? row(t.priceM2, ...[priceCell(unit.price_m2, lang, t)].flat()) : [],
        unit.price_combined ? row(t.priceCombined, ...[priceCell(unit.price_combined, lang, t)].flat()) : [],
        (unit.parts || []).length || (unit.other_payments || []).length ? row(t.parts, extrasList(unit, lang, t)) : [],
      ].flat()
      this.root.replaceChildren(
        h(
          'article',
          { class: 'card', part: 'card', 'aria-labelledby': 'dg-card-title' },
          h('h3', { id: 'dg-card-title', part: 'card-title', text: `${t.unit} ${unit.designation}` }),
          h('dl', { part: 'details' }, details),
          this.historyButton(unit, t.history),
        ),
      )
    }
  }

  class PriceHistory extends PriceElement {
    render(data) {
      const unit = this.findUnit(data)
      if (!unit) return this.message(this.t.unitMissing, false)
      this.root.replaceChildren(
        this.historyButton(unit, this.textContent.trim() || this.t.historyButton(unit.designation)),
      )
    }
  }

  customElements.define('dg-offer-table', OfferTable)
  customElements.define('dg-offer-card', OfferCard)
  customElements.define('dg-price-history', PriceHistory)
})()
