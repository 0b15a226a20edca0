/*
 * The signed property webhook (docs/integration/webhook.md): verified, replay-guarded, then executed
 * exactly once per idempotency key through the shared write path in patch mode.
 *
 * Exactly-once: one transaction inserts the execution row for the key (unique), writes the offers,
 * the price history and the audit entry, and marks the row `completed`; a concurrent delivery of
 * the same key waits for it (PostgreSQL: the table lock and the unique index; SQLite: the single
 * writer) and then answers the stored result. A crash commits nothing, so a retry executes. A
 * `running` row can exist only from an earlier version or a manual claim; while its lease lasts a
 * retry gets 409 webhook_in_progress, after it the retry takes it over.
 *
 * No delivery waits behind a long write. On PostgreSQL an import execution holds the
 * offers table (SHARE ROW EXCLUSIVE) for its whole commit: a delivery that finds the import lock
 * held tries the table lock without waiting, any other waits at most LOCK_WAIT_MS for it (a
 * transaction-local `lock_timeout`), and either refusal is 409 webhook_in_progress with
 * Retry-After: the event's savepoint is rolled back, so nothing of it is written and its key stays
 * free for the sender's retry (new nonce, same key and body). At most PG_DELIVERY_CONNECTIONS
 * deliveries hold a pool connection at once; the others wait for a turn without one, so that the
 * catalog's reads always find a connection however many deliveries wait.
 *
 * Durable commits: the header and clock checks need no storage; everything after them runs in one
 * transaction per batch of deliveries (replay-guard insert, execution in a savepoint of its own,
 * so that a refused event undoes only its own writes), and every answer waits for that commit.
 * On SQLite (one writer, an fsync per commit) the deliveries that arrive while a batch runs form
 * the next batch: group commit, one fsync for all of them. On PostgreSQL each delivery is a batch
 * of its own, concurrent with the others.
 */
import { createHash, randomBytes } from 'node:crypto'

import { type Kysely, sql } from 'kysely'

import { recordAudit } from '../host/audit/audit.js'
import type { Executor, HostContext } from '../host/context.js'
import { lockOffersForWriteWithin } from '../host/db/dialect.js'
import { IMPORT_LOCK } from '../imports/import-job-lifecycle.js'
import { PluginError } from '../host/errors.js'
import { measured, recordWebhook } from '../host/metrics.js'
import { requires } from '../licensing/license.js'
import { warsawDate } from '../host/warsaw-day.js'
import { planOffers } from '../offers/offer-planner.js'
import { applyOfferPlan } from '../offers/offer-writer.js'
import { type NormalizedOfferValues, type RowError, validateOfferRow } from '../offers/validation/validate-offer-row.js'
import { firstDuplicateKey } from './duplicate-json-keys.js'
import { GroupCommit, type GroupCommitStats } from './group-commit.js'
import {
  checkSignedHeaders,
  type SignedHeaders,
  signingStringIsAmbiguous,
  verifySignature,
} from './verify-signature.js'
import {
  completeExecution,
  deleteExpiredExecutions,
  deleteExpiredFingerprints,
  findExecution,
  insertExecutionClaim,
  insertReplayFingerprints,
  takeOverExecution,
  type WebhookExecutionRow,
} from './webhook-repository.js'
import { getWebhookSecret } from './webhook-secret.js'

export const NONCE_TTL_MS = 600_000
export const EXECUTION_RETENTION_MS = 7 * 24 * 3600 * 1000
const LEASE_MS = 30_000
/**
 * PostgreSQL: how long a delivery waits for a lock (the offers table behind another writer) before
 * it answers 409 webhook_in_progress. Deliveries queue on the table lock behind each other for a
 * few milliseconds each; a write that holds it longer is an import or an editor's bulk change.
 */
export const LOCK_WAIT_MS = 3_000
/**
 * PostgreSQL: deliveries that hold a pool connection at once (the pool has 10). A delivery waiting
 * for a lock holds its connection for up to LOCK_WAIT_MS; the rest of the pool stays the readers'.
 */
