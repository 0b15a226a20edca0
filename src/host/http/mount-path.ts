/*
 * The path a company's addresses start with when several companies share one host name
 * (`/t/{slug}`, src/tenancy): the platform strips it from the request before this app routes it,
 * so the app's routes stay those of the contract, and puts it back wherever the app writes an
 * address the client follows (service origin, redirects, cookies). '' for a company on its own host.
 */
import type { IncomingMessage } from 'node:http'

import type { FastifyInstance, FastifyRequest } from 'fastify'

const MOUNT_PATH = Symbol('dg.mountPath')

type MountedRequest = IncomingMessage & { [MOUNT_PATH]?: string }

/** Set by the platform's dispatcher only: a client cannot send it, unlike a header. */
export function setMountPath(raw: IncomingMessage, mountPath: string): void {
  ;(raw as MountedRequest)[MOUNT_PATH] = mountPath
}

export function mountPathOf(request: Pick<FastifyRequest, 'raw'>): string {
  return (request.raw as MountedRequest)[MOUNT_PATH] ?? ''
}

/** A redirect to a path of this app keeps the client under the company's prefix. */
export function registerMountedRedirects(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    const mount = mountPathOf(request)
    if (mount === '') return
    const location = reply.getHeader('location')
    if (typeof location === 'string' && location.startsWith('/') && !location.startsWith('//'))
      reply.header('location', `${mount}${location}`)
  })
}
