/*
 * Values computed from the catalog (a list's total, the offer ids of a page), kept under the
 * catalog revision they were computed at. Every write to offers bumps that revision in its own
 * transaction (database triggers: also an import on another instance or a manual SQL fix), so a
 * value is reused only while nothing was written that could change it. Counting is most of a
 * list's cost on a large catalog (50 ms over 120,000 offers on SQLite; a text search reads every
 * offer's texts), and every page and order of one filter set shares it. The caller reads the
 * revision before computing, so a value stored under a revision is never older than it; one
 * computed under an older revision than the newest seen is not kept. The catalog and the editor
 * each keep their own (their lists filter differently).
 */
export class ValuesAtRevision<T> {
  #revision = -1
  readonly #values = new Map<string, T>()
  // computations in progress, shared by the requests that read the same revision meanwhile: after
  // a write every reader of a list asks for it at once (measured with two PostgreSQL instances, the
  // one that did not run the import: its catalog requests waited up to 1.6 s)
  readonly #computing = new Map<string, Promise<T>>()

  constructor(private readonly maxEntries = 10_000) {}

  get(revision: number, key: string): T | undefined {
    return revision === this.#revision ? this.#values.get(key) : undefined
  }

  set(revision: number, key: string, value: T): void {
    if (revision < this.#revision) return
    if (revision > this.#revision) {
      this.#revision = revision
      this.#values.clear()
    }
    if (this.#values.size >= this.maxEntries) {
      const oldest = this.#values.keys().next()
      if (!oldest.done) this.#values.delete(oldest.value)
    }
    this.#values.set(key, value)
  }

  /** The revision the values are kept under, and their keys, oldest first. */
  kept(): { revision: number; keys: string[] } {
    return { revision: this.#revision, keys: [...this.#values.keys()] }
  }

  /**
   * The value under `revision`, computed by `compute` when it is not known yet, once for all the
   * callers that ask for it while it is being computed.
   */
  async once(revision: number, key: string, compute: () => Promise<T>): Promise<T> {
    const known = this.get(revision, key)
    if (known !== undefined) return known
    const id = `${revision} ${key}`
    let computing = this.#computing.get(id)
    if (!computing) {
      computing = compute().then((value) => {
        this.set(revision, key, value)
        return value
      })
      this.#computing.set(id, computing)
      // settled either way: a failure is not kept, the next request computes again
      const done = () => this.#computing.delete(id)
      computing.then(done, done)
    }
    return computing
  }
}

/** One ValuesAtRevision per owner (a host context or its database), made on first use. */
export function valuesPerOwner<T>(maxEntries?: number): (owner: object) => ValuesAtRevision<T> {
  const memos = new WeakMap<object, ValuesAtRevision<T>>()
  return (owner) => {
    let memo = memos.get(owner)
    if (!memo) memos.set(owner, (memo = new ValuesAtRevision<T>(maxEntries)))
    return memo
  }
}