export const PG_DELIVERY_CONNECTIONS = 3
/** Retry-After of a delivery refused because a write holds the offers (as the import's own 409). */
const IN_PROGRESS_RETRY_AFTER_S = 5

export interface WebhookResult {
  status: 'completed'
  processed: number
  created: number
  updated: number
  archived: number
  run_id: number
}

export interface WebhookOutcome {
  statusCode: 200 | 202
  body: { accepted: true; result: WebhookResult; replayed?: true }
  bodySha256: string
  eventId: string
}

const storageUnavailable = () =>
  new PluginError(
    'execution_storage_unavailable',
    503,
    { message: 'Durable idempotency storage is unavailable; retry later with the same key and body.' },
    { 'Retry-After': 10 },
  )

/** The offers are held by an import or another long write: nothing was written, retry later. */
const executionRunning = () =>
  new PluginError(
    'webhook_in_progress',
    409,
    {
      message:
        'An import or another write holds the offers; nothing was written. Retry after Retry-After with a new nonce and the same key and body.',
    },
    { 'Retry-After': IN_PROGRESS_RETRY_AFTER_S },
  )

/** PostgreSQL's lock_not_available (55P03): `lock_timeout` ran out, or NOWAIT found the lock taken. */
function isLockNotAvailable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '55P03'
}

/**
 * A counting semaphore: at most `limit` holders; the others wait in arrival order. PostgreSQL's
 * deliveries take a turn before they take a pool connection (PG_DELIVERY_CONNECTIONS).
 */
export class CountingSemaphore {
  #active = 0
  readonly #waiting: Array<() => void> = []
  /** The most turns held at once since the start (benchmarks and tests). */
  peak = 0

  constructor(readonly limit: number) {}

  get active(): number {
    return this.#active
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve))
    else this.#active++
    this.peak = Math.max(this.peak, this.#active)
    try {
      return await work()
    } finally {
      // the turn passes straight to the next waiter (the count stays), or is given back
      const next = this.#waiting.shift()
      if (next) next()
      else this.#active--
    }
  }
}

const deliverySemaphores = new WeakMap<HostContext, CountingSemaphore>()

/** The app's semaphore of PostgreSQL deliveries (created on first use): how many were held at once. */
export function webhookDeliverySemaphore(ctx: HostContext): CountingSemaphore {
  let gate = deliverySemaphores.get(ctx)
  if (!gate) {
    gate = new CountingSemaphore(PG_DELIVERY_CONNECTIONS)
    deliverySemaphores.set(ctx, gate)
  }
  return gate
}

function isScalar(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value)
}

/** A delivery whose headers passed the format and clock checks, waiting for its batch. */
interface Delivery {
  headers: SignedHeaders
  rawBody: Buffer
  bodySha256: string
  /** Arrival time: the clock check used it, and the execution records it. */
  now: Date
}

type Answer = { ok: true; outcome: WebhookOutcome } | { ok: false; error: PluginError }

/** A failure no refusal explains: the batch's transaction is rolled back. */
class BatchAbort extends Error {
  constructor(
    readonly index: number,
    readonly answer: PluginError,
    /** Storage itself failed: every delivery of the batch is answered with it, none is run again. */
    readonly wholeBatch: boolean,
  ) {
    super(answer.error)
  }
}

/** Deliveries per transaction at most, so that a burst does not make one long transaction. */
export const MAX_BATCH = 64

const committers = new WeakMap<HostContext, GroupCommit<Delivery, Answer>>()

/** The app's group commit on SQLite (undefined on PostgreSQL): its batch counters, for benchmarks. */
export function webhookBatchStats(ctx: HostContext): GroupCommitStats | undefined {
  return committers.get(ctx)?.stats
}

function committerOf(ctx: HostContext): GroupCommit<Delivery, Answer> {
  let committer = committers.get(ctx)
  if (!committer) {
    committer = new GroupCommit((deliveries) => runBatch(ctx, deliveries), MAX_BATCH)
    committers.set(ctx, committer)
  }
  return committer
}

export const handlePropertyWebhook = measured(receivePropertyWebhook, recordWebhook)

