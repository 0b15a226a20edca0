// @ts-check
/*
 * The offer card: parameters, gallery, components, documents, contact, the
 * price history as a table and a chart, and related offers of the same investment. The law asks
 * a developer to show each offer's price and its price history on its own website; both come
 * straight from the catalog, in its formatting.
 */
import { html, safeUrl } from '../html.js'
import { priceChart } from '../price-chart.js'
import { offerGrid, offerPath, photo, statusBadge } from './offers.js'

/** @typedef {import('dg-offers/client').CatalogPropertyDetail} CatalogPropertyDetail */
/** @typedef {import('dg-offers/client').PriceHistoryItem} PriceHistoryItem */
/** @typedef {import('dg-offers/client').CatalogOffer} CatalogOffer */

const GROUP_LABELS = /** @type {Record<string, string>} */ ({
  part: 'Część lokalu',
  appurtenant_room: 'Pomieszczenie przynależne',
  right: 'Prawo',
  other_payment: 'Inne świadczenie',
})

/** Polish names of the custom fields the example extension registers; any other key is shown as it is. */
export const META_LABELS = /** @type {Record<string, string>} */ ({
  exposure: 'Ekspozycja okien',
  plot_area: 'Powierzchnia działki (m²)',
  energy_class: 'Klasa energetyczna',
  completion_quarter: 'Termin oddania',
})

/**
 * A custom field's value as text: the catalog sends only scalars and lists of scalars.
 * @param {unknown} value
 * @returns {string}
 */
function metaText(value) {
  if (Array.isArray(value)) return value.map(metaText).join(', ')
  if (typeof value === 'boolean') return value ? 'tak' : 'nie'
  if (typeof value === 'string') return value
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : ''
}

/** @param {Record<string, unknown>} meta */
export function metaList(meta) {
  const entries = Object.entries(meta ?? {}).filter(([, value]) => metaText(value) !== '')
  if (entries.length === 0) return ''
  return html`<dl class="params meta">
    ${entries.map(
      ([key, value]) =>
        html`<dt>${META_LABELS[key] ?? key}</dt>
          <dd>${metaText(value)}</dd>`,
    )}
  </dl>`
}

/** @param {string} formatted */
function amount(formatted) {
  return formatted === '' ? '—' : formatted
}

/**
 * @param {PriceHistoryItem[]} items
 */
export function priceHistoryTable(items) {
  if (items.length === 0) return html`<p>Brak zapisanych zmian ceny.</p>`
  // an announced record (valid from a later day) is listed, marked, but is not the price yet
  return html`<table class="price-history">
    <thead>
      <tr>
        <th scope="col">Obowiązuje od</th>
        <th scope="col">Zapisano</th>
        <th scope="col">Zmiana</th>
        <th scope="col">Cena przed</th>
        <th scope="col">Cena po</th>
        <th scope="col">Powód</th>
      </tr>
    </thead>
    <tbody>
      ${items.map(
        (item) =>
          html`<tr>
            <td>${item.valid_from}</td>
            <td>${item.recorded_at}</td>
            <td>
              ${item.label}${item.correction ? html` <span class="correction">(korekta)</span>` : ''}${item.announced
                ? html` <span class="announced">(zapowiedziana)</span>`
                : ''}
            </td>
            <td class="num">${amount(item.before.formatted)}</td>
            <td class="num">${amount(item.after.formatted)}</td>
            <td>${item.reason || '—'}</td>
          </tr>`,
      )}
    </tbody>
  </table>`
}

/** @param {CatalogOffer} offer */
function parameters(offer) {
  /** @type {Array<[string, unknown]>} */
  const rows = [
    ['Typ', offer.offer_type_label],
    ['Inwestycja', offer.investment_title],
    ['Budynek', offer.building],
    ['Piętro', offer.floor === '0' ? 'parter' : offer.floor],
    ['Pokoje', offer.rooms_label || offer.rooms],
    ['Powierzchnia', offer.area_label],
    ['Wariant', offer.variant_label],
    ['W cenie', offer.variant_components.join(', ')],
  ]
  return html`<dl class="params">
    ${rows
      .filter(([, value]) => value !== '' && value !== undefined)
      .map(
        ([label, value]) =>
          html`<dt>${label}</dt>
            <dd>${value}</dd>`,
      )}
  </dl>`
}

