/*
 * What the fuzz suites share: how many cases a run tries, the documented
 * statuses of every operation (read from the service's own OpenAPI document), a fingerprint of
 * everything a refused request must leave alone, the captured log and the search for secrets in it.
 *
 * `npm test` runs a bounded share (each target's base number of cases); `npm run fuzz` runs the
 * same suites with DG_FUZZ_SCALE (default 20 there) multiplying every target's cases, and each
 * suite prints how many cases it tried per target.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { Writable } from 'node:stream'

import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import { pino, type Logger } from 'pino'

import { loggerOptions } from '../../src/host/http/logging.js'
import type { TestEnv } from '../helpers/test-app.js'

/** DG_FUZZ_SCALE=20 multiplies every target's cases (npm run fuzz); 1 is the share `npm test` runs. */
export const FUZZ_SCALE = Math.max(1, Number(process.env.DG_FUZZ_SCALE ?? 1) || 1)

/** The number of cases of a target in this run. */
export const runs = (base: number): number => Math.ceil(base * FUZZ_SCALE)

/** A timeout that grows with the scale (the base one is for `npm test`). */
export const fuzzTimeout = (baseMs: number): number => baseMs * FUZZ_SCALE

// ------------------------------------------------------------------------------------------------
// Counting and printing the cases tried

const tried = new Map<string, { cases: number; ms: number }>()

export function countCase(target: string, by = 1, ms = 0): void {
  const entry = tried.get(target) ?? { cases: 0, ms: 0 }
  entry.cases += by
  entry.ms += ms
  tried.set(target, entry)
}

/** One line per target: what `npm run fuzz` (and the CI share) prints as the cases tried. */
export function printCasesTried(suite: string): void {
  const lines = [...tried.entries()].map(
    ([target, { cases, ms }]) => `  ${target}: ${cases} cases${ms > 0 ? `, ${(ms / 1000).toFixed(1)} s` : ''}`,
  )
  const total = [...tried.values()].reduce((sum, entry) => sum + entry.cases, 0)
  process.stdout.write(`\nfuzz ${suite} (DG_FUZZ_SCALE=${FUZZ_SCALE}): ${total} cases tried\n${lines.join('\n')}\n`)
  tried.clear()
}

/**
 * Runs a property without shrinking (hostile values are large, and each case is a real request)
 * and fails with the property's own message, not fast-check's print of a megabyte counterexample.
 */
export async function checkProperty<T>(
  target: string,
  arbitrary: fc.Arbitrary<T>,
  numRuns: number,
  predicate: (value: T) => Promise<void>,
): Promise<void> {
  const result = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      const started = performance.now()
      await predicate(value)
      countCase(target, 1, performance.now() - started)
    }),
    { numRuns, endOnFailure: true, ...(process.env.DG_FUZZ_SEED ? { seed: Number(process.env.DG_FUZZ_SEED) } : {}) },
  )
  if (result.failed) {
    const cause = result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)
    throw new Error(
      `${target}: ${cause.slice(0, 3000)}\n(fast-check seed ${result.seed}, path ${result.counterexamplePath})`,
    )
  }
}

// ------------------------------------------------------------------------------------------------
// The documented statuses of each operation

export interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
}

export interface DocumentedOperation {
  method: string
  template: string
  statuses: ReadonlySet<number>
  pattern: RegExp
}

/** Every operation of the document, with a pattern that matches the paths it serves. */
export function documentedOperations(document: OpenApiDocument): DocumentedOperation[] {
  const out: DocumentedOperation[] = []
  for (const [template, item] of Object.entries(document.paths)) {
    const pattern = new RegExp(
      `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]*')}$`,
    )
    for (const [method, operation] of Object.entries(item)) {
      out.push({
        method: method.toUpperCase(),
        template,
        statuses: new Set(Object.keys(operation.responses).map(Number)),
        pattern,
      })
    }
  }
  return out
}

/**
 * The operation that answers `method` at `url`, as the router matches it: a literal path before a
 * parametric one (`/catalog/properties` before `/{id}`), HEAD answered by the GET route.
 */