async function receivePropertyWebhook(
  ctx: HostContext,
  request: { headers: Record<string, string | string[] | undefined>; rawBody: Buffer },
): Promise<WebhookOutcome> {
  // a body declared JSON (the route refuses any other Content-Type; none at all is a header problem)
  const duplicate = request.headers['content-type'] === undefined ? undefined : duplicateKeyOf(request.rawBody)
  if (duplicate !== undefined)
    throw new PluginError('invalid_json', 400, {
      message: `The body names the key "${duplicate.slice(0, 64)}" twice; send each field once.`,
    })
  const now = ctx.now()
  const headers = checkSignedHeaders(request.headers, Math.floor(now.getTime() / 1000))
  if ('ok' in headers) throw new PluginError(headers.error, 401, { message: headers.detail })
  const delivery: Delivery = {
    headers,
    rawBody: request.rawBody,
    bodySha256: createHash('sha256').update(request.rawBody).digest('hex'),
    now,
  }
  // SQLite has one writer and pays an fsync per commit: deliveries share commits. PostgreSQL
  // runs each delivery in its own transaction, concurrently with the others.
  const answer = ctx.caps.concurrentWriters
    ? ((await webhookDeliverySemaphore(ctx).run(() => runBatch(ctx, [delivery])))[0] as Answer)
    : await committerOf(ctx).submit(delivery)
  if (!answer.ok) throw answer.error
  return answer.outcome
}

/*
 * Expired fingerprints go in small chunks between batches: under a steady load a once-a-minute
 * delete of a minute's worth (180,000 rows at 3,000 replays/s) would hold the writer, and with it
 * every delivery, for a long moment. A chunk every 250 ms keeps up with 4,000 new ones a second;
 * the hourly clean-up (removeExpiredWebhookRecords) takes whatever is left.
 */
const CLEANUP_EVERY_MS = 250
const CLEANUP_ROWS = 1000
const lastCleanup = new WeakMap<HostContext, number>()

/**
 * Answers every delivery of the batch after one transaction has committed all of their writes.
 * The secret and the licence are read once per batch, right before it, so a rotation or a licence
 * change applies to every batch that starts after it.
 */
async function runBatch(ctx: HostContext, deliveries: Delivery[]): Promise<Answer[]> {
  const answers: Answer[] = new Array<Answer>(deliveries.length)
  const unavailable = () => deliveries.map(() => refused(storageUnavailable()))
  let secret: string | undefined
  let entitlement: PluginError | undefined
  try {
    const now = ctx.now()
    if (Math.abs(now.getTime() - (lastCleanup.get(ctx) ?? 0)) >= CLEANUP_EVERY_MS) {
      lastCleanup.set(ctx, now.getTime())
      await deleteExpiredFingerprints(ctx.db, now.toISOString(), CLEANUP_ROWS).catch(() => undefined)
    }
    secret = (await getWebhookSecret(ctx))?.secret
    entitlement = await requires(ctx, 'api_webhooks').then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof PluginError) return error
        throw error
      },
    )
  } catch {
    return unavailable()
  }

  let pending = deliveries.map((_, index) => index)
  while (pending.length > 0) {
    const executed = new Set<number>()
    try {
      await ctx.db.transaction().execute(async (trx) => {
        for (const index of pending) {
          answers[index] = await runDelivery(trx, ctx, deliveries[index] as Delivery, index, secret, entitlement)
          if (answers[index]?.ok && answers[index].outcome.statusCode === 202) executed.add(index)
        }
      })
      return answers
    } catch (error) {
      if (error instanceof BatchAbort && !error.wholeBatch) {
        // one delivery failed unexpectedly; the rollback took the others' writes too, so they
        // run again in a new transaction without it
        answers[error.index] = refused(error.answer)
        pending = pending.filter((index) => index !== error.index)
        continue
      }
      // storage failed (the batch was rolled back: nothing happened), or the commit itself did:
      // then an execution's outcome is uncertain until a retry reads it
      const commitFailed = !(error instanceof BatchAbort)
      for (const index of pending) {
        answers[index] = refused(commitFailed && executed.has(index) ? recoveryRequired() : storageUnavailable())
      }
      if (commitFailed) ctx.log.error({ err: error }, 'webhook batch commit failed')
      return answers
    }
  }
  return answers
}

