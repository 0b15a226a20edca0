/*
 * The mixed workload of `bench:mixed` and `bench:soak`, against one or more running instances:
 *   - catalog readers (one keep-alive connection and one application password each): lists with
 *     varied filters, sorting and pages, offer details, price histories, and lists sent again with
 *     the ETag of their last answer (If-None-Match), each reader pausing between its requests;
 *   - a stream of signed webhook events, paced, each a price change of one offer, retried as
 *     docs/integration/webhook.md tells a sender (409 webhook_in_progress / 503: after Retry-After, new nonce);
 *   - a probe of the event loop: GET /healthz on every instance every 20 ms;
 *   - operator cycles: a large offer import (multipart preview, then the form-encoded execution on
 *     the next instance), then a publication of today (POST /publications).
 * Every request is kept (endpoint, instance, start, end, status, error code), and the phases of
 * the run (idle, preview, execution, publication) as time windows, so that latencies can be told
 * per phase. Requests are timed by the client from start to the end of the body; the harness's own
 * event-loop lag is sampled too, to tell a stall of the service from one of the harness.
 */
import fs from 'node:fs'
import type http from 'node:http'
import { performance } from 'node:perf_hooks'

import { multipart } from '../../test/helpers/multipart.js'
import type { Deployment } from './deployment.js'
import { jsonOf, keepAliveAgent, sleep, timedRequest, type TimedResponse } from './http-client.js'
import { type BenchEvent, signed, WEBHOOK_PATH, webhookEvent } from './webhook-events.js'

export const V2 = '/wp-json/dg/v2'

export type Endpoint =
  | 'catalog list'
  | 'catalog list, If-None-Match'
  | 'catalog offer'
  | 'catalog price history'
  | 'webhook'
  | 'healthz'
  | 'import preview'
  | 'import execution'
  | 'publication'
  | 'catalog burst'

export const CATALOG_ENDPOINTS: readonly Endpoint[] = [
  'catalog list',
  'catalog list, If-None-Match',
  'catalog offer',
  'catalog price history',
]

export interface Sample {
  endpoint: Endpoint
  instance: number
  method: string
  path: string
  start: number
  end: number
  status: number
  /** The `code` or `error` of an error body, or the network error. */
  code?: string
}

export interface Phase {
  /**
   * `idle`: steady load before the first import; `idle after import`: the same between the
   * execution and the publication, with the imported offers in the catalog (what the publication
   * is compared with); `between cycles` and `after`: once a cycle ran.
   */
  name:
    | 'idle'
    | 'import preview'
    | 'import execution'
    | 'idle after import'
    | 'publication'
    | 'between cycles'
    | 'after'
  start: number
  end: number
}

export interface OperatorFile {
  csvPath: string
  mapping: Record<string, string>
  rows: number
}

export interface CycleResult {
  file: string
  previewSeconds: number
  executeSeconds: number
  publicationSeconds: number
  previewStatus: number
  executeStatus: number
  publicationStatus: number
  counts?: Record<string, number>
  /** The execution's result. */
  result?: { status?: string; processed?: number; created?: number; updated?: number; archived?: number }
  publishedRows?: number
  error?: string
}

export interface WorkloadOptions {
  /** The company whose catalog the readers read (its `prefix` starts every path they ask). */
  deployment: Deployment
  origins: string[]
  /** The company that gets the webhook stream, the imports and the publications (default: `deployment`). */
  operator?: Deployment
  /**
   * Catalog lists sent to a company at `rate` a second with one reader's password, whatever the
   * answers, from `workers` connections (each at rate / workers): above the company's rate limit,
   * so that its 429s can be looked for in the other company's answers.
   */
  burst?: { deployment: Deployment; authorization: string; rate: number; workers: number }
  /** Least run time in seconds; a cycle under way is always finished. */
  seconds: number
  readers: number
  /** Pause of each reader between two requests. */
  readerPauseMs: number
  /** Webhook events per second over all senders. */
  webhookRate: number
  webhookSenders: number
  probeIntervalMs: number
  /** Seconds of steady load before the first operator cycle (the idle phase). */
  idleSeconds: number
  /** Files imported one per cycle, in turn; none: no cycle. */
  files: OperatorFile[]
  /** Pause between the end of one cycle and the start of the next (soak); 0: one cycle only. */
  cyclePauseSeconds: number
  /** Steady load between the execution and the publication (default 10 s). */
  settleSeconds?: number
  /** Called every second with the seconds elapsed (the soak samples memory and connections). */
  onSecond?: (elapsedSeconds: number) => void | Promise<void>
  /** Called when the run's first second starts, so that callers share its clock. */
  onStart?: (startedAt: number) => void
  /** Number of the first webhook event (runs on one database must not reuse events). */
  firstEvent?: number
  /** Ends the run early once settled (`seconds` remains the longest it runs). */
  until?: Promise<unknown>
}

