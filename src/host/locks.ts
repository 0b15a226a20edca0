/*
 * Named locks shared by every instance through the database: a row per lock with an owner and an
 * expiry (a lease). A holder that dies stops renewing, and the lock can be taken over once its
 * lease has run out. Acquisition is one INSERT under the primary key, so two instances can never
 * both win.
 */
import { randomBytes } from 'node:crypto'
import os from 'node:os'

import type { Executor, HostContext } from './context.js'

/** `host:pid:random`, so a holder on this machine can be checked for life, not only for its lease. */
export function newLockOwner(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(8).toString('hex')}`
}

/** False only when the holder ran on this machine and its process no longer exists. */
export function isLockOwnerAlive(owner: string): boolean {
  const match = /^(.*):(\d+):[0-9a-f]+$/.exec(owner)
  if (!match || match[1] !== os.hostname()) return true
  const pid = Number(match[2])
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/** Locks this process holds, by owner: what a shutdown that gave up on its jobs still releases. */
const heldLocks = new Map<string, { ctx: HostContext; name: string }>()

export interface LockLease {
  name: string
  owner: string
  /** Keeps the lease alive while the work runs; stop() before releasing. */
  stop(): void
}

export async function tryAcquireLock(
  ctx: HostContext,
  name: string,
  owner: string,
  leaseMs: number,
): Promise<{ acquired: true; staleOwner?: string } | { acquired: false }> {
  const now = ctx.now()
  const expiresAt = new Date(now.getTime() + leaseMs).toISOString()
  // a live lease is seen by a read, which never waits: on SQLite a write would wait for the
  // holder's transaction (and, with two connections in one process, block the holder itself)
  const held = await ctx.db.selectFrom('locks').select('expires_at').where('name', '=', name).executeTakeFirst()
  if (held && held.expires_at >= now.toISOString()) return { acquired: false }
  const inserted = await ctx.db
    .insertInto('locks')
    .values({ name, owner, acquired_at: now.toISOString(), expires_at: expiresAt })
    .onConflict((oc) => oc.column('name').doNothing())
    .executeTakeFirst()
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
    heldLocks.set(owner, { ctx, name })
    return { acquired: true }
  }
  const current = await ctx.db.selectFrom('locks').selectAll().where('name', '=', name).executeTakeFirst()
  if (current && current.expires_at < now.toISOString()) {
    // take over an expired lease, conditionally on it still being the same expired holder
    const taken = await ctx.db
      .updateTable('locks')
      .set({ owner, acquired_at: now.toISOString(), expires_at: expiresAt })
      .where('name', '=', name)
      .where('owner', '=', current.owner)
      .where('expires_at', '=', current.expires_at)
      .executeTakeFirst()
    if (Number(taken.numUpdatedRows) > 0) {
      heldLocks.set(owner, { ctx, name })
      return { acquired: true, staleOwner: current.owner }
    }
  }
  return { acquired: false }
}

export function keepLockAlive(ctx: HostContext, name: string, owner: string, leaseMs: number): LockLease {
  const timer = setInterval(
    () => {
      const expiresAt = new Date(ctx.now().getTime() + leaseMs).toISOString()
      ctx.db
        .updateTable('locks')
        .set({ expires_at: expiresAt })
        .where('name', '=', name)
        .where('owner', '=', owner)
        .execute()
        .catch((error: unknown) => ctx.log.warn({ err: error, lock: name }, 'lock lease renewal failed'))
    },
    Math.max(1000, Math.floor(leaseMs / 3)),
  )
  timer.unref()
  return { name, owner, stop: () => clearInterval(timer) }
}

export async function releaseLock(db: Executor, name: string, owner: string): Promise<void> {
  await db.deleteFrom('locks').where('name', '=', name).where('owner', '=', owner).execute()
  heldLocks.delete(owner)
}

/** Releases every lock acquired through `ctx` and not released yet (a shutdown's last step). */
export async function releaseLocksHeldBy(ctx: HostContext): Promise<string[]> {
  const released: string[] = []
  for (const [owner, lock] of heldLocks) {
    if (lock.ctx !== ctx) continue
    await releaseLock(ctx.db, lock.name, owner)
    released.push(lock.name)
  }
  if (released.length > 0) ctx.log.warn({ locks: released }, 'locks released at shutdown')
  return released
}
