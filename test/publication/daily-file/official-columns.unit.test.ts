import { readFileSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { CURRENT_LEGAL_CONTRACT } from '../../../src/offers/legal-contract.js'
import { CURRENT_OFFICIAL_FORMAT } from '../../../src/publication/daily-file/official-format.js'
import {
  OFFICIAL_COLUMN_COUNT,
  OFFICIAL_COLUMN_INDEX,
  OFFICIAL_COLUMNS,
  OFFICIAL_HEADER_LINE,
  OFFICIAL_HEADERS,
} from '../../../src/publication/daily-file/official-columns.js'

// A copy of the ministry's template, kept in the repository so the test does not depend on ../shared.
const TEMPLATE = path.resolve(
  import.meta.dirname,
  '../../fixtures/official/Wcorcowy_zakres_danych_dotyczących_cen_mieszkań.csv',
)

const templateBytes = readFileSync(TEMPLATE)
const templateHeader = templateBytes.subarray(0, templateBytes.indexOf(0x0a))

describe('official columns', () => {
  it('joins to exactly the header bytes of the official template', () => {
    expect(Buffer.from(OFFICIAL_HEADER_LINE, 'utf8').equals(templateHeader)).toBe(true)
    expect(templateBytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false)
  })

  it('has 58 numbered columns with unique keys', () => {
    expect(OFFICIAL_COLUMNS).toHaveLength(OFFICIAL_COLUMN_COUNT)
    expect(OFFICIAL_COLUMNS.map((column) => column.number)).toEqual(Array.from({ length: 58 }, (_, i) => i + 1))
    expect(new Set(OFFICIAL_COLUMNS.map((column) => column.key)).size).toBe(58)
    expect(new Set(OFFICIAL_HEADERS).size).toBe(58)
    expect(OFFICIAL_COLUMN_INDEX.developer_name).toBe(0)
    expect(OFFICIAL_COLUMN_INDEX.price_m2).toBe(37)
    expect(OFFICIAL_COLUMN_INDEX.prospectus_url).toBe(57)
  })

  it('keeps the two trailing spaces of columns 12 and 36 and no other stray whitespace', () => {
    const padded = OFFICIAL_COLUMNS.filter((column) => column.header !== column.header.trim())
    expect(padded.map((column) => [column.number, column.key])).toEqual([
      [12, 'seat_powiat'],
      [36, 'property_type'],
    ])
    for (const column of padded) expect(column.header.endsWith(' ') && !column.header.endsWith('  ')).toBe(true)
  })

  it('is frozen, so no caller can reorder or rename a column', () => {
    expect(Object.isFrozen(OFFICIAL_COLUMNS)).toBe(true)
    expect(Object.isFrozen(OFFICIAL_COLUMNS[0])).toBe(true)
  })

  it('is the column set of the current legal contract, whose id and review date are unchanged', () => {
    expect(CURRENT_OFFICIAL_FORMAT.contract).toBe(CURRENT_LEGAL_CONTRACT)
    expect(CURRENT_OFFICIAL_FORMAT.columns).toBe(OFFICIAL_COLUMNS)
    expect(CURRENT_LEGAL_CONTRACT.id).toBe('pl-mrit-ceny-mieszkan-58-2025')
    expect(CURRENT_LEGAL_CONTRACT.validUntil).toBe('2027-12-31')
    expect(CURRENT_OFFICIAL_FORMAT.harvesterNamespace).toBe('urn:otwarte-dane:harvester:1.13')
  })
})
