/*
 * The service's housekeeping schedule. Retention (contract 3): import previews after 24 hours and
 * results after 7 days; price history and the audit log are never removed.
 */
import { deleteExpiredSessions } from './host/auth/sessions-repository.js'
import type { ScheduledJob } from './host/scheduler.js'
import { removeExpiredImportJobs } from './imports/offer-import-service.js'
import { removeExpiredWebhookRecords } from './webhook/webhook-service.js'

export const MAINTENANCE_JOBS: readonly ScheduledJob[] = [
  {
    name: 'retention',
    pattern: '17 * * * *',
    run: async (ctx) => ({
      importJobsRemoved: await removeExpiredImportJobs(ctx),
      sessionsRemoved: await deleteExpiredSessions(ctx.db, ctx.now().toISOString()),
      webhook: await removeExpiredWebhookRecords(ctx),
    }),
  },
]
