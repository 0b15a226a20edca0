/*
 * Schemas of the offer import (docs/integration/import.md) and of the canonical offer fields
 * (docs/reference/import-format.md).
 * The responses are what preview-offer-import.ts, execution/execute-offer-import.ts and
 * import-job-view.ts return (PreviewBody, ImportResult, JobView).
 * The request bodies are multipart and form-encoded: the handler reads them itself, so they are
 * described for the OpenAPI document only (`documented`, see host/http/openapi/openapi.ts).
 */
import { Type } from 'typebox'

import { stringEnum } from '../host/http/schemas.js'
import { CANONICAL_FIELDS, type CanonicalField } from '../offers/canonical-fields.js'
import { FILE_ERROR_CODES } from './reading/file-errors.js'
import { SAMPLE_ROWS } from './reading/read-file-headers.js'

/** Idempotency-Key of an import execution and of a webhook event. */
export const IDEMPOTENCY_KEY_PATTERN = '^[A-Za-z0-9._:-]{8,128}$'

const JOB_ID = Type.String({ pattern: '^[0-9a-f]{32}$', description: 'Import job id, 32 hexadecimal characters' })

/** Canonical fields whose normalized value is a number; every other one is text. */
const INTEGER_FIELDS: ReadonlySet<CanonicalField> = new Set(['prop_rooms', 'prop_floor'])

/** The normalized values of one planned offer, by canonical field; amounts as decimal text. */
const CanonicalValues = Type.Object(
  Object.fromEntries(
    CANONICAL_FIELDS.map((field) => [field, Type.Optional(INTEGER_FIELDS.has(field) ? Type.Integer() : Type.String())]),
  ),
  {
    description:
      'Normalized values by canonical field; amounts as decimal text such as 512000.00; custom fields as meta:<key>',
    patternProperties: {
      '^meta:': Type.Union([Type.String(), Type.Number(), Type.Boolean()], {
        description: 'A custom field (meta:<key>)',
      }),
    },
  },
)

/** mapping: canonical field name (or `meta:<key>` of a registered custom field) → column header of the file. */
const Mapping = Type.Object(
  {},
  {
    propertyNames: {
      anyOf: [stringEnum(CANONICAL_FIELDS), Type.String({ pattern: '^meta:[A-Za-z_][A-Za-z0-9_-]{0,63}$' })],
    },
    additionalProperties: Type.String({ minLength: 1 }),
    required: ['source_investment_id', 'source_property_id'],
  },
)

export const ImportRowErrorSchema = Type.Object(
  {
    row: Type.Integer({ description: 'Spreadsheet row (the header is row 1); 0 for the file as a whole' }),
    field: Type.String({ description: 'Canonical field, the unknown column or key, or `file`' }),
    code: Type.String({ description: 'Stable code' }),
    message: Type.String(),
  },
  { $id: 'ImportRowError', additionalProperties: true },
)

export const ImportOperationSchema = Type.Object(
  {
    row: Type.Union([Type.Integer(), Type.Null()], { description: 'File row; null for an archive' }),
    action: stringEnum(['create', 'update', 'unchanged', 'archive']),
    key: Type.String({ description: 'Offer key: source investment id and source property id, joined by /' }),
    designation: Type.Union([Type.String(), Type.Null()], {
      description: "The offer's designation (prop_no): the file's, else the stored offer's; null when neither names it",
    }),
    investment_title: Type.Union([Type.String(), Type.Null()], {
      description: "The investment's title; a new investment is titled by its source id",
    }),
    values: CanonicalValues,
    changes: Type.Array(Type.String(), {
      description: 'Canonical fields (and meta:<key> custom fields) whose stored value changes',
    }),
    before: Type.Object(
      {},
      {
        additionalProperties: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
        description: 'The stored values of the changed fields before the import',
      },
    ),
  },
  { $id: 'ImportOperation' },
)

