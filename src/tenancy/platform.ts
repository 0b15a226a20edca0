/*
 * The platform as the first company's app sees it: its public address and who to tell when the
 * tenants table changes (the dispatcher of the running server, if any), plus the export that the
 * CLI and the platform page share.
 */
import type { FastifyInstance } from 'fastify'

import type { Actor } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { configuredServiceBase } from '../host/http/service-origin.js'
import { platformBase } from './tenant-config.js'
import { existingTenant, markTenantExported, type Platform, withTenantContext } from './tenant-service.js'
import { exportData } from '../backup/portable-export.js'
import { tenantDataDir } from './tenant-names.js'

const changeListeners = new WeakMap<HostContext, () => Promise<void>>()

/** The dispatcher of a running server hears of every change made through this process. */
export function onTenantsChanged(ctx: HostContext, listener: () => Promise<void>): void {
  changeListeners.set(ctx, listener)
}

export function platformOfApp(app: FastifyInstance): Platform {
  const { ctx } = app
  const listening = app.server.listening ? configuredServiceBase(ctx.config, app.server.address()) : undefined
  const changed = changeListeners.get(ctx)
  return { ctx, base: platformBase(ctx.config, listening), ...(changed ? { changed } : {}) }
}

export async function exportTenant(platform: Platform, slug: string, folder: string, actor: Actor): Promise<void> {
  const row = await existingTenant(platform, slug)
  await withTenantContext(platform, row, (ctx) =>
    exportData({ db: ctx.db, caps: ctx.caps, dataDir: tenantDataDir(platform.ctx.config.dataDir, slug) }, folder),
  )
  await markTenantExported(platform, slug, actor, folder)
}
