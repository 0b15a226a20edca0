/*
 * Worker thread of a large import execution (see execute-import-thread.ts): opens its own
 * connection to the database, runs the execution's transaction and answers once.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads'

import { pino } from 'pino'

import { openDatabase } from '../../host/db/database.js'
import { PlanChanged, type ThreadJob, type ThreadMessage } from './execute-import-thread.js'
import { writeJob } from './write-import-job.js'

if (!parentPort) throw new Error('execute-import-thread-worker.ts runs only as a worker thread')
const port: MessagePort = parentPort
const post = (message: ThreadMessage) => port.postMessage(message)
const log = pino(
  { level: (workerData as { logLevel?: string } | undefined)?.logLevel ?? 'info' },
  { write: (line: string) => post({ kind: 'log', line }) },
)

async function execute(job: ThreadJob): Promise<void> {
  const database = openDatabase({ ...job.connection, sqliteWalCheckpointer: false })
  try {
    const now = new Date(job.now)
    const written = await writeJob(
      { db: database.db, caps: database.caps, now: () => now },
      job.job,
      job.actor,
      job.runToken,
      (written, total) => post({ kind: 'progress', written, total }),
      job.warmUp,
      job.note,
    )
    post({ kind: 'done', written })
  } catch (error) {
    if (!(error instanceof PlanChanged)) log.error({ err: error, job: job.job.id }, 'import transaction failed')
    post({
      kind: 'failed',
      planChanged: error instanceof PlanChanged,
      message: error instanceof Error ? error.message : String(error),
    })
  } finally {
    await database.destroy()
    port.close()
  }
}

port.once('message', (job: ThreadJob) => void execute(job))
