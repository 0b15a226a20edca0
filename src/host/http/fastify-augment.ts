import type { HostContext } from '../context.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The host context every service function receives. */
    ctx: HostContext
  }
}

export {}
