/*
 * Request and response schemas of the editor's endpoints, for validation and the OpenAPI
 * description. Bodies are checked here for their shape only (JSON types, known keys): the rules of
 * the values are the shared validator's (validate-editor-offer.ts), which answers 422
 * `validation_failed` with field-level issues in Polish and English, the import's own codes and
 * messages for the canonical fields. So the canonical fields accept any text or number here, as
 * the webhook's payload does, and the validator says what is wrong with them.
 */
import { type TObject, type TSchema, Type } from 'typebox'

import {
  CLEARABLE_FIELDS,
  COMPONENT_GROUPS,
  COMPONENT_KINDS,
  HOST_STATUSES,
  INVESTMENT_HOST_STATUSES,
} from '../offers/editor-operation.js'
import { EDITOR_OFFER_FIELDS } from '../offers/validation/validate-editor-offer.js'
import { STATUS_CODES } from '../catalog/schemas.js'
import { RowId, stringEnum, withDefault } from '../host/http/schemas.js'

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const clearable: ReadonlySet<string> = new Set(CLEARABLE_FIELDS)

/** Text or a number, as the validator reads it (null removes the fields that may be removed). */
const canonicalValue = (field: string) =>
  Type.Unsafe<string | number | null>({
    type: ['string', 'number', 'null'],
    description: `${CANONICAL_DESCRIPTIONS[field] ?? field}${clearable.has(field) ? '' : ' (cannot be removed: null is refused with not_clearable)'}`,
  })

const CANONICAL_DESCRIPTIONS: Readonly<Record<string, string>> = {
  prop_no: 'Designation of the offer, e.g. A/1.02 (the import’s prop_no)',
  prop_type:
    'mieszkanie or dom (a flat or a house), or a standalone part sold on its own: parking_space, garage, storage_room, other. Only the editor takes standalone parts; an offer sent without a type by an import or the webhook is qualified here',
  property_status:
    'available, reserved, sold, unavailable, archived (Polish words such as wolne, rezerwacja, sprzedane are accepted)',
  prop_area: 'Area in m² as decimal text, e.g. "54.30" or "54,3"; null removes it',
  prop_rooms: 'Number of rooms (0–100); null removes it',
  prop_floor: 'Floor (-20–200); null removes it',
  price_m2: 'Price per m² as decimal text, e.g. "12000.00" or "12 000,00"; null withdraws it',
  price_m2_from: 'Date the price per m² is valid from (YYYY-MM-DD); default today (Europe/Warsaw)',
  price_total: 'Total price as decimal text, e.g. "650000.00"; null withdraws it (a history record with after = null)',
  price_total_from:
    'Date the total price is valid from (YYYY-MM-DD); default today. Sent with price_total: null, the date of the withdrawal',
  price_combined: 'Price with the parts and rooms (official column 42) as decimal text; null withdraws it',
  price_combined_from: 'Date the combined price is valid from (YYYY-MM-DD)',
  price_combined_variant: 'Variant of the combined price',
  price_combined_status: 'Approval state of the combined price',
}

const canonicalProperties = Object.fromEntries(
  EDITOR_OFFER_FIELDS.map((field) => [field, Type.Optional(canonicalValue(field))]),
)

const priceNote = {
  reason: Type.Optional(
    Nullable(Type.String({ description: 'Why the price changes (≤ 500 characters); stored in every history record' })),
  ),
  correction: Type.Optional(
    Nullable(
      Type.Boolean({
        description:
          'true: the new amount corrects a wrong one (record type correction, whatever its date); without it a new amount with the same valid-from date as the last record is a correction',
      }),
    ),
  ),
}
const version = {
  version: Type.Optional(
    Type.String({ description: 'The version edited (the ETag of the read), when If-Match cannot be sent' }),
  ),
}

/** The gallery and main image, chosen among the entry's uploaded images. */
function mediaPlacement(owner: 'offer' | 'investment') {
  return {
    gallery: Type.Optional(
      Nullable(
        Type.Array(Type.Integer(), {
          description: `Image ids of the ${owner} (POST /${owner}s/{id}/media) in gallery order; replaces the gallery (null or [] empties it)`,
        }),
      ),
    ),
    thumbnail_id: Type.Optional(
      Nullable(Type.Integer({ description: `The ${owner}'s main image (the catalog's image), one of its images` })),
    ),
  }
}

