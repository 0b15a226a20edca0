/*
 * Group commit for SQLite's single writer. With `synchronous=FULL` every commit costs an fsync, and
 * better-sqlite3 makes it on the event loop, so one commit per request caps the rate at what the
 * disk syncs per second. Work submitted while a batch runs (or in the same turn of the event loop)
 * waits and goes into the next batch: one transaction and one fsync for all of it. `run` answers
 * every item itself (isolation between items is its business); a promise resolves only after the
 * batch that holds its item has returned, i.e. after that batch's commit.
 */

export interface GroupCommitStats {
  batches: number
  items: number
  largest: number
}

export class GroupCommit<T, R> {
  private queue: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = []
  private draining = false
  readonly stats: GroupCommitStats = { batches: 0, items: 0, largest: 0 }

  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly maxBatch: number,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject })
      if (!this.draining) {
        this.draining = true
        // after the I/O of this turn: every request already received joins the first batch
        setImmediate(() => void this.drain())
      }
    })
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch)
      this.stats.batches++
      this.stats.items += batch.length
      this.stats.largest = Math.max(this.stats.largest, batch.length)
      try {
        const results = await this.run(batch.map((entry) => entry.item))
        batch.forEach((entry, i) => entry.resolve(results[i] as R))
      } catch (error) {
        for (const entry of batch) entry.reject(error)
      }
    }
    this.draining = false
  }
}
