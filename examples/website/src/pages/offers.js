// @ts-check
/*
 * The offer list: the contract's filters and sorting as a form, then a table or a grid of offer
 * cards, with pages. Prices, areas and statuses are shown exactly as the catalog formats them
 * (`price`, `price_m2`, `area_label`, `status_label`); the website never recomputes a price.
 */
import { html, safeUrl } from '../html.js'
import { filterLink, SORT_OPTIONS, STATUS_OPTIONS, TYPE_OPTIONS } from '../offer-filters.js'

/** @typedef {import('dg-offers/client').CatalogOffer} CatalogOffer */
/** @typedef {import('dg-offers/client').CatalogInvestment} CatalogInvestment */

/** @param {CatalogOffer} offer */
export function offerPath(offer) {
  return `/oferty/${offer.id}`
}

/** @param {string} status */
function statusClass(status) {
  return `status status-${/^[a-z_]+$/.test(status) ? status : 'other'}`
}

/** @param {CatalogOffer} offer */
export function statusBadge(offer) {
  return html`<span class="${statusClass(offer.status)}">${offer.status_label}</span>`
}

/** @param {CatalogOffer} offer */
function floorText(offer) {
  if (offer.floor === '') return '—'
  return offer.floor === '0' ? 'parter' : offer.floor
}

/**
 * @param {string} name
 * @param {string} label
 * @param {string[][]} options
 * @param {string} selected
 */
function select(name, label, options, selected) {
  return html`<label
    >${label}
    <select name="${name}">
      <option value="">wszystkie</option>
      ${options.map(
        ([value, text]) => html`<option value="${value}" ${value === selected ? html`selected` : ''}>${text}</option>`,
      )}
    </select></label
  >`
}

/**
 * @param {string} name
 * @param {string} label
 * @param {Record<string, string>} form
 * @param {string} [placeholder]
 * @param {string} [inputmode]
 */
function input(name, label, form, placeholder = '', inputmode = 'decimal') {
  return html`<label
    >${label}
    <input name="${name}" value="${form[name] ?? ''}" placeholder="${placeholder}" inputmode="${inputmode}" size="9"
  /></label>`
}

/**
 * @param {{ form: Record<string, string>, investments: CatalogInvestment[], path: string, fixedInvestment?: boolean }} args
 */
export function filterForm({ form, investments, path, fixedInvestment }) {
  return html`<form class="filters" method="get" action="${path}" aria-label="Filtry ofert">
    ${fixedInvestment
      ? ''
      : select(
          'inwestycja',
          'Inwestycja',
          investments.map((i) => [String(i.id), i.title]),
          form.inwestycja ?? '',
        )}
    ${select('typ', 'Typ', TYPE_OPTIONS, form.typ ?? '')}
    ${select('status', 'Status', STATUS_OPTIONS, form.status ?? '')}
    ${input('pokoje', 'Pokoje', form, 'np. 3', 'numeric')} ${input('pietro', 'Piętro', form, '0 = parter', 'numeric')}
    <fieldset>
      <legend>Powierzchnia (m²)</legend>
      ${input('pow_od', 'od', form, '40')} ${input('pow_do', 'do', form, '80')}
    </fieldset>
    <fieldset>
      <legend>Cena (zł)</legend>
      ${input('cena_od', 'od', form, '400 000')} ${input('cena_do', 'do', form, '900 000')}
    </fieldset>
    <label
      >Szukaj <input type="search" name="szukaj" value="${form.szukaj ?? ''}" placeholder="nazwa lub numer" size="14"
    /></label>
    <label
      >Sortuj
      <select name="sortuj">
        ${SORT_OPTIONS.map(
          ([value, text]) =>
            html`<option value="${value}" ${value === (form.sortuj || 'price') ? html`selected` : ''}>${text}</option>`,
        )}
      </select></label
    >
    <label
      >Kolejność
      <select name="kolejnosc">
        <option value="rosnaco">rosnąco</option>
        <option value="malejaco" ${form.kolejnosc === 'malejaco' ? html`selected` : ''}>malejąco</option>
      </select></label
    >
    <input type="hidden" name="widok" value="${form.widok || 'tabela'}" />
    <button type="submit">Pokaż oferty</button>
    <a class="reset" href="${path}">Wyczyść</a>
  </form>`
}

/**
 * A column header that sorts by its field, ascending first, then the other way.
 * @param {string} label
 * @param {string} field
 * @param {Record<string, string>} form
 * @param {string} path
 */
function sortHeader(label, field, form, path) {
  const current = (form.sortuj || 'price') === field
  const descending = current && form.kolejnosc === 'malejaco'
  const next = current && !descending ? 'malejaco' : 'rosnaco'
  const mark = current ? (descending ? ' ↓' : ' ↑') : ''
  return html`<th scope="col" ${current ? html`aria-sort="${descending ? 'descending' : 'ascending'}"` : ''}>
    <a href="${filterLink(path, form, { sortuj: field, kolejnosc: next, strona: '' })}">${label}${mark}</a>
  </th>`
}

