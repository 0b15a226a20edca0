/*
 * The order an import fills tables in: a table after every table its foreign keys point at, the
 * rows that triggers keep (the catalog and credentials revisions) last, and a cycle named rather
 * than looped over. And the values' portable form, which either database takes back.
 */
import { describe, expect, it } from 'vitest'

import { insertionOrder, portableValue, storedValue } from '../../src/backup/portable-export.js'

describe('insertion order of a portable import', () => {
  it('puts every table after the tables it references, and the trigger-maintained rows last', () => {
    const order = insertionOrder([
      { name: 'catalog_state', references: [] },
      { name: 'offer_components', references: ['offers'] },
      { name: 'offers', references: ['investments'] },
      { name: 'investments', references: ['developers'] },
      { name: 'developers', references: [] },
      { name: 'credentials_state', references: [] },
      { name: 'app_passwords', references: ['users'] },
      { name: 'users', references: [] },
      // a reference to a table the export does not carry is no constraint on the order
      { name: 'audit_log', references: ['tenants'] },
    ])
    expect(order).toHaveLength(9)
    const at = (name: string) => order.indexOf(name)
    expect(at('developers')).toBeLessThan(at('investments'))
    expect(at('investments')).toBeLessThan(at('offers'))
    expect(at('offers')).toBeLessThan(at('offer_components'))
    expect(at('users')).toBeLessThan(at('app_passwords'))
    expect(order.slice(-2)).toEqual(['catalog_state', 'credentials_state'])
  })

  it('refuses foreign keys that form a cycle', () => {
    expect(() =>
      insertionOrder([
        { name: 'a', references: ['b'] },
        { name: 'b', references: ['a'] },
        { name: 'c', references: [] },
      ]),
    ).toThrow(/a, b form a cycle/)
  })
})

describe('portable values', () => {
  it('carry blobs as base64, timestamps as ISO text and booleans as the target column stores them', () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255])
    const carried = portableValue(bytes, 'blob')
    expect(carried).toBe(bytes.toString('base64'))
    expect(storedValue(carried, 'blob', 'blob', 'postgres')).toEqual(bytes)
    expect(portableValue(new Date('2026-11-20T10:00:00.000Z'), 'text')).toBe('2026-11-20T10:00:00.000Z')
    // a PostgreSQL boolean becomes SQLite's 0/1 and back
    expect(portableValue(1, 'boolean')).toBe(true)
    expect(storedValue(true, 'boolean', 'boolean', 'sqlite')).toBe(1)
    expect(storedValue(true, 'boolean', 'boolean', 'postgres')).toBe(true)
    expect(storedValue(false, 'boolean', 'integer', 'postgres')).toBe(0)
    // a bigint read as text by a driver, and a number into a text column
    expect(portableValue('9007199254740991', 'integer')).toBe(9007199254740991)
    expect(storedValue(12, 'integer', 'text', 'sqlite')).toBe('12')
    expect(storedValue(null, 'text', 'text', 'sqlite')).toBeNull()
  })
})