/** "12 accepted, 1 refused, …": what became of the events of a run. */
export function describeEvents(events: WorkloadResult['events']): string {
  return (
    `${events.accepted} accepted (2xx), ${events.refused} refused, ${events.exhausted} not accepted after 6 failed attempts, ` +
    `${events.cutShort} still being retried when the run ended; ${events.sent} attempts`
  )
}

export interface WorkloadResult {
  startedAt: number
  endedAt: number
  /** After the warm-up (the first seconds, left out of every figure). */
  measuredFrom: number
  samples: Sample[]
  phases: Phase[]
  cycles: CycleResult[]
  /** Harness event-loop lag samples: [time, lag ms]. */
  harnessLag: Array<[number, number]>
  /** Attempts sent; events accepted (2xx), refused (a 4xx the sender must not retry), not accepted
   * after 6 failed attempts (waits for an execution in progress apart), and still being retried when the run ended. */
  events: { sent: number; accepted: number; refused: number; exhausted: number; cutShort: number }
  /** Numbers of the events a 2xx accepted, and of every event sent at least once. */
  acceptedEvents: number[]
  attemptedEvents: number[]
  /** Number of the next event a later run may use. */
  nextEvent: number
  /** Every X-DG-Signature sent (to look for in the logs). */
  signatures: Set<string>
  /** Probe ticks skipped because the previous probe of that instance had not answered yet. */
  probeSkips: number
  probeIntervalMs: number
}

const WARM_UP_MS = 3000

const errorCode = (response: TimedResponse): string | undefined => {
  if (response.status === 0) return response.error
  if (response.status < 400) return undefined
  const body = jsonOf<{ code?: unknown; error?: unknown }>(response)
  const code = body?.code ?? body?.error
  return typeof code === 'string' ? code : undefined
}

/**
 * The reader requests: lists with varied filters and sorting (with _fields on some); the broad
 * ones also on later pages, the narrow ones on their first (a page past the end is a 400).
 */
function listPaths(): string[] {
  const paths: string[] = []
  const statuses = ['available', 'reserved', 'sold']
  const orders = ['price', 'modified', 'area', 'title']
  for (let i = 0; i < 60; i++) {
    const query = new URLSearchParams({ per_page: String(i % 4 === 0 ? 50 : 20) })
    const narrow = i % 3 === 0 || i % 5 === 0 || i % 7 === 0 || i % 11 === 0
    query.set('page', String(narrow ? 1 : 1 + (i % 4)))
    if (i % 2 === 0) query.set('status', narrow ? (statuses[i % statuses.length] as string) : 'available')
    if (i % 3 === 0) query.set('rooms', String(1 + (i % 5)))
    query.set('orderby', orders[i % orders.length] as string)
    query.set('order', i % 2 === 0 ? 'ASC' : 'DESC')
    if (i % 5 === 0) {
      query.set('price_min', String(30_000_000 + (i % 7) * 1_000_000))
      query.set('price_max', String(60_000_000 + (i % 7) * 1_000_000))
    }
    if (i % 7 === 0) query.set('area_min', '40.00')
    if (i % 11 === 0) query.set('search', `Mieszkanie ${i % 20}`)
    if (i % 6 === 0) query.set('_fields', 'id,title,code,offer.price_cents,offer.status')
    paths.push(`${V2}/catalog/properties?${query.toString()}`)
  }
  return paths
}

