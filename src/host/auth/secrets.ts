import { createHmac, randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto'

import type { HostContext } from '../context.js'
import { getOrCreateOption } from '../options/options.js'

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** Uniformly random alphanumeric text (randomInt rejects modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]
  return out
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

export function keyedHash(key: string, value: string): string {
  return createHmac('sha256', key).update(value).digest('base64url')
}

const AUTH_KEY_OPTION = 'dg_auth_key'

/**
 * The key of keyed hashes (application passwords, session nonces). From DG_AUTH_KEY when the
 * operator sets one, otherwise generated once and shared by every instance through the database.
 */
export async function resolveAuthKey(ctx: Pick<HostContext, 'db' | 'config'>): Promise<string> {
  if (ctx.config.authKey) return ctx.config.authKey
  return getOrCreateOption(ctx, AUTH_KEY_OPTION, () => randomToken(48), false)
}

/*
 * Login passwords are chosen by people, so they get a slow, salted hash (scrypt, N=2^15).
 * Application passwords are 24 random characters (~143 bits) and are only keyed-hashed: a slow
 * hash would add nothing but latency to every API request.
 */
const SCRYPT_N = 32768
const SCRYPT_R = 8
const SCRYPT_P = 1
const SCRYPT_KEYLEN = 32

function scryptAsync(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, SCRYPT_KEYLEN, { N: n, r, p, maxmem: 128 * n * r * 2 }, (error, key) =>
      error ? reject(error) : resolve(key),
    )
  })
}

export async function hashLoginPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
  return `scrypt$${SCRYPT_N}$${SCRYPT_R}$${SCRYPT_P}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

export async function verifyLoginPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$')
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false
  const expected = Buffer.from(key, 'base64url')
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p))
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
