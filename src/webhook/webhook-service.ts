/*
 * The signed property webhook (contract 4.7, 5.2, 7): verified, replay-guarded, then executed
 * exactly once per idempotency key through the shared write path in patch mode.
 *
 * Exactly-once: one transaction inserts the execution row for the key (unique), writes the offers,
 * the price history and the audit entry, and marks the row `completed`; a concurrent delivery of
 * the same key waits for it (PostgreSQL: the table lock and the unique index; SQLite: the single
 * writer) and then answers the stored result. A crash commits nothing, so a retry executes. A
 * `running` row can exist only from an earlier version or a manual claim; while its lease lasts a
 * retry gets 409 webhook_in_progress, after it the retry takes it over.
 */
import { createHash, randomBytes } from 'node:crypto'

import type { Kysely } from 'kysely'

import { recordAudit } from '../host/audit/audit.js'
import type { Executor, HostContext } from '../host/context.js'
import { lockOffersForWrite } from '../host/db/dialect.js'
import { PluginError } from '../host/errors.js'
import { requires, warsawDate } from '../licensing/license.js'
import { planOffers } from '../offers/offer-planner.js'
import { applyOfferPlan } from '../offers/offer-writer.js'
import { validateOfferRow } from '../offers/validate-offer-row.js'
import { verifySignedRequest } from './verify-signature.js'
import {
  completeExecution,
  deleteExpiredExecutions,
  deleteExpiredFingerprints,
  findExecution,
  insertExecutionClaim,
  insertReplayFingerprints,
  releaseExecutionClaim,
  takeOverExecution,
  type WebhookExecutionRow,
} from './webhook-repository.js'
import { getWebhookSecret } from './webhook-secret.js'

export const NONCE_TTL_MS = 600_000
export const EXECUTION_RETENTION_MS = 7 * 24 * 3600 * 1000
const LEASE_MS = 30_000

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

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof PluginError) throw error
    throw storageUnavailable()
  }
}

function isScalar(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value)
}

let lastCleanup = 0

export async function handlePropertyWebhook(
  ctx: HostContext,
  request: { headers: Record<string, string | string[] | undefined>; rawBody: Buffer },
): Promise<WebhookOutcome> {
  const now = ctx.now()
  const bodySha256 = createHash('sha256').update(request.rawBody).digest('hex')
  const secret = await guarded(async () => (await getWebhookSecret(ctx))?.secret)
  const verified = verifySignedRequest({
    headers: request.headers,
    rawBody: request.rawBody,
    secret,
    nowSeconds: Math.floor(now.getTime() / 1000),
  })
  if (!verified.ok) throw new PluginError(verified.error, 401, { message: verified.detail })
  const { nonce, idempotencyKey } = verified.headers

  // the signing string is remembered too: with dots allowed in nonce and key, one captured request
  // can be re-split into another nonce/key pair with the same signature (design.md section 6)
  const expiresAt = new Date(now.getTime() + NONCE_TTL_MS).toISOString()
  const fresh = await guarded(() =>
    insertReplayFingerprints(ctx.db, [`n:${nonce}`, `s:${verified.signingStringSha256}`], expiresAt),
  )
  if (fresh < 2)
    throw new PluginError('replay', 401, {
      message: 'This nonce or this exact signed request was already used; sign every attempt with a new nonce.',
    })
  if (now.getTime() - lastCleanup > 60_000) {
    lastCleanup = now.getTime()
    await deleteExpiredFingerprints(ctx.db, now.toISOString()).catch(() => undefined)
  }

  await requires(ctx, 'api_webhooks')

  let payload: unknown
  try {
    payload = JSON.parse(request.rawBody.toString('utf8'))
  } catch {
    throw new PluginError('invalid_json', 400, { message: 'The body is not valid JSON.' })
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new PluginError('invalid_json', 400, { message: 'The body must be a JSON object of canonical offer fields.' })
  }
  const record = payload as Record<string, unknown>
  const nested = Object.entries(record)
    .filter(([, value]) => !isScalar(value))
    .map(([field]) => field)
  if (nested.length > 0) {
    throw new PluginError('unsupported_property_structure', 422, {
      message: 'Every value must be a string, number, boolean or null; nothing was written.',
      fields: nested,
    })
  }
  const missing = ['source_investment_id', 'source_property_id'].filter(
    (field) => record[field] === undefined || record[field] === null || record[field] === '',
  )
  if (missing.length > 0) {
    throw new PluginError('invalid_payload', 400, {
      message: `No offer key: ${missing.join(' and ')} must be sent.`,
      fields: missing,
    })
  }
  const validated = validateOfferRow(record, { row: 1, mode: 'patch' })
  if (validated.errors.length > 0) {
    throw new PluginError('validation_failed', 422, {
      issues: validated.errors.map(({ field, code, message }) => ({ field, code, message })),
    })
  }

  const owner = randomBytes(12).toString('hex')
  // replays and body conflicts are answered from a read: no write, no table lock
  const known = await guarded(() => findExecution(ctx.db, idempotencyKey))
  if (known) {
    const decided = decideExisting(known, bodySha256, now)
    if (decided.kind === 'replay')
      return {
        statusCode: 200,
        body: { accepted: true, result: decided.result, replayed: true },
        bodySha256,
        eventId: idempotencyKey,
      }
  }

  let replayed: WebhookResult | undefined
  try {
    const result = await ctx.db.transaction().execute(async (trx) => {
      await lockOffersForWrite(trx as unknown as Kysely<never>, ctx.caps.name)
      // the claim commits with the writes: one durable commit for the whole execution
      const claim = await claimExecution(trx, ctx, idempotencyKey, bodySha256, owner)
      if (claim.kind === 'replay') {
        replayed = claim.result
        return undefined
      }
      const plan = await planOffers(trx, [{ row: null, values: validated.values }], {
        mode: 'patch',
        today: warsawDate(now),
      })
      if (plan.errors.length > 0) {
        throw new PluginError('webhook_import_failed', 422, {
          issues: plan.errors.map(({ field, code, message }) => ({ field, code, message })),
        })
      }
      let runId = 0
      const counts = await applyOfferPlan(trx, plan, {
        now,
        today: warsawDate(now),
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
      const webhookResult: WebhookResult = {
        status: 'completed',
        processed: counts.processed,
        created: counts.created,
        updated: counts.updated,
        archived: counts.archived,
        run_id: runId,
      }
      if (
        !(await completeExecution(trx, idempotencyKey, owner, JSON.stringify(webhookResult), runId, now.toISOString()))
      ) {
        throw new PluginError(
          'webhook_in_progress',
          409,
          { message: 'Another attempt took over this event; retry after a moment.' },
          { 'Retry-After': 2 },
        )
      }
      return webhookResult
    })
    if (replayed || !result)
      return {
        statusCode: 200,
        body: { accepted: true, result: replayed as WebhookResult, replayed: true },
        bodySha256,
        eventId: idempotencyKey,
      }
    return { statusCode: 202, body: { accepted: true, result }, bodySha256, eventId: idempotencyKey }
  } catch (error) {
    // nothing committed: free the key so the corrected event (or a retry) can execute
    await releaseExecutionClaim(ctx.db, idempotencyKey, owner).catch(() => undefined)
    if (error instanceof PluginError) throw error
    ctx.log.error({ err: error, event: idempotencyKey }, 'webhook execution failed')
    throw new PluginError(
      'recovery_required',
      503,
      { message: 'The result could not be confirmed; retry later with the same key and body to learn the outcome.' },
      { 'Retry-After': 30 },
    )
  }
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
