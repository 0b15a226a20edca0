/*
 * The service's housekeeping schedule. Retention (docs/integration/import.md): import previews after 24 hours and
 * results after 7 days; price history and the audit log are never removed. Alerts: the rules run
 * hourly too (a publication through the API, a licence that ended at midnight, a day missed while
 * no schedule ran; none before the installation has an administrator and a developer entity), and
 * alerts whose instance stopped while sending them are sent.
 */
import { checkAlertConditions } from './alerts/alert-rules.js'
import { resendStaleAlerts } from './alerts/alert-service.js'
import { removeForgottenSignInFailures } from './host/auth/login-throttle.js'
import { deleteExpiredPasswordResets } from './host/auth/password-resets-repository.js'
import { deleteExpiredSessions } from './host/auth/sessions-repository.js'
import type { ScheduledJob } from './host/scheduler.js'
import { removeExpiredImportJobs } from './imports/import-job-lifecycle.js'
import { SOURCE_JOBS } from './sources/source-schedule.js'
import { removeOldWebhookActivity } from './webhook/webhook-activity.js'
import { removeExpiredWebhookRecords } from './webhook/webhook-service.js'

export const MAINTENANCE_JOBS: readonly ScheduledJob[] = [
  {
    name: 'retention',
    pattern: '17 * * * *',
    run: async (ctx) => ({
      importJobsRemoved: await removeExpiredImportJobs(ctx),
      sessionsRemoved: await deleteExpiredSessions(ctx.db, ctx.now().toISOString()),
      passwordResetsRemoved: await deleteExpiredPasswordResets(ctx.db, ctx.now().toISOString()),
      signInFailuresForgotten: await removeForgottenSignInFailures(ctx),
      webhook: await removeExpiredWebhookRecords(ctx),
      webhookActivityDaysRemoved: await removeOldWebhookActivity(ctx),
    }),
  },
  {
    name: 'alerts',
    pattern: '5 * * * *',
    run: async (ctx) => ({
      alertsRaised: (await checkAlertConditions(ctx)).length,
      alertsResent: await resendStaleAlerts(ctx),
    }),
  },
  ...SOURCE_JOBS,
]
