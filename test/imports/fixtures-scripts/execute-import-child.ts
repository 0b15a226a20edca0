/*
 * Child-process entry point of test/imports/import-crash.test.ts: opens the test's database (same
 * SQLite file or PostgreSQL schema), builds a host context like a second instance of the service
 * would, and executes one previewed import job. The test kills this process with SIGKILL while the
 * commit runs.
 *
 * Input (environment): DG_CHILD_CONNECTION (JSON `{ databaseUrl, pgSchema }` or `{ sqliteFile }`),
 * DG_CHILD_JOB_ID, DG_CHILD_KEY (Idempotency-Key), DG_CHILD_NOW (ISO start of the clock, so that the
 * child sees the same time as the test's fake clock), DG_CHILD_DATA_DIR.
 *
 * Output (stdout, one line each, written synchronously so that a line printed before the kill is
 * never lost):
 * - `ready` once the context is built and the execution starts;
 * - `phase <statement> <n>` before the n-th statement of that kind runs, e.g. `phase insert:offers 1`
 *   (a Kysely plugin sees every query built with the query builder, inside the transaction too, and
 *   the bulk inserts that bypass the builder are seen where they are executed);
 * - `result <json>` or `error <json>` when the execution ends.
 */
import { writeSync } from 'node:fs'

import {
  AliasNode,
  DeleteQueryNode,
  InsertQueryNode,
  Kysely,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  TableNode,
  type UnknownRow,
  UpdateQueryNode,
} from 'kysely'
import { pino } from 'pino'

import { createHostContext } from '../../../src/app.js'
import { loadConfig } from '../../../src/config.js'
import { PluginError } from '../../../src/host/errors.js'
import { openDatabase, type OpenDatabaseOptions } from '../../../src/host/db/database.js'
import { executeOfferImport } from '../../../src/imports/execution/execute-offer-import.js'

function say(line: string): void {
  writeSync(1, `${line}\n`)
}

function required(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set`)
  return value
}

function tableOf(node: RootOperationNode): string {
  let target: OperationNode | undefined
  if (InsertQueryNode.is(node)) target = node.into
  else if (UpdateQueryNode.is(node)) target = node.table
  else if (DeleteQueryNode.is(node)) target = node.from.froms[0]
  if (target && AliasNode.is(target)) target = target.node
  return target && TableNode.is(target) ? target.table.identifier.name : '?'
}

/** Announces each statement kind before it runs: `phase insert:offers 3`. */
class PhaseProbe implements KyselyPlugin {
  readonly #counts = new Map<string, number>()

  announce(name: string): void {
    const n = (this.#counts.get(name) ?? 0) + 1
    this.#counts.set(name, n)
    say(`phase ${name} ${n}`)
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node
    const kind = InsertQueryNode.is(node)
      ? 'insert'
      : UpdateQueryNode.is(node)
        ? 'update'
        : DeleteQueryNode.is(node)
          ? 'delete'
          : undefined
    if (kind) this.announce(`${kind}:${tableOf(args.node)}`)
    return args.node
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result
  }
}

const connection = JSON.parse(required('DG_CHILD_CONNECTION')) as OpenDatabaseOptions
const start = Date.parse(required('DG_CHILD_NOW'))
const startedAt = Date.now()
const now = () => new Date(start + (Date.now() - startedAt))

const handle = openDatabase(connection)
const probe = new PhaseProbe()
const database = { ...handle, db: handle.db.withPlugin(probe) }
// insertRows (src/host/db/dialect.ts) executes compiled SQL text, which no plugin sees
// eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the instance as `this`
const executeQuery = Kysely.prototype.executeQuery
Kysely.prototype.executeQuery = function (this: Kysely<unknown>, query, queryId) {
  const text = 'sql' in query ? query.sql : ''
  const insert = /^INSERT INTO "(\w+)"/.exec(text)
  if (insert) probe.announce(`insert:${insert[1]}`)
  return executeQuery.call(this, query, queryId) as never
} as typeof executeQuery
const config = loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'silent', DG_DATA_DIR: required('DG_CHILD_DATA_DIR') })
try {
  const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }), now })
  say('ready')
  const outcome = await executeOfferImport(ctx, {
    actor: { type: 'cli' },
    jobId: required('DG_CHILD_JOB_ID'),
    idempotencyKey: required('DG_CHILD_KEY'),
    confirmArchiving: false,
  })
  say(`result ${JSON.stringify(outcome)}`)
} catch (error) {
  say(
    `error ${JSON.stringify(error instanceof PluginError ? { error: error.error, status: error.status } : { message: String(error) })}`,
  )
  process.exitCode = 1
} finally {
  await handle.destroy()
}