function refused(error: PluginError): Answer {
  return { ok: false, error }
}

function answered(delivery: Delivery, result: WebhookResult, replayed: boolean): Answer {
  return {
    ok: true,
    outcome: {
      statusCode: replayed ? 200 : 202,
      body: replayed ? { accepted: true, result, replayed: true } : { accepted: true, result },
      bodySha256: delivery.bodySha256,
      eventId: delivery.headers.idempotencyKey,
    },
  }
}

const recoveryRequired = () =>
  new PluginError(
    'recovery_required',
    503,
    { message: 'The result could not be confirmed; retry later with the same key and body to learn the outcome.' },
    { 'Retry-After': 30 },
  )

/**
 * One delivery inside the batch's transaction, in the contract's order after the clock check:
 * HMAC, replay guard, entitlement, JSON, structure, keys, validation, execution. Refusals are
 * answers; the replay-guard entry stays written whatever follows (a refused request's nonce is
 * spent as well). The execution runs in a savepoint, so a refused event undoes only its own writes.
 */
async function runDelivery(
  trx: Executor,
  ctx: HostContext,
  delivery: Delivery,
  index: number,
  secret: string | undefined,
  entitlement: PluginError | undefined,
): Promise<Answer> {
  const verified = verifySignature(delivery.headers, delivery.rawBody, secret)
  if (!verified.ok) return refused(new PluginError(verified.error, 401, { message: verified.detail }))
  const { nonce, idempotencyKey } = delivery.headers
  const storage = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work()
    } catch {
      throw new BatchAbort(index, storageUnavailable(), true)
    }
  }

  // the signing string is remembered too when it has another reading: with dots allowed in nonce
  // and key, such a captured request can be re-split into another nonce/key pair with the same
  // signature (docs/decisions/webhook-exactly-once.md); a request with one reading is identified by its nonce alone
  const expiresAt = new Date(delivery.now.getTime() + NONCE_TTL_MS).toISOString()
  const fingerprints = signingStringIsAmbiguous(delivery.headers, delivery.rawBody)
    ? [`n:${nonce}`, `s:${verified.signingStringSha256}`]
    : [`n:${nonce}`]
  const fresh = await storage(() => insertReplayFingerprints(trx, fingerprints, expiresAt))
  if (fresh < fingerprints.length)
    return refused(
      new PluginError('replay', 401, {
        message: 'This nonce or this exact signed request was already used; sign every attempt with a new nonce.',
      }),
    )
  if (entitlement) return refused(entitlement)

  const values = parsePayload(delivery.rawBody)
  if (values instanceof PluginError) return refused(values)

  // replays and body conflicts are answered from a read: no execution, no table lock
  const known = await storage(() => findExecution(trx, idempotencyKey))
  if (known) {
    try {
      const decided = decideExisting(known, delivery.bodySha256, delivery.now)
      if (decided.kind === 'replay') return answered(delivery, decided.result, true)
    } catch (error) {
      if (error instanceof PluginError) return refused(error)
      throw error
    }
  }

  await storage(() => sql`savepoint dg_webhook_event`.execute(trx))
  try {
    const done = await executeEvent(trx, ctx, delivery, values)
    await sql`release savepoint dg_webhook_event`.execute(trx)
    return answered(delivery, done.result, done.kind === 'replay')
  } catch (thrown) {
    // a lock wait that ran out (PostgreSQL) anywhere in the execution: a write holds the offers
    const error = isLockNotAvailable(thrown) ? executionRunning() : thrown
    if (error instanceof PluginError) {
      // nothing of the event stays: the key is free for the corrected event (or a retry)
      await storage(async () => {
        await sql`rollback to savepoint dg_webhook_event`.execute(trx)
        await sql`release savepoint dg_webhook_event`.execute(trx)
      })
      return refused(error)
    }
    ctx.log.error({ err: error, event: idempotencyKey }, 'webhook execution failed')
    throw new BatchAbort(index, recoveryRequired(), false)
  }
}

