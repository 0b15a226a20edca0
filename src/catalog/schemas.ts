/*
 * Parameter and response schemas of the catalog (docs/integration/catalog.md). Responses are sent
 * pre-serialized (the ETag is computed over the exact bytes), so these response schemas document
 * the shapes for the OpenAPI description; `_fields` may leave any property out.
 */
import { Type } from 'typebox'
import { RowId, withDefault } from '../host/http/schemas.js'

const fields = Type.String({
  maxLength: 2000,
  description: 'Comma-separated projection; dotted paths reach nested fields',
})
const page = Type.Integer({ minimum: 1, default: 1, description: 'Page number, 1-based' })
const perPage = Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1–100' })
const decimalString = Type.String({
  pattern: '^\\d{1,7}([.,]\\d{1,2})?$',
  description: 'Decimal number as text, e.g. 54.5',
})

export const IdParams = Type.Object({ id: RowId() })

/*
 * Searched text. PostgreSQL refuses U+0000 in a query parameter, which made a search holding one
 * answer 500 there (found by the fuzz suite); no name or designation holds one.
 */
const searchText = (description: string) =>
  Type.String({ maxLength: 200, pattern: '^[^\\u0000]*$', description: `${description}; no U+0000` })

export const FieldsQuery = Type.Object({ _fields: Type.Optional(fields) })

export const InvestmentListQuery = Type.Object({
  page: withDefault(page),
  per_page: withDefault(perPage),
  search: Type.Optional(searchText('Part of the investment name')),
  _fields: Type.Optional(fields),
})

export const STATUS_CODES = ['available', 'reserved', 'sold', 'unavailable', 'archived'] as const
export const PROPERTY_TYPES = ['mieszkanie', 'dom', 'parking_space', 'garage', 'storage_room', 'other'] as const

export const PropertyListQuery = Type.Object({
  investment: Type.Optional(Type.Integer({ minimum: 1, description: 'Investment id' })),
  status: Type.Optional(
    Type.Union(
      STATUS_CODES.map((s) => Type.Literal(s)),
      { description: 'Normalized offer status' },
    ),
  ),
  offer_kind: Type.Optional(Type.Union([Type.Literal('property'), Type.Literal('standalone_part')])),
  type: Type.Optional(
    Type.Union(
      PROPERTY_TYPES.map((s) => Type.Literal(s)),
      { description: 'Property type' },
    ),
  ),
  rooms: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  floor: Type.Optional(Type.Integer({ minimum: -20, maximum: 300, description: 'May be negative' })),
  area_min: Type.Optional(decimalString),
  area_max: Type.Optional(decimalString),
  price_min: Type.Optional(Type.Integer({ minimum: 0, description: 'Grosze; the total price in force today' })),
  price_max: Type.Optional(Type.Integer({ minimum: 0, description: 'Grosze; the total price in force today' })),
  search: Type.Optional(searchText('Part of the name or designation')),
  modified_after: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601 date-time' })),
  orderby: withDefault(
    Type.Union([Type.Literal('modified'), Type.Literal('title'), Type.Literal('price'), Type.Literal('area')], {
      default: 'modified',
    }),
  ),
  order: withDefault(
    Type.Union([Type.Literal('ASC'), Type.Literal('DESC'), Type.Literal('asc'), Type.Literal('desc')], {
      default: 'DESC',
    }),
  ),
  page: withDefault(page),
  per_page: withDefault(perPage),
  _fields: Type.Optional(fields),
})

/** The offer filters of a list's query string: the catalog's, which the editor's table and the export reuse. */
export interface OfferFilterQuery {
  investment?: number | undefined
  status?: string | undefined
  offer_kind?: string | undefined
  type?: string | undefined
  rooms?: number | undefined
  floor?: number | undefined
  area_min?: string | undefined
  area_max?: string | undefined
  price_min?: number | undefined
  price_max?: number | undefined
  search?: string | undefined
  modified_after?: string | undefined
}

/** The repositories' filters from a list's query string: an area's decimal comma becomes a dot, a date-time is ISO. */
export function offerFiltersOf(query: OfferFilterQuery) {
  return {
    investment: query.investment,
    status: query.status,
    offerKind: query.offer_kind,
    type: query.type,
    rooms: query.rooms,
    floor: query.floor,
    areaMin: query.area_min?.replace(',', '.'),
    areaMax: query.area_max?.replace(',', '.'),
    priceMin: query.price_min,
    priceMax: query.price_max,
    search: query.search,
    modifiedAfter: query.modified_after === undefined ? undefined : new Date(query.modified_after).toISOString(),
  }
}

