/*
 * Conditional GET per RFC 9110 section 13: If-None-Match is compared weakly, may be `*` or a list,
 * and when it is present If-Modified-Since is ignored. Validators are strong ETags over the exact
 * response bytes (after `_fields`), and Last-Modified at one-second resolution.
 */
import { createHash } from 'node:crypto'

import type { FastifyRequest } from 'fastify'

export function strongEtag(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`
}

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag
}

/** Splits a list of entity tags; commas inside the quoted part do not split. */
export function parseEntityTags(header: string): string[] {
  return header.match(/(?:W\/)?"[^"]*"|\*/g) ?? []
}

export function ifNoneMatchMatches(header: string, etag: string): boolean {
  const tags = parseEntityTags(header)
  return tags.some((tag) => tag === '*' || opaque(tag) === opaque(etag))
}

const HTTP_DATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/

/** True when the client's copy is current, so the answer is 304. */
export function isNotModified(request: FastifyRequest, etag: string, lastModified: Date): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false
  const inm = request.headers['if-none-match']
  if (inm !== undefined) return ifNoneMatchMatches(Array.isArray(inm) ? inm.join(',') : inm, etag)
  const ims = request.headers['if-modified-since']
  if (typeof ims !== 'string' || !HTTP_DATE.test(ims)) return false
  const since = Date.parse(ims)
  return Math.floor(lastModified.getTime() / 1000) * 1000 <= since
}

export function httpDate(date: Date): string {
  return date.toUTCString()
}
