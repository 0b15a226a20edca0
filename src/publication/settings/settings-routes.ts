/*
 * The data of the official file, editable over the API (read: dg_read_all; the settings: dg_publish;
 * developers and locations: dg_edit_catalog; the legacy key parameter: manage_options; not licence-gated,
 * because the daily publication is a legal duty that continues in continuity mode):
 *   GET/PUT  {base_url}/publication/settings      public_base_url, developer_id, statuses, schedule (+ its next runs)
 *   GET      {base_url}/developers                every developer entity
 *   POST     {base_url}/developers                a developer entity (columns 1–28)
 *   GET/PUT  {base_url}/developers/{id}
 *   GET/PUT  {base_url}/investments/{id}/location columns 29–35 and the prospectus URL (58)
 *   GET/PUT  {base_url}/legacy-generate/settings  the deprecated `key` query parameter of legacy generate
 * PUT changes the fields sent (null clears one). Refusals are 422 with `issues` and write nothing.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { type TSchema, Type } from 'typebox'

import { developerFilter, requireInScope, requireWholeCatalog, scopeOf } from '../../host/auth/scope.js'
import { actorOf, requireCapability, requirePrincipal } from '../../host/http/authenticate.js'
import { errorResponses, RowId } from '../../host/http/schemas.js'
import { legacyKeyParamView, setLegacyKeyParam } from '../legacy/legacy-key-setting.js'
import {
  createDeveloper,
  EDITABLE_DEVELOPER_FIELDS,
  getDeveloper,
  getInvestmentLocation,
  listDevelopers,
  LOCATION_FIELDS,
  publicationSettingsView,
  savePublicationSettings,
  updateDeveloper,
  updateInvestmentLocation,
} from './settings-service.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const readGuard = [requireCapability('dg_read_all')]
const publishGuard = [requireCapability('dg_publish')]
const editGuard = [requireCapability('dg_edit_catalog')]
const adminGuard = [requireCapability('manage_options')]
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const IdParams = Type.Object({ id: RowId() })

const PublicationSettingsSchema = Type.Object({
  public_base_url: Nullable(Type.String({ description: 'https address where /dane-gov files are reachable' })),
  developer_id: Nullable(Type.Integer({ description: 'The publishing developer; null = the first one' })),
  published_statuses: Type.Array(Type.String()),
  schedule: Type.String({
    description: 'Cron pattern in Europe/Warsaw; a change applies on every instance within seconds, without a restart',
  }),
  public_dataset_id: Type.String({ description: 'extIdent of the dataset (read-only, never changes)' }),
  xml_url: Nullable(Type.String()),
  md5_url: Nullable(Type.String()),
  next_runs: Type.Array(Type.String({ format: 'date-time' }), {
    description: 'The next three runs of the schedule (from the stored pattern)',
  }),
  schedule_time: Nullable(
    Type.Object(
      {
        time: Type.String({ description: 'HH:MM, Polish time' }),
        days: Type.Array(Type.Integer({ minimum: 0, maximum: 6 }), { description: '0 = Sunday … 6 = Saturday' }),
      },
      { description: 'The schedule as a time of day and days; null for a pattern only cron can say' },
    ),
  ),
  warnings: Type.Array(
    Type.Object({
      field: Type.String(),
      code: Type.String({
        description:
          'Stable code; schedule_skips_days: the schedule has days without a run, while art. 19b(1) asks for a publication every day (saved all the same)',
      }),
      message: Type.String({ description: 'Polish, or English with Accept-Language: en' }),
      message_pl: Type.String(),
      message_en: Type.String(),
      details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    }),
    { description: 'What the settings allow but the law may not; nothing is refused for it' },
  ),
})

const PublicationSettingsBody = Type.Object(
  {
    public_base_url: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    developer_id: Type.Optional(Nullable(RowId())),
    published_statuses: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 10 })),
    schedule: Type.Optional(Type.String({ maxLength: 100 })),
    confirm_url_change: Type.Optional(
      Type.Boolean({
        description:
          'Confirms a new public_base_url once files were published: past resources keep their URLs under the old address',
      }),
    ),
  },
  { additionalProperties: false },
)

const LONG_FIELDS = new Set([
  'sales_additional_locations',
  'contact_method',
  'dataset_url',
  'description_note_pl',
  'description_note_en',
])
const maxLength = (field: string) => (LONG_FIELDS.has(field) ? 2000 : 300)

const DATASET_FIELD_DESCRIPTIONS: Record<string, string> = {
  dataset_url:
    'This entity’s dataset <url>: the https page of its website with the prices; required before production, and once the dataset is published it can be changed but not removed',
  description_note_pl:
    'Ends the Polish description of this entity’s dataset (e.g. that sales of an investment ended); plain text',
  description_note_en: 'Ends the English description of this entity’s dataset; only in English (none when not given)',
}

const DeveloperBody = Type.Object(
  Object.fromEntries(
    EDITABLE_DEVELOPER_FIELDS.map((field) => [
      field,
      Type.Optional(
        Nullable(
          Type.String({
            maxLength: maxLength(field),
            ...(DATASET_FIELD_DESCRIPTIONS[field] ? { description: DATASET_FIELD_DESCRIPTIONS[field] } : {}),
          }),
        ),
      ),
    ]),
  ),
  {
    additionalProperties: false,
    description: 'Official columns 1–28 and the entity’s dataset fields; null clears a field',
  },
)

const DeveloperSchema = Type.Object({
  id: Type.Integer(),
  ...Object.fromEntries(
    EDITABLE_DEVELOPER_FIELDS.map((field) => [field, field === 'name' ? Type.String() : Nullable(Type.String())]),
  ),
  created_at: Type.String(),
  modified_at: Type.String(),
})

const LocationBody = Type.Object(
  Object.fromEntries(LOCATION_FIELDS.map((field) => [field, Type.Optional(Nullable(Type.String({ maxLength: 300 })))])),
  { additionalProperties: false, description: 'Official columns 29–35 and 58; null clears a field' },
)

const LocationSchema = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  developer_id: Nullable(Type.Integer()),
  location: Type.Object(
    Object.fromEntries(LOCATION_FIELDS.filter((f) => f !== 'prospectus_url').map((f) => [f, Nullable(Type.String())])),
  ),
  prospectus_url: Nullable(Type.String()),
  modified_at: Type.String(),
})

export async function settingsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/publication/settings',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'getPublicationSettings',
        tags: ['publication'],
        summary: 'Publication settings and the dataset identity',
        security,
        response: { 200: PublicationSettingsSchema, ...errorResponses(401, 403) },
      },
    },
    async () => publicationSettingsView(app.ctx),
  )

  app.put(
    '/publication/settings',
    {
      preHandler: [...publishGuard, requireWholeCatalog],
      schema: {
        operationId: 'updatePublicationSettings',
        tags: ['publication'],
        summary: 'Change publication settings (fields sent only); 422 invalid_settings with issues',
        security,
        body: PublicationSettingsBody,
        response: { 200: PublicationSettingsSchema, ...errorResponses(400, 401, 403, 409, 422) },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const { confirm_url_change: confirmUrlChange, ...patch } = request.body
      return savePublicationSettings(app.ctx, patch, actorOf(principal), { confirmUrlChange })
    },
  )

  app.get(
    '/developers',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'listDevelopers',
        tags: ['publication'],
        summary: 'Every developer entity (official columns 1–28); each has its own dataset',
        security,
        response: { 200: Type.Object({ items: Type.Array(DeveloperSchema) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ items: await listDevelopers(app.ctx, developerFilter(await scopeOf(request))) }),
  )

  app.post(
    '/developers',
    {
      preHandler: [...editGuard, requireWholeCatalog],
      schema: {
        operationId: 'createDeveloper',
        tags: ['publication'],
        summary: 'Add a developer entity (official columns 1–28); 422 invalid_developer with issues',
        security,
        body: DeveloperBody,
        response: { 201: DeveloperSchema, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      const created = await createDeveloper(app.ctx, request.body, actorOf(principal))
      return reply.code(201).send(created)
    },
  )

  app.get(
    '/developers/:id',
    {
      preHandler: [...readGuard, requireInScope('developer')],
      schema: {
        operationId: 'getDeveloper',
        tags: ['publication'],
        summary: 'A developer entity (official columns 1–28)',
        security,
        params: IdParams,
        response: { 200: DeveloperSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getDeveloper(app.ctx, request.params.id),
  )

  app.put(
    '/developers/:id',
    {
      preHandler: [...editGuard, requireInScope('developer', 'id', 'change')],
      schema: {
        operationId: 'updateDeveloper',
        tags: ['publication'],
        summary: 'Change a developer entity (fields sent only); 422 invalid_developer with issues',
        security,
        params: IdParams,
        body: DeveloperBody,
        response: { 200: DeveloperSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const { id } = request.params
      return updateDeveloper(app.ctx, id, request.body, actorOf(principal))
    },
  )

  app.get(
    '/investments/:id/location',
    {
      preHandler: [...readGuard, requireInScope('investment')],
      schema: {
        operationId: 'getInvestmentLocation',
        tags: ['publication'],
        summary: 'Location of an investment (official columns 29–35) and its prospectus URL (58)',
        security,
        params: IdParams,
        response: { 200: LocationSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getInvestmentLocation(app.ctx, request.params.id),
  )

  app.put(
    '/investments/:id/location',
    {
      preHandler: [...editGuard, requireInScope('investment')],
      schema: {
        operationId: 'updateInvestmentLocation',
        tags: ['publication'],
        summary: 'Change the location of an investment (fields sent only); 422 invalid_location with issues',
        security,
        params: IdParams,
        body: LocationBody,
        response: { 200: LocationSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const { id } = request.params
      return updateInvestmentLocation(app.ctx, id, request.body, actorOf(principal))
    },
  )

  const LegacyKeyParamSchema = Type.Object({
    enabled: Type.Boolean({
      description: 'Whether legacy generate accepts the webhook key in the key query parameter',
    }),
    source: Type.String({ description: 'setting (set over REST) or environment (DG_LEGACY_KEY_PARAM, default off)' }),
    environment_default: Type.Boolean({ description: 'What DG_LEGACY_KEY_PARAM says' }),
    deprecated_since: Type.String({ description: 'Deprecation header date (RFC 9745)' }),
    sunset: Type.String({ description: 'Sunset header date (RFC 8594): no 2.x release removes it before' }),
    removed_in: Type.String({ description: 'The release that removes the parameter' }),
    warning: Type.String({ description: 'The Warning header of every answer to a request using it' }),
  })

  app.get(
    '/legacy-generate/settings',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'getLegacyGenerateSettings',
        tags: ['publication'],
        summary: 'Whether legacy generate accepts the deprecated key query parameter',
        security,
        response: { 200: LegacyKeyParamSchema, ...errorResponses(401, 403) },
      },
    },
    async () => legacyKeyParamView(app.ctx),
  )

  app.put(
    '/legacy-generate/settings',
    {
      preHandler: adminGuard,
      schema: {
        operationId: 'updateLegacyGenerateSettings',
        tags: ['publication'],
        summary:
          'Turn the deprecated key query parameter on (temporarily) or off; null goes back to DG_LEGACY_KEY_PARAM. Audited',
        security,
        body: Type.Object({ enabled: Type.Union([Type.Boolean(), Type.Null()]) }, { additionalProperties: false }),
        response: { 200: LegacyKeyParamSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      return setLegacyKeyParam(app.ctx, request.body.enabled, actorOf(principal))
    },
  )
}
