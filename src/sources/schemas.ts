/*
 * JSON schemas of the sources' routes (and of the OpenAPI document). Header values are accepted
 * and never returned: a source shows its header names only.
 */
import { Type } from 'typebox'

const Percent = Type.Number({ minimum: 0, maximum: 100 })

export const GuardLimitsSchema = Type.Object(
  {
    max_archived_pct: Type.Optional(Percent),
    max_price_change_pct: Type.Optional(Percent),
    max_invalid_pct: Type.Optional(Percent),
    max_shrink_pct: Type.Optional(Percent),
  },
  {
    additionalProperties: false,
    description:
      'Limits in percent: offers archived or withdrawn (of the catalog), a unit price change, rows refused (of the file), rows fewer than the last applied file. Defaults 30, 20, 10, 30.',
  },
)

const sourceFields = {
  name: Type.String({ minLength: 1, maxLength: 120 }),
  url: Type.String({
    minLength: 9,
    maxLength: 2000,
    description:
      'https address of a CSV or XLSX file; an address literal that is not public unicast (loopback, private, link-local, metadata, unique- or site-local, reserved, in any notation) is refused with 422 source_address_not_public unless private_hosts names it',
  }),
  headers: Type.Record(Type.String(), Type.String({ maxLength: 4000 }), {
    description:
      'Request headers (a token, say); stored, never returned nor logged. {} removes them. A change of url to another origin removes them unless sent again.',
  }),
  mapping: Type.Record(Type.String(), Type.String(), {
    description: 'Canonical field (or meta:<key>) → column header, as the import mapping',
  }),
  mode: Type.Union([Type.Literal('patch'), Type.Literal('snapshot')]),
  sheet: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
  schedule: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
    description: 'Cron pattern in Europe/Warsaw; null runs 30 minutes before the daily publication',
  }),
  private_hosts: Type.Array(Type.String({ maxLength: 260 }), {
    maxItems: 10,
    description:
      'Hosts (host, host:port, [IPv6] or [IPv6]:port) allowed to be private or loopback addresses; read as URL reads a host, so 127.1 names 127.0.0.1',
  }),
  guards: GuardLimitsSchema,
  stale_after_days: Type.Integer({ minimum: 1, maximum: 90 }),
  enabled: Type.Boolean(),
  ca_certificate: Type.Union([Type.String({ maxLength: 20000 }), Type.Null()], {
    description:
      'PEM of the certificate(s) trusted for this source’s server besides the usual authorities (a self-signed server, a company’s own authority); used for this source only. null or "" removes it. Text that does not read as X.509 certificates: 422 source_certificate_invalid.',
  }),
}

export const SourceCreateBody = Type.Object(
  {
    name: sourceFields.name,
    url: sourceFields.url,
    mapping: sourceFields.mapping,
    headers: Type.Optional(sourceFields.headers),
    mode: Type.Optional(sourceFields.mode),
    sheet: Type.Optional(sourceFields.sheet),
    schedule: Type.Optional(sourceFields.schedule),
    private_hosts: Type.Optional(sourceFields.private_hosts),
    guards: Type.Optional(sourceFields.guards),
    stale_after_days: Type.Optional(sourceFields.stale_after_days),
    enabled: Type.Optional(sourceFields.enabled),
    ca_certificate: Type.Optional(sourceFields.ca_certificate),
  },
  { additionalProperties: false },
)

export const SourceHeaderPreviewBody = Type.Object(
  {
    source_id: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'A saved source whose settings fill the fields not sent (its stored header values only while the url keeps its origin)',
      }),
    ),
    url: Type.Optional(sourceFields.url),
    headers: Type.Optional(sourceFields.headers),
    private_hosts: Type.Optional(sourceFields.private_hosts),
    ca_certificate: Type.Optional(sourceFields.ca_certificate),
    sheet: Type.Optional(sourceFields.sheet),
  },
  { additionalProperties: false, minProperties: 1 },
)

export const SourceHeaderPreviewSchema = Type.Object(
  {
    headers: Type.Array(Type.String(), { description: 'The header row of the file, in order' }),
    format: Type.Union([Type.Literal('csv'), Type.Literal('xlsx')]),
    bytes: Type.Integer(),
  },
  { additionalProperties: false },
)

export const SourceUpdateBody = Type.Object(
  Object.fromEntries(Object.entries(sourceFields).map(([key, schema]) => [key, Type.Optional(schema)])),
  { additionalProperties: false, minProperties: 1 },
)

