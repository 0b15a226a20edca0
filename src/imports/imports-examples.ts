/*
 * Descriptions and examples of the offer-import operations, for the OpenAPI document (see
 * src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

export const IMPORTS_EXAMPLES: OperationDocsByRoute = {
  'POST /wp-json/dg/v2/imports/offer': {
    response: {
      status: 200,
      body: {
        id: 'b820576e943c1c9874def36ff7fa63f0',
        preview: {
          valid: true,
          mode: 'patch',
          operations: [
            {
              row: 2,
              action: 'create',
              key: 'OA-INV/OA-1',
              designation: 'A/1',
              investment_title: 'OA-INV',
              values: {
                source_investment_id: 'OA-INV',
                source_property_id: 'OA-1',
                prop_no: 'A/1',
                prop_type: 'mieszkanie',
                property_status: 'available',
                prop_area: '50.00',
                prop_rooms: 2,
                prop_floor: 1,
                price_m2: '12000.00',
                price_m2_from: '2026-05-01',
                price_total: '600000.00',
                price_total_from: '2026-05-01',
                proj_city: 'Poznań',
              },
              changes: ['price_m2', 'price_m2_from'],
              before: {},
            },
            {
              row: 3,
              action: 'create',
              key: 'OA-INV/OA-2',
              designation: 'A/2',
              investment_title: 'OA-INV',
              values: {
                source_investment_id: 'OA-INV',
                source_property_id: 'OA-2',
                prop_no: 'A/2',
                prop_type: 'dom',
                property_status: 'reserved',
                prop_area: '60.50',
                prop_rooms: 3,
                prop_floor: -1,
                price_m2: '12000.00',
                price_m2_from: '2026-05-01',
                price_total: '726000.00',
                price_total_from: '2026-05-01',
                proj_city: 'Poznań',
              },
              changes: ['price_m2', 'price_m2_from'],
              before: {},
            },
          ],
          operations_total: 2,
          counts: {
            create: 2,
            update: 0,
            unchanged: 0,
            archive: 0,
          },
          archive_scope: {
            investments: [],
            total: 0,
          },
          errors: [],
          errors_total: 0,
          rows: 2,
        },
      },
    },
  },
  'POST /wp-json/dg/v2/imports/offer/headers': {
    description:
      "Reads the header row of an offer file (multipart: file, optional sheet) as the preview reads it, and its first rows, so that a client offers the column assignment before the preview: format (csv or xlsx, recognised from the content), headers in column order, header_row, for a workbook the sheet read and every sheet's name, and sample_rows (up to 3 data rows as cells in header order). Writes nothing: no job, no audit entry; the file is deleted once read. 422 import_file_unreadable with `reason` (the file error code a preview would report: unsupported_format, xlsx_corrupt, file_empty, sheet_not_found, duplicate_header, …), message and message_pl; 400 invalid_upload without a file; 413 file_too_large. Administrators and operators (dg_import) with the bulk_import entitlement, like the other import operations.",
    response: {
      status: 200,
      body: {
        format: 'xlsx',
        headers: ['Inwestycja', 'ID lokalu', 'Numer', 'Status', 'Cena'],
        header_row: 1,
        sheet: 'Oferty',
        sheets: ['Oferty', 'Notatki'],
        sample_rows: [
          ['OA-INV', 'OA-1', 'A/1', 'wolne', '600000'],
          ['OA-INV', 'OA-2', 'A/2', 'rezerwacja', '726000'],
        ],
      },
    },
  },
  'GET /wp-json/dg/v2/imports/{id}': {
    description:
      'An import job record (id of 32 hex characters, type, mode, status, operator, counters, dates, result) with a page of its items (page, per_page, total_items). Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs the bulk_import entitlement (403 pro_feature_required otherwise). 404 import_not_found for an unknown job.',
    response: {
      status: 200,
      body: {
        id: '5beb2c8311981e1c6f1e96dea28792c2',
        type: 'report',
        mode: 'report',
        status: 'validated',
        operator: {
          id: 3,
          name: 'admin1',
        },
        file: {
          name: 'raport.xlsx',
          format: 'xlsx',
          sha256: '04fdf83c285f3b8d19aa32fd3c387fb8f093bea26816df1633543737accb9bd3',
        },
        counters: {
          rows: 4,
          errors: 0,
          warnings: 4,
        },
        created_at: '2026-11-20T10:00:00.000Z',
        started_at: null,
        finished_at: null,
        expires_at: '2026-11-21T10:00:00.000Z',
        result: null,
        failure: null,
        errors: [],
        archive_scope: {
          investments: [],
          total: 0,
        },
        items: [],
        page: 1,
        per_page: 100,
        total_items: 0,
      },
    },
  },
}
