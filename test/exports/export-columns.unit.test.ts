import { describe, expect, it } from 'vitest'

import { COLUMN_DESCRIPTIONS, EXPORT_COLUMNS, exportCsv, NOT_EXPORTED_FIELDS } from '../../src/exports/offer-export.js'
import { CANONICAL_FIELDS } from '../../src/offers/canonical-fields.js'

describe('export columns', () => {
  it('are the canonical fields the store keeps, in their order, so a new field is exported at once', () => {
    const kept = CANONICAL_FIELDS.filter((field) => !(NOT_EXPORTED_FIELDS as readonly string[]).includes(field))
    expect(EXPORT_COLUMNS).toEqual(kept)
    expect(NOT_EXPORTED_FIELDS).toEqual(['proj_local_no'])
  })

  it('head the CSV file with the field names and are each described for the template', () => {
    const header = exportCsv([])
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .split('\r\n')[0]
    expect(header?.split(';')).toEqual([...EXPORT_COLUMNS])
    for (const column of EXPORT_COLUMNS) expect(COLUMN_DESCRIPTIONS[column]).toHaveLength(2)
  })
})
