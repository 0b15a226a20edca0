/*
 * Issue objects (preflight and publication issues and warnings, settings refusals, row errors…)
 * carry their text in both languages as `message_pl` and `message_en`; contract clients read
 * `message`. It is chosen here, once, for every answer, from the request's Accept-Language
 * (Polish unless English is preferred), so no service has to know who is asking and no list of
 * issues can be left without it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'

export type MessageLanguage = 'pl' | 'en'

/** The preferred of Polish and English by Accept-Language q-values; Polish when neither is named. */
export function preferredLanguage(header: string | string[] | undefined): MessageLanguage {
  const value = Array.isArray(header) ? header.join(',') : header
  if (!value) return 'pl'
  let best: { lang: MessageLanguage; q: number } | undefined
  for (const part of value.split(',').slice(0, 20)) {
    const [tag = '', ...params] = part.trim().toLowerCase().split(';')
    const primary = tag.split('-')[0]
    if (primary !== 'pl' && primary !== 'en') continue
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (!Number.isFinite(q) || q <= 0) continue
    if (best === undefined || q > best.q) best = { lang: primary, q }
  }
  return best?.lang ?? 'pl'
}

export function requestLanguage(request: Pick<FastifyRequest, 'headers'>): MessageLanguage {
  return preferredLanguage(request.headers['accept-language'])
}

// answers are built by the service itself, but a depth bound keeps a cyclic or huge value harmless
const MAX_DEPTH = 12

/** Sets `message` on every object that has both texts, in place; returns the same value. */
export function localizeMessages<T>(value: T, lang: MessageLanguage, depth = 0): T {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    for (const item of value) localizeMessages(item, lang, depth + 1)
    return value
  }
  if (value instanceof Date || Buffer.isBuffer(value)) return value
  const record = value as Record<string, unknown>
  if (typeof record.message_pl === 'string' && typeof record.message_en === 'string')
    record.message = lang === 'en' ? record.message_en : record.message_pl
  for (const key in record) {
    const child = record[key]
    if (child !== null && typeof child === 'object') localizeMessages(child, lang, depth + 1)
  }
  return value
}

/**
 * Every object answer goes through here before serialization. Catalog answers are left alone: they
 * carry no issues, are cached as bytes, and are the hot path.
 */
export function registerMessageLocalization(app: FastifyInstance, skipPrefix: string): void {
  app.addHook('preSerialization', async (request, _reply, payload) => {
    if (request.url.startsWith(skipPrefix)) return payload
    return localizeMessages(payload, requestLanguage(request))
  })
}
