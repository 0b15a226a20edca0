/*
 * The catalog's kept values (totals, page ids, match sets) under a revision: what readers notice
 * is that a list asked by many at once right after a write is counted once and answered to all
 * of them, that a newer revision is never answered from an older one, and that a failed count is
 * not kept.
 */
import { describe, expect, it } from 'vitest'

import { ValuesAtRevision } from '../../src/catalog/caching/values-at-revision.js'

function deferred<T>() {
  let resolve!: (value: T) => void
  let reject!: (error: Error) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('values kept under a revision', () => {
  it('computes a value asked by several callers at once only once, and answers all of them', async () => {
    const kept = new ValuesAtRevision<number>()
    const count = deferred<number>()
    let computed = 0
    const compute = () => {
      computed++
      return count.promise
    }
    const answers = Promise.all([kept.once(7, 'k', compute), kept.once(7, 'k', compute), kept.once(7, 'k', compute)])
    count.resolve(42)
    expect(await answers).toEqual([42, 42, 42])
    expect(computed).toBe(1)
    // kept: asked again under the same revision, not computed
    expect(await kept.once(7, 'k', compute)).toBe(42)
    expect(computed).toBe(1)
  })

  it('computes again under a newer revision, and never answers it from a computation of an older one', async () => {
    const kept = new ValuesAtRevision<number>()
    const older = deferred<number>()
    const first = kept.once(1, 'k', () => older.promise)
    const newer = kept.once(2, 'k', async () => 20)
    expect(await newer).toBe(20)
    older.resolve(10)
    expect(await first).toBe(10)
    // the older result arrived last, and is not kept over the newer one
    expect(kept.get(2, 'k')).toBe(20)
    expect(kept.get(1, 'k')).toBeUndefined()
  })

  it('does not keep a failure: every caller waiting sees it, the next one computes again', async () => {
    const kept = new ValuesAtRevision<number>()
    const failing = deferred<number>()
    const waiting = [kept.once(3, 'k', () => failing.promise), kept.once(3, 'k', () => failing.promise)]
    failing.reject(new Error('database unavailable'))
    for (const answer of waiting) await expect(answer).rejects.toThrow('database unavailable')
    expect(await kept.once(3, 'k', async () => 5)).toBe(5)
  })
})
