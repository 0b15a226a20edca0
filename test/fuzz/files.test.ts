/*
 * Fuzzing of the uploaded files: the offer import's CSV and XLSX
 * (POST /imports/offer) and the official 58-column report (POST /imports/report) get truncated
 * files, other encodings and byte-order marks, flipped bytes, formula and megabyte cells, hostile
 * workbook XML (entities, external entities, broken references), ZIP bombs (a lying size, ZIP64
 * terabytes, tens of thousands of parts), a million empty rows and shared-string tables built to
 * fill memory.
 *
 * Every answer is one the route documents (never a 5xx); an error has its stable code; a preview
 * writes no offer, price, investment, developer, publication or option and leaves no upload behind
 * (its job record, items and audit entry are the preview itself); the job record of every preview
 * can be read back; and the process's resident memory stays within MEMORY_BOUND_MB of where the
 * case started, measured throughout each large case. At the end the captured log holds no secret.
 *
 * DG_FUZZ_SCALE multiplies the random cases and enlarges the memory-filling files (`npm run fuzz`).
 */
import fs from 'node:fs'
import path from 'node:path'

import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { MAX_SHARED_STRINGS } from '../../src/imports/reading/read-xlsx-cells.js'
import { TEST_DIALECTS } from '../helpers/databases.js'
import { createTestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'
import {
  captureLog,
  changes,
  checkProperty,
  countCase,
  documentedOperations,
  errorCode,
  FUZZ_SCALE,
  fingerprint,
  type Fingerprint,
  fuzzTimeout,
  type OpenApiDocument,
  printCasesTried,
  runs,
  secretsInLog,
} from './fuzz-harness.js'
import {
  columnName,
  encode,
  ENCODINGS,
  HOSTILE_CELLS,
  inflatingTo,
  noise,
  SHEET_START,
  sheetXml,
  workbookParts,
  xlsx,
  zip,
  type ZipPart,
} from './hostile-files.js'

const V2 = '/wp-json/dg/v2'
const OFFER_URL = `${V2}/imports/offer`
const REPORT_URL = `${V2}/imports/report`
/** Growth of the resident memory allowed while one file is read. */
const MEMORY_BOUND_MB = 300
const CASES = 12
const MB = 1024 * 1024

const REPORT_CSV = fs.readFileSync(
  path.join(import.meta.dirname, '../fixtures/official/Wcorcowy_zakres_danych_dotyczących_cen_mieszkań.csv'),
)
const REPORT_XLSX = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/official/real-report-example.xlsx'))

const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  price_total: 'Cena',
  price_total_from: 'Cena od',
  proj_street: 'Ulica',
}
const HEADER = Object.values(MAPPING)
const row = (n: number): string[] => [
  'FZ-INW',
  `L${n}`,
  `A/${n}.0${n % 10}`,
  n % 2 ? 'mieszkanie' : 'dom',
  n % 3 ? 'wolne' : 'rezerwacja',
  `${40 + n},50`,
  `${500_000 + n * 1000},00`,
  '2026-11-02',
  'ul. Żółkiewskiego 7',
]
const ROWS = [HEADER, ...Array.from({ length: 8 }, (_, i) => row(i + 1))]
const csvText = (rows: readonly (readonly string[])[]) =>
  rows
    .map((cells) => cells.map((c) => (/[;"\n\r]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join(';'))
    .join('\r\n')
const VALID_CSV = Buffer.from(`${csvText(ROWS)}\r\n`)
const VALID_XLSX = xlsx(ROWS)

type Kind = 'offer' | 'report'

/**
 * The imports a large case is sent to: both in a long run; in the short one (`npm test`) a case
 * with codes to expect goes to the offer import, the others alternate, so each costs one upload.
 */
const kindsFor = (index: number, codes: readonly string[]): readonly Kind[] =>
  FUZZ_SCALE > 1 ? ['offer', 'report'] : codes.length > 0 || index % 2 === 0 ? ['offer'] : ['report']

/** Tables and files a preview writes by design: its job, the job's plan items and its audit entry. */
const PREVIEW_TABLES = ['import_jobs', 'import_job_items', 'audit_log']

for (const dialect of TEST_DIALECTS) {
  describe(`import files under hostile content [${dialect}]`, () => {
    let env: TestEnv
    const log = captureLog()
    let authorization: string
    const secrets = new Set<string>()
    let documented: Record<Kind, ReadonlySet<number>>
    let peakGrowthMb = 0
    const largeCases: string[] = []

    beforeAll(async () => {
      env = await startTestApp(dialect, { logger: log.logger })
      const demo = await setUpDemo(env.ctx)
      const admin = await createTestUser(env.ctx, 'administrator')
      authorization = admin.authorization
      for (const value of [admin.appPassword, admin.authorization, demo.admin.password, demo.webhook_secret])
        secrets.add(value)
      const document = (await env.app.inject({ method: 'GET', url: `${V2}/openapi.json` })).json() as OpenApiDocument
      const operations = documentedOperations(document)
      const statuses = (url: string) =>
        operations.find((op) => op.method === 'POST' && op.template === url)?.statuses ?? new Set<number>()
      documented = { offer: statuses(OFFER_URL), report: statuses(REPORT_URL) }
      expect(documented.offer.size).toBeGreaterThan(3)
    })

    afterAll(async () => {
      printCasesTried(`files [${dialect}]`)
      process.stdout.write(
        `fuzz files [${dialect}]: large cases (largest resident memory growth ${peakGrowthMb} MB)\n${largeCases.join('\n')}\n`,
      )
      await env.app.close()
      await env.database.cleanup()
    })

    /** Uploads a file and checks what the answer and the storage say. */
    async function upload(
      kind: Kind,
      content: Buffer,
      fileName: string,
      what: string,
    ): Promise<LightMyRequestResponse> {
      const body =
        kind === 'offer'
          ? multipart({ mode: 'patch', mapping: JSON.stringify(MAPPING) }, { name: fileName, content })
          : multipart({}, { name: fileName, content })
      const before: Fingerprint = await fingerprint(env)
      const response = await env.app.inject({
        method: 'POST',
        url: kind === 'offer' ? OFFER_URL : REPORT_URL,
        headers: { ...body.headers, authorization },
        payload: body.payload,
      })
      const status = response.statusCode
      const where = `${kind} import of ${what} (${fileName}, ${content.length} bytes) → ${status}`
      if (status >= 500) {
        const logged = log.lastError()
        expect.fail(`${where}: ${response.body.slice(0, 300)}\nlogged: ${logged.slice(0, 2000)}`)
      }
      expect(documented[kind].has(status), `${where} is not documented: ${response.body.slice(0, 300)}`).toBe(true)
      if (status >= 400) expect(errorCode(response).problem, where).toBeUndefined()
      const after = await fingerprint(env)
      // a valid report preview keeps its converted CSV for the confirmation (never served)
      const keptReport = kind === 'report' && status === 200
      const changed = changes(before, after, PREVIEW_TABLES).filter(
        (change) => !(keptReport && change.startsWith('files:') && onlyNewReportFiles(before, after)),
      )
      expect(changed, `${where} wrote: ${changed.join('; ')}`).toEqual([])
      const id = (response.json() as { id?: unknown }).id
      if (typeof id === 'string') {
        const job = await env.app.inject({
          method: 'GET',
          url: `${V2}/imports/${id}?per_page=200`,
          headers: { authorization },
        })
        expect(job.statusCode, `${where}: its job record`).toBe(200)
      }
      return response
    }

    function onlyNewReportFiles(before: Fingerprint, after: Fingerprint): boolean {
      const old = new Set(before.files.split('\n').filter(Boolean))
      return after.files
        .split('\n')
        .filter((file) => file && !old.has(file))
        .every((file) => file.startsWith('report-imports/'))
    }

    /** Runs a large case while sampling the resident memory; fails when it grew beyond the bound. */
    async function withinMemory(
      what: string,
      work: () => Promise<LightMyRequestResponse>,
      boundMb = MEMORY_BOUND_MB,
    ): Promise<LightMyRequestResponse> {
      const start = process.memoryUsage.rss()
      let peak = start
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss())
      }, 5)
      let outcome = 'no answer'
      try {
        const response = await work()
        const body = response.json() as {
          error?: string
          code?: string
          preview?: { errors?: Array<{ code: string }> }
        }
        const codes = [body.error ?? body.code, ...(body.preview?.errors ?? []).slice(0, 2).map((e) => e.code)]
        outcome = `${response.statusCode} ${codes.filter(Boolean).join(', ')}`
        return response
      } finally {
        clearInterval(sampler)
        peak = Math.max(peak, process.memoryUsage.rss())
        const growth = Math.round((peak - start) / MB)
        peakGrowthMb = Math.max(peakGrowthMb, growth)
        largeCases.push(`  ${what}: ${outcome}; resident memory +${growth} MB`)
        expect(growth, `${what}: resident memory grew by ${growth} MB`).toBeLessThan(boundMb)
      }
    }

    const expectRefused = (response: LightMyRequestResponse, codes: string[], what: string) => {
      const body = response.json() as { preview?: { errors?: Array<{ code: string }> }; error?: string; code?: string }
      const found = [body.error, body.code, ...(body.preview?.errors ?? []).map((e) => e.code)].filter(Boolean)
      expect(
        found.some((code) => codes.includes(String(code))),
        `${what}: ${response.statusCode} ${response.body.slice(0, 400)}`,
      ).toBe(true)
    }

    // --------------------------------------------------------------------------------------------
    // Random damage to valid files

    const kind = fc.constantFrom<Kind>('offer', 'report')
    const validFile = (k: Kind, format: 'csv' | 'xlsx') =>
      k === 'offer' ? (format === 'csv' ? VALID_CSV : VALID_XLSX) : format === 'csv' ? REPORT_CSV : REPORT_XLSX

    it(
      'truncated files: cut anywhere, in a character, a quoted cell or the ZIP directory',
      async () => {
        const cut = fc.record({
          kind,
          format: fc.constantFrom<'csv' | 'xlsx'>('csv', 'xlsx'),
          at: fc.double({ min: 0, max: 1, noNaN: true }),
          name: fc.constantFrom('plik.csv', 'plik.xlsx', 'plik'),
        })
        await checkProperty('truncated files', cut, runs(CASES), async ({ kind: k, format, at, name }) => {
          const file = validFile(k, format)
          const content = file.subarray(0, Math.floor(file.length * at))
          await upload(k, content, name, `a ${format} cut at ${content.length} of ${file.length} bytes`)
        })
      },
      fuzzTimeout(120_000),
    )

    it(
      'encodings and byte-order marks, with hostile and formula cells',
      async () => {
        const text = fc.record({
          kind,
          encoding: fc.constantFrom(...ENCODINGS),
          cells: fc.array(
            fc.tuple(
              fc.nat(8),
              fc.nat(8),
              fc.oneof(fc.constantFrom(...HOSTILE_CELLS), fc.string({ unit: 'grapheme', maxLength: 40 })),
            ),
            {
              maxLength: 6,
            },
          ),
        })
        await checkProperty('encodings and hostile cells', text, runs(CASES), async ({ kind: k, encoding, cells }) => {
          const source = k === 'offer' ? csvText(ROWS) : REPORT_CSV.toString('utf8')
          const rows = source.split(/\r?\n/).map((line) => line.split(';'))
          for (const [r, c, value] of cells) {
            const target = rows[1 + (r % Math.max(1, rows.length - 1))]
            if (target && target.length > 0) target[c % target.length] = `"${value.replaceAll('"', '""')}"`
          }
          const content = encode(rows.map((cells) => cells.join(';')).join('\r\n'), encoding)
          await upload(k, content, 'oferty.csv', `${encoding} text with ${cells.length} hostile cells`)
        })
      },
      fuzzTimeout(120_000),
    )

    it(
      'flipped, inserted and deleted bytes in CSV and XLSX files',
      async () => {
        const mutation = fc.record({
          kind,
          format: fc.constantFrom<'csv' | 'xlsx'>('csv', 'xlsx'),
          edits: fc.array(
            fc.record({
              at: fc.double({ min: 0, max: 1, noNaN: true }),
              op: fc.constantFrom('flip', 'insert', 'delete'),
              byte: fc.integer({ min: 0, max: 255 }),
            }),
            { minLength: 1, maxLength: 12 },
          ),
        })
        await checkProperty('flipped bytes', mutation, runs(CASES), async ({ kind: k, format, edits }) => {
          const bytes = [...validFile(k, format)]
          for (const { at, op, byte } of edits) {
            const index = Math.min(bytes.length - 1, Math.floor(at * bytes.length))
            if (op === 'flip') bytes[index] = byte
            else if (op === 'insert') bytes.splice(index, 0, byte)
            else bytes.splice(index, 1)
          }
          await upload(k, Buffer.from(bytes), `plik.${format}`, `a ${format} with ${edits.length} byte edits`)
        })
      },
      fuzzTimeout(120_000),
    )

    it(
      'hostile workbook XML: entities, external entities, formulas, broken references and random markup',
      async () => {
        const cellXml = fc.oneof(
          fc.constantFrom(
            '<c r="A2"><f>cmd|\' /C calc\'!A0</f><v>FZ-INW</v></c>',
            '<c r="B2" t="str"><f>HYPERLINK("http://evil.example","x")</f><v>=cmd|\' /C calc\'!A0</v></c>',
            '<c r="C2" t="s"><v>999999999</v></c>',
            '<c r="C2" t="s"><v>-1</v></c>',
            '<c r="C2" t="s"><v>NaN</v></c>',
            '<c r="D2" t="e"><v>#REF!</v></c>',
            '<c r="E2" t="b"><v>2</v></c>',
            '<c r="F2" s="99999"><v>45000</v></c>',
            '<c r="G2"><v>1e309</v></c>',
            '<c r="XFE2"><v>1</v></c>',
            '<c r="ZZZZZZ2"><v>1</v></c>',
            '<c r="AAAAAAAAAAAAAAAAAAAAAAAA2"><v>1</v></c>',
            '<c r="A99999999999"><v>1</v></c>',
            '<c r="!!"><v>1</v></c>',
            '<c><v>no reference</v></c>',
            '<c r="H2" t="inlineStr"><is><t>&xxe;</t></is></c>',
            '<c r="H2" t="inlineStr"><is><t>&lol9;</t></is></c>',
            '<c r="H2" t="inlineStr"><is><t><![CDATA[=cmd|\' /C calc\'!A0]]></t></is></c>',
            '<c r="H2" t="inlineStr"><is><r><t>A/</t></r><r><t>1</t></r></is></c>',
            '<c r="H2" t="inlineStr"><is><t>&#0;&#xD800;&#x110000;</t></is></c>',
            '</sheetData>',
            '<row r="0"/>',
            '<row r="-5"><c r="A-5"><v>1</v></c></row>',
          ),
          fc.string({ maxLength: 60 }).map((garbage) => garbage),
        )
        const doctype = fc.constantFrom(
          '',
          '<!DOCTYPE worksheet [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
          '<!DOCTYPE worksheet [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>',
          '<!DOCTYPE worksheet SYSTEM "http://127.0.0.1:9/evil.dtd">',
        )
        const workbook = fc.record({ doctype, cells: fc.array(cellXml, { maxLength: 8 }), shared: fc.boolean() })
        await checkProperty('hostile workbook XML', workbook, runs(CASES), async ({ doctype: dtd, cells, shared }) => {
          const valid = sheetXml(ROWS)
          const hostileRow = `<row r="${ROWS.length + 1}">${cells.join('')}</row>`
          const xml = valid
            .replace('<worksheet', `${dtd}<worksheet`)
            .replace('</sheetData>', `${hostileRow}</sheetData>`)
          const sst = shared
            ? {
                name: 'sst',
                data: Buffer.from(
                  `${dtd}<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>&lol9;&xxe;</t></si><si><t>x</t></si></sst>`,
                ),
              }
            : undefined
          const content = zip(workbookParts({ name: 'sheet', data: Buffer.from(xml) }, sst))
          const response = await upload('offer', content, 'oferty.xlsx', `a sheet with ${cells.length} hostile cells`)
          // an external entity is never resolved: no file's content reaches the answer
          expect(response.body).not.toContain('root:')
        })
      },
      fuzzTimeout(120_000),
    )

    // --------------------------------------------------------------------------------------------
    // Bombs and floods

    const sheetOf = (data: Buffer): ZipPart => ({ name: 'sheet', data })

    it(
      'ZIP bombs: a sheet that inflates to a gigabyte behind a small declared size, ZIP64 terabytes, a flood of parts',
      async () => {
        const rows = Buffer.from('<row/>'.repeat(Math.ceil(MB / 6)).slice(0, MB))
        // a sheet that is well formed as far as it is read: only the size can stop it
        const gigabyte = inflatingTo(rows, 1024, Buffer.from(SHEET_START))
        const bomb = ['xlsx_zip_bomb']
        const bombs: Array<[string, Buffer, string[]]> = [
          [
            'a 1 GB sheet declared as 1 MB',
            zip(workbookParts({ name: 'sheet', deflated: gigabyte, declaredSize: MB })),
            bomb,
          ],
          [
            'a 1 GB sheet declared as 1 GB',
            zip(workbookParts({ name: 'sheet', deflated: gigabyte, declaredSize: 1024 * MB })),
            bomb,
          ],
          [
            'a sheet declared as 10 TB (ZIP64)',
            zip(workbookParts({ name: 'sheet', deflated: gigabyte, zip64Size: 10n * 1024n ** 4n })),
            bomb,
          ],
          [
            '20,000 parts',
            zip([
              ...workbookParts(sheetOf(Buffer.from(sheetXml(ROWS)))),
              ...Array.from({ length: 20_000 }, (_, i) => ({
                name: `xl/media/p${i}.bin`,
                data: Buffer.alloc(1),
                stored: true,
              })),
            ]),
            bomb,
          ],
          [
            // each part just under the ratio check's 10 MB, the total under 300 MB: nothing but the sheet is read
            '29 media parts of 9 MB at 1000:1 beside a valid sheet',
            zip([
              ...workbookParts(sheetOf(Buffer.from(sheetXml(ROWS)))),
              ...Array.from({ length: 29 }, (_, i) => ({
                name: `xl/media/image${i}.png`,
                deflated: inflatingTo(Buffer.alloc(MB, 0x41), 9),
                declaredSize: 9 * MB,
              })),
            ]),
            [],
          ],
          [
            'an encrypted part',
            zip(workbookParts({ ...sheetOf(Buffer.from(sheetXml(ROWS))), flags: 1 })),
            ['xlsx_encrypted'],
          ],
        ]
        for (const [index, [what, content, codes]] of bombs.entries()) {
          for (const k of kindsFor(index, [])) {
            const response = await withinMemory(`${k}: ${what}`, () => upload(k, content, 'bomba.xlsx', what))
            if (codes.length) expectRefused(response, codes, `${k}: ${what}`)
            countCase('zip bombs')
          }
        }
      },
      fuzzTimeout(180_000),
    )

    it(
      'a million empty rows, in a CSV and in a sheet; more rows than allowed',
      async () => {
        const header = `${HEADER.join(';')}\r\n`
        const csvEmpty = Buffer.concat([Buffer.from(header), Buffer.alloc(1_000_000 * 2, '\r\n')])
        const csvSeparators = Buffer.concat([Buffer.from(header), Buffer.from(';;;;;;;;\n'.repeat(1_000_000))])
        const sheetEmpty = Buffer.from(
          sheetXml([HEADER]).replace('</sheetData>', `${'<row/>'.repeat(1_000_000)}</sheetData>`),
        )
        const numberedSheet = () => {
          const numbered = Array.from(
            { length: 300_000 },
            (_, i) => `<row r="${i + 2}"><c r="A${i + 2}"><v>${i}</v></c><c r="B${i + 2}"><v>${i}</v></c></row>`,
          )
          return Buffer.from(sheetXml([HEADER]).replace('</sheetData>', `${numbered.join('')}</sheetData>`))
        }
        const floods: Array<[string, Buffer, string, string[]]> = [
          ['a CSV of a million empty lines', csvEmpty, 'puste.csv', []],
          ['a CSV of a million lines of separators', csvSeparators, 'puste.csv', []],
          ['a sheet of a million empty rows', zip(workbookParts(sheetOf(sheetEmpty))), 'puste.xlsx', []],
          ...(FUZZ_SCALE > 1
            ? [
                [
                  'a sheet of 300,000 numbered rows',
                  zip(workbookParts(sheetOf(numberedSheet()))),
                  'duzo.xlsx',
                  ['too_many_rows'],
                ] as [string, Buffer, string, string[]],
              ]
            : []),
          // a thousand row errors came first and hid the file's own error beyond the list's end
          [
            'a CSV of 200,005 rows without an offer id',
            Buffer.from(`${header}${'FZ-INW;\r\n'.repeat(200_005)}`),
            'duzo.csv',
            ['too_many_rows'],
          ],
        ]
        for (const [index, [what, content, name, codes]] of floods.entries()) {
          for (const k of kindsFor(index, codes)) {
            const response = await withinMemory(`${k}: ${what}`, () => upload(k, content, name, what))
            if (codes.length && k === 'offer') expectRefused(response, codes, what)
            countCase('floods of rows')
          }
        }
      },
      fuzzTimeout(240_000),
    )

    it(
      'cells of megabytes: quoted and unquoted in a CSV, inline and shared in a sheet',
      async () => {
        const big = (size: number) => 'Ż'.repeat(size / 2)
        const cell = (value: string) => csvText([HEADER, [...row(1).slice(0, 2), value, ...row(1).slice(3)]])
        const cases: Array<[string, Buffer, string, string[], number?]> = [
          ['a quoted CSV cell of 3 MB', Buffer.from(cell(`"${big(3 * MB)}`)), 'duze.csv', ['csv_malformed']],
          ['an unquoted CSV cell of 900 KB', Buffer.from(cell(big(900 * 1024))), 'duze.csv', []],
          ['an unquoted CSV cell of 5 MB', Buffer.from(cell(big(5 * MB))), 'duze.csv', ['csv_malformed']],
          [
            'an inline cell of 20 MB',
            xlsx([HEADER, [...row(1).slice(0, 2), big(20 * MB), ...row(1).slice(3)]]),
            'duze.xlsx',
            [],
          ],
          [
            'a shared string of 40 MB used by every cell of a row',
            zip(
              workbookParts(
                sheetOf(
                  Buffer.from(
                    sheetXml([HEADER]).replace(
                      '</sheetData>',
                      `<row r="2">${HEADER.map((_, c) => `<c r="${columnName(c)}2" t="s"><v>0</v></c>`).join('')}</row></sheetData>`,
                    ),
                  ),
                ),
                {
                  name: 'sst',
                  data: Buffer.from(
                    `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>${big(40 * MB)}</t></si></sst>`,
                  ),
                },
              ),
            ),
            'duze.xlsx',
            [],
          ],
        ]
        const CELL_START = `${SHEET_START}<row r="1"><c r="A1" t="inlineStr"><is><t>`
        // under the ratio check's 10 MB, so any compression ratio passes
        const cellsRow = `<row r="2">${'<c/>'.repeat(2_400_000)}</row>`
        cases.push(
          [
            'a row of 2.4 million empty cells (9.6 MB of sheet XML)',
            zip(
              workbookParts(
                sheetOf(Buffer.from(sheetXml([HEADER]).replace('</sheetData>', `${cellsRow}</sheetData>`))),
              ),
            ),
            'komorki.xlsx',
            [],
          ],
          [
            'a header of 2.4 million empty cells',
            zip(
              workbookParts(
                sheetOf(
                  Buffer.from(sheetXml([]).replace('<sheetData>', `<sheetData>${cellsRow.replace('r="2"', 'r="1"')}`)),
                ),
              ),
            ),
            'komorki.xlsx',
            [],
          ],
          [
            'a CSV of 45 lines of a million separators',
            Buffer.from(`${HEADER.join(';')}\n${`${';'.repeat(1_000_000)}\n`.repeat(45)}`),
            'sredniki.csv',
            [],
          ],
          [
            'an inline cell of 250 MB',
            zip(
              workbookParts({
                name: 'sheet',
                // random a/b letters: about 8:1, far inside the ratio check
                deflated: inflatingTo(
                  Buffer.from(Array.from({ length: MB }, () => (Math.random() < 0.5 ? 0x61 : 0x62))),
                  250,
                  Buffer.from(CELL_START),
                ),
                declaredSize: 250 * MB + Buffer.byteLength(CELL_START),
              }),
            ),
            'duze.xlsx',
            // refused once a text passes 1 MiB, long before the cell's end (it grew the process by 290 MB)
            ['xlsx_corrupt'],
            120,
          ],
        )
        for (const [index, [what, content, name, codes, boundMb]] of cases.entries()) {
          for (const k of kindsFor(index, codes)) {
            const response = await withinMemory(`${k}: ${what}`, () => upload(k, content, name, what), boundMb)
            if (codes.length && k === 'offer') expectRefused(response, codes, what)
            countCase('cells of megabytes')
          }
        }
      },
      fuzzTimeout(240_000),
    )

    it(
      'a shared-string table built to fill memory: millions of short strings within the ZIP limits',
      async () => {
        // random letters of a two-letter alphabet keep the compression ratio far below the 200:1 check
        const chunk = Array.from(
          { length: 4096 },
          () => `<si><t>${Array.from({ length: 4 }, () => (Math.random() < 0.5 ? 'a' : 'b')).join('')}</t></si>`,
        ).join('')
        const both = ['offer', 'report'] as const
        // the short run reads each table once (each costs seconds), the long run through both imports
        const tables: Array<[number, string[], readonly Kind[]]> = [
          // as many as allowed (half as many in the short run): read, within the memory bound
          [
            Math.floor(MAX_SHARED_STRINGS / (FUZZ_SCALE > 1 ? 1 : 2) / 4096) * 4096,
            [],
            FUZZ_SCALE > 1 ? both : ['offer'],
          ],
          // beyond (up to 280 MB of XML in a long run): refused as soon as the limit is passed
          [
            Math.max(MAX_SHARED_STRINGS + 4096, Math.min(14_000_000, 2_400_000 * FUZZ_SCALE)),
            ['xlsx_zip_bomb'],
            FUZZ_SCALE > 1 ? both : ['report'],
          ],
        ]
        for (const [strings, codes, kinds] of tables) {
          const body = Buffer.from(
            `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${chunk.repeat(Math.ceil(strings / 4096))}</sst>`,
          )
          const content = zip(workbookParts(sheetOf(Buffer.from(sheetXml(ROWS))), { name: 'sst', data: body }))
          const what = `${Math.round(body.length / MB)} MB of shared strings (${strings} strings, ${Math.round(content.length / MB)} MB zipped)`
          for (const k of kinds) {
            const response = await withinMemory(`${k}: ${what}`, () => upload(k, content, 'tabela.xlsx', what))
            if (codes.length) expectRefused(response, codes, what)
            else expect(response.body, what).not.toContain('xlsx_zip_bomb')
            countCase('shared-string floods')
          }
        }
      },
      fuzzTimeout(300_000),
    )

    it(
      'random bytes under spreadsheet names',
      async () => {
        const bytes = fc.record({
          kind,
          data: fc.oneof(
            fc.uint8Array({ maxLength: 5000 }),
            fc.constantFrom(
              new Uint8Array([0x50, 0x4b, 0x03, 0x04]),
              new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
            ),
          ),
          name: fc.constantFrom('a.csv', 'a.xlsx', 'a.xls', 'a', '../../etc/passwd', 'a.csv\u0000.exe'),
        })
        await checkProperty('random bytes', bytes, runs(CASES), async ({ kind: k, data, name }) => {
          await upload(k, Buffer.concat([Buffer.from(data), noise(16)]), name, 'random bytes')
        })
      },
      fuzzTimeout(60_000),
    )

    it('a file name holding control characters (U+0000 answered 500 on PostgreSQL)', async () => {
      for (const k of ['offer', 'report'] as const) {
        const response = await upload(k, VALID_CSV, 'oferty\u0000\u0007.csv', 'a valid file under a name with U+0000')
        expect(response.statusCode).toBeLessThan(500)
        countCase('regressions')
      }
    })

    it('formula cells: a text that starts like a formula is refused (it was published verbatim); an XLSX formula is read by its value', async () => {
      const formula = "=cmd|' /C calc'!A0"
      const injected = csvText([HEADER, [...row(1).slice(0, 2), formula, ...row(1).slice(3, 8), '-2+3+cmd|x']])
      const offer = await upload('offer', Buffer.from(injected), 'oferty.csv', 'formula texts')
      expect(offer.statusCode).toBe(422)
      expectRefused(offer, ['formula_text'], 'a designation and a street that start like formulas')
      const fields = (offer.json() as { preview: { errors: Array<{ field: string; code: string }> } }).preview.errors
      expect(fields.filter((e) => e.code === 'formula_text').map((e) => e.field)).toEqual(['prop_no', 'proj_street'])

      const lines = REPORT_CSV.toString('utf8').split(/\r?\n/)
      const cells = (lines[1] ?? '').split(';')
      cells[0] = '"=HYPERLINK(""http://evil.example"",""x"")"'
      const report = await upload(
        'report',
        Buffer.from([lines[0], cells.join(';'), ...lines.slice(2)].join('\n')),
        'raport.csv',
        'a formula developer name',
      )
      expectRefused(report, ['formula_text'], 'a report whose developer name starts like a formula')

      // a real formula cell carries the value Excel shows: that value is what is read
      const sheet = sheetXml(ROWS).replace(
        `<c r="C2" t="inlineStr"><is><t xml:space="preserve">${ROWS[1]?.[2]}</t></is></c>`,
        `<c r="C2" t="str"><f>CONCATENATE("A/","1.01")</f><v>A/1.01</v></c>`,
      )
      expect(sheet).toContain('<f>')
      const read = await upload(
        'offer',
        zip(workbookParts(sheetOf(Buffer.from(sheet)))),
        'oferty.xlsx',
        'a formula cell',
      )
      expect(read.statusCode, read.body.slice(0, 300)).toBe(200)
      expect(JSON.stringify(read.json())).toContain('"prop_no":"A/1.01"')
      countCase('regressions', 3)
    })

    it('headers named like Object.prototype members (__proto__, constructor, toString) are columns like any other', async () => {
      const headers = ['__proto__', 'constructor', 'toString', 'hasOwnProperty']
      const mapping = {
        source_investment_id: '__proto__',
        source_property_id: 'constructor',
        prop_no: 'toString',
        proj_city: 'hasOwnProperty',
      }
      const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).join()
      for (const [name, content] of [
        ['naglowki.csv', Buffer.from(`${headers.join(';')}\nFZ-PROTO;1;A/1;Poznań\n`)],
        ['naglowki.xlsx', xlsx([headers, ['FZ-PROTO', '1', 'A/1', 'Poznań']])],
      ] as const) {
        const body = multipart({ mode: 'patch', mapping: JSON.stringify(mapping) }, { name, content })
        const response = await env.app.inject({
          method: 'POST',
          url: OFFER_URL,
          headers: { ...body.headers, authorization },
          payload: body.payload,
        })
        expect(response.statusCode, response.body.slice(0, 300)).toBe(200)
        expect(JSON.stringify(response.json())).toContain(
          '"values":{"source_investment_id":"FZ-PROTO","source_property_id":"1","prop_no":"A/1","proj_city":"Poznań"}',
        )
        countCase('regressions')
      }
      expect(Object.getOwnPropertyNames(Object.prototype).join()).toBe(prototypeBefore)
    })

    it('the captured log holds no secret; no upload is left behind', async () => {
      expect(secretsInLog(log.lines(), secrets)).toEqual([])
      const uploads = path.join(env.database.dataDir, 'uploads')
      expect(fs.existsSync(uploads) ? fs.readdirSync(uploads) : []).toEqual([])
    })
  })
}