const editorFields = {
  offer_kind: Type.Optional(
    Type.String({
      description: 'property or standalone_part; it follows from prop_type and, when sent, must agree with it',
    }),
  ),
  title: Type.Optional(
    Type.String({ description: 'Title (≤ 255); by default "Mieszkanie A/1", following the type and designation' }),
  ),
  building: Type.Optional(Nullable(Type.String({ description: 'Building (≤ 100)' }))),
  variant: Type.Optional(Nullable(Type.String({ description: 'Technical variant (≤ 100)' }))),
  host_status: Type.Optional(
    Type.String({ description: `${HOST_STATUSES.join(', ')}; the catalog and the daily file show publish only` }),
  ),
  custom_meta: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'Registered custom fields of dg_property, each of its registered type; null removes one. Merged with the stored fields',
      },
    ),
  ),
  ...mediaPlacement('offer'),
}

export const ComponentBody = Type.Object(
  {
    kind: Type.Optional(
      Type.String({
        description: `${Object.keys(COMPONENT_KINDS).join(', ')}: sets the group and the official name of the kind`,
      }),
    ),
    group: Type.Optional(
      Type.String({
        description: `${COMPONENT_GROUPS.join(', ')}: the block of the official file (44–47, 48–51, 52–54, 55–57)`,
      }),
    ),
    kind_label: Type.Optional(
      Type.String({ description: 'The kind as the official file names it, e.g. Miejsce postojowe, Piwnica' }),
    ),
    designation: Type.Optional(Nullable(Type.String({ description: 'e.g. MP-12' }))),
    description: Type.Optional(Nullable(Type.String())),
    price: Type.Optional(
      Type.Unsafe<string | number | null>({
        type: ['string', 'number', 'null'],
        description: 'Price as decimal text; null withdraws it',
      }),
    ),
    price_from: Type.Optional(
      Nullable(Type.String({ description: 'Date the price is valid from (YYYY-MM-DD); default today' })),
    ),
    relation: Type.Optional(Nullable(Type.String({ description: 'Relation to the flat or house' }))),
    requirement: Type.Optional(Nullable(Type.String({ description: 'Whether buying it is required' }))),
    variant: Type.Optional(Nullable(Type.String())),
    legal_title: Type.Optional(Nullable(Type.String({ description: 'Legal title, e.g. odrębna własność' }))),
    position: Type.Optional(Type.Integer({ description: 'Order among the offer’s components (0–10000)' })),
  },
  { additionalProperties: false },
)

export const ComponentWriteBody = Type.Object(
  { ...ComponentBody.properties, ...priceNote, ...version },
  { additionalProperties: false },
)

export const OfferCreateBody = Type.Object(
  {
    investment_id: Type.Integer({ description: 'Required: the investment of the new offer' }),
    source_property_id: Type.Optional(
      Nullable(Type.String({ description: 'The offer’s id in the source system, by which an import may update it' })),
    ),
    ...canonicalProperties,
    ...editorFields,
    ...priceNote,
    components: Type.Optional(
      Type.Array(ComponentBody, { maxItems: 50, description: 'Parts and rooms of a flat or a house' }),
    ),
  },
  { additionalProperties: false },
)

export const OfferUpdateBody = Type.Object(
  { ...canonicalProperties, ...editorFields, ...priceNote, ...version },
  { additionalProperties: false },
)

export const LifecycleBody = Type.Object(
  {
    property_status: Type.Optional(
      Type.String({ description: 'restore: the status the offer gets back (default available)' }),
    ),
    host_status: editorFields.host_status,
    ...priceNote,
    ...version,
  },
  { additionalProperties: false },
)

export const ComponentDeleteQuery = Type.Object({
  reason: Type.Optional(Type.String({ maxLength: 500, description: 'Why (stored with the withdrawal of its price)' })),
  price_from: Type.Optional(
    Type.String({ description: 'Date the withdrawal of its price takes effect; default today' }),
  ),
  version: version.version,
})

export const OfferIdParams = Type.Object({ id: RowId() })
export const ComponentParams = Type.Object({
  id: RowId(),
  component_id: RowId(),
})

const page = Type.Integer({ minimum: 1, default: 1, description: 'Page number, 1-based' })
const perPage = Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1–100' })
const decimalString = Type.String({ pattern: '^\\d{1,7}([.,]\\d{1,2})?$', description: 'Decimal number as text' })

