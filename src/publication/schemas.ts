/*
 * Response schemas shared by the routes that run the publication pipeline (POST /publications,
 * the report import's confirmation, legacy generate) and by the import job record: the
 * PublicationOutcome of publishing/publication-outcome.ts, and the report import preview of report-import.ts.
 */
import { Type } from 'typebox'

import { DateString, stringEnum } from '../host/http/schemas.js'

/** An issue or warning: a stable code and a message in Polish and English. */
const Issue = Type.Object(
  {
    code: Type.String({ description: 'Stable code' }),
    message: Type.Optional(Type.String({ description: 'Polish, or English with Accept-Language: en' })),
    message_pl: Type.String(),
    message_en: Type.String(),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
)

export const PublicationOutcomeSchema = Type.Object(
  {
    status: Type.Literal('published'),
    date: DateString,
    version: Type.String({ description: 'The version folder of this publication' }),
    record_count: Type.Integer({ description: 'Rows of the day’s file' }),
    csv: Type.Object({ file_name: Type.String(), url: Type.String(), md5: Type.String(), bytes: Type.Integer() }),
    xml: Type.Object({ url: Type.String(), md5_url: Type.String(), md5: Type.String(), resources: Type.Integer() }),
    published_at: Type.String({ format: 'date-time' }),
    trigger: stringEnum(['api', 'schedule', 'admin', 'legacy_generate', 'report_import', 'cli']),
    developer_id: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], { description: 'The developer entity whose dataset this is' }),
    ),
    public_dataset_id: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: 'That dataset’s extIdent on dane.gov.pl' }),
    ),
    offers_without_type: Type.Optional(
      Type.Integer({ description: 'Offers left out of the file because they have no type yet' }),
    ),
    gaps: Type.Optional(
      Type.Record(Type.String(), Type.Integer(), {
        description:
          'What the file shows incompletely or leaves out: offers_without_price, offers_without_price_m2, offers_without_total, combined_price_missing, combined_package_held, offers_left_out_by_status, offers_hidden_in_draft, investments_without_location, investments_without_prospectus',
      }),
    ),
    warnings: Type.Optional(Type.Array(Issue, { description: 'Findings that did not stop the publication' })),
  },
  {
    $id: 'PublicationOutcome',
    additionalProperties: true,
    description: 'Outcome of the atomic publication pipeline',
  },
)

export const ReportImportPreviewSchema = Type.Object(
  {
    valid: Type.Boolean(),
    csv_path: Type.Union([Type.String(), Type.Null()], {
      description: 'Technical: where the converted CSV is kept; must not be stored or interpreted',
    }),
    row_count: Type.Integer({ description: 'Data rows converted' }),
    warning: Type.Union([Type.String(), Type.Null()], { description: 'The warnings’ messages in one text, or null' }),
    warnings: Type.Array(
      Type.Object(
        {
          code: Type.String(),
          message: Type.String(),
          count: Type.Integer({ description: 'Cells or rows concerned' }),
          rows: Type.Array(Type.Integer(), { description: 'The first rows concerned (at most 20)' }),
        },
        { additionalProperties: true },
      ),
    ),
    errors: Type.Array(
      Type.Object(
        {
          row: Type.Integer({ description: 'Spreadsheet row; 0 for the file as a whole' }),
          field: Type.String({ description: 'Official column key, or `file`' }),
          column: Type.Optional(Type.Integer({ description: '1-based official column number' })),
          code: Type.String(),
          message: Type.String(),
        },
        { additionalProperties: true },
      ),
    ),
    errors_total: Type.Integer(),
    format: Type.String({ description: 'csv or xlsx' }),
    sheet: Type.Optional(Type.String({ description: 'The worksheet read' })),
  },
  { $id: 'ReportImportPreview', description: 'Official report import preview' },
)
