/*
 * Serialized catalog answers keyed by catalog revision and request URL. The revision is bumped by
 * database triggers in the writing transaction, so an entry can only be served while the data it
 * was built from is still current, on every instance.
 */
export interface CachedAnswer {
  /** UTF-8 bytes, encoded once: encoding a page per request cost as much as the rest of a cached answer. */
  body: Buffer
  etag: string
  headers: Record<string, string>
}

export class ResponseCache {
  readonly #entries = new Map<string, CachedAnswer>()
  #bytes = 0

  constructor(
    private readonly maxEntries = 5000,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  get(key: string): CachedAnswer | undefined {
    const entry = this.#entries.get(key)
    if (entry) {
      // refresh recency: Map keeps insertion order, so the oldest key is evicted first
      this.#entries.delete(key)
      this.#entries.set(key, entry)
    }
    return entry
  }

  set(key: string, entry: CachedAnswer): void {
    if (entry.body.length > this.maxBytes / 16) return
    const previous = this.#entries.get(key)
    if (previous) {
      this.#bytes -= previous.body.length
      this.#entries.delete(key)
    }
    this.#entries.set(key, entry)
    this.#bytes += entry.body.length
    while (this.#entries.size > this.maxEntries || this.#bytes > this.maxBytes) {
      const oldest = this.#entries.keys().next()
      if (oldest.done) break
      const evicted = this.#entries.get(oldest.value)
      this.#entries.delete(oldest.value)
      this.#bytes -= evicted?.body.length ?? 0
    }
  }
}