export function findOperation(
  operations: readonly DocumentedOperation[],
  method: string,
  url: string,
): DocumentedOperation | undefined {
  const wanted = method === 'HEAD' ? ['HEAD', 'GET'] : [method]
  let pathname: string
  try {
    // as the request arrives: dot segments resolved, no query or fragment
    pathname = decodeURI(new URL(url, 'http://localhost').pathname)
  } catch {
    return undefined
  }
  const candidates = operations.filter((op) => wanted.includes(op.method) && op.pattern.test(pathname))
  return candidates.find((op) => !op.template.includes('{')) ?? candidates[0]
}

// ------------------------------------------------------------------------------------------------
// What a refused request must leave alone

export interface Fingerprint {
  rows: Record<string, number>
  revision: number
  options: string
  /** Hash of each site option's value, by name. */
  optionValues: Record<string, string>
  files: string
}

const COUNTED_TABLES = [
  'offers',
  'investments',
  'developers',
  'offer_components',
  'price_history',
  'attachments',
  'audit_log',
  'import_jobs',
  'import_job_items',
  'listing_values',
  'publications',
  'webhook_executions',
  'users',
  'app_passwords',
  'sessions',
] as const

function listFiles(root: string, dir = root, out: string[] = []): string[] {
  let entries: fs.Dirent[]
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return out
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) listFiles(root, full, out)
    else if (!/^dg\.sqlite(-wal|-shm|-journal)?$/.test(entry.name)) {
      const size = (() => {
        try {
          return fs.statSync(full).size
        } catch {
          return -1
        }
      })()
      out.push(`${path.relative(root, full)}:${size}`)
    }
  }
  return out
}

/**
 * Row counts of every table a write could touch, the catalog revision (bumped by every catalog
 * write, updates included), the site options and every file of the data folder (uploads,
 * converted reports, the publication folder), as one comparable value.
 */
export async function fingerprint(env: TestEnv): Promise<Fingerprint> {
  const counts = COUNTED_TABLES.map((table) => sql<number>`(SELECT count(*) FROM ${sql.table(table)})`.as(table))
  const row = (await env.ctx.db
    .selectNoFrom([...counts, sql<number>`(SELECT max(revision) FROM catalog_state)`.as('revision')])
    .executeTakeFirstOrThrow()) as Record<string, unknown>
  const rows: Record<string, number> = {}
  for (const table of COUNTED_TABLES) rows[table] = Number(row[table])
  const options = await env.ctx.db.selectFrom('options').select(['name', 'value']).orderBy('name').execute()
  return {
    rows,
    revision: Number(row.revision ?? 0),
    options: createHash('sha256').update(JSON.stringify(options)).digest('hex'),
    optionValues: Object.fromEntries(
      options.map((option) => [option.name, createHash('sha256').update(String(option.value)).digest('hex')]),
    ),
    files: listFiles(env.database.dataDir).sort().join('\n'),
  }
}

/**
 * What changed between two fingerprints, `[]` when nothing did. `allowedNewOptions`: site options
 * that may appear (never change or vanish), with the catalog revision bump that writing an option
 * makes.
 */
export function changes(
  before: Fingerprint,
  after: Fingerprint,
  allowedTables: readonly string[] = [],
  allowedNewOptions: RegExp | undefined = undefined,
): string[] {
  const out: string[] = []
  for (const [table, count] of Object.entries(before.rows)) {
    if (after.rows[table] !== count && !allowedTables.includes(table))
      out.push(`${table}: ${count} → ${after.rows[table]}`)
  }
  const names = new Set([...Object.keys(before.optionValues), ...Object.keys(after.optionValues)])
  const changedOptions = [...names].filter((name) => before.optionValues[name] !== after.optionValues[name])
  const allowedOptions = changedOptions.filter(
    (name) => before.optionValues[name] === undefined && allowedNewOptions?.test(name) === true,
  )
  const otherOptions = changedOptions.filter((name) => !allowedOptions.includes(name))
  // each allowed option written bumps the catalog revision once (the options table's trigger)
  if (after.revision - before.revision !== allowedOptions.length)
    out.push(`catalog revision ${before.revision} → ${after.revision}`)
  if (otherOptions.length > 0) out.push(`site options changed: ${otherOptions.join(', ')}`)
  if (before.files !== after.files) out.push(`files: ${before.files || '(none)'}\n  → ${after.files || '(none)'}`)
  return out
}