const ArchiveScope = Type.Object(
  {
    investments: Type.Array(Type.Object({ source_investment_id: Type.String(), archived: Type.Integer() })),
    total: Type.Integer({ description: 'Offers a snapshot archives' }),
  },
  { description: 'What a snapshot archives: offers missing from the file, in the investments it names' },
)

export const OfferImportPreviewSchema = Type.Object(
  {
    valid: Type.Boolean({ description: 'false: the job must not be executed' }),
    mode: stringEnum(['patch', 'snapshot']),
    operations: Type.Array(Type.Ref('ImportOperation'), {
      description: 'The planned operations (the first 500; all of them through GET /imports/{id}); empty when invalid',
    }),
    operations_total: Type.Integer(),
    counts: Type.Object({
      create: Type.Integer(),
      update: Type.Integer(),
      unchanged: Type.Integer(),
      archive: Type.Integer(),
    }),
    archive_scope: ArchiveScope,
    errors: Type.Array(Type.Ref('ImportRowError')),
    errors_total: Type.Integer({ description: 'Every error found; `errors` lists up to DG_IMPORT_MAX_ERRORS' }),
    rows: Type.Integer({ description: 'Data rows read' }),
  },
  { $id: 'OfferImportPreview', description: 'Offer import preview; nothing is written to offers' },
)

export const ImportResultSchema = Type.Object(
  {
    status: Type.Literal('completed'),
    processed: Type.Integer(),
    created: Type.Integer(),
    updated: Type.Integer(),
    archived: Type.Integer(),
    run_id: Type.Integer({ description: 'The audit entry of the run' }),
  },
  { $id: 'ImportResult', description: 'Outcome of an executed import or webhook event' },
)

export const ImportJobSchema = Type.Object(
  {
    id: JOB_ID,
    type: Type.String({ description: '`offer`, or `report` for an official report import' }),
    mode: Type.String({ description: '`patch` or `snapshot`; `report` for a report import' }),
    status: Type.String({
      description:
        'Offer import: previewing, previewed, invalid, running, completed, failed, stale, recovery_required; report import: invalid, validated, completed',
    }),
    operator: Type.Object({ id: Type.Union([Type.Integer(), Type.Null()]), name: Type.String() }),
    file: Type.Object({ name: Type.String(), format: Type.String(), sha256: Type.String() }),
    counters: Type.Object({}, { additionalProperties: Type.Integer(), description: 'Rows, errors and planned counts' }),
    created_at: Type.String({ format: 'date-time' }),
    started_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    expires_at: Type.String({ format: 'date-time' }),
    result: Type.Union([Type.Ref('ImportResult'), Type.Ref('PublicationOutcome'), Type.Null()], {
      description: 'The outcome once completed: the import result, or the publication of a report import',
    }),
    failure: Type.Union([Type.String(), Type.Null()]),
    errors: Type.Array(Type.Ref('ImportRowError')),
    archive_scope: ArchiveScope,
    items: Type.Array(Type.Ref('ImportOperation'), { description: 'This page of the planned operations' }),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total_items: Type.Integer(),
  },
  { $id: 'ImportJob', description: 'Import job record' },
)

export const OFFER_IMPORT_SCHEMAS = [
  ImportRowErrorSchema,
  ImportOperationSchema,
  OfferImportPreviewSchema,
  ImportResultSchema,
  ImportJobSchema,
]

export const OfferPreviewResponse = Type.Object(
  { id: JOB_ID, preview: Type.Ref('OfferImportPreview') },
  { description: 'Preview: the job id and the plan' },
)

export const OfferExecuteResponse = Type.Object(
  {
    id: JOB_ID,
    result: Type.Ref('ImportResult'),
    replayed: Type.Optional(
      Type.Literal(true, { description: 'The same Idempotency-Key again: the stored result; nothing was written' }),
    ),
  },
  { description: 'Execution: the committed result' },
)

