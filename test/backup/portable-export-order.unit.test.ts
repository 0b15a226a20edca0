/*
 * The order an import fills tables in: a table after every table its foreign keys point at, the
 * rows that triggers keep (the catalog and credentials revisions) last, and a cycle named rather
 * than looped over.
 */
import { describe, expect, it } from 'vitest'

import { insertionOrder } from '../../src/backup/portable-export.js'

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
