/*
 * Fixed-window request counters per bucket (the catalog uses user + client IP). With PostgreSQL
 * the counter is one atomic upsert in the shared database, so every instance sees the same count;
 * SQLite runs a single instance, so its counters live in memory and reads never turn into disk
 * writes. When the count cannot be confirmed, the caller answers 503 rather than guess.
 */
import type { HostContext } from '../../context.js'
import { HostError } from '../../errors.js'
import { deleteCountersBefore, incrementCounter } from './rate-limit-repository.js'

export interface RateLimitPolicy {
  name: string
  limit: number
  windowSeconds: number
}

export interface RateLimitResult {
  allowed: boolean
  remaining: number
  /** Seconds until the current window ends. */
  resetSeconds: number
}

const memoryWindows = new WeakMap<HostContext, { windowStart: number; counts: Map<string, number> }>()
const lastCleanup = new WeakMap<HostContext, number>()

async function count(ctx: HostContext, bucket: string, windowStart: number, windowSeconds: number): Promise<number> {
  if (!ctx.caps.concurrentWriters) {
    let window = memoryWindows.get(ctx)
    if (!window || window.windowStart !== windowStart) {
      window = { windowStart, counts: new Map() }
      memoryWindows.set(ctx, window)
    }
    const next = (window.counts.get(bucket) ?? 0) + 1
    window.counts.set(bucket, next)
    return next
  }
  const hits = await incrementCounter(ctx.db, bucket, windowStart)
  const previousCleanup = lastCleanup.get(ctx) ?? 0
  if (windowStart > previousCleanup) {
    lastCleanup.set(ctx, windowStart)
    // expired windows are removed by whichever instance first enters a new window
    await deleteCountersBefore(ctx.db, windowStart - windowSeconds)
  }
  return hits
}

export async function hitRateLimit(
  ctx: HostContext,
  policy: RateLimitPolicy,
  bucket: string,
): Promise<RateLimitResult> {
  const nowSeconds = Math.floor(ctx.now().getTime() / 1000)
  const windowStart = nowSeconds - (nowSeconds % policy.windowSeconds)
  let hits: number
  try {
    hits = await count(ctx, `${policy.name}:${bucket}`, windowStart, policy.windowSeconds)
  } catch (error) {
    ctx.log.error({ err: error }, 'rate-limit counter unavailable')
    throw new HostError(
      'rate_limit_unavailable',
      503,
      'The request counter cannot be confirmed right now; retry shortly.',
      {},
      { 'Retry-After': 5 },
    )
  }
  const resetSeconds = Math.max(1, windowStart + policy.windowSeconds - nowSeconds)
  return { allowed: hits <= policy.limit, remaining: Math.max(0, policy.limit - hits), resetSeconds }
}

export function rateLimitHeaders(policy: RateLimitPolicy, result: RateLimitResult): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`,
    RateLimit: `"${policy.name}";r=${result.remaining};t=${result.resetSeconds}`,
  }
}

/** Groups IPv6 clients by /64 (one subscriber's block), so address rotation does not reset the count. */
export function clientBucketIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped?.[1]) return mapped[1]
  if (!ip.includes(':')) return ip
  const [head = '', tail = ''] = ip.split('::')
  const headGroups = head ? head.split(':') : []
  const tailGroups = tail ? tail.split(':') : []
  const missing = 8 - headGroups.length - tailGroups.length
  const groups = ip.includes('::')
    ? [...headGroups, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailGroups]
    : headGroups
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`
}
