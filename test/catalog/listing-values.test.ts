/*
 * What a large import stores for the other instances (migration 0016) is served only under its
 * listing revision, for a few minutes, and only when it reads as a value of its kind: a stale or
 * damaged row makes the instance count again rather than answer a wrong total.
 */
import { expect, it } from 'vitest'

import { replaceListingValues, selectListingValue } from '../../src/catalog/caching/listing-values-repository.js'
import { describeEachDatabase } from '../helpers/test-app.js'

const STORED_AT = new Date('2026-11-20T10:00:00Z')
const later = (minutes: number) => new Date(STORED_AT.getTime() + minutes * 60_000)

describeEachDatabase('listing values stored by a large import', (getEnv) => {
  it('serves a value under its revision and kind for ten minutes, a null match set as null', async () => {
    const { db } = getEnv().ctx
    await replaceListingValues(
      db,
      41,
      [
        { kind: 't', key: '["a"]', value: 120_000 },
        { kind: 'p', key: '["a"]', value: [3, 1, 2] },
        { kind: 'm', key: '["a"]', value: null },
      ],
      STORED_AT,
    )
    expect(await selectListingValue(db, 41, 't', '["a"]', later(1))).toBe(120_000)
    expect(await selectListingValue(db, 41, 'p', '["a"]', later(9))).toEqual([3, 1, 2])
    // "too many to keep" is a value; an absent row is not
    expect(await selectListingValue(db, 41, 'm', '["a"]', later(1))).toBeNull()
    expect(await selectListingValue(db, 41, 'm', '["b"]', later(1))).toBeUndefined()
    expect(await selectListingValue(db, 42, 't', '["a"]', later(1))).toBeUndefined()
    expect(await selectListingValue(db, 41, 't', '["a"]', later(11))).toBeUndefined()
  })

  it('replaces every stored value, also under the same revision (an import of prices only)', async () => {
    const { db } = getEnv().ctx
    await replaceListingValues(db, 41, [{ kind: 't', key: '["a"]', value: 5 }], STORED_AT)
    await replaceListingValues(db, 41, [{ kind: 't', key: '["a"]', value: 6 }], STORED_AT)
    expect(await selectListingValue(db, 41, 't', '["a"]', later(1))).toBe(6)
    expect(await selectListingValue(db, 41, 'p', '["a"]', later(1))).toBeUndefined()
  })

  it('ignores a row that does not read as a value of its kind', async () => {
    const { db } = getEnv().ctx
    await replaceListingValues(
      db,
      43,
      [
        { kind: 't', key: '["neg"]', value: -1 },
        { kind: 'p', key: '["text"]', value: ['1'] },
        { kind: 'm', key: '["bad"]', value: 1 },
        { kind: 't', key: '["json"]', value: 1 },
      ],
      STORED_AT,
    )
    await db.updateTable('listing_values').set({ value: '{not json' }).where('list_key', 'like', '%json%').execute()
    for (const [kind, key] of [
      ['t', '["neg"]'],
      ['p', '["text"]'],
      ['m', '["bad"]'],
      ['t', '["json"]'],
    ] as const)
      expect(await selectListingValue(db, 43, kind, key, later(1)), `${kind} ${key}`).toBeUndefined()
  })
})