export const OfferImportInvalidSchema = Type.Object(
  { error: Type.Literal('import_invalid'), id: JOB_ID, preview: Type.Ref('OfferImportPreview') },
  { additionalProperties: true, description: 'Invalid preview: the job id and every error; not executable' },
)

/** The two request bodies of POST /imports/offer, for the document. */
export const OfferImportBody = {
  content: {
    'multipart/form-data': {
      schema: Type.Object(
        {
          file: Type.String({
            format: 'binary',
            contentMediaType: 'application/octet-stream',
            description: 'CSV (UTF-8 or Windows-1250; `;`, `,` or tab) or XLSX',
          }),
          mode: Type.Optional(
            stringEnum(['patch', 'snapshot'], {
              default: 'patch',
              description:
                'patch: change only what the file sends; snapshot: the file is the whole truth for the investments it names (offers missing from it are archived)',
            }),
          ),
          mapping: Type.String({
            contentMediaType: 'application/json',
            contentSchema: Mapping,
            description:
              'JSON object as text: canonical field name → column header of the file; source_investment_id and source_property_id are required. `meta:<key>` fills the offer custom field <key> registered by code or an extension, read by its registered type; an empty cell leaves it as it is',
          }),
          sheet: Type.Optional(Type.String({ description: 'XLSX: the worksheet to read (default: the first)' })),
        },
        { description: 'Preview (step 1): answers {id, preview}; writes nothing to offers' },
      ),
    },
    'application/x-www-form-urlencoded': {
      schema: Type.Object(
        {
          job_id: JOB_ID,
          confirm_archiving: Type.Optional(
            Type.Boolean({
              default: false,
              description:
                'Must be true to execute a snapshot that archives offers, after its archive_scope was shown to an operator (true, 1, yes and on count as true)',
            }),
          ),
        },
        { description: 'Execution (step 2) of a valid preview; needs the Idempotency-Key header' },
      ),
    },
  },
}

/** The answer of POST /imports/offer/headers (offer-file-headers.ts). */
export const OfferFileHeadersResponse = Type.Object(
  {
    format: stringEnum(['csv', 'xlsx'], { description: 'Recognised from the content, not the name' }),
    headers: Type.Array(Type.String(), {
      description: 'The header row in column order, trimmed: the texts a mapping names',
    }),
    header_row: Type.Integer({ description: 'The row number of the header row (rows above it are empty)' }),
    sheet: Type.Optional(Type.String({ description: 'XLSX: the worksheet read' })),
    sheets: Type.Optional(Type.Array(Type.String(), { description: "XLSX: the workbook's worksheets, in tab order" })),
    sample_rows: Type.Array(Type.Array(Type.String()), {
      description: `The first data rows (up to ${SAMPLE_ROWS}), each as its cells in header order; '' for an empty cell`,
    }),
  },
  { description: 'The header row of the file and its first rows; nothing was written' },
)

export const OfferFileUnreadableSchema = Type.Object(
  {
    error: Type.Literal('import_file_unreadable'),
    reason: stringEnum([...FILE_ERROR_CODES], { description: 'What is wrong with the file, as a preview reports it' }),
    message: Type.String(),
    message_pl: Type.String({ description: 'The same in Polish, with what to do' }),
  },
  { additionalProperties: true, description: 'The header row of the file cannot be read' },
)

/** The request body of POST /imports/offer/headers, for the document. */
export const OfferFileHeadersBody = {
  content: {
    'multipart/form-data': {
      schema: Type.Object({
        file: Type.String({
          format: 'binary',
          contentMediaType: 'application/octet-stream',
          description: 'CSV (UTF-8 or Windows-1250; `;`, `,` or tab) or XLSX',
        }),
        sheet: Type.Optional(Type.String({ description: 'XLSX: the worksheet to read (default: the first)' })),
      }),
    },
  },
}

/** Headers of POST /imports/offer, for the document. */
export const OfferImportHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'Required with the form-encoded execution: the same key again returns the stored result (Idempotent-Replayed: true)',
    }),
  ),
})
