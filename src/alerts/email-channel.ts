/*
 * Alert e-mails, through the SMTP server the mail settings put in force (src/mail), to the alerts'
 * recipients. A failure the server says is permanent is not attempted again.
 */
import type { AlertSmtpConfig } from '../config.js'
import { type OutgoingEmail, sendOverSmtp, SmtpFailure } from '../mail/smtp-transport.js'
import { AttemptFailed } from './channel-attempts.js'

export type AlertEmail = OutgoingEmail

export async function sendAlertEmail(smtp: AlertSmtpConfig, email: AlertEmail): Promise<void> {
  try {
    await sendOverSmtp(smtp, smtp.to, email, { 'Auto-Submitted': 'auto-generated' })
  } catch (error) {
    if (error instanceof SmtpFailure) throw new AttemptFailed(error.message, !error.permanent)
    throw error
  }
}