/**
 * @param {{ offers: CatalogOffer[], form: Record<string, string>, path: string, showPricePerM2: boolean }} args
 */
export function offerTable({ offers, form, path, showPricePerM2 }) {
  return html`<table class="offers">
    <thead>
      <tr>
        ${sortHeader('Oferta', 'title', form, path)}
        <th scope="col">Inwestycja</th>
        <th scope="col">Typ</th>
        <th scope="col">Pokoje</th>
        <th scope="col">Piętro</th>
        ${sortHeader('Powierzchnia', 'area', form, path)} ${sortHeader('Cena', 'price', form, path)}
        ${showPricePerM2 ? html`<th scope="col">Cena za m²</th>` : ''}
        <th scope="col">Status</th>
      </tr>
    </thead>
    <tbody>
      ${offers.map(
        (offer) =>
          html`<tr data-offer-id="${offer.id}">
            <th scope="row"><a href="${offerPath(offer)}">${offer.title}</a></th>
            <td>${offer.investment_title}</td>
            <td>${offer.offer_type_label || '—'}</td>
            <td>${offer.rooms || '—'}</td>
            <td>${floorText(offer)}</td>
            <td class="num">${offer.area_label || '—'}</td>
            <td class="num price">${offer.price || 'cena na zapytanie'}</td>
            ${showPricePerM2 ? html`<td class="num">${offer.price_m2 || '—'}</td>` : ''}
            <td>${statusBadge(offer)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`
}

/**
 * A photo in a frame that keeps its shape without the file (or when the file cannot be loaded).
 * @param {unknown} url
 * @param {string} alt
 */
export function photo(url, alt) {
  const src = safeUrl(url)
  return src
    ? html`<span class="photo"><img src="${src}" alt="${alt}" loading="lazy" /></span>`
    : html`<span class="photo no-photo">Brak zdjęcia</span>`
}

/** @param {CatalogOffer} offer */
function cardFacts(offer) {
  const rooms =
    typeof offer.rooms_label === 'string' && offer.rooms_label
      ? offer.rooms_label
      : offer.rooms && `${offer.rooms} pok.`
  const floor = offer.floor === '' ? '' : offer.floor === '0' ? 'parter' : `piętro ${offer.floor}`
  return [offer.area_label, rooms, floor].filter(Boolean).join(' · ')
}

/**
 * @param {{ offers: CatalogOffer[], showPricePerM2: boolean }} args
 */
export function offerGrid({ offers, showPricePerM2 }) {
  return html`<ul class="offer-grid">
    ${offers.map(
      (offer) =>
        html`<li class="offer-card" data-offer-id="${offer.id}">
          <a href="${offerPath(offer)}">
            ${photo(offer.image, offer.title)}
            <span class="card-title">${offer.title}</span>
          </a>
          <span class="card-meta">${offer.investment_title}</span>
          <span class="card-meta">${cardFacts(offer)}</span>
          <span class="card-price">${offer.price || 'cena na zapytanie'}</span>
          ${showPricePerM2 && offer.price_m2 ? html`<span class="card-meta">${offer.price_m2} / m²</span>` : ''}
          ${statusBadge(offer)}
        </li>`,
    )}
  </ul>`
}

/**
 * @param {{ page: number, totalPages: number, total: number, form: Record<string, string>, path: string }} args
 */
export function pager({ page, totalPages, total, form, path }) {
  if (totalPages <= 1) return html`<p class="count">${countText(total)}</p>`
  return html`<nav class="pager" aria-label="Strony">
    <span class="count">${countText(total)}</span>
    ${page > 1 ? html`<a rel="prev" href="${filterLink(path, form, { strona: page - 1 })}">‹ Poprzednia</a>` : ''}
    <span>strona ${page} z ${totalPages}</span>
    ${page < totalPages
      ? html`<a rel="next" href="${filterLink(path, form, { strona: page + 1 })}">Następna ›</a>`
      : ''}
  </nav>`
}

/** @param {number} total */
function countText(total) {
  if (total === 1) return '1 oferta'
  const units = total % 10
  const tens = total % 100
  return `${total} ${units >= 2 && units <= 4 && (tens < 12 || tens > 14) ? 'oferty' : 'ofert'}`
}

/**
 * @param {{ form: Record<string, string>, path: string, view: 'tabela' | 'siatka' }} args
 */
export function viewSwitch({ form, path, view }) {
  return html`<p class="view-switch">
    Widok:
    <a href="${filterLink(path, form, { widok: 'tabela' })}" ${view === 'tabela' ? html`aria-current="true"` : ''}
      >tabela</a
    >
    <a href="${filterLink(path, form, { widok: 'siatka' })}" ${view === 'siatka' ? html`aria-current="true"` : ''}
      >siatka</a
    >
  </p>`
}
