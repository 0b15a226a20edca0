/*
 * Worker thread of a large preview (see validate-offer-file.ts): reads the file (and checks its
 * rows, for a CSV, except when the main thread has taken every batch sent) and posts the batches,
 * staying at most WORKER_BATCHES_AHEAD batches ahead of the main thread. It validates one file per
 * `start` message: a spare thread is started before there is a file for it (see `takeWorker`).
 */
import { parentPort } from 'node:worker_threads'

import { FileReadError } from './file-errors.js'
import {
  BATCH_TAKEN,
  WORKER_BATCHES_AHEAD,
  type WorkerJob,
  type WorkerMessage,
  workerMessages,
} from './validate-offer-file.js'

const port = parentPort
if (!port) throw new Error('validate-offer-file-worker.ts runs only as a worker thread')

let credits = 0
let batches = 0
let alternate = false
let wake: (() => void) | undefined
// the main thread has taken every batch sent: it will have checked this one before this thread could
const handOverUnchecked = () => (alternate ? batches++ % 2 === 0 : credits === WORKER_BATCHES_AHEAD)

const post = (message: WorkerMessage) => port.postMessage(message)

/** One file, from its `start` message to its last message; the thread then waits for the next. */
async function validate(job: WorkerJob): Promise<void> {
  credits = WORKER_BATCHES_AHEAD
  batches = 0
  alternate = job.alternate
  try {
    for await (const message of workerMessages(job.args, handOverUnchecked)) {
      if (message.kind === 'opened') {
        post(message)
        continue
      }
      while (credits === 0) await new Promise<void>((resolve) => (wake = resolve))
      credits--
      post(message)
    }
    post({ kind: 'end' })
  } catch (error) {
    if (error instanceof FileReadError) {
      post({
        kind: 'file_error',
        code: error.code,
        message: error.message,
        ...(error.details ? { details: { ...error.details } } : {}),
      })
    } else {
      post({ kind: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
    }
  }
}

port.on('message', (message: unknown) => {
  if (message === BATCH_TAKEN) {
    credits++
    wake?.()
  } else if (typeof message === 'object' && message !== null && (message as WorkerJob).kind === 'start') {
    void validate(message as WorkerJob)
  }
})
