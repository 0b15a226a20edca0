/*
 * Worker thread of a large preview (see validate-offer-file.ts): reads the file (and checks its
 * rows, for a CSV, except when the main thread has taken every batch sent) and posts the batches,
 * staying at most WORKER_BATCHES_AHEAD batches ahead of the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads'

import { FileReadError } from './file-errors.js'
import {
  BATCH_TAKEN,
  WORKER_BATCHES_AHEAD,
  type WorkerData,
  type WorkerMessage,
  workerMessages,
} from './validate-offer-file.js'

const port = parentPort
if (!port) throw new Error('validate-offer-file-worker.ts runs only as a worker thread')

const { args, alternate } = workerData as WorkerData
let credits = WORKER_BATCHES_AHEAD
let batches = 0
let wake: (() => void) | undefined
port.on('message', (message: unknown) => {
  if (message !== BATCH_TAKEN) return
  credits++
  wake?.()
})
// the main thread has taken every batch sent: it will have checked this one before this thread could
const handOverUnchecked = () => (alternate ? batches++ % 2 === 0 : credits === WORKER_BATCHES_AHEAD)

const post = (message: WorkerMessage) => port.postMessage(message)

try {
  for await (const message of workerMessages(args, handOverUnchecked)) {
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
} finally {
  port.close()
}