/** A key named twice in the body, when the body is JSON (any other body is refused further on). */
function duplicateKeyOf(rawBody: Buffer): string | undefined {
  const text = rawBody.toString('utf8')
  try {
    JSON.parse(text)
  } catch {
    return undefined
  }
  return firstDuplicateKey(text)
}

/** JSON object → flat scalars → offer key → canonical validation (patch mode), or the refusal. */
function parsePayload(rawBody: Buffer): NormalizedOfferValues | PluginError {
  let payload: unknown
  try {
    payload = JSON.parse(rawBody.toString('utf8'))
  } catch {
    return new PluginError('invalid_json', 400, { message: 'The body is not valid JSON.' })
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return new PluginError('invalid_json', 400, {
      message: 'The body must be a JSON object of canonical offer fields.',
    })
  }
  const record = payload as Record<string, unknown>
  const nested = Object.entries(record)
    .filter(([, value]) => !isScalar(value))
    .map(([field]) => field)
  if (nested.length > 0) {
    return new PluginError('unsupported_property_structure', 422, {
      message: 'Every value must be a string, number, boolean or null; nothing was written.',
      fields: nested,
    })
  }
  const missing = ['source_investment_id', 'source_property_id'].filter(
    (field) => record[field] === undefined || record[field] === null || record[field] === '',
  )
  if (missing.length > 0) {
    return new PluginError('invalid_payload', 400, {
      message: `No offer key: ${missing.join(' and ')} must be sent.`,
      fields: missing,
    })
  }
  const validated = validateOfferRow(record, { row: 1, mode: 'patch' })
  if (validated.errors.length > 0)
    return new PluginError('validation_failed', 422, { issues: issues(validated.errors) })
  return validated.values
}

/**
 * Row errors as the webhook's `issues`: without the row (an event is one offer), with the texts in
 * both languages (`message` Polish unless the request prefers English, see localize-messages.ts).
 */
function issues(errors: readonly RowError[]) {
  return errors.map(({ field, code, message, message_pl, message_en }) => ({
    field,
    code,
    message,
    message_pl,
    message_en,
  }))
}

/** Owner of this process's claims: unique across instances and restarts, a counter within one. */
const PROCESS_TOKEN = randomBytes(12).toString('hex')
let executions = 0

/** Claim, plan, write, complete: the execution, inside the batch's transaction. */
async function executeEvent(
  trx: Executor,
  ctx: HostContext,
  delivery: Delivery,
  values: NormalizedOfferValues,
): Promise<{ kind: 'executed' | 'replay'; result: WebhookResult }> {
  const { now, bodySha256 } = delivery
  const idempotencyKey = delivery.headers.idempotencyKey
  const owner = `${PROCESS_TOKEN}-${++executions}`
  const today = warsawDate(now)
  await lockOffersForDelivery(trx, ctx)
  // the claim commits with the writes: one durable commit for the whole execution
  const claim = await claimExecution(trx, ctx, idempotencyKey, bodySha256, owner)
  if (claim.kind === 'replay') return claim
  const plan = await planOffers(trx, [{ row: null, values }], { mode: 'patch', today })
  if (plan.errors.length > 0) {
    throw new PluginError('webhook_import_failed', 422, { issues: issues(plan.errors) })
  }
  let runId = 0
  const counts = await applyOfferPlan(trx, plan, {
    now,
    today,
    recordRun: async (c) => {
      runId = await recordAudit(
        ctx,
        {
          actor: { type: 'webhook' },
          action: 'webhook.execute',
          objectType: 'webhook_event',
          objectId: idempotencyKey,
          outcome: 'success',
          details: { body_sha256: bodySha256, ...c },
        },
        trx,
      )
      return runId
    },
  })
  const result: WebhookResult = {
    status: 'completed',
    processed: counts.processed,
    created: counts.created,
    updated: counts.updated,
    archived: counts.archived,
    run_id: runId,
  }
  if (!(await completeExecution(trx, idempotencyKey, owner, JSON.stringify(result), runId, now.toISOString()))) {
    throw new PluginError(
      'webhook_in_progress',
      409,
      { message: 'Another attempt took over this event; retry after a moment.' },
      { 'Retry-After': 2 },
    )
  }
  return { kind: 'executed', result }
}

