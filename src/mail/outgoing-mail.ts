/*
 * Every e-mail the service sends to a person (a password reset, the settings' test e-mail) goes
 * through deliverEmail: over the SMTP server in force, or, in a trial (outside production with no
 * server), into the outbox the panel shows, keeping the latest hundred. In production with no
 * server nothing is sent (the callers offer nothing that would need it).
 */
import { recordAudit, type Actor } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { HostError } from '../host/errors.js'
import { effectiveMailSettings } from './mail-settings.js'
import { insertOutboxEmail, listOutbox, pruneOutbox } from './mail-outbox-repository.js'
import { type OutgoingEmail, sendOverSmtp, SmtpFailure } from './smtp-transport.js'

export const OUTBOX_KEPT = 100
const TRIAL_SENDER = 'dg-offers@localhost'

export type Delivery = { via: 'smtp' } | { via: 'outbox'; outbox_id: number }

export async function deliverEmail(
  ctx: HostContext,
  to: readonly string[],
  email: OutgoingEmail,
  headers: Record<string, string> = {},
): Promise<Delivery> {
  const settings = await effectiveMailSettings(ctx)
  if (settings.smtp) {
    await sendOverSmtp(settings.smtp, to, email, headers)
    return { via: 'smtp' }
  }
  if (!settings.outbox) throw new Error('no SMTP server is in force')
  const id = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await insertOutboxEmail(trx, {
      created_at: ctx.now().toISOString(),
      recipients: JSON.stringify(to),
      sender: TRIAL_SENDER,
      subject: email.subject,
      body: email.text,
    })
    await pruneOutbox(trx, OUTBOX_KEPT)
    return inserted
  })
  ctx.log.info({ outbox_id: id }, 'e-mail kept in the outbox (no SMTP server outside production)')
  return { via: 'outbox', outbox_id: id }
}

export interface OutboxEmail {
  id: number
  created_at: string
  to: string[]
  from: string
  subject: string
  body: string
}

export async function listOutboxEmails(ctx: Pick<HostContext, 'db'>): Promise<OutboxEmail[]> {
  const rows = await listOutbox(ctx.db, OUTBOX_KEPT)
  return rows.map((row) => ({
    id: row.id,
    created_at: row.created_at,
    to: JSON.parse(row.recipients) as string[],
    from: row.sender,
    subject: row.subject,
    body: row.body,
  }))
}

export interface TestEmailOutcome {
  sent: boolean
  via: 'smtp' | 'outbox'
  outbox_id: number | null
  /** The SMTP server's answer when it refused (never the password). */
  error: string | null
}

/**
 * A test e-mail to the given address: 409 `mail_not_configured` when nothing could send it
 * (production without SMTP); a server's refusal is answered as `sent: false` with its text.
 */
export async function sendTestEmail(ctx: HostContext, to: string, actor: Actor): Promise<TestEmailOutcome> {
  const settings = await effectiveMailSettings(ctx)
  if (!settings.smtp && !settings.outbox)
    throw new HostError(
      'mail_not_configured',
      409,
      'No SMTP server is set: set one under Settings → E-mail, or in the DG_ALERT_SMTP_* variables.',
    )
  const now = ctx.now()
  let outcome: TestEmailOutcome
  try {
    const delivery = await deliverEmail(ctx, [to], {
      subject: 'Testowy e-mail z panelu cen / A test e-mail from the price panel',
      text: [
        'Dzień dobry,',
        '',
        'to jest testowy e-mail wysłany z ustawień panelu operatora. Skoro dotarł, usługa może wysyłać e-maile, np. odnośnik do ustawienia nowego hasła.',
        ...(settings.panelUrl ? ['', `Panel: ${settings.panelUrl}/dg-admin/`] : []),
        '',
        '---',
        'This is a test e-mail sent from the operator panel’s settings. Since it arrived, the service can send e-mails, such as the link to set a new password.',
      ].join('\n'),
      messageId: `<mail-test.${now.getTime()}@dg-offers>`,
    })
    outcome = {
      sent: true,
      via: delivery.via,
      outbox_id: delivery.via === 'outbox' ? delivery.outbox_id : null,
      error: null,
    }
  } catch (error) {
    if (!(error instanceof SmtpFailure)) throw error
    outcome = { sent: false, via: 'smtp', outbox_id: null, error: error.message }
  }
  await recordAudit(ctx, {
    actor,
    action: 'mail.test',
    objectType: 'mail',
    outcome: outcome.sent ? 'success' : 'failure',
    details: { to, via: outcome.via, ...(outcome.error === null ? {} : { error: outcome.error }) },
  })
  return outcome
}