export const OfferListQuery = Type.Object({
  investment: Type.Optional(Type.Integer({ minimum: 1, description: 'Investment id' })),
  status: Type.Optional(stringEnum(STATUS_CODES, { description: 'Offer status' })),
  host_status: Type.Optional(stringEnum(HOST_STATUSES, { description: 'Host status' })),
  offer_kind: Type.Optional(stringEnum(['property', 'standalone_part'] as const)),
  type: Type.Optional(
    stringEnum(['mieszkanie', 'dom', 'parking_space', 'garage', 'storage_room', 'other'] as const, {
      description: 'Property type',
    }),
  ),
  without_type: Type.Optional(
    Type.Boolean({ description: 'true: only offers without a type (to be qualified); false: only typed ones' }),
  ),
  rooms: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  floor: Type.Optional(Type.Integer({ minimum: -20, maximum: 300 })),
  area_min: Type.Optional(decimalString),
  area_max: Type.Optional(decimalString),
  price_min: Type.Optional(Type.Integer({ minimum: 0, description: 'Total price in force today from, in grosze' })),
  price_max: Type.Optional(Type.Integer({ minimum: 0, description: 'Total price in force today up to, in grosze' })),
  search: Type.Optional(
    Type.String({
      maxLength: 200,
      pattern: '^[^\\u0000]*$',
      description: 'Part of the title, designation or source id; no U+0000',
    }),
  ),
  modified_after: Type.Optional(Type.String({ format: 'date-time' })),
  orderby: withDefault(
    stringEnum(['id', 'modified', 'title', 'code', 'price', 'area'] as const, {
      default: 'id',
      description:
        'id (newest first with DESC, the default: the primary key, fast at any size), modified, title, code, price, area. With host_status the catalog’s indexes serve modified, title, price and area too',
    }),
  ),
  order: withDefault(stringEnum(['ASC', 'DESC', 'asc', 'desc'] as const, { default: 'DESC' })),
  page: withDefault(page),
  per_page: withDefault(perPage),
})

export const InvestmentListQuery = Type.Object({
  search: Type.Optional(
    Type.String({
      maxLength: 200,
      pattern: '^[^\\u0000]*$',
      description: 'Part of the name, source id or city; no U+0000',
    }),
  ),
  host_status: Type.Optional(stringEnum(INVESTMENT_HOST_STATUSES)),
  developer_id: Type.Optional(RowId()),
  page: withDefault(page),
  per_page: withDefault(perPage),
})

const locationObject = Type.Object(
  {
    voivodeship: Type.Optional(Nullable(Type.String())),
    powiat: Type.Optional(Nullable(Type.String())),
    gmina: Type.Optional(Nullable(Type.String())),
    city: Type.Optional(Nullable(Type.String())),
    street: Type.Optional(Nullable(Type.String())),
    building_no: Type.Optional(Nullable(Type.String())),
    postal_code: Type.Optional(Nullable(Type.String({ description: 'NN-NNN' }))),
  },
  { additionalProperties: false, description: 'Official columns 29–35; null clears a field' },
)

const investmentProperties = {
  title: Type.Optional(Type.String({ description: 'Name (≤ 255); required for a new investment' })),
  slug: Type.Optional(Type.String({ description: 'Address part of the permalink; default from the title' })),
  content: Type.Optional(Nullable(Type.String({ description: 'Description (≤ 100,000 characters)' }))),
  excerpt: Type.Optional(Nullable(Type.String({ description: 'Excerpt (≤ 2000)' }))),
  host_status: Type.Optional(
    Type.String({
      description: `${INVESTMENT_HOST_STATUSES.join(', ')}; the catalog shows publish only, the daily file publish and pending (an investment an import made without its location: published only once its location is full)`,
    }),
  ),
  visibility: Type.Optional(Type.String({ description: 'public or private' })),
  developer_id: Type.Optional(Nullable(Type.Integer({ description: 'The developer entity (POST /developers)' }))),
  source_id: Type.Optional(
    Nullable(Type.String({ description: 'Id in the source system: the source_investment_id of imports' })),
  ),
  location: Type.Optional(locationObject),
  prospectus_url: Type.Optional(Nullable(Type.String({ description: 'Official column 58 (http or https)' }))),
  custom_meta: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'Registered custom fields of dg_investment; null removes one. Merged with the stored fields',
      },
    ),
  ),
  ...mediaPlacement('investment'),
}

export const InvestmentCreateBody = Type.Object(investmentProperties, { additionalProperties: false })
export const InvestmentUpdateBody = Type.Object(
  { ...investmentProperties, ...version },
  { additionalProperties: false },
)
export const InvestmentIdParams = Type.Object({ id: RowId() })

// ---------------------------------------------------------------------------------------------
// responses

const money = Nullable(Type.String({ description: 'Decimal text with two decimals, e.g. "650000.00"' }))
const nullableText = Nullable(Type.String())
const versionField = Type.String({ description: 'The version of what is shown (the ETag); send it back to edit' })