// ------------------------------------------------------------------------------------------------
// Answers

/**
 * The error body's stable code (`code` of the host shape, `error` of the plugin shape), or a
 * description of what is wrong with it.
 */
export function errorCode(response: LightMyRequestResponse): { code?: string; problem?: string } {
  if (response.body === '') return { problem: 'an error without a body' }
  let body: unknown
  try {
    body = JSON.parse(response.body)
  } catch {
    return { problem: `an error body that is not JSON: ${response.body.slice(0, 200)}` }
  }
  if (body === null || typeof body !== 'object') return { problem: `an error body that is not an object` }
  const { code, error } = body as { code?: unknown; error?: unknown }
  if (typeof code === 'string' && code !== '') return { code }
  if (typeof error === 'string' && error !== '') return { code: error }
  return { problem: `an error body without code or error: ${response.body.slice(0, 200)}` }
}

// ------------------------------------------------------------------------------------------------
// The captured log and what must never be in it

export interface CapturedLog {
  logger: Logger
  /** The log lines written so far (runs of one repeated character shortened, see below). */
  lines(): readonly string[]
  /** The last line logged at `error` level, for the report of a 5xx. */
  lastError(): string
}

/*
 * The hostile values are mostly long runs of one character (a 200 KB header, a 70,000-character
 * path), and the request logs repeat the URL: kept as they are, a long run's log passed the
 * largest string V8 can make. A run of one character cannot hide a secret longer than itself,
 * so each run of more than 64 is kept as its character and length.
 */
const LONG_RUN = /(.)\1{64,}/gs

/** A logger at `trace` (everything the service may write) into memory, with the service's redaction. */
export function captureLog(): CapturedLog {
  const lines: string[] = []
  let lastError = ''
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) {
        if (line === '') continue
        const kept = line.replace(LONG_RUN, (run, char: string) => `${char}{${run.length}}`)
        lines.push(kept)
        if (kept.includes('"level":50')) lastError = kept
      }
      callback()
    },
  })
  return { logger: pino(loggerOptions('trace'), sink), lines: () => lines, lastError: () => lastError }
}

/**
 * Secret values sent in the fuzzed requests carry this marker (followed by a counter), so the log
 * can be searched for all of them with one expression instead of one search per value.
 */
export const SECRET_MARKER = 'Zq9SeKrEt'
let secretCounter = 0
export const markedSecret = (): string => `${SECRET_MARKER}${++secretCounter}x`

/**
 * Everything in the log that must not be there: the known secrets (passwords, application
 * passwords, webhook secrets, tokens, signatures), any marked secret, a Basic or Bearer
 * credential, and an Authorization, Cookie or signature header with a value.
 */
export function secretsInLog(lines: readonly string[], known: Iterable<string>): string[] {
  const found = new Set<string>()
  const values = [...new Set(known)]
  for (const value of values)
    if (value.length < 8) throw new Error(`a secret to look for is too short to mean anything: ${value}`)
  for (const line of lines) {
    for (const value of values) if (line.includes(value)) found.add(`a known secret (${value.slice(0, 6)}…)`)
    for (const [name, pattern] of PATTERNS) {
      const match = pattern.exec(line)
      if (match) found.add(`${name}: ${match[0].slice(0, 80)}`)
    }
    if (found.size > 20) break
  }
  return [...found]
}

const PATTERNS: ReadonlyArray<readonly [string, RegExp]> = [
  ['a marked secret', new RegExp(`${SECRET_MARKER}\\d+x`)],
  ['a Basic credential', /Basic\s+[A-Za-z0-9+/=]{6,}/i],
  ['a Bearer token', /Bearer\s+[^\s"*]{6,}/i],
  ['an Authorization header', /"(?:authorization|proxy-authorization)"\s*:\s*"(?!\*\*\*")/i],
  ['a cookie header', /"(?:cookie|set-cookie)"\s*:\s*"(?!\*\*\*")/i],
  ['a signature or key header', /"(?:x-dg-signature|x-dg-webhook-key|x-wp-nonce)"\s*:\s*"(?!\*\*\*")/i],
  ['a password field', /"password"\s*:\s*"(?!\*\*\*")/i],
]
