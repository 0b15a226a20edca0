import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { Type } from 'typebox'

import { HostError } from '../errors.js'

/** Liveness for load balancers and process managers: answers 200 only when the database does. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Liveness: the process and its database answer',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => {
      try {
        await sql`select 1`.execute(app.ctx.db)
      } catch {
        throw new HostError('database_unavailable', 'The database does not answer.', 503)
      }
      return { status: 'ok' as const }
    },
  )
}