export const EditorComponent = Type.Object(
  {
    id: Type.Integer(),
    kind: Nullable(
      Type.String({ description: 'parking_space, garage, storage_room, other_room when the name is its own' }),
    ),
    group: Type.String(),
    kind_label: Type.String(),
    designation: nullableText,
    description: nullableText,
    price: money,
    price_from: nullableText,
    relation: nullableText,
    requirement: nullableText,
    variant: nullableText,
    legal_title: nullableText,
    position: Type.Integer(),
  },
  { $id: 'EditorComponent' },
)

const priceInForce = Type.Object({
  amount: money,
  from: nullableText,
  announced: Type.Boolean({
    description: 'true: a price is announced for a day after today, not in force yet ("zapowiedziana"): see `next`',
  }),
  next: Type.Union(
    [Type.Object({ amount: money, from: Type.String() }), Type.Null({ description: 'No price announced after today' })],
    {
      description:
        'The next announced price: the earliest "valid from" after today, whether it is the stored price or an earlier announcement a change dated before it left in place',
    },
  ),
})

export const EditorOffer = Type.Object(
  {
    id: Type.Integer(),
    investment_id: Type.Integer(),
    investment_title: Type.String(),
    source_investment_id: nullableText,
    source_property_id: nullableText,
    offer_kind: Type.String(),
    prop_type: Type.String({ description: 'Empty for an offer without a type (qualified: false)' }),
    qualified: Type.Boolean({ description: 'false until an operator sets the type; such offers are not published' }),
    prop_no: Type.String(),
    title: Type.String(),
    property_status: Type.String(),
    host_status: Type.String(),
    prop_area: nullableText,
    prop_rooms: Nullable(Type.Integer()),
    prop_floor: Nullable(Type.Integer()),
    building: nullableText,
    variant: nullableText,
    price_total: money,
    price_total_from: nullableText,
    price_m2: money,
    price_m2_from: nullableText,
    price_combined: money,
    price_combined_from: nullableText,
    price_combined_variant: nullableText,
    price_combined_status: nullableText,
    custom_meta: Type.Object({}, { additionalProperties: true }),
    thumbnail_id: Nullable(Type.Integer()),
    gallery: Type.Array(Type.Integer()),
    components: Type.Array(Type.Ref('EditorComponent')),
    in_force: Type.Optional(
      Type.Object(
        {
          day: Type.String({ description: 'Today in Europe/Warsaw' }),
          price_total: priceInForce,
          price_m2: priceInForce,
          price_combined: Type.Object({
            ...priceInForce.properties,
            source: Type.Union([Type.Literal('package'), Type.Literal('derived'), Type.Literal('none')], {
              description:
                'Where column 42 of the day comes from: `package` the stored package price (set on or after the last change of the total and every part, not below the total), `derived` the total plus the parts, rooms and rights listed with the unit, `none` X (no priced part)',
            }),
            held_package: Type.Union([Type.Object({ amount: money, from: nullableText }), Type.Null()], {
              description:
                'A stored package price set aside because the total or a part changed after it (or it is below the total); the file names it in the warning price_combined_package_held until it is entered again or removed',
            }),
          }),
          components: Type.Array(Type.Object({ id: Type.Integer(), ...priceInForce.properties })),
        },
        {
          description:
            'The prices in force today (the latest record valid on or before today), as the official file, the catalog and the website show them, with the next price announced after today',
        },
      ),
    ),
    created_at: Type.String(),
    modified_at: Type.String(),
    version: versionField,
  },
  { $id: 'EditorOffer', description: 'An offer as the editor shows it, in any host status' },
)

export const EditorInvestment = Type.Object(
  {
    id: Type.Integer(),
    source_id: nullableText,
    title: Type.String(),
    slug: Type.String(),
    content: Type.String(),
    excerpt: Type.String(),
    host_status: Type.String(),
    visibility: Type.String(),
    developer_id: Nullable(Type.Integer()),
    location: Type.Object({
      voivodeship: nullableText,
      powiat: nullableText,
      gmina: nullableText,
      city: nullableText,
      street: nullableText,
      building_no: nullableText,
      postal_code: nullableText,
    }),
    prospectus_url: nullableText,
    custom_meta: Type.Object({}, { additionalProperties: true }),
    thumbnail_id: Nullable(Type.Integer()),
    gallery: Type.Array(Type.Integer()),
    offers_count: Type.Integer({ description: 'Offers in every status' }),
    published_offers_count: Type.Integer({ description: 'Offers with host status publish' }),
    created_at: Type.String(),
    modified_at: Type.String(),
    version: versionField,
  },
  { $id: 'EditorInvestment', description: 'An investment as the editor shows it, in any host status' },
)