export const RelatedQuery = Type.Object({
  page: withDefault(page),
  per_page: withDefault(perPage),
  _fields: Type.Optional(fields),
})

const money = Type.Object({ cents: Type.Union([Type.Integer(), Type.Null()]), formatted: Type.String() })
const mediaItem = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  title: Type.String(),
  alt: Type.String(),
  mime_type: Type.String(),
})

export const OfferSchema = Type.Partial(
  Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    code: Type.String(),
    offer_kind: Type.String({ description: 'property or standalone_part' }),
    property_type: Type.String(),
    is_standalone_part: Type.Boolean(),
    offer_type_label: Type.String(),
    url: Type.String({ description: 'Public permalink' }),
    status: Type.String(),
    status_label: Type.String(),
    area: Type.String(),
    area_label: Type.String(),
    rooms: Type.String(),
    floor: Type.String(),
    building: Type.String(),
    price: Type.String({ description: 'e.g. 1 234 567,89 zł; empty when there is no price' }),
    price_cents: Type.Integer(),
    price_m2: Type.String(),
    price_m2_cents: Type.Integer(),
    price_date: Type.String(),
    price_m2_date: Type.String(),
    variant: Type.String(),
    variant_label: Type.String(),
    variant_components: Type.Array(Type.String()),
    image: Type.String(),
    gallery: Type.Array(Type.Integer()),
    investment_id: Type.Integer(),
    investment_title: Type.String(),
    modified: Type.String(),
  }),
  { $id: 'CatalogOffer', additionalProperties: true },
)

export const PropertyDetailSchema = Type.Partial(
  Type.Object({
    offer: Type.Ref('CatalogOffer'),
    components: Type.Array(
      Type.Object({
        group: Type.String(),
        description: Type.String(),
        price: Type.String(),
        date: Type.String(),
        relation: Type.String(),
        requirement: Type.String(),
        variant: Type.String(),
        legal_title: Type.String(),
      }),
    ),
    contact: Type.Object({
      developer_name: Type.String(),
      phone: Type.String(),
      email: Type.String(),
      sales_office_address: Type.String(),
    }),
    media: Type.Object({
      thumbnail: Type.Union([mediaItem, Type.Null()]),
      gallery: Type.Array(mediaItem),
      documents: Type.Array(mediaItem),
    }),
    price: Type.Object({ cents: Type.Integer(), formatted: Type.String(), valid_from: Type.String() }),
    custom_meta: Type.Record(Type.String(), Type.Unknown()),
  }),
  { $id: 'CatalogPropertyDetail', additionalProperties: true },
)

export const PriceHistorySchema = Type.Partial(
  Type.Object({
    property_id: Type.Integer(),
    items: Type.Array(
      Type.Object({
        record_type: Type.String(),
        price_type: Type.String(),
        valid_from: Type.String(),
        recorded_at: Type.String({ description: 'The day the record was written (YYYY-MM-DD, Europe/Warsaw)' }),
        before: money,
        after: money,
        label: Type.String(),
        reason: Type.String(),
        correction: Type.Boolean(),
        announced: Type.Boolean({
          description:
            'true: valid from a day after today (Europe/Warsaw), an announced price ("zapowiedziana"), not in force yet: show it as announced, never as the current price',
        }),
      }),
    ),
  }),
  { $id: 'CatalogPriceHistory' },
)

export const InvestmentSchema = Type.Partial(
  Type.Object({
    id: Type.Integer(),
    title: Type.String(),
    slug: Type.String(),
    url: Type.String(),
    excerpt: Type.String(),
    location: Type.Record(Type.String(), Type.String()),
    image: Type.String(),
    offers_count: Type.Integer(),
    modified: Type.String(),
    content: Type.String(),
    context: Type.Record(Type.String(), Type.Unknown()),
    media: Type.Record(Type.String(), Type.Unknown()),
    documents: Type.Array(mediaItem),
    visibility: Type.String(),
    custom_meta: Type.Record(Type.String(), Type.Unknown()),
  }),
  { $id: 'CatalogInvestment', additionalProperties: true },
)

export const DiscoverySchema = Type.Partial(
  Type.Object({
    api_version: Type.String(),
    plugin_version: Type.String(),
    contract: Type.Object({ id: Type.String(), valid_until: Type.String() }),
    resources: Type.Object({ investments: Type.String(), properties: Type.String() }),
    extension_options: Type.Record(Type.String(), Type.Unknown()),
  }),
  { $id: 'CatalogDiscovery' },
)

export const CATALOG_SCHEMAS = [
  OfferSchema,
  PropertyDetailSchema,
  PriceHistorySchema,
  InvestmentSchema,
  DiscoverySchema,
]
