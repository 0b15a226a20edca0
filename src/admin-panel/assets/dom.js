// DOM helpers. Every value from the API goes in as text (textContent), never as HTML, so a
// crafted offer title or file name cannot inject markup into the panel.

/**
 * Creates an element: h('p', { class: 'muted' }, 'text', child). Attributes starting with "on"
 * take a listener; `dataset` takes an object; `false`/null/undefined attributes are left out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any> | null} [attributes]
 * @param {...any} children strings, numbers, nodes, or arrays of them; null, undefined and false are left out
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  /** @type {any} */
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === false || value === null || value === undefined) continue
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value)
    else if (name === 'dataset') Object.assign(element.dataset, value)
    else if (name === 'value') element.value = value
    else if (name === 'checked') element.checked = Boolean(value)
    else element.setAttribute(name, value === true ? '' : String(value))
  }
  append(element, children)
  return element
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue
    element.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
}

export function replaceChildren(element, ...children) {
  element.replaceChildren()
  append(element, children)
  return element
}

const WARSAW = 'Europe/Warsaw'

/** "2026-11-20 10:05:03" in Warsaw time, the legal time of the publication. */
export function formatDateTime(iso) {
  if (!iso) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return String(iso)
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('pl-PL', {
      timeZone: WARSAW,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  )
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`
}

/**
 * A moment as an operator reads it, in Warsaw time: "20.11.2026, 10:05" (or "20 Nov 2026, 10:05"
 * in English); with `seconds`, to the second.
 */
export function formatWhen(iso, { seconds = false } = {}) {
  if (!iso) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return String(iso)
  const english = document.documentElement.lang === 'en'
  return new Intl.DateTimeFormat(english ? 'en-GB' : 'pl-PL', {
    timeZone: WARSAW,
    year: 'numeric',
    month: english ? 'short' : '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
    hourCycle: 'h23',
  }).format(date)
}

/** Today's date in Warsaw (YYYY-MM-DD), the server's default publication day. */
export function todayInWarsaw(now = new Date()) {
  return new Intl.DateTimeFormat('en-CA', { timeZone: WARSAW }).format(now)
}

function warsawClock(now) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone: WARSAW, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  )
  return Number(parts.hour) * 60 + Number(parts.minute)
}

/**
 * The next run of a daily cron pattern ("30 0 * * *", optionally with seconds first), in Warsaw
 * time. Other patterns return null and the panel shows the pattern itself.
 */
export function nextDailyRun(pattern, now = new Date()) {
  const fields = String(pattern).trim().split(/\s+/)
  if (fields.length === 6) fields.shift()
  if (fields.length !== 5 || fields.slice(2).some((field) => field !== '*')) return null
  const [minute, hour] = fields.map(Number)
  if (!Number.isInteger(minute) || !Number.isInteger(hour) || minute > 59 || hour > 23) return null
  const time = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`
  const today = todayInWarsaw(now)
  if (hour * 60 + minute > warsawClock(now)) return { date: today, time }
  // noon today plus 24 h is tomorrow in Warsaw whatever the DST change
  const noon = new Date(`${today}T12:00:00Z`)
  return { date: todayInWarsaw(new Date(noon.getTime() + 24 * 3600 * 1000)), time }
}

export function formatNumber(value) {
  return typeof value === 'number' ? new Intl.NumberFormat('pl-PL').format(value) : '—'
}

/** Decimal text of the API ("650000.00") as Polish money: "650 000,00 zł" (no float on the way). */
export function formatMoney(decimal) {
  if (decimal === null || decimal === undefined || decimal === '') return '—'
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(decimal))
  if (!match) return String(decimal)
  const whole = match[2].replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0')
  return `${match[1]}${whole},${(match[3] ?? '').padEnd(2, '0').slice(0, 2)}\u00a0zł`
}

/** Decimal text of the API as an operator types it back into a form: "650000.00" → "650 000,00". */
export function moneyInputText(decimal) {
  if (decimal === null || decimal === undefined || decimal === '') return ''
  return formatMoney(decimal)
    .replace(/\u00a0zł$/, '')
    .replace(/\u00a0/g, ' ')
}

/** Typed money ("650 000", "650000,5 zł") as grosze, or null when it is no amount. */
export function moneyToCents(text) {
  const plain = String(text ?? '')
    .replace(/\s*(zł|zl|pln)\s*$/i, '')
    .replace(/[\s\u00a0\u202f]/g, '')
    .replace(',', '.')
  if (!/^\d+(\.\d{1,2})?$/.test(plain)) return null
  const [whole, fraction = ''] = plain.split('.')
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'))
}

/** An area of the API ("54.30") as "54,30 m²". */
export function formatArea(decimal) {
  if (decimal === null || decimal === undefined || decimal === '') return '—'
  return `${String(decimal).replace('.', ',')}\u00a0m²`
}

/** A calendar date of the API (YYYY-MM-DD, or the date of a timestamp) as Polish text: "01.12.2026". */
export function formatDate(value) {
  if (!value) return '—'
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(value))
  return match ? `${match[3]}.${match[2]}.${match[1]}` : String(value)
}

export function formatBytes(bytes) {
  if (typeof bytes !== 'number') return '—'
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace('.', ',')} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1).replace('.', ',')} MiB`
}

/** A definition list from [label, value] pairs; values may be nodes. */
export function facts(pairs, className = 'facts') {
  return h(
    'dl',
    { class: className },
    pairs.filter(Boolean).map(([label, value]) => [h('dt', {}, label), h('dd', {}, value ?? '—')]),
  )
}

export function badge(text, tone = 'neutral') {
  return h('span', { class: `badge badge-${tone}` }, text)
}

export function mono(text) {
  return h('code', { class: 'mono' }, text ?? '—')
}

/** An external link that leaks neither the opener nor the panel's address. */
export function externalLink(url, label = url) {
  return h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, label)
}

/** Random hex for idempotency keys; getRandomValues works outside secure contexts too. */
export function randomHex(bytes = 16) {
  const buffer = new Uint8Array(bytes)
  crypto.getRandomValues(buffer)
  return Array.from(buffer, (b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * Resolves after `ms`, or at once when the signal aborts (the view was left).
 * @param {number} ms
 * @param {AbortSignal} [signal]
 */
export function sleep(ms, signal) {
  return new Promise(
    /** @param {(value?: unknown) => void} resolve */ (resolve) => {
      const timer = setTimeout(resolve, ms)
      signal?.addEventListener('abort', () => {
        clearTimeout(timer)
        resolve()
      })
    },
  )
}
