/*
 * Schemas of the public price endpoint and of its settings. The public answer is sent
 * pre-serialized (its ETag is over the exact bytes), so its schema documents the shape; every
 * object is closed (`additionalProperties: false`): the property test checks that no key outside
 * it is ever answered.
 */
import { type TSchema, Type } from 'typebox'

import { DateString, RowId, stringEnum } from '../host/http/schemas.js'

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const closed = { additionalProperties: false }

const amount = Type.String({ pattern: '^-?\\d+\\.\\d{2}$', description: 'Złoty as a decimal with two places' })
const price = Type.Object(
  {
    amount,
    valid_from: Nullable(DateString),
  },
  { ...closed, description: 'A price in force on `day` and the date it holds from' },
)

export const PublicPricesSchema = Type.Object(
  {
    investment: Type.Object(
      {
        id: Type.Integer(),
        title: Type.String(),
        city: Nullable(Type.String()),
        address: Nullable(Type.String({ description: 'Street and building number' })),
        developer: Nullable(Type.String({ description: 'The developer entity (the official file’s column 1)' })),
      },
      closed,
    ),
    day: { ...DateString, description: 'Today in Europe/Warsaw: every price is the one in force that day' },
    generated_at: Type.String({ description: 'When the catalog this answer was built from last changed (ISO 8601)' }),
    currency: Type.Literal('PLN'),
    units: Type.Array(
      Type.Object(
        {
          id: Type.Integer(),
          designation: Type.String(),
          kind: stringEnum(['flat', 'house', 'parking_space', 'garage', 'storage_room', 'other'] as const, {
            description:
              'flat, house, or a part sold on its own as the official file lists it (columns 44–51): parking_space, garage, storage_room, other',
          }),
          area_m2: Nullable(Type.String({ pattern: '^\\d+\\.\\d{2,}$' })),
          rooms: Nullable(Type.Integer()),
          floor: Nullable(Type.Integer()),
          status: stringEnum(['available', 'reserved'] as const),
          price_m2: Nullable({
            ...price,
            description: 'null for a part sold on its own (the file has its total only)',
          }),
          price_total: Nullable(price),
          price_combined: Nullable({
            ...price,
            description: 'The official file’s column 42: the total with the parts, rooms and rights sold with it',
          }),
          parts: Type.Array(
            Type.Object(
              {
                kind: Type.String({
                  description:
                    'parking_space, garage, storage_room, other_room; else the group: part, appurtenant_room, right',
                }),
                label: Type.String({ description: 'The kind’s name as the official file writes it' }),
                designation: Nullable(Type.String()),
                price: Nullable(price),
                history: Type.Array(
                  Type.Object(
                    {
                      valid_from: DateString,
                      amount: Nullable({ ...amount, description: 'null: the price was withdrawn from that date' }),
                    },
                    { ...closed, description: 'The part’s price as in force from that date' },
                  ),
                  {
                    description:
                      'Every date on or before `day` the part’s price took effect, newest first (the official file’s columns 44–54 over the days)',
                  },
                ),
              },
              closed,
            ),
          ),
          other_payments: Type.Array(
            Type.Object(
              { description: Type.String(), amount: Nullable(amount), valid_from: Nullable(DateString) },
              closed,
            ),
          ),
          history: Type.Array(
            Type.Object(
              { valid_from: DateString, price_m2: Nullable(amount), price_total: Nullable(amount) },
              { ...closed, description: 'Both prices as in force from that date' },
            ),
            { description: 'Every date on or before `day` a price took effect, newest first' },
          ),
        },
        closed,
      ),
      {
        description:
          'The units the official file lists and that are on sale, by designation: published flats, houses and parts sold on their own, whose status is one of the publication’s statuses (published_statuses) and is available or reserved',
      },
    ),
  },
  {
    ...closed,
    $id: 'PublicPrices',
    description: 'What art. 19a of the developer act makes public, for one investment',
  },
)

export const InvestmentIdParams = Type.Object({ id: RowId({ description: 'The investment' }) })

export const PublicPricesSettingsSchema = Type.Object(
  {
    investment_id: Type.Integer(),
    enabled: Type.Boolean({ description: 'Whether the public endpoint answers this investment (off by default)' }),
    allowed_origins: Type.Array(Type.String(), {
      description: 'Website origins allowed to read the prices from a browser (CORS)',
    }),
    endpoint_url: Type.String({ description: 'The public endpoint of this investment' }),
    script_url: Type.String({ description: 'The embeddable component’s script, this version' }),
    snippet: Type.String({ description: 'The HTML to paste into a website' }),
  },
  { $id: 'PublicPricesSettings' },
)

export const PublicPricesSettingsBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    allowed_origins: Type.Optional(
      Type.Array(Type.String({ maxLength: 2000 }), {
        maxItems: 1000,
        description:
          'Exact origins: https://host[:port], or http://localhost[:port] / http://127.0.0.1[:port]; no path. Replaces the list',
      }),
    ),
  },
  { additionalProperties: false },
)