/** mulberry32: every run sends the same requests in the same order. */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export async function runMixedWorkload(options: WorkloadOptions): Promise<WorkloadResult> {
  const { deployment, origins } = options
  const operator = options.operator ?? deployment
  const samples: Sample[] = []
  const phases: Phase[] = []
  const cycles: CycleResult[] = []
  const harnessLag: Array<[number, number]> = []
  const signatures = new Set<string>()
  const events = { sent: 0, accepted: 0, refused: 0, exhausted: 0, cutShort: 0 }
  const acceptedEvents: number[] = []
  const attemptedEvents: number[] = []
  let probeSkips = 0
  let stopping = false
  const startedAt = performance.now()
  options.onStart?.(startedAt)

  const record = (
    endpoint: Endpoint,
    instance: number,
    method: string,
    path: string,
    response: TimedResponse,
  ): TimedResponse => {
    const code = errorCode(response)
    samples.push({
      endpoint,
      instance,
      method,
      path,
      start: response.start,
      end: response.end,
      status: response.status,
      ...(code === undefined ? {} : { code }),
    })
    return response
  }

  // the harness's own event loop: a timer that should fire every 50 ms
  let expected = performance.now() + 50
  const lagTimer = setInterval(() => {
    const now = performance.now()
    harnessLag.push([now, Math.max(0, now - expected)])
    expected = now + 50
  }, 50)

  const paths = listPaths()
  const offerIds = deployment.offerIds

  async function reader(index: number): Promise<void> {
    const random = prng(1000 + index)
    const agents = origins.map(() => keepAliveAgent())
    const etags = new Map<string, string>()
    const authorization = deployment.readerAuthorizations[index % deployment.readerAuthorizations.length] as string
    let turn = index
    while (!stopping) {
      const instance = turn++ % origins.length
      const roll = random()
      let endpoint: Endpoint
      let path: string
      const headers: Record<string, string> = { authorization }
      if (roll < 0.1 && etags.size > 0) {
        endpoint = 'catalog list, If-None-Match'
        const known = [...etags.keys()]
        path = known[Math.floor(random() * known.length)] as string
        headers['if-none-match'] = etags.get(path) as string
      } else if (roll < 0.7) {
        endpoint = 'catalog list'
        path = paths[Math.floor(random() * paths.length)] as string
      } else if (roll < 0.9) {
        endpoint = 'catalog offer'
        path = `${V2}/catalog/properties/${offerIds[Math.floor(random() * offerIds.length)]}`
      } else {
        endpoint = 'catalog price history'
        path = `${V2}/catalog/properties/${offerIds[Math.floor(random() * offerIds.length)]}/price-history`
      }
      const response = record(
        endpoint,
        instance,
        'GET',
        path,
        await timedRequest(agents[instance] as http.Agent, origins[instance] as string, {
          path: `${deployment.prefix}${path}`,
          headers,
        }),
      )
      const etag = response.headers.etag
      if (endpoint !== 'catalog offer' && endpoint !== 'catalog price history' && typeof etag === 'string')
        etags.set(path, etag)
      if (response.status === 429 || response.status === 0) await sleep(Math.max(options.readerPauseMs, 200))
      else await sleep(options.readerPauseMs)
    }
    for (const agent of agents) agent.destroy()
  }

  let nextEvent = options.firstEvent ?? 0
  type Delivered = 'accepted' | 'refused' | 'exhausted' | 'cutShort'
  async function sendEvent(event: BenchEvent, agents: http.Agent[], firstInstance: number): Promise<Delivered> {
    // as the reference sender (src/webhook/sender.ts): 6 attempts for failures, and waits for an
    // execution in progress (409 webhook_in_progress) apart, for up to 600 s in all
    let failures = 0
    let inProgressWaitedMs = 0
    for (let attempt = 0; failures < 6; attempt++) {
      if (stopping) return 'cutShort'
      const instance = (firstInstance + attempt) % origins.length
      const request = signed(operator.webhookSecret, event)
      signatures.add(request.headers['x-dg-signature'] as string)
      events.sent++
      const response = record(
        'webhook',
        instance,
        'POST',
        WEBHOOK_PATH,
        await timedRequest(agents[instance] as http.Agent, origins[instance] as string, {
          method: 'POST',
          path: `${operator.prefix}${WEBHOOK_PATH}`,
          headers: request.headers,
          body: request.body,
        }),
      )
      if (response.status === 200 || response.status === 202) return 'accepted'
      const retryable = response.status === 0 || response.status === 503 || response.status === 409
      if (!retryable || errorCode(response) === 'idempotency_body_conflict') return 'refused'
      const retryAfter = Number(response.headers['retry-after'] ?? 1)
      const waitMs = Math.min(10, Number.isFinite(retryAfter) ? retryAfter : 1) * 1000
      if (response.status === 409 && errorCode(response) === 'webhook_in_progress' && inProgressWaitedMs < 600_000)
        inProgressWaitedMs += waitMs
      else failures++
      await sleep(waitMs)
    }
    return 'exhausted'
  }

  async function webhookSender(index: number): Promise<void> {
    const agents = origins.map(() => keepAliveAgent())
    const intervalMs = (1000 * options.webhookSenders) / options.webhookRate
    let due = performance.now() + index * (intervalMs / options.webhookSenders)
    while (!stopping) {
      await sleep(Math.max(0, due - performance.now()))
      if (stopping) break
      due += intervalMs
      const n = nextEvent++
      attemptedEvents.push(n)
      const delivered = await sendEvent(webhookEvent(operator.catalog, n), agents, n % origins.length)
      events[delivered]++
      if (delivered === 'accepted') acceptedEvents.push(n)
      // a sender that fell behind does not burst to catch up
      if (due < performance.now()) due = performance.now()
    }
    for (const agent of agents) agent.destroy()
  }

  const probeAgents = origins.map(() => keepAliveAgent())
  const probing = origins.map(() => false)
  const probeTimer = setInterval(() => {
    origins.forEach((origin, instance) => {
      if (probing[instance]) {
        probeSkips++
        return
      }
      probing[instance] = true
      void timedRequest(probeAgents[instance] as http.Agent, origin, { path: '/healthz', timeoutMs: 30_000 }).then(
        (response) => {
          probing[instance] = false
          record('healthz', instance, 'GET', '/healthz', response)
        },
      )
    })
  }, options.probeIntervalMs)

  const admin = operator.adminAuthorization
  async function operatorCycle(file: OperatorFile, number: number): Promise<CycleResult> {
    const agent = keepAliveAgent()
    const previewInstance = number % origins.length
    const executeInstance = (number + 1) % origins.length
    const form = multipart(
      { mode: 'patch', mapping: JSON.stringify(file.mapping) },
      { name: `oferty-${number}.csv`, content: fs.readFileSync(file.csvPath), type: 'text/csv' },
    )
    const importPath = `${V2}/imports/offer`
    const outcome: CycleResult = {
      file: file.csvPath,
      previewSeconds: NaN,
      executeSeconds: NaN,
      publicationSeconds: NaN,
      previewStatus: 0,
      executeStatus: 0,
      publicationStatus: 0,
    }
    try {
      const previewStart = performance.now()
      const preview = record(
        'import preview',
        previewInstance,
        'POST',
        importPath,
        await timedRequest(agent, origins[previewInstance] as string, {
          method: 'POST',
          path: `${operator.prefix}${importPath}`,
          headers: { authorization: admin, ...form.headers },
          body: form.payload,
          timeoutMs: 600_000,
        }),
      )
      phases.push({ name: 'import preview', start: previewStart, end: preview.end })
      outcome.previewSeconds = preview.ms / 1000
      outcome.previewStatus = preview.status
      const previewBody = jsonOf<{ id?: string; preview?: { counts?: Record<string, number> } }>(preview)
      if (previewBody?.preview?.counts) outcome.counts = previewBody.preview.counts
      if (preview.status !== 200 || !previewBody?.id) {
        outcome.error = `preview answered ${preview.status} ${errorCode(preview) ?? ''}`
        return outcome
      }
      const executeStart = performance.now()
      let execute: TimedResponse
      for (;;) {
        execute = record(
          'import execution',
          executeInstance,
          'POST',
          importPath,
          await timedRequest(agent, origins[executeInstance] as string, {
            method: 'POST',
            path: `${operator.prefix}${importPath}`,
            headers: {
              authorization: admin,
              'content-type': 'application/x-www-form-urlencoded',
              'idempotency-key': `bench-import-${previewBody.id}`,
            },
            body: `job_id=${previewBody.id}&confirm_archiving=false`,
            timeoutMs: 600_000,
          }),
        )
        if (execute.status !== 409 || errorCode(execute) !== 'import_pending') break
        await sleep(Number(execute.headers['retry-after'] ?? 5) * 1000)
      }
      phases.push({ name: 'import execution', start: executeStart, end: execute.end })
      outcome.executeSeconds = (execute.end - executeStart) / 1000
      outcome.executeStatus = execute.status
      const executed = jsonOf<{ result?: CycleResult['result'] }>(execute)
      if (executed?.result) outcome.result = executed.result
      if (execute.status !== 200) {
        outcome.error = `execution answered ${execute.status} ${errorCode(execute) ?? ''}`
        return outcome
      }
      const settleStart = performance.now()
      await sleep((options.settleSeconds ?? 10) * 1000)
      phases.push({ name: 'idle after import', start: settleStart + 1000, end: performance.now() })
      const publicationPath = `${V2}/publications`
      const publicationStart = performance.now()
      const publication = record(
        'publication',
        previewInstance,
        'POST',
        publicationPath,
        await timedRequest(agent, origins[previewInstance] as string, {
          method: 'POST',
          path: `${operator.prefix}${publicationPath}`,
          headers: { authorization: admin, 'content-type': 'application/json' },
          body: '{}',
          timeoutMs: 600_000,
        }),
      )
      phases.push({ name: 'publication', start: publicationStart, end: publication.end })
      outcome.publicationSeconds = publication.ms / 1000
      outcome.publicationStatus = publication.status
      outcome.publishedRows = jsonOf<{ record_count?: number }>(publication)?.record_count
      if (publication.status !== 200)
        outcome.error = `publication answered ${publication.status} ${errorCode(publication) ?? ''}`
      return outcome
    } finally {
      agent.destroy()
    }
  }

  async function burster(index: number, burst: NonNullable<WorkloadOptions['burst']>): Promise<void> {
    const random = prng(5000 + index)
    const agents = origins.map(() => keepAliveAgent())
    const intervalMs = (1000 * burst.workers) / burst.rate
    let due = performance.now() + index * (intervalMs / burst.workers)
    let turn = index
    while (!stopping) {
      await sleep(Math.max(0, due - performance.now()))
      if (stopping) break
      due += intervalMs
      const instance = turn++ % origins.length
      const path = paths[Math.floor(random() * paths.length)] as string
      record(
        'catalog burst',
        instance,
        'GET',
        path,
        await timedRequest(agents[instance] as http.Agent, origins[instance] as string, {
          path: `${burst.deployment.prefix}${path}`,
          headers: { authorization: burst.authorization },
        }),
      )
      if (due < performance.now()) due = performance.now()
    }
    for (const agent of agents) agent.destroy()
  }

  const readers = Array.from({ length: options.readers }, (_, i) => reader(i))
  const burst = options.burst
  const bursters = burst ? Array.from({ length: burst.workers }, (_, i) => burster(i, burst)) : []
  const senders = Array.from({ length: options.webhookSenders }, (_, i) => webhookSender(i))
  const secondTimer = setInterval(() => {
    void options.onSecond?.((performance.now() - startedAt) / 1000)
  }, 1000)

  const deadline = startedAt + options.seconds * 1000
  const idleStart = startedAt + WARM_UP_MS
  await Promise.race([
    sleep(Math.min(options.idleSeconds, options.seconds) * 1000),
    ...(options.until ? [options.until] : []),
  ])
  phases.push({ name: 'idle', start: idleStart, end: performance.now() })
  for (let number = 0; options.files.length > 0; number++) {
    const cycleStart = performance.now()
    cycles.push(await operatorCycle(options.files[number % options.files.length] as OperatorFile, number))
    const cycleMs = performance.now() - cycleStart
    if (options.cyclePauseSeconds <= 0) break
    if (performance.now() + options.cyclePauseSeconds * 1000 + cycleMs > deadline) break
    const pauseStart = performance.now()
    await sleep(options.cyclePauseSeconds * 1000)
    phases.push({ name: 'between cycles', start: pauseStart + 1000, end: performance.now() })
  }
  const tailStart = performance.now()
  await Promise.race([sleep(Math.max(0, deadline - tailStart)), ...(options.until ? [options.until] : [])])
  if (performance.now() - tailStart > 2000)
    phases.push({ name: 'after', start: tailStart + 1000, end: performance.now() })
  stopping = true
  clearInterval(probeTimer)
  clearInterval(secondTimer)
  await Promise.all([...readers, ...senders, ...bursters])
  while (probing.some(Boolean)) await sleep(20)
  for (const agent of probeAgents) agent.destroy()
  clearInterval(lagTimer)
  return {
    startedAt,
    endedAt: performance.now(),
    measuredFrom: startedAt + WARM_UP_MS,
    samples,
    phases,
    cycles,
    harnessLag,
    events,
    acceptedEvents,
    attemptedEvents,
    nextEvent,
    signatures,
    probeSkips,
    probeIntervalMs: options.probeIntervalMs,
  }
}
