/*
 * A large import execution runs on a worker thread (execute-import-thread-worker.ts) with a
 * connection of its own. On SQLite this process holds its writer idle meanwhile (holdWriter):
 * requests keep being answered, reads from the reader connection, and the service's other writes
 * wait their turn as they would behind any transaction. On PostgreSQL the transaction takes its
 * locks as it would here; the thread only keeps its JavaScript work off the event loop. The worker
 * runs only the transaction; what a failure leaves behind (the job's state, the lock, the audit
 * entry) is settled here, as for an execution run here.
 */
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'

import type { Actor } from '../../host/audit/audit.js'
import type { HostContext } from '../../host/context.js'
import type { OpenDatabaseOptions } from '../../host/db/database.js'
import { holdWriter } from '../../host/db/sqlite-connections.js'
import { startSiblingWorker } from '../../host/worker-thread.js'
import { findImportJob, type ImportJobRow } from '../import-jobs-repository.js'
import type { ListingQueries } from '../../catalog/caching/listing-cache.js'
import type { PriceNote } from '../../offers/editor-operation.js'
import type { WrittenJob } from './written-job.js'

/** The catalog changed since the preview in a way that touches the plan. */
export class PlanChanged extends Error {}

export interface ThreadJob {
  /** Another connection to the service's database: a SQLite file or a PostgreSQL database. */
  connection: OpenDatabaseOptions
  now: string
  job: ImportJobRow
  actor: Actor
  runToken: string
  warmUp: ListingQueries | undefined
  note?: PriceNote | undefined
}

export type ThreadMessage =
  | { kind: 'progress'; written: number; total: number }
  | { kind: 'log'; line: string }
  | { kind: 'done'; written: WrittenJob }
  | { kind: 'failed'; planChanged: boolean; message: string }

const LEVELS: Record<number, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
}

/** A line the worker logged, logged again here so that it gets this process's redaction and output. */
function relayLog(log: Logger, line: string): void {
  try {
    const {
      level,
      msg,
      time: _time,
      pid: _pid,
      hostname: _host,
      ...fields
    } = JSON.parse(line) as Record<string, unknown>
    log[LEVELS[Number(level)] ?? 'info'](fields, typeof msg === 'string' ? msg : '')
  } catch {
    log.warn('unreadable log line from the import thread')
  }
}

export async function writeJobOnWorker(
  ctx: HostContext,
  connection: OpenDatabaseOptions,
  args: Pick<ThreadJob, 'job' | 'actor' | 'runToken' | 'warmUp' | 'note'>,
  onProgress: ((written: number, total: number) => void) | undefined,
): Promise<WrittenJob> {
  return holdWriter(ctx.db as unknown as Kysely<never>, async () => {
    const worker = startSiblingWorker(import.meta.url, { workerData: { logLevel: ctx.log.level } })
    let outcome: ThreadMessage | undefined
    try {
      await new Promise<void>((resolve, reject) => {
        worker.on('message', (message: ThreadMessage) => {
          if (message.kind === 'progress') onProgress?.(message.written, message.total)
          else if (message.kind === 'log') relayLog(ctx.log, message.line)
          else outcome = message
        })
        worker.once('error', reject)
        worker.once('exit', () => resolve())
        const job: ThreadJob = { connection, now: ctx.now().toISOString(), ...args }
        worker.postMessage(job)
      })
    } catch (error) {
      ctx.log.error({ err: error }, 'the import thread stopped')
    }
    if (outcome?.kind === 'done') return outcome.written
    if (outcome?.kind === 'failed') {
      if (outcome.planChanged) throw new PlanChanged()
      throw new Error(outcome.message)
    }
    // the thread ended without an answer: its transaction either committed whole or not at all
    const now = await findImportJob(ctx.db, args.job.id)
    if (now?.status === 'completed' && now.run_token === args.runToken && now.result)
      return { result: JSON.parse(now.result) as WrittenJob['result'] }
    throw new Error('the import thread ended before it answered; nothing was committed')
  })
}
