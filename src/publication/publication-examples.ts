/*
 * Descriptions and examples of the publication operations: the published files, publishing and its
 * history, the report import, preflight, the publication audit, the settings and the legacy
 * generate endpoint, for the OpenAPI document (see src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

export const PUBLICATION_EXAMPLES: OperationDocsByRoute = {
  'GET /dane-gov/{file}': {
    description:
      'The files the dane.gov.pl harvester reads for the default developer entity: dataset.xml (the harvester XML, schema 1.13), dataset.md5 (its checksum) and every published daily CSV. Public, no credentials; a published file never changes, so answers carry ETag and Last-Modified and a conditional request gets 304. 400 for a name that cannot be a published file, 404 dg_file_not_found for one never published, 404 dg_published_file_missing for a published file missing from the data directory (the audit names it).',
    parameters: {
      file: 'dataset.md5',
    },
    response: {
      status: 200,
      mediaType: 'text/plain',
      body: 'a5c20126494cd38c03a1a9f814125d99',
    },
  },
  'GET /dane-gov/{dataset}/{file}': {
    description:
      'The same files as /dane-gov/{file} for another developer entity, whose dataset is named d{developer id}: its dataset.xml, dataset.md5 and daily CSVs. Public, no credentials; ETag, Last-Modified and 304 as for the default dataset. 404 dg_file_not_found for an unknown dataset or a file never published, 404 dg_published_file_missing for a published file missing from the data directory.',
    response: {
      status: 404,
      body: {
        code: 'dg_file_not_found',
        message: 'No published file has this name.',
        data: {
          status: 404,
        },
      },
    },
    parameters: {
      dataset: 'd2',
      file: 'dataset.md5',
    },
  },
  'POST /wp-json/dg/v2/publications': {
    description:
      'Publishes the official daily file of a date through the atomic pipeline: the 58-column CSV is built from the catalog, checked against the legal invariants, written once and listed in dataset.xml with its .md5. Administrators and operators (dg_publish), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs the publishing_gov entitlement (403 pro_feature_required otherwise). 409 publication_in_progress while another publication runs; 422 publication_failed with issues when the date may not be published (a future date, a day that has ended after its file was published, a past day without its own data) or the file breaks an invariant; nothing is written then. A dataset is published per developer entity: a user limited to some developer entities and investments publishes only an entity of its scope (403 rest_forbidden_scope otherwise, also for a scope of investments only).',
    response: {
      status: 200,
      body: {
        status: 'published',
        date: '2026-11-20',
        version: '20261120T100000-4da957bd',
        record_count: 18,
        csv: {
          file_name: 'ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-20.csv',
          url: 'https://ceny.example.pl/dane-gov/ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-20.csv',
          md5: 'e4f34313666c6f6c38a54f32e9b70739',
          bytes: 17919,
        },
        xml: {
          url: 'https://ceny.example.pl/dane-gov/dataset.xml',
          md5_url: 'https://ceny.example.pl/dane-gov/dataset.md5',
          md5: 'a5c20126494cd38c03a1a9f814125d99',
          resources: 1,
        },
        published_at: '2026-11-20T10:00:00.000Z',
        trigger: 'api',
        developer_id: 1,
        public_dataset_id: '6ccec4f5-6c62-47b4-914d-360a6461b06b',
        offers_without_type: 0,
        gaps: {
          offers_without_price: 0,
          combined_price_missing: 0,
          investments_without_location: 0,
          investments_without_prospectus: 0,
        },
        warnings: [],
      },
    },
    request: {
      date: '2026-11-20',
    },
  },
  'GET /wp-json/dg/v2/publications': {
    description:
      'The publication history: every attempt (scheduled, manual, legacy), newest first, with its files, checksums, warnings and issues; paged and filtered by date. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role.',
    response: {
      status: 200,
      body: {
        items: [
          {
            id: 3,
            date: '2026-11-19',
            status: 'published',
            trigger: 'report_import',
            actor: 'admin1',
            started_at: '2026-11-20T10:00:00.000Z',
            finished_at: '2026-11-20T10:00:00.000Z',
            developer_id: null,
            record_count: 4,
            version: '20261120T100000-fd807b64',
            csv: {
              file_name: 'ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-19.csv',
              url: 'https://ceny.example.pl/dane-gov/ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-19.csv',
              served_path: '/dane-gov/ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-19.csv',
              md5: 'c6aaa22330c629e7923251a7289ca762',
              bytes: 6700,
            },
            xml: {
              url: 'https://ceny.example.pl/dane-gov/dataset.xml',
              md5_url: 'https://ceny.example.pl/dane-gov/dataset.md5',
              md5: '9a3f973de4d802b95ca1b86929533620',
              resources: 2,
              served_path: '/dane-gov/dataset.xml',
            },
            offers_without_type: 0,
            gaps: {
              offers_without_price: 0,
              combined_price_missing: 0,
              investments_without_location: 0,
              investments_without_prospectus: 0,
            },
            warnings: [],
            issues: [],
          },
          {
            id: 2,
            date: '2026-11-20',
            status: 'published',
            trigger: 'legacy_generate',
            actor: 'webhook',
            started_at: '2026-11-20T10:00:00.000Z',
            finished_at: '2026-11-20T10:00:00.000Z',
            developer_id: null,
            record_count: 18,
            version: '20261120T100000-b8adaf6e',
            csv: {
              file_name: 'ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-20.csv',
              url: 'https://ceny.example.pl/dane-gov/ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-20.csv',
              served_path: '/dane-gov/ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-20.csv',
              md5: 'e4f34313666c6f6c38a54f32e9b70739',
              bytes: 17919,
            },
            xml: {
              url: 'https://ceny.example.pl/dane-gov/dataset.xml',
              md5_url: 'https://ceny.example.pl/dane-gov/dataset.md5',
              md5: 'a5c20126494cd38c03a1a9f814125d99',
              resources: 1,
              served_path: '/dane-gov/dataset.xml',
            },
            offers_without_type: 0,
            gaps: {
              offers_without_price: 0,
              combined_price_missing: 0,
              investments_without_location: 0,
              investments_without_prospectus: 0,
            },
            warnings: [],
            issues: [],
          },
        ],
        page: 1,
        per_page: 3,
        total: 3,
        total_pages: 1,
      },
    },
  },
  'GET /wp-json/dg/v2/publications/{id}': {
    description:
      'One publication attempt with its files, checksums, warnings and issues. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 404 for an unknown id.',
    response: {
      status: 200,
      body: {
        id: 3,
        date: '2026-11-19',
        status: 'published',
        trigger: 'report_import',
        actor: 'admin1',
        started_at: '2026-11-20T10:00:00.000Z',
        finished_at: '2026-11-20T10:00:00.000Z',
        developer_id: null,
        record_count: 4,
        version: '20261120T100000-fd807b64',
        csv: {
          file_name: 'ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-19.csv',
          url: 'https://ceny.example.pl/dane-gov/ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-19.csv',
          served_path: '/dane-gov/ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-19.csv',
          md5: 'c6aaa22330c629e7923251a7289ca762',
          bytes: 6700,
        },
        xml: {
          url: 'https://ceny.example.pl/dane-gov/dataset.xml',
          md5_url: 'https://ceny.example.pl/dane-gov/dataset.md5',
          md5: '9a3f973de4d802b95ca1b86929533620',
          resources: 2,
          served_path: '/dane-gov/dataset.xml',
        },
        offers_without_type: 0,
        gaps: {
          offers_without_price: 0,
          combined_price_missing: 0,
          investments_without_location: 0,
          investments_without_prospectus: 0,
        },
        warnings: [],
        issues: [],
      },
    },
  },
  'POST /wp-json/dg/v2/imports/report': {
    response: {
      status: 200,
      body: {
        id: '5beb2c8311981e1c6f1e96dea28792c2',
        preview: {
          valid: true,
          csv_path: 'report-imports/5beb2c8311981e1c6f1e96dea28792c2.csv',
          row_count: 4,
          warning:
            'Amounts with more than two decimals (unrounded formula results) were rounded half-up to grosze. Rows: 2, 3, 4, 5. Dates "valid from" without their price or value were left out (X): a date alone states no price. Rows: 2, 3, 4, 5. Rows of the same developer carry different values, which often comes from a spreadsheet fill-down series; check them before publishing. developer NIP 9721307957: column 18 (R, "Kod pocztowy adresu siedziby/głównego miejsca wykonywania dz…") differs: "61-625" (row 2), "61-626" (row 3), "61-627" (row 4), "61-628" (row 5); developer NIP 9721307957: column 26 (Z, "Kod pocztowy adresu lokalu, w którym prowadzona jest sprzeda…") differs: "61-869" (row 2), "61-870" (row 3), "61-871" (row 4), "61-872" (row 5). Rows of the same investment address carry different values, which often comes from a spreadsheet fill-down series; check them before publishing. investment at "wielkopolskie, poznański, Czerwonak, Kli…": column 35 (AI, "Kod pocztowy lokalizacji przedsięwzięcia deweloperskiego lub…") differs: "62-004" (row 2), "62-005" (row 3), "62-006" (row 4), "62-007" (row 5).',
          warnings: [
            {
              code: 'money_rounded',
              message:
                'Kwoty z więcej niż dwoma miejscami po przecinku (niezaokrąglone wyniki formuł) zaokrąglono do groszy. Wiersze: 2, 3, 4, 5.',
              count: 4,
              rows: [2, 3],
              message_pl:
                'Kwoty z więcej niż dwoma miejscami po przecinku (niezaokrąglone wyniki formuł) zaokrąglono do groszy. Wiersze: 2, 3, 4, 5.',
              message_en:
                'Amounts with more than two decimals (unrounded formula results) were rounded half-up to grosze. Rows: 2, 3, 4, 5.',
            },
            {
              code: 'date_without_value',
              message:
                'Daty „od której obowiązuje” bez ceny lub wartości pominięto (X): sama data nie podaje ceny. Wiersze: 2, 3, 4, 5.',
              count: 4,
              rows: [2, 3],
              message_pl:
                'Daty „od której obowiązuje” bez ceny lub wartości pominięto (X): sama data nie podaje ceny. Wiersze: 2, 3, 4, 5.',
              message_en:
                'Dates "valid from" without their price or value were left out (X): a date alone states no price. Rows: 2, 3, 4, 5.',
            },
          ],
          errors: [],
          errors_total: 0,
          format: 'xlsx',
          sheet: 'wzorcowy zakres danych',
        },
      },
    },
  },
  'POST /wp-json/dg/v2/publications/preflight': {
    description:
      "Checks a publication without publishing anything: builds the day's file and runs the legal invariants on it, checks the served dataset.xml and .md5 and whether the portal can reach them. Administrators and operators (dg_publish), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs the publishing_gov entitlement (403 pro_feature_required otherwise). 404 for an unknown developer entity, 422 for an invalid date.",
    response: {
      status: 200,
      body: {
        date: '2026-11-20',
        valid: true,
        production_allowed: true,
        contract: {
          id: 'pl-mrit-ceny-mieszkan-58-2025',
          valid_until: '2027-12-31',
        },
        record_count: 18,
        mode: 'production',
        artifact_status: 'ready',
        delivery_status: 'not_published',
        delivery_checked_at: null,
        delivery_issues: [],
        portal_status: 'not_checked',
        issues: [],
        warnings: [],
      },
    },
    request: {},
  },
  'GET /wp-json/dg/v2/publication/audit': {
    description:
      'Every published file of every developer entity’s dataset read again and checked: the XML against the XSD and its .md5, every resource present with its recorded checksum, and each day file against the invariants it passed before it was written. The answer is 200 whatever it finds; each problem names the day, the file and the unit. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role; 400 invalid_date for a day that does not exist.',
    response: {
      status: 200,
      body: {
        checked_at: '2026-11-28T06:00:00.000Z',
        day: null,
        valid: true,
        errors: 0,
        gaps: 1,
        datasets: [
          {
            developer_id: 1,
            developer_name: 'Przykładowy Deweloper Sp. z o.o.',
            public_dataset_id: '6ccec4f5-6c62-47b4-914d-360a6461b06b',
            xml_url: 'https://ceny.example.pl/dane-gov/dataset.xml',
            resources: 9,
            files_checked: 9,
            errors: 0,
            gaps: 1,
            problems: [
              {
                code: 'offer_price_m2_missing',
                severity: 'gap',
                message: 'Lokal M-12: brak ceny za m² w pliku z dnia 2026-11-27.',
                message_pl: 'Lokal M-12: brak ceny za m² w pliku z dnia 2026-11-27.',
                message_en: 'Unit M-12: no price per m² in the file of 2026-11-27.',
                developer_id: 1,
                day: '2026-11-27',
                file: 'ceny-2026-11-27.csv',
                unit: 'M-12',
                line: 14,
              },
            ],
          },
        ],
      },
    },
  },
  'GET /wp-json/dg/v2/publication/settings': {
    description:
      'The publication settings (schedule, public base URL of the served files, dataset title and description, licence of the data) and the dataset identity dane.gov.pl knows it by. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role.',
    response: {
      status: 200,
      body: {
        public_base_url: null,
        developer_id: null,
        published_statuses: ['available', 'reserved'],
        schedule: '30 0 * * *',
        dataset_url: null,
        description_note: null,
        public_dataset_id: '6ccec4f5-6c62-47b4-914d-360a6461b06b',
        xml_url: null,
        md5_url: null,
        next_runs: ['2026-11-20T23:30:00.000Z', '2026-11-21T23:30:00.000Z'],
        schedule_time: {
          time: '00:30',
          days: [0, 1],
        },
        warnings: [],
      },
    },
  },
  'PUT /wp-json/dg/v2/publication/settings': {
    description:
      'Changes the publication settings; only the fields sent change. Administrators and operators (dg_publish), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 422 invalid_settings with the issue of each field; 409 when a change of the public address needs its confirmation. A schedule that skips a day is saved, and the answer carries the warning schedule_skips_days: art. 19b(1) asks for a publication every day. Audited.',
    response: {
      status: 200,
      body: {
        public_base_url: 'https://ceny.example.pl/dane-gov',
        developer_id: null,
        published_statuses: ['available', 'reserved'],
        schedule: '30 0 * * *',
        dataset_url: null,
        description_note: null,
        public_dataset_id: '6ccec4f5-6c62-47b4-914d-360a6461b06b',
        xml_url: 'https://ceny.example.pl/dane-gov/dataset.xml',
        md5_url: 'https://ceny.example.pl/dane-gov/dataset.md5',
        next_runs: ['2026-11-20T23:30:00.000Z', '2026-11-21T23:30:00.000Z'],
        schedule_time: {
          time: '00:30',
          days: [0, 1],
        },
        warnings: [],
      },
    },
    request: {
      public_base_url: 'https://ceny.example.pl/dane-gov',
    },
  },
  'GET /wp-json/dg/v2/developers': {
    description:
      'Every developer entity with the official columns 1–28 (name, legal form, NIP, REGON, KRS, addresses, contact); each entity has its own dataset and daily file. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role.',
    response: {
      status: 200,
      body: {
        items: [
          {
            id: 1,
            name: 'Przykładowy Deweloper Sp. z o.o.',
            legal_form: 'spółka z ograniczoną odpowiedzialnością',
            krs: '0000987654',
            ceidg: null,
            nip: '9721307957',
            regon: '146123459',
            phone: '221234567',
            email: 'sprzedaz@example.com',
            fax: null,
            website: 'https://www.example.com',
            dataset_url: 'https://dane.gov.pl/pl/dataset/1234,ceny-ofertowe-mieszkan-dewelopera',
            description_note_pl: null,
            description_note_en: null,
            seat_voivodeship: 'mazowieckie',
            seat_powiat: 'Warszawa',
            seat_gmina: 'Warszawa',
            seat_city: 'Warszawa',
            seat_street: 'Przykładowa',
            seat_building_no: '10',
            seat_local_no: '5',
            seat_postal_code: '00-950',
            sales_voivodeship: 'mazowieckie',
            sales_powiat: 'Warszawa',
            sales_gmina: 'Warszawa',
            sales_city: 'Warszawa',
            sales_street: 'Zielona',
            sales_building_no: '12',
            sales_local_no: 'U1',
            sales_postal_code: '01-234',
            sales_additional_locations:
              'Poznań, ul. Nadbrzeżna 5 (biuro sprzedaży na terenie inwestycji Osiedle Nad Wartą)',
            contact_method:
              'Telefonicznie, e-mailowo lub osobiście w biurze sprzedaży (pon.–pt. 9:00–17:00, sob. 10:00–14:00)',
            created_at: '2026-11-20T10:00:00.000Z',
            modified_at: '2026-11-20T10:00:00.000Z',
          },
        ],
      },
    },
  },
  'POST /wp-json/dg/v2/developers': {
    description:
      'Adds a developer entity (official columns 1–28), which gets its own dataset d{id}. Administrators and operators (dg_edit_catalog), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 422 invalid_developer with the issue of each field (an invalid NIP, REGON or postal code, a missing name); nothing is saved then. Audited.',
    response: {
      status: 422,
      body: {
        error: 'invalid_developer',
        message: 'The developer data was not saved.',
        issues: [
          {
            field: 'nip',
            code: 'invalid_nip',
            message: 'NIP musi mieć 10 cyfr z poprawną cyfrą kontrolną (kreski i spacje można wpisać, są pomijane).',
            message_pl: 'NIP musi mieć 10 cyfr z poprawną cyfrą kontrolną (kreski i spacje można wpisać, są pomijane).',
            message_en: 'NIP must be 10 digits with a valid check digit, without dashes.',
          },
        ],
      },
    },
    request: {
      name: 'Zły NIP',
      nip: '1234567890',
    },
  },
  'GET /wp-json/dg/v2/developers/{id}': {
    description:
      'One developer entity with the official columns 1–28. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 404 for an unknown id.',
    response: {
      status: 200,
      body: {
        id: 1,
        name: 'Przykładowy Deweloper Sp. z o.o.',
        legal_form: 'spółka z ograniczoną odpowiedzialnością',
        krs: '0000987654',
        ceidg: null,
        nip: '5251234560',
        regon: '146123459',
        phone: '221234567',
        email: 'sprzedaz@example.com',
        fax: null,
        website: 'https://www.example.com',
        dataset_url: 'https://dane.gov.pl/pl/dataset/1234,ceny-ofertowe-mieszkan-dewelopera',
        description_note_pl: null,
        description_note_en: null,
        seat_voivodeship: 'mazowieckie',
        seat_powiat: 'Warszawa',
        seat_gmina: 'Warszawa',
        seat_city: 'Warszawa',
        seat_street: 'Przykładowa',
        seat_building_no: '10',
        seat_local_no: '5',
        seat_postal_code: '00-950',
        sales_voivodeship: 'mazowieckie',
        sales_powiat: 'Warszawa',
        sales_gmina: 'Warszawa',
        sales_city: 'Warszawa',
        sales_street: 'Zielona',
        sales_building_no: '12',
        sales_local_no: 'U1',
        sales_postal_code: '01-234',
        sales_additional_locations:
          'Poznań, ul. Nadbrzeżna 5 (biuro sprzedaży na terenie inwestycji Osiedle Nad Wartą)',
        contact_method:
          'Telefonicznie, e-mailowo lub osobiście w biurze sprzedaży (pon.–pt. 9:00–17:00, sob. 10:00–14:00)',
        created_at: '2026-11-20T10:00:00.000Z',
        modified_at: '2026-11-20T10:00:00.000Z',
      },
    },
  },
  'PUT /wp-json/dg/v2/developers/{id}': {
    description:
      'Changes a developer entity; only the fields sent change. Administrators and operators (dg_edit_catalog), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 404 for an unknown id, 422 invalid_developer with the issue of each field (nothing is saved then). Audited.',
    response: {
      status: 200,
      body: {
        id: 1,
        name: 'Przykładowy Deweloper Sp. z o.o.',
        legal_form: 'spółka z ograniczoną odpowiedzialnością',
        krs: '0000987654',
        ceidg: null,
        nip: '5251234560',
        regon: '146123459',
        phone: '221234567',
        email: 'sprzedaz@example.com',
        fax: null,
        website: 'https://www.example.com',
        dataset_url: 'https://dane.gov.pl/pl/dataset/1234,ceny-ofertowe-mieszkan-dewelopera',
        description_note_pl: null,
        description_note_en: null,
        seat_voivodeship: 'mazowieckie',
        seat_powiat: 'Warszawa',
        seat_gmina: 'Warszawa',
        seat_city: 'Warszawa',
        seat_street: 'Przykładowa',
        seat_building_no: '10',
        seat_local_no: '5',
        seat_postal_code: '00-950',
        sales_voivodeship: 'mazowieckie',
        sales_powiat: 'Warszawa',
        sales_gmina: 'Warszawa',
        sales_city: 'Warszawa',
        sales_street: 'Zielona',
        sales_building_no: '12',
        sales_local_no: 'U1',
        sales_postal_code: '01-234',
        sales_additional_locations:
          'Poznań, ul. Nadbrzeżna 5 (biuro sprzedaży na terenie inwestycji Osiedle Nad Wartą)',
        contact_method:
          'Telefonicznie, e-mailowo lub osobiście w biurze sprzedaży (pon.–pt. 9:00–17:00, sob. 10:00–14:00)',
        created_at: '2026-11-20T10:00:00.000Z',
        modified_at: '2026-11-21T08:15:00.000Z',
      },
    },
    request: {
      phone: '221234567',
      sales_local_no: 'U1',
    },
  },
  'GET /wp-json/dg/v2/investments/{id}/location': {
    description:
      'The location of an investment as the official file gives it (columns 29–35: voivodeship, district, commune, town, street, building number, postal code) and its prospectus URL (column 58). Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 404 for an unknown investment.',
    response: {
      status: 200,
      body: {
        id: 2,
        title: 'Osiedle Nad Wartą',
        developer_id: 1,
        location: {
          voivodeship: 'wielkopolskie',
          powiat: 'Poznań',
          gmina: 'Poznań',
          city: 'Poznań',
          street: 'Nadbrzeżna',
          building_no: '5',
          postal_code: '61-101',
        },
        prospectus_url: 'https://example.com/demo/nad-warta/prospekt-informacyjny.pdf',
        modified_at: '2026-11-20T10:00:00.000Z',
      },
    },
  },
  'PUT /wp-json/dg/v2/investments/{id}/location': {
    description:
      'Changes the location of an investment (official columns 29–35) or its prospectus URL; only the fields sent change. Administrators and operators (dg_edit_catalog), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 404 for an unknown investment, 422 invalid_location with the issue of each field. Audited.',
    response: {
      status: 200,
      body: {
        id: 2,
        title: 'Osiedle Nad Wartą',
        developer_id: 1,
        location: {
          voivodeship: 'wielkopolskie',
          powiat: 'Poznań',
          gmina: 'Poznań',
          city: 'Poznań',
          street: 'Nadbrzeżna',
          building_no: '5',
          postal_code: '61-001',
        },
        prospectus_url: 'https://example.com/demo/nad-warta/prospekt-informacyjny.pdf',
        modified_at: '2026-11-20T10:00:00.000Z',
      },
    },
    request: {
      postal_code: '61001',
    },
  },
  'GET /wp-json/dg/v2/legacy-generate/settings': {
    description:
      'Whether legacy generate still accepts the deprecated key query parameter, and whether that comes from the panel or from DG_LEGACY_KEY_PARAM. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role.',
    response: {
      status: 200,
      body: {
        enabled: false,
        source: 'environment',
        environment_default: false,
        deprecated_since: '2026-01-01T00:00:00.000Z',
        sunset: '2027-06-30T23:59:59.000Z',
        removed_in: '3.0.0',
        warning: '299 - "The key query parameter is deprecated and removed in 3.0.0; send X-DG-Webhook-Key"',
      },
    },
  },
  'PUT /wp-json/dg/v2/legacy-generate/settings': {
    description:
      'Turns the deprecated key query parameter of legacy generate on (for a transition) or off; null goes back to DG_LEGACY_KEY_PARAM. Administrators only (manage_options), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Audited.',
    response: {
      status: 200,
      body: {
        enabled: false,
        source: 'environment',
        environment_default: false,
        deprecated_since: '2026-01-01T00:00:00.000Z',
        sunset: '2027-06-30T23:59:59.000Z',
        removed_in: '3.0.0',
        warning: '299 - "The key query parameter is deprecated and removed in 3.0.0; send X-DG-Webhook-Key"',
      },
    },
    request: {
      enabled: null,
    },
  },
  'GET /wp-json/dg/v1/generate': {
    parameters: {
      date: '2026-11-20',
    },
    response: {
      status: 200,
      body: {
        status: 'published',
        date: '2026-11-20',
        version: '20261120T100000-b8adaf6e',
        record_count: 18,
        csv: {
          file_name: 'ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-20.csv',
          url: 'https://ceny.example.pl/dane-gov/ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-20.csv',
          md5: 'e4f34313666c6f6c38a54f32e9b70739',
          bytes: 17919,
        },
        xml: {
          url: 'https://ceny.example.pl/dane-gov/dataset.xml',
          md5_url: 'https://ceny.example.pl/dane-gov/dataset.md5',
          md5: 'a5c20126494cd38c03a1a9f814125d99',
          resources: 1,
        },
        published_at: '2026-11-20T10:00:00.000Z',
        trigger: 'legacy_generate',
        developer_id: 1,
        public_dataset_id: '6ccec4f5-6c62-47b4-914d-360a6461b06b',
        offers_without_type: 0,
        gaps: {
          offers_without_price: 0,
          combined_price_missing: 0,
          investments_without_location: 0,
          investments_without_prospectus: 0,
        },
        warnings: [],
      },
    },
  },
  'POST /wp-json/dg/v1/generate': {
    response: {
      status: 200,
      body: {
        status: 'published',
        date: '2026-11-20',
        version: '20261120T100000-b8adaf6e',
        record_count: 18,
        csv: {
          file_name: 'ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-20.csv',
          url: 'https://ceny.example.pl/dane-gov/ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-2026-11-20.csv',
          md5: 'e4f34313666c6f6c38a54f32e9b70739',
          bytes: 17919,
        },
        xml: {
          url: 'https://ceny.example.pl/dane-gov/dataset.xml',
          md5_url: 'https://ceny.example.pl/dane-gov/dataset.md5',
          md5: 'a5c20126494cd38c03a1a9f814125d99',
          resources: 1,
        },
        published_at: '2026-11-20T10:00:00.000Z',
        trigger: 'legacy_generate',
        developer_id: 1,
        public_dataset_id: '6ccec4f5-6c62-47b4-914d-360a6461b06b',
        offers_without_type: 0,
        gaps: {
          offers_without_price: 0,
          combined_price_missing: 0,
          investments_without_location: 0,
          investments_without_prospectus: 0,
        },
        warnings: [],
      },
    },
  },
}
