/*
 * A list's total (X-WP-Total) per set of filters, kept under the catalog revision it was counted
 * at. Every write to offers bumps that revision in its own transaction (database triggers: also an
 * import on another instance or a manual SQL fix), so a total is reused only while nothing was
 * written. Counting is most of a list's cost on a large catalog (50 ms over 120,000 offers on
 * SQLite; a text search reads every offer's texts), and every page and order of one filter set
 * shares it. The caller reads the revision before counting, so a total stored under a revision is
 * never older than it; a total counted under an older revision than the newest seen is not kept.
 * The catalog and the editor each keep their own (their lists filter differently).
 */
export class TotalsAtRevision {
  #revision = -1
  readonly #totals = new Map<string, number>()

  constructor(private readonly maxEntries = 10_000) {}

  get(revision: number, key: string): number | undefined {
    return revision === this.#revision ? this.#totals.get(key) : undefined
  }

  set(revision: number, key: string, total: number): void {
    if (revision < this.#revision) return
    if (revision > this.#revision) {
      this.#revision = revision
      this.#totals.clear()
    }
    if (this.#totals.size >= this.maxEntries) {
      const oldest = this.#totals.keys().next()
      if (!oldest.done) this.#totals.delete(oldest.value)
    }
    this.#totals.set(key, total)
  }

  /** The total under `revision`, counted by `count` when it is not known yet. */
  async countOnce(revision: number, key: string, count: () => Promise<number>): Promise<number> {
    const known = this.get(revision, key)
    if (known !== undefined) return known
    const total = await count()
    this.set(revision, key, total)
    return total
  }
}

/** One TotalsAtRevision per owner (a host context or its database), made on first use. */
export function totalsPerOwner(maxEntries?: number): (owner: object) => TotalsAtRevision {
  const memos = new WeakMap<object, TotalsAtRevision>()
  return (owner) => {
    let memo = memos.get(owner)
    if (!memo) memos.set(owner, (memo = new TotalsAtRevision(maxEntries)))
    return memo
  }
}
