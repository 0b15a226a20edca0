// @ts-check
/*
 * The home page (the developer's investments) and an investment's page (description, custom
 * fields, developer, documents and its offers).
 */
import { html, safeUrl } from '../html.js'
import { metaList } from './offer-card.js'
import { photo } from './offers.js'

/** @typedef {import('dg-offers/client').CatalogInvestment} CatalogInvestment */

/** @param {CatalogInvestment} investment */
function place(investment) {
  const l = investment.location ?? {}
  return [l.city, l.street && `ul. ${l.street}${l.building_no ? ` ${l.building_no}` : ''}`].filter(Boolean).join(', ')
}

/** @param {number} count */
function offersText(count) {
  if (count === 1) return '1 oferta'
  const units = count % 10
  const tens = count % 100
  return `${count} ${units >= 2 && units <= 4 && (tens < 12 || tens > 14) ? 'oferty' : 'ofert'}`
}

/** @param {{ investments: CatalogInvestment[] }} args */
export function investmentList({ investments }) {
  return html`<h1>Nasze inwestycje</h1>
    ${investments.length === 0 ? html`<p>Nie ma teraz inwestycji w sprzedaży.</p>` : ''}
    <ul class="investments">
      ${investments.map(
        (investment) =>
          html`<li class="investment-card" data-investment-id="${investment.id}">
            <a href="/inwestycje/${investment.id}">
              ${photo(investment.image, investment.title)}
              <span class="card-title">${investment.title}</span>
            </a>
            <span class="card-meta">${place(investment)}</span>
            ${investment.excerpt ? html`<p>${investment.excerpt}</p>` : ''}
            <a class="button" href="/oferty?inwestycja=${investment.id}"
              >${offersText(investment.offers_count)} w sprzedaży</a
            >
          </li>`,
      )}
    </ul>
    <p><a class="button" href="/oferty">Wszystkie oferty</a></p>`
}

/** Text as paragraphs: the catalog's content is untrusted, so it is shown as text, never as markup. */
function paragraphs(/** @type {string} */ text) {
  return text
    .replace(/<[^>]*>/g, ' ')
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .map((p) => html`<p>${p}</p>`)
}

/**
 * @param {{ investment: CatalogInvestment, offers: unknown }} args the offers part is rendered by the caller
 */
export function investmentPage({ investment, offers }) {
  const context =
    /** @type {{ developer?: { name?: string, phone?: string, email?: string, website?: string } | null, prospectus_url?: string }} */ (
      investment.context ?? {}
    )
  const developer = context.developer
  const gallery = investment.media?.gallery ?? []
  // the same document may be both attached and listed (a prospectus): shown once
  const documents = (investment.documents ?? []).filter(
    (d, index, all) => all.findIndex((other) => other.url === d.url) === index,
  )
  return html`<nav class="breadcrumbs" aria-label="Ścieżka">
      <a href="/">Inwestycje</a> › <span>${investment.title}</span>
    </nav>
    <article class="investment" data-investment-id="${investment.id}">
      <h1>${investment.title}</h1>
      <p class="card-meta">${place(investment)}</p>
      ${paragraphs(investment.content || investment.excerpt || '')} ${metaList(investment.custom_meta ?? {})}
      ${gallery.length > 0
        ? html`<ul class="gallery">
            ${gallery.map(
              (image) =>
                html`<li>
                  <figure>
                    ${photo(image.url, image.alt || image.title)}
                    <figcaption>${image.title}</figcaption>
                  </figure>
                </li>`,
            )}
          </ul>`
        : ''}
      ${documents.length > 0
        ? html`<h2>Dokumenty</h2>
            <ul class="documents">
              ${documents.map((d) => html`<li><a href="${safeUrl(d.url)}">${d.title || 'Dokument'}</a></li>`)}
            </ul>`
        : ''}
      ${developer
        ? html`<aside class="contact" aria-label="Deweloper">
            <h2>Deweloper</h2>
            <p><strong>${developer.name}</strong></p>
            ${developer.phone ? html`<p>Telefon: ${developer.phone}</p>` : ''}
            ${developer.email ? html`<p>E-mail: <a href="mailto:${developer.email}">${developer.email}</a></p>` : ''}
          </aside>`
        : ''}
    </article>
    <section aria-labelledby="offers-title">
      <h2 id="offers-title">Oferty w tej inwestycji</h2>
      ${offers}
    </section>`
}
