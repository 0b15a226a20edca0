/*
 * Descriptions and examples of the public price list and its settings, for the OpenAPI document
 * (see src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

export const PUBLIC_PRICES_EXAMPLES: OperationDocsByRoute = {
  'GET /wp-json/dg/v2/public/investments/{id}/prices': {
    description:
      'What art. 19a of the developer act makes public about one investment, without credentials (no cookie is read or set): the units the official file lists and that are on sale — each published flat, house and part sold on its own (parking space, garage, storage room) whose status is one of the publication’s statuses (published_statuses) and is available or reserved — with its designation, type, area, rooms, floor, status, the prices in force today in Europe/Warsaw with their dates (a price announced for a later day never shows before it), its parts and rooms with prices and their history, other payments and its price history. Off by default: an administrator enables it per investment (PUT …/investments/{id}/public-prices); a published investment is answered whatever its visibility, as the official file lists it. 404 public_prices_unavailable, one answer for an unknown or unpublished investment or one whose public prices are off. Answers carry ETag and Cache-Control: public, max-age=60, stale-while-revalidate=300; If-None-Match answers 304. Access-Control-Allow-Origin echoes the Origin only when it is one of the investment’s allowed origins (with Vary: Origin whenever the investment has any). Rate-limited per client address: 429 rest_rate_limited with Retry-After.',
    response: {
      status: 200,
      body: {
        investment: {
          id: 3,
          title: 'Osiedle Nad Wartą',
          city: 'Poznań',
          address: 'ul. Nadbrzeżna 5',
          developer: 'Przykładowy Deweloper Sp. z o.o.',
        },
        day: '2026-11-28',
        generated_at: '2026-11-28T10:00:00.000Z',
        currency: 'PLN',
        units: [
          {
            id: 41,
            designation: 'A/1.01',
            kind: 'flat',
            area_m2: '54.30',
            rooms: 3,
            floor: 1,
            status: 'available',
            price_m2: { amount: '12000.00', valid_from: '2026-11-01' },
            price_total: { amount: '651600.00', valid_from: '2026-11-01' },
            price_combined: { amount: '691600.00', valid_from: '2026-11-01' },
            parts: [
              {
                kind: 'parking_space',
                label: 'Miejsce postojowe',
                designation: 'P-12',
                price: { amount: '40000.00', valid_from: '2026-11-01' },
                history: [
                  { valid_from: '2026-11-01', amount: '40000.00' },
                  { valid_from: '2026-09-15', amount: '38000.00' },
                ],
              },
            ],
            other_payments: [{ description: 'Opłata rezerwacyjna', amount: '5000.00', valid_from: '2026-11-01' }],
            history: [
              { valid_from: '2026-11-01', price_m2: '12000.00', price_total: '651600.00' },
              { valid_from: '2026-09-15', price_m2: '11500.00', price_total: '624450.00' },
            ],
          },
          {
            id: 57,
            designation: 'MP 5',
            kind: 'parking_space',
            area_m2: null,
            rooms: null,
            floor: -1,
            status: 'available',
            price_m2: null,
            price_total: { amount: '45000.00', valid_from: '2026-09-15' },
            price_combined: null,
            parts: [],
            other_payments: [],
            history: [{ valid_from: '2026-09-15', price_m2: null, price_total: '45000.00' }],
          },
        ],
      },
    },
  },
  'GET /wp-json/dg/v2/investments/{id}/public-prices': {
    description:
      'Whether the investment’s prices are answered by the public endpoint, the website origins allowed to read them from a browser, the endpoint’s and the component script’s addresses and the snippet to paste into a website. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 404 investment_not_found. Not licence-gated: it serves the minimum the law asks of every developer.',
    response: {
      status: 200,
      body: {
        investment_id: 3,
        enabled: true,
        allowed_origins: ['https://www.nad-warta.pl'],
        endpoint_url: 'https://ceny.example.pl/wp-json/dg/v2/public/investments/3/prices',
        script_url: 'https://ceny.example.pl/wp-json/dg/v2/embed/2.1.0/dg-prices.js',
        snippet:
          '<script src="https://ceny.example.pl/wp-json/dg/v2/embed/2.1.0/dg-prices.js" defer></script>\n<dg-offer-table investment="3"></dg-offer-table>',
      },
    },
  },
  'PUT /wp-json/dg/v2/investments/{id}/public-prices': {
    description:
      'Turns the investment’s public prices on or off and/or replaces its allowed origins (what is sent changes; the rest stays). Holds at once on every instance. Origins are exact: https://host[:port], or http://localhost[:port] / http://127.0.0.1[:port] for a developer’s own machine; a trailing slash is dropped, case is normalized, duplicates kept once. 422 public_prices_origin_invalid (data.index names the origin) or public_prices_too_many_origins (more than 20), and nothing is changed. Audited as public_prices.update with the values before and after. Administrators and operators (dg_edit_catalog).',
    request: { enabled: true, allowed_origins: ['https://www.nad-warta.pl', 'http://localhost:8080'] },
    response: {
      status: 200,
      body: {
        investment_id: 3,
        enabled: true,
        allowed_origins: ['https://www.nad-warta.pl', 'http://localhost:8080'],
        endpoint_url: 'https://ceny.example.pl/wp-json/dg/v2/public/investments/3/prices',
        script_url: 'https://ceny.example.pl/wp-json/dg/v2/embed/2.1.0/dg-prices.js',
        snippet:
          '<script src="https://ceny.example.pl/wp-json/dg/v2/embed/2.1.0/dg-prices.js" defer></script>\n<dg-offer-table investment="3"></dg-offer-table>',
      },
    },
  },
}
