// @ts-check
/*
 * A tiny HTML template helper: html`<p>${value}</p>` escapes every interpolated value, unless it is
 * itself the result of html`` (or of `trusted()`, for markup built here from numbers). Lists are
 * joined; null, undefined and false render as nothing. Catalog data is untrusted text: names,
 * descriptions and custom fields come from imports and editors, so nothing is interpolated raw.
 */

const ESCAPES = /** @type {Record<string, string>} */ ({
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
})

/** @param {unknown} value */
export function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
}

export class SafeHtml {
  /** @param {string} text markup that is already safe */
  constructor(text) {
    this.text = text
  }

  toString() {
    return this.text
  }
}

/**
 * @param {unknown} value
 * @returns {string}
 */
function render(value) {
  if (value instanceof SafeHtml) return value.text
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false) return ''
  if (typeof value === 'string') return escapeHtml(value)
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  return escapeHtml(JSON.stringify(value))
}

/**
 * @param {TemplateStringsArray} strings
 * @param {unknown[]} values
 */
export function html(strings, ...values) {
  let out = strings[0] ?? ''
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '')
  return new SafeHtml(out)
}

/**
 * Markup made by this program (never from catalog data): inserted as it is.
 * @param {string} markup
 */
export function trusted(markup) {
  return new SafeHtml(markup)
}

/**
 * An address safe in href/src: http(s) or a path of this site; anything else (javascript:, data:)
 * becomes an empty string.
 * @param {unknown} url
 */
export function safeUrl(url) {
  if (typeof url !== 'string' || url === '') return ''
  if (url.startsWith('/') && !url.startsWith('//')) return url
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : ''
  } catch {
    return ''
  }
}
