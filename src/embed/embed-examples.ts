/*
 * Descriptions and examples of the embed script, for the OpenAPI document (see
 * src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

export const EMBED_EXAMPLES: OperationDocsByRoute = {
  'GET /wp-json/dg/v2/embed/{version}/dg-prices.js': {
    description:
      "The website component: one classic script defining the custom elements <dg-offer-table>, <dg-offer-card> and <dg-price-history>, which show an investment's prices from its public price endpoint on any website (docs/integration/website-component.md). Public, no credentials, no cookies. For the current version ({version} = the service's version) the answer is immutable and cached for a year (Cache-Control: public, max-age=31536000, immutable, with ETag and 304; brotli or gzip as Accept-Encoding allows, with Vary: Accept-Encoding); any origin may load it (Access-Control-Allow-Origin: *, Cross-Origin-Resource-Policy: cross-origin). Any other version, or latest, is answered 302 to the current version's URL, cached for five minutes.",
    parameters: {
      version: '2.1.0',
    },
    response: {
      status: 200,
      mediaType: 'text/javascript',
      body: ";(() => {\n  'use strict'\n  if (customElements.get('dg-offer-table')) return\n  // …\n})()\n",
    },
  },
}
