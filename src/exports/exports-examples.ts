/*
 * Descriptions and examples of the offer export, the import template and the bulk price change,
 * for the OpenAPI document (see src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

export const EXPORTS_EXAMPLES: OperationDocsByRoute = {
  'GET /wp-json/dg/v2/offers/export': {
    parameters: {
      format: 'csv',
      columns: 'technical',
    },
    response: {
      status: 200,
      mediaType: 'text/csv',
      body: '﻿source_investment_id;source_property_id;prop_no;prop_type;property_status;prop_area;prop_rooms;prop_floor;price_m2;price_m2_from;price_total;price_total_from;price_combined;price_combined_from;price_combined_variant;price_combined_status;proj_voivod;proj_powiat;proj_gmina;proj_city;proj_street;proj_build_no;proj_zip\r\nZT;ZT-A-1.04;A/1.04;flat;available;54.20;3;1;12500.00;;677500.00;;;;;;mazowieckie;Warszawa;Warszawa;Warszawa;Zielona;12;02-495\r\n',
    },
  },
  'GET /wp-json/dg/v2/imports/template': {
    description:
      "An empty import file with the import's own columns, as CSV (UTF-8 with a byte-order mark, ; between cells) or XLSX whose second sheet describes each column. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs the bulk_import entitlement (403 pro_feature_required otherwise). 400 for an unknown format.",
    parameters: {
      format: 'csv',
      columns: 'technical',
    },
    response: {
      status: 200,
      mediaType: 'text/csv',
      body: '﻿source_investment_id;source_property_id;prop_no;prop_type;property_status;prop_area;prop_rooms;prop_floor;price_m2;price_m2_from;price_total;price_total_from;price_combined;price_combined_from;price_combined_variant;price_combined_status;proj_voivod;proj_powiat;proj_gmina;proj_city;proj_street;proj_build_no;proj_zip\r\n',
    },
  },
  'POST /wp-json/dg/v2/offers/price-change/preview': {
    response: {
      status: 200,
      body: {
        job_id: 'b4f32b325f4e47cf518c05a918470450',
        valid: true,
        errors: [],
        counts: {
          create: 0,
          update: 11,
          unchanged: 0,
          archive: 0,
        },
        lines: [
          {
            offer_id: 1,
            designation: 'A/0.01',
            investment_title: 'Zielone Tarasy',
            source_investment_id: 'demo-zielone-tarasy',
            source_property_id: 'ZT-A-0.01',
            area: '45.20',
            before_total: '944680.00',
            after_total: '963574.00',
            before_m2: '20900.00',
            after_m2: '21318.01',
          },
          {
            offer_id: 2,
            designation: 'A/0.02',
            investment_title: 'Zielone Tarasy',
            source_investment_id: 'demo-zielone-tarasy',
            source_property_id: 'ZT-A-0.02',
            area: '62.75',
            before_total: '1286375.00',
            after_total: '1312103.00',
            before_m2: '20500.00',
            after_m2: '20910.01',
          },
        ],
        skipped: [
          {
            offer_id: 14,
            designation: 'KL 7',
            reason: 'standalone_part',
          },
          {
            offer_id: 13,
            designation: 'MP 24',
            reason: 'standalone_part',
          },
        ],
        valid_from: '2027-01-01',
        reason: 'test',
        rounding: 'zloty',
        rounding_rule: {
          pl: 'cena całkowita zaokrąglona do pełnego złotego (połówki w górę); cena za m² = cena całkowita ÷ powierzchnia, zaokrąglona do grosza',
          en: 'total rounded to the whole złoty (halves up); price per m² = total ÷ area, rounded to the grosz',
        },
        percent: '2',
        statuses: ['available'],
      },
    },
    request: {
      investment: 1,
      percent: '2',
      rounding: 'zloty',
      valid_from: '2027-01-01',
      reason: 'test',
    },
  },
  'POST /wp-json/dg/v2/offers/price-change/execute': {
    description:
      "Executes a price change previewed before, as one import run: every price record in the history with its valid-from date and an audit entry with the reason. The preview's job is executed once only. Administrators and operators (dg_edit_catalog), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs the bulk_import entitlement (403 pro_feature_required otherwise). 404 for an unknown preview, 409 as an import execution (import_pending with Retry-After while it runs, import_conflict, import_recovery_required).",
    response: {
      status: 200,
      body: {
        id: 'b4f32b325f4e47cf518c05a918470450',
        result: {
          status: 'completed',
          processed: 11,
          created: 0,
          updated: 11,
          archived: 0,
          run_id: 66,
        },
        replayed: false,
      },
    },
    request: {
      job_id: 'b4f32b325f4e47cf518c05a918470450',
      reason: 'test',
    },
  },
}
