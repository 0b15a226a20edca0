/*
 * Worker thread of a large file's header preview (see read-file-headers.ts): reads the header row
 * and the first rows of the one file in its workerData and posts one message.
 */
import { parentPort, workerData } from 'node:worker_threads'

import { FileReadError } from './file-errors.js'
import { type HeadersWorkerMessage, readFileHeaders, type ReadFileHeadersArgs } from './read-file-headers.js'

const port = parentPort
if (!port) throw new Error('read-file-headers-worker.ts runs only as a worker thread')

const post = (message: HeadersWorkerMessage) => port.postMessage(message)

try {
  post({ kind: 'headers', headers: await readFileHeaders(workerData as ReadFileHeadersArgs) })
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
