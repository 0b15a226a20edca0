/*
 * WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside the commit that
 * crosses its threshold, on the connection that committed, so one request pays for copying what
 * every earlier one wrote: a 100,000-offer import paid ~0.2 s after its own commit, and a preview
 * storing its plan paid again every few chunks. Instead a thread with a connection of its own
 * copies the committed frames into the database file every CHECKPOINT_INTERVAL_MS. PASSIVE
 * checkpoints neither wait for nor block readers or the writer, and durability does not change: a
 * commit is on disk once its WAL frames are (synchronous = FULL). A round in which commits landed
 * since the last one is skipped, up to MAX_DEFERRED_ROUNDS in a row: the copy is maintenance, and
 * waits for a pause in the writing (an import's preview storing its plan, say) rather than
 * competing with it for the cores. Should the thread not run, the main connection's own automatic
 * checkpoint still starts at FALLBACK_CHECKPOINT_PAGES.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

const CHECKPOINT_INTERVAL_MS = 500
/**
 * Rounds a checkpoint waits while commits keep landing (10 s): copying a large import's pages takes
 * a core for a few tenths of a second, which the next preview, run at once, would otherwise lose.
 */
const MAX_DEFERRED_ROUNDS = 20
/** The main connection's automatic checkpoint, for a WAL the thread did not keep small: 256 MiB. */
export const FALLBACK_CHECKPOINT_PAGES = 65_536
/** How long closing the database waits for the thread to close its connection. */
const STOP_WAIT_MS = 2_000

/*
 * Plain JavaScript evaluated in the thread, loading nothing but the driver: it runs the same from
 * the sources (tests) and from the build, and starts in milliseconds. Its reads do not go through a
 * memory map, so that they do not count in the service's resident memory. A busy checkpoint (another
 * process of the same file checkpointing) is tried again next round.
 */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const stopped = new Int32Array(workerData.stopped)
const db = new Database(workerData.file, { fileMustExist: true })
db.pragma('mmap_size = 0')
let lastVersion = db.pragma('data_version', { simple: true })
let deferred = 0
const timer = setInterval(() => {
  try {
    const version = db.pragma('data_version', { simple: true })
    const writing = version !== lastVersion
    lastVersion = version
    if (writing && deferred < workerData.maxDeferredRounds) {
      deferred++
      return
    }
    deferred = 0
    db.pragma('wal_checkpoint(PASSIVE)')
  } catch {}
}, workerData.intervalMs)
parentPort.once('message', () => {
  clearInterval(timer)
  try {
    db.close()
  } finally {
    Atomics.store(stopped, 0, 1)
    Atomics.notify(stopped, 0)
    parentPort.close()
  }
})
`

/** Starts the checkpointing thread of an SQLite file in WAL mode; the function returned stops it. */
export function startWalCheckpointer(file: string): () => void {
  const stopped = new SharedArrayBuffer(4)
  const worker = new Worker(CHECKPOINTER, {
    eval: true,
    workerData: {
      file,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      intervalMs: CHECKPOINT_INTERVAL_MS,
      maxDeferredRounds: MAX_DEFERRED_ROUNDS,
      stopped,
    },
  })
  // it never holds the process open; if it fails, the fallback checkpoint does its work
  worker.unref()
  let running = true
  worker.once('error', () => (running = false))
  worker.once('exit', () => (running = false))
  return () => {
    if (!running) return
    running = false
    worker.postMessage('stop')
    // the database is being closed (a test may delete its files next): wait for the connection
    Atomics.wait(new Int32Array(stopped), 0, 0, STOP_WAIT_MS)
  }
}