const amount = Type.Object({ cents: Nullable(Type.Integer()), formatted: Type.String() })

export const EditorPriceHistory = Type.Object(
  {
    property_id: Type.Integer(),
    items: Type.Array(
      Type.Object({
        record_type: Type.String({ description: 'first, change, correction, withdrawal' }),
        price_type: Type.String({ description: 'total, m2, combined, component' }),
        valid_from: Type.String(),
        recorded_at: Type.String({ description: 'The day the record was written (YYYY-MM-DD, Europe/Warsaw)' }),
        before: amount,
        after: amount,
        label: Type.String(),
        reason: Type.String(),
        correction: Type.Boolean(),
        component_id: Nullable(Type.Integer({ description: 'The component a component price belongs to' })),
        channel: Nullable(
          Type.String({ description: 'Who wrote the record: import, webhook, editor (null: fixtures, demo)' }),
        ),
        announced: Type.Optional(
          Type.Boolean({
            description: 'true: valid from a day after today, an announced price ("zapowiedziana"), not in force yet',
          }),
        ),
      }),
    ),
  },
  {
    $id: 'EditorPriceHistory',
    description: 'The price history (as GET /catalog/properties/{id}/price-history), for any host status',
  },
)

const issue = Type.Object({
  field: Type.String({ description: 'The field, as sent (components[0].price, custom_meta.key, …)' }),
  code: Type.String({ description: 'Stable code: the import’s row error codes, and the editor’s own' }),
  message: Type.String({ description: 'Polish, or English with Accept-Language: en' }),
  message_pl: Type.String(),
  message_en: Type.String(),
})

export const EditorValidationFailed = Type.Object(
  {
    error: Type.Literal('validation_failed'),
    message: Type.String(),
    message_pl: Type.String(),
    message_en: Type.String(),
    issues: Type.Array(issue),
  },
  { $id: 'EditorValidationFailed', description: 'Nothing was written; every problem is listed' },
)

const conflictOf = (id: string, current: TSchema): TObject =>
  Type.Object(
    {
      error: Type.Literal('edit_conflict'),
      message: Type.String(),
      message_pl: Type.String(),
      message_en: Type.String(),
      version: Type.String({ description: 'The current version (also in the ETag header)' }),
      current,
    },
    { $id: id, description: 'The version named is no longer current; nothing was written' },
  )

export const OfferConflict = conflictOf('EditorOfferConflict', Type.Ref('EditorOffer'))
export const InvestmentConflict = conflictOf('EditorInvestmentConflict', Type.Ref('EditorInvestment'))

/* media */
export const EditorMedia = Type.Object(
  {
    id: Type.Integer(),
    kind: Type.String({ description: 'image or document' }),
    title: Type.String(),
    alt: Type.String(),
    url: Type.String({ description: 'Where the file is served (/dg-media/…), as the catalog shows it' }),
    preview_url: Nullable(
      Type.String({ description: 'An image’s preview (at most 480 px), or the image itself; null for a document' }),
    ),
    mime_type: Nullable(Type.String()),
    position: Type.Integer({ description: 'Order among the entry’s documents' }),
    offer_id: Type.Union([Type.Integer(), Type.Null()]),
    investment_id: Type.Union([Type.Integer(), Type.Null()]),
    uploaded: Type.Boolean({ description: 'false for media linked by address, not uploaded here' }),
    created_at: Type.String(),
  },
  { $id: 'EditorMedia', description: 'An image or a PDF document of an offer or an investment' },
)

const customField = Type.Object({
  key: Type.String(),
  type: Type.String({ description: 'string, integer, number or boolean: what a value must be' }),
  label: Type.String(),
  description: Type.String(),
  show_in_rest: Type.Boolean({ description: 'true: the catalog shows it in custom_meta' }),
})

export const EditorCustomFields = Type.Object(
  { dg_property: Type.Array(customField), dg_investment: Type.Array(customField) },
  {
    $id: 'EditorCustomFields',
    description: 'The custom fields registered by extensions, which custom_meta of offers and investments may set',
  },
)

export const EDITOR_SCHEMAS: TSchema[] = [
  EditorCustomFields,
  EditorMedia,
  EditorComponent,
  EditorOffer,
  EditorInvestment,
  EditorPriceHistory,
  EditorValidationFailed,
  OfferConflict,
  InvestmentConflict,
]
