/*
 * Operations endpoints for load balancers and process managers, outside the REST namespace and
 * under the same HTTPS policy as every route:
 * - GET /healthz (liveness): the process answers. It touches nothing else, so a slow or lost
 *   database never gets a live process restarted.
 * - GET /readyz (readiness): the database answers, its migrations are this release's, the
 *   publication folder is writable, and the process is not shutting down. 200 with every check,
 *   or 503 naming the failing ones. Details stay generic (the endpoint needs no credentials); the
 *   cause is logged.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { Type } from 'typebox'

import { migrationState } from '../../db/migrate.js'

const CHECK_TIMEOUT_MS = 2000

const Check = Type.Object({
  ok: Type.Boolean(),
  detail: Type.Optional(Type.String({ description: 'Why the check failed' })),
})

const ReadinessSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
    failing: Type.Array(Type.String(), { description: 'Names of the failing checks (empty when ready)' }),
    checks: Type.Object({
      database: Check,
      migrations: Check,
      publication_storage: Check,
      shutting_down: Check,
    }),
  },
  { $id: 'Readiness' },
)

type CheckResult = { ok: boolean; detail?: string }

class CheckFailed extends Error {}

async function bounded(name: string, app: FastifyInstance, check: () => Promise<void>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      check(),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new CheckFailed('no answer within 2 s')), CHECK_TIMEOUT_MS)
        timer.unref()
      }),
    ])
    return { ok: true }
  } catch (error) {
    if (!(error instanceof CheckFailed)) app.log.warn({ err: error, check: name }, 'readiness check failed')
    return { ok: false, detail: error instanceof CheckFailed ? error.message : 'the check failed (see the log)' }
  } finally {
    clearTimeout(timer)
  }
}

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.addSchema(ReadinessSchema)

  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['operations'],
        summary: 'Liveness: the process answers (no database call)',
        database: false,
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  )

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['operations'],
        summary: 'Readiness: database, migrations, publication storage, not shutting down',
        response: { 200: Type.Ref('Readiness'), 503: Type.Ref('Readiness') },
      },
    },
    async (_request, reply) => {
      const ctx = app.ctx
      const [database, migrations, publicationStorage] = await Promise.all([
        bounded('database', app, async () => {
          await sql`select 1`.execute(ctx.db).catch(() => {
            throw new CheckFailed('the database does not answer')
          })
        }),
        bounded('migrations', app, async () => {
          const state = await migrationState(ctx.db)
          if (state.pending.length > 0) throw new CheckFailed(`pending: ${state.pending.join(', ')}`)
          if (state.unknown.length > 0) throw new CheckFailed(`applied by a newer release: ${state.unknown.join(', ')}`)
        }),
        bounded('publication_storage', app, async () => {
          const dir = path.join(ctx.config.dataDir, 'publication')
          const probe = path.join(dir, `.readyz-probe-${process.pid}-${randomBytes(4).toString('hex')}`)
          try {
            await fs.mkdir(dir, { recursive: true })
            await fs.writeFile(probe, 'ok', { flag: 'wx' })
          } catch (error) {
            app.log.warn({ err: error }, 'readiness: the publication folder is not writable')
            throw new CheckFailed('the publication folder is not writable')
          } finally {
            await fs.rm(probe, { force: true }).catch(() => undefined)
          }
        }),
      ])
      const checks = {
        database,
        migrations,
        publication_storage: publicationStorage,
        shutting_down: app.lifecycle.shuttingDown ? { ok: false, detail: 'the service is stopping' } : { ok: true },
      }
      const failing = Object.entries(checks)
        .filter(([, check]) => !check.ok)
        .map(([name]) => name)
      return reply
        .code(failing.length === 0 ? 200 : 503)
        .send({ status: failing.length === 0 ? 'ready' : 'not_ready', failing, checks })
    },
  )
}