const RunSummarySchema = Type.Object(
  {
    id: Type.Integer(),
    outcome: Type.String(),
    started_at: Type.String(),
    finished_at: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
)

export const SourceSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    url: Type.String(),
    header_names: Type.Array(Type.String()),
    mapping: Type.Record(Type.String(), Type.String()),
    mode: Type.String(),
    sheet: Type.Union([Type.String(), Type.Null()]),
    schedule: Type.Union([Type.String(), Type.Null()]),
    private_hosts: Type.Array(Type.String()),
    guards: Type.Object({
      max_archived_pct: Type.Number(),
      max_price_change_pct: Type.Number(),
      max_invalid_pct: Type.Number(),
      max_shrink_pct: Type.Number(),
    }),
    stale_after_days: Type.Integer(),
    enabled: Type.Boolean(),
    trusted_certificates: Type.Array(
      Type.Object(
        {
          subject: Type.String(),
          issuer: Type.String(),
          valid_to: Type.String(),
          fingerprint_sha256: Type.String(),
        },
        { additionalProperties: false },
      ),
      { description: 'The certificates ca_certificate holds (the PEM itself is not returned)' },
    ),
    created_at: Type.String(),
    updated_at: Type.String(),
    changed_at: Type.Union([Type.String(), Type.Null()]),
    content_sha256: Type.Union([Type.String(), Type.Null()]),
    last_run: Type.Union([RunSummarySchema, Type.Null()]),
    warnings: Type.Optional(
      Type.Array(
        Type.Object(
          {
            field: Type.String(),
            code: Type.String({
              description:
                'Stable code; source_headers_removed: the address moved to another origin (scheme, host or port) and the stored headers were removed, as they were not sent again',
            }),
            message: Type.String({ description: 'Polish' }),
            message_pl: Type.String(),
            message_en: Type.String(),
            details: Type.Optional(Type.Object({}, { additionalProperties: true })),
          },
          { additionalProperties: false },
        ),
        { description: 'Only in the answer to a change: what it did besides what was asked' },
      ),
    ),
  },
  { $id: 'Source', additionalProperties: false },
)

const FlaggedOffer = Type.Object(
  {
    key: Type.String({ description: 'source_investment_id/source_property_id' }),
    offer_id: Type.Optional(Type.Integer()),
    unit: Type.Optional(Type.String({ description: 'The unit’s designation (prop_no)' })),
    field: Type.String(),
    before: Type.Union([Type.String(), Type.Number(), Type.Null()]),
    after: Type.Union([Type.String(), Type.Number(), Type.Null()]),
    change_pct: Type.Optional(Type.Number()),
    before_from: Type.Optional(Type.String({ description: 'announced_price: the stored price’s valid-from date' })),
    after_from: Type.Optional(Type.String({ description: 'announced_price: the valid-from date the file gives' })),
    changed_in: Type.Optional(
      Type.Union([Type.Literal('editor'), Type.Literal('bulk_price_change')], {
        description: 'panel_change: where the value was changed',
      }),
    ),
    changed_at: Type.Optional(Type.String({ description: 'panel_change: when (ISO)' })),
    changed_by: Type.Optional(Type.String({ description: 'panel_change: by whom' })),
  },
  { additionalProperties: false },
)

export const SourceRunSchema = Type.Object(
  {
    id: Type.Integer(),
    source_id: Type.Integer(),
    source_name: Type.Optional(Type.String()),
    trigger: Type.String(),
    started_at: Type.String(),
    finished_at: Type.Union([Type.String(), Type.Null()]),
    outcome: Type.String({
      description: 'running, unchanged, applied, held, rejected, superseded, stale, invalid or failed',
    }),
    http_status: Type.Union([Type.Integer(), Type.Null()]),
    bytes: Type.Union([Type.Integer(), Type.Null()]),
    content_sha256: Type.Union([Type.String(), Type.Null()]),
    job_id: Type.Union([Type.String(), Type.Null()]),
    summary: Type.Object({}, { additionalProperties: true }),
    guards: Type.Array(
      Type.Object(
        {
          guard: Type.String({
            description:
              'Limits: archived, price_change, invalid_rows, shrink. Decisions the file would undo (limit 0: one unit holds the run): ' +
              'back_on_sale (a sold or reserved unit to available), announced_price (a price valid from a day after the run’s day changed), ' +
              'panel_change (a value changed in the editor or by a bulk price change since the source’s previous applied run).',
          }),
          limit_pct: Type.Number(),
          actual_pct: Type.Number(),
          count: Type.Integer(),
          of: Type.Integer(),
          offers: Type.Array(FlaggedOffer),
        },
        { additionalProperties: false },
      ),
    ),
    failure: Type.Union([
      Type.Object(
        {
          code: Type.String(),
          message: Type.String({ description: 'Technical detail' }),
          network_code: Type.Optional(Type.String({ description: 'A network failure’s stable code (network_…)' })),
          message_pl: Type.Optional(Type.String({ description: 'A network failure explained in Polish' })),
          message_en: Type.Optional(Type.String({ description: 'A network failure explained in English' })),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    decided_by: Type.Union([
      Type.Object({ id: Type.Union([Type.Integer(), Type.Null()]), name: Type.String() }),
      Type.Null(),
    ]),
    decided_at: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'SourceRun', additionalProperties: false },
)

export const SourceRunPlanSchema = Type.Object(
  {
    run: Type.Ref('SourceRun'),
    plan: Type.Object({
      items: Type.Array(Type.Object({}, { additionalProperties: true })),
      page: Type.Integer(),
      per_page: Type.Integer(),
      total_items: Type.Integer(),
      available: Type.Boolean({ description: 'Whether the plan can be read now' }),
      state: Type.Union([Type.Literal('none'), Type.Literal('available'), Type.Literal('expired')], {
        description:
          'none: the run made no plan (the file was not fetched or did not change); available until expires_at; expired since expires_at (null when the plan was already removed)',
      }),
      expires_at: Type.Union([Type.String(), Type.Null()], {
        description: 'When the plan is (or was) removed: the import job’s own expiry',
      }),
      retention_hours: Type.Integer({ description: 'How long a run’s plan is kept when nobody applies it' }),
    }),
  },
  { additionalProperties: false },
)

export const SOURCE_SCHEMAS = [SourceSchema, SourceRunSchema]
