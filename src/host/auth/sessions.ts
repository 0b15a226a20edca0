/*
 * Admin-panel login sessions: an opaque random token in a Secure, HttpOnly, SameSite=Strict
 * cookie, stored only as its SHA-256. Requests authenticated by the cookie must also carry the
 * REST nonce (`X-WP-Nonce`), which is bound to the session and rotates every half lifetime, so a
 * cross-site request that rides on the cookie alone is never authenticated.
 */
import { createHash } from 'node:crypto'

import type { HostContext } from '../context.js'
import { deleteExpiredSessions, deleteSession, findLiveSession, insertSession } from './sessions-repository.js'
import { constantTimeEqual, keyedHash, randomToken } from './secrets.js'

export const SESSION_COOKIE = 'dg_session'

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

export async function startSession(ctx: HostContext, userId: number): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken(32)
  const now = ctx.now()
  const expiresAt = new Date(now.getTime() + ctx.config.sessionTtlSeconds * 1000)
  await deleteExpiredSessions(ctx.db, now.toISOString())
  await insertSession(ctx.db, {
    token_hash: hashSessionToken(token),
    user_id: userId,
    created_at: now.toISOString(),
    expires_at: expiresAt.toISOString(),
  })
  return { token, expiresAt }
}

export async function findSessionUserId(ctx: HostContext, token: string): Promise<number | undefined> {
  const session = await findLiveSession(ctx.db, hashSessionToken(token), ctx.now().toISOString())
  return session?.user_id
}

export async function endSession(ctx: HostContext, token: string): Promise<void> {
  await deleteSession(ctx.db, hashSessionToken(token))
}

function nonceTick(ctx: HostContext): number {
  const halfLife = (ctx.config.sessionTtlSeconds * 1000) / 2
  return Math.ceil(ctx.now().getTime() / halfLife)
}

function nonceFor(ctx: HostContext, token: string, tick: number): string {
  return keyedHash(ctx.authKey, `wp_rest|${hashSessionToken(token)}|${tick}`).slice(0, 24)
}

export function createRestNonce(ctx: HostContext, token: string): string {
  return nonceFor(ctx, token, nonceTick(ctx))
}

/** A nonce is valid during the tick it was made in and the next one. */
export function verifyRestNonce(ctx: HostContext, token: string, nonce: string): boolean {
  const tick = nonceTick(ctx)
  return (
    constantTimeEqual(nonce, nonceFor(ctx, token, tick)) || constantTimeEqual(nonce, nonceFor(ctx, token, tick - 1))
  )
}
