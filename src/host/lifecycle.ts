/*
 * The life of one serving process, as the operations endpoints and the shutdown see it: whether
 * it is shutting down (then /readyz answers 503 at once), and the background jobs it runs outside
 * any HTTP request (the scheduled maintenance and the daily publication), which the shutdown waits
 * for before the database is closed. Requests need no tracking here: closing the server waits for
 * them.
 */

declare module 'fastify' {
  interface FastifyInstance {
    /** Shutting down or not, and the background jobs the shutdown waits for. */
    lifecycle: Lifecycle
  }
}

export class Lifecycle {
  #shuttingDown = false
  #abandoned = false
  #abandon: (() => void) | undefined
  readonly #abandonedSignal = new Promise<void>((resolve) => (this.#abandon = resolve))
  readonly #jobs = new Map<Promise<unknown>, string>()

  get shuttingDown(): boolean {
    return this.#shuttingDown
  }

  /** From now on the process is not ready: /readyz answers 503 `shutting_down`. */
  beginShutdown(): void {
    this.#shuttingDown = true
  }

  /** Runs `work` as a job the shutdown waits for; returns it unchanged. */
  track<T>(name: string, work: Promise<T>): Promise<T> {
    this.#jobs.set(work, name)
    const forget = () => this.#jobs.delete(work)
    work.then(forget, forget)
    return work
  }

  /** Names of the jobs still running. */
  get runningJobs(): string[] {
    return [...this.#jobs.values()]
  }

  /** Resolves when no tracked job is running (jobs started meanwhile included), or once abandoned. */
  async settled(): Promise<void> {
    while (this.#jobs.size > 0 && !this.#abandoned) {
      await Promise.race([Promise.allSettled([...this.#jobs.keys()]), this.#abandonedSignal])
    }
  }

  /** The shutdown's time is up: stop waiting for the jobs. */
  abandon(): void {
    this.#abandoned = true
    this.#abandon?.()
  }
}
