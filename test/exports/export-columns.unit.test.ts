import { describe, expect, it } from 'vitest'

import { COLUMN_DESCRIPTIONS, EXPORT_COLUMNS, exportCsv, NOT_EXPORTED_FIELDS } from '../../src/exports/offer-export.js'
import { CANONICAL_FIELDS, lookupStatus, OFFER_STATUSES, STATUS_WORDS_PL } from '../../src/offers/canonical-fields.js'
import { FIELD_LABELS_PL } from '../../src/offers/validation/row-errors.js'

describe('export columns', () => {
  it('are the canonical fields the store keeps, in their order, so a new field is exported at once', () => {
    const kept = CANONICAL_FIELDS.filter((field) => !(NOT_EXPORTED_FIELDS as readonly string[]).includes(field))
    expect(EXPORT_COLUMNS).toEqual(kept)
    expect(NOT_EXPORTED_FIELDS).toEqual(['proj_local_no'])
  })

  const headerOf = (file: Buffer) =>
    file
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .split('\r\n')[0]
      ?.split(';')

  it('head the CSV file with Polish headers (or the field names on request) and are each described for the template', () => {
    expect(headerOf(exportCsv([]))).toEqual(EXPORT_COLUMNS.map((column) => FIELD_LABELS_PL[column]))
    expect(headerOf(exportCsv([], { naming: 'technical' }))).toEqual([...EXPORT_COLUMNS])
    for (const column of EXPORT_COLUMNS) expect(COLUMN_DESCRIPTIONS[column]).toHaveLength(2)
  })

  it('have Polish headers that are distinct and safe in a CSV cell, and Polish status words the import reads back', () => {
    const headers = Object.values(FIELD_LABELS_PL)
    expect(new Set(headers.map((h) => h.toLowerCase())).size).toBe(CANONICAL_FIELDS.length)
    for (const header of headers) expect(header).not.toMatch(/[";\r\n]/)
    for (const status of OFFER_STATUSES) expect(lookupStatus(STATUS_WORDS_PL[status])).toBe(status)
  })

  it('write statuses as Polish words, or as codes with the technical names', () => {
    const row = Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, ''])) as Record<
      (typeof EXPORT_COLUMNS)[number],
      string
    >
    row.property_status = 'sold'
    const cells = (naming: 'polish' | 'technical') =>
      exportCsv([row], { naming }).toString('utf8').split('\r\n')[1]?.split(';')
    const at = EXPORT_COLUMNS.indexOf('property_status')
    expect(cells('polish')?.[at]).toBe('sprzedane')
    expect(cells('technical')?.[at]).toBe('sold')
  })
})
