/*
 * `dg alerts test`: sends a test alert through every configured channel with the service's own
 * settings (DG_ALERT_*, or the panel's where those set no channel), so an operator can see the e-mail and the chat message arrive before a
 * real cause does. It is recorded and audited like any alert (cause `test`), never deduplicated.
 */
import { testAlert } from '../../alerts/alert-causes.js'
import { configuredChannels, sendTestAlert } from '../../alerts/alert-service.js'
import { HostError } from '../../host/errors.js'
import { todayInWarsaw } from '../../host/warsaw-day.js'
import { withHostContext } from '../cli-context.js'
import type { Command } from '../command.js'

export const ALERTS_COMMANDS: Command[] = [
  {
    name: 'alerts test',
    summary: 'Send a test alert through the configured channels (e-mail over SMTP, notification webhook)',
    options: {},
    run: (_values, env) =>
      withHostContext(env, async (ctx) => {
        if ((await configuredChannels(ctx)).length === 0)
          throw new HostError(
            'alerts_not_configured',
            400,
            'No alert channel is configured: set one in the panel (Administration > Alerts), or set DG_ALERT_SMTP_HOST with DG_ALERT_EMAIL_TO, or DG_ALERT_WEBHOOK_URL with DG_ALERT_WEBHOOK_SECRET.',
          )
        const alert = await sendTestAlert(ctx, testAlert(todayInWarsaw(ctx)))
        const lines = alert.channels.map(
          (c) => `${c.channel}: ${c.status} after ${c.attempts} attempt(s)${c.error ? ` (${c.error})` : ''}`,
        )
        if (alert.state !== 'delivered')
          throw new HostError('alert_not_delivered', 502, `Test alert #${alert.id} not delivered:\n${lines.join('\n')}`)
        return { json: alert, text: [`Test alert #${alert.id} delivered:`, ...lines].join('\n') }
      }),
  },
]