/**
 * The offers table lock of the shared write path, taken without waiting behind a long write: every
 * lock wait of the rest of the transaction is bounded by LOCK_WAIT_MS, and a running import (its
 * named lock held) is not waited for at all: it holds the table for its whole commit. The refusal
 * (55P03) becomes 409 webhook_in_progress in runDelivery. SQLite's single writer needs no lock.
 */
async function lockOffersForDelivery(trx: Executor, ctx: HostContext): Promise<void> {
  await lockOffersForWriteWithin(trx as unknown as Kysely<never>, ctx.caps.name, LOCK_WAIT_MS, async () => {
    const importLock = await trx
      .selectFrom('locks')
      .select('expires_at')
      .where('name', '=', IMPORT_LOCK)
      .executeTakeFirst()
    return importLock === undefined || importLock.expires_at < ctx.now().toISOString()
  })
}

type Claim = { kind: 'claimed' } | { kind: 'replay'; result: WebhookResult }

type ExistingDecision = { kind: 'replay'; result: WebhookResult } | { kind: 'takeover' }

function decideExisting(existing: WebhookExecutionRow, bodySha256: string, now: Date): ExistingDecision {
  if (existing.body_sha256 !== bodySha256) {
    throw new PluginError('idempotency_body_conflict', 409, {
      message: 'This Idempotency-Key was used with another body; a new event needs a new key.',
    })
  }
  if (existing.status === 'completed')
    return { kind: 'replay', result: JSON.parse(existing.result ?? '{}') as WebhookResult }
  const remaining = Date.parse(existing.lease_expires_at) - now.getTime()
  if (remaining > 0) {
    throw new PluginError(
      'webhook_in_progress',
      409,
      { message: 'This event is being executed; retry after Retry-After with a new nonce.' },
      { 'Retry-After': Math.max(1, Math.ceil(remaining / 1000)) },
    )
  }
  return { kind: 'takeover' }
}

async function claimExecution(
  db: Executor,
  ctx: HostContext,
  key: string,
  bodySha256: string,
  owner: string,
): Promise<Claim> {
  const now = ctx.now()
  const lease = new Date(now.getTime() + LEASE_MS).toISOString()
  const inserted = await insertExecutionClaim(db, {
    idempotency_key: key,
    body_sha256: bodySha256,
    status: 'running',
    owner,
    lease_expires_at: lease,
    result: null,
    run_id: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at: new Date(now.getTime() + EXECUTION_RETENTION_MS).toISOString(),
  })
  if (inserted) return { kind: 'claimed' }
  const existing = await findExecution(db, key)
  if (!existing)
    throw new PluginError(
      'webhook_in_progress',
      409,
      { message: 'This event is being executed; retry shortly.' },
      { 'Retry-After': 1 },
    )
  const decided = decideExisting(existing, bodySha256, now)
  if (decided.kind === 'replay') return decided
  // a claim whose lease ran out committed nothing (its writes would have completed it)
  if (!(await takeOverExecution(db, existing, owner, lease, now.toISOString()))) {
    throw new PluginError(
      'webhook_in_progress',
      409,
      { message: 'Another attempt took this event over; retry shortly.' },
      { 'Retry-After': 1 },
    )
  }
  return { kind: 'claimed' }
}

/** Retention: nonces after 600 s, execution records after 7 days (as import results). */
export async function removeExpiredWebhookRecords(
  ctx: HostContext,
): Promise<{ fingerprints: number; executions: number }> {
  const nowIso = ctx.now().toISOString()
  return {
    fingerprints: await deleteExpiredFingerprints(ctx.db, nowIso),
    executions: await deleteExpiredExecutions(ctx.db, nowIso),
  }
}