/**
 * @param {{ detail: CatalogPropertyDetail, history: PriceHistoryItem[], related: CatalogOffer[], showPricePerM2: boolean, today: string }} args
 */
export function offerCard({ detail, history, related, showPricePerM2, today }) {
  const { offer, components, contact, media } = detail
  const photos = [...(media.thumbnail ? [media.thumbnail] : []), ...media.gallery].filter(
    (photo, index, all) => all.findIndex((p) => p.id === photo.id && p.url === photo.url) === index,
  )
  return html`<nav class="breadcrumbs" aria-label="Ścieżka">
      <a href="/">Inwestycje</a> › <a href="/inwestycje/${offer.investment_id}">${offer.investment_title}</a> ›
      <span>${offer.code}</span>
    </nav>
    <article class="offer" data-offer-id="${offer.id}">
      <header class="offer-header">
        <h1>${offer.title}</h1>
        ${statusBadge(offer)}
      </header>
      <section class="price-box" aria-label="Cena">
        <p class="price-main" id="offer-price">${offer.price || 'Cena na zapytanie'}</p>
        ${showPricePerM2 && offer.price_m2 ? html`<p class="price-m2">${offer.price_m2} za m²</p>` : ''}
        ${offer.price_date ? html`<p class="price-date">Cena obowiązuje od ${offer.price_date}</p>` : ''}
      </section>
      ${parameters(offer)} ${metaList(detail.custom_meta)}
      ${photos.length > 0
        ? html`<section aria-label="Galeria">
            <h2>Galeria</h2>
            <ul class="gallery">
              ${photos.map(
                (image) =>
                  html`<li>
                    <figure>
                      ${photo(image.url, image.alt || image.title)}
                      <figcaption>${image.title}</figcaption>
                    </figure>
                  </li>`,
              )}
            </ul>
          </section>`
        : ''}
      ${components.length > 0
        ? html`<section aria-label="Elementy oferty">
            <h2>Elementy oferty</h2>
            <table class="components">
              <thead>
                <tr>
                  <th scope="col">Element</th>
                  <th scope="col">Rodzaj</th>
                  <th scope="col">Cena</th>
                  <th scope="col">Cena od</th>
                  <th scope="col">Tytuł prawny</th>
                </tr>
              </thead>
              <tbody>
                ${components.map(
                  (c) =>
                    html`<tr>
                      <td>${c.description}</td>
                      <td>${GROUP_LABELS[c.group] ?? c.group}</td>
                      <td class="num">${c.price || 'w cenie'}</td>
                      <td>${c.date || '—'}</td>
                      <td>${c.legal_title || '—'}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </section>`
        : ''}
      <section aria-labelledby="history-title" class="history">
        <h2 id="history-title">Historia cen</h2>
        ${priceChart(history, today)} ${priceHistoryTable(history)}
      </section>
      ${media.documents.length > 0
        ? html`<section aria-label="Dokumenty">
            <h2>Dokumenty</h2>
            <ul class="documents">
              ${media.documents.map((d) => html`<li><a href="${safeUrl(d.url)}">${d.title || 'Dokument'}</a></li>`)}
            </ul>
          </section>`
        : ''}
      <aside class="contact" aria-label="Kontakt">
        <h2>Kontakt w sprawie oferty</h2>
        <p><strong>${contact.developer_name}</strong></p>
        ${contact.sales_office_address ? html`<p>Biuro sprzedaży: ${contact.sales_office_address}</p>` : ''}
        ${contact.phone
          ? html`<p>Telefon: <a href="tel:${contact.phone.replace(/[^\d+]/g, '')}">${contact.phone}</a></p>`
          : ''}
        ${contact.email ? html`<p>E-mail: <a href="mailto:${contact.email}">${contact.email}</a></p>` : ''}
      </aside>
    </article>
    ${related.length > 0
      ? html`<section aria-labelledby="related-title" class="related">
          <h2 id="related-title">Inne oferty w tej inwestycji</h2>
          ${offerGrid({ offers: related, showPricePerM2 })}
          <p>
            <a href="/oferty?inwestycja=${offer.investment_id}"
              >Wszystkie oferty inwestycji ${offer.investment_title}</a
            >
          </p>
        </section>`
      : ''}`
}

export { offerPath }
