/*
 * Alert e-mails over SMTP with nodemailer. `starttls` (the default) refuses to send, and so to
 * log in, unless the server upgrades the connection to TLS; `implicit` speaks TLS from the first
 * byte (port 465); `none` is for a relay on the same machine. Certificates are checked against
 * Node's trust store (a private CA: NODE_EXTRA_CA_CERTS).
 */
import nodemailer from 'nodemailer'

import type { AlertSmtpConfig } from '../config.js'
import { AttemptFailed, withoutSecrets } from './channel-attempts.js'

export interface AlertEmail {
  subject: string
  text: string
  /** Stable per alert, so that a resent e-mail is recognisably the same message. */
  messageId: string
}

// nodemailer's codes of failures that a second attempt cannot mend
const PERMANENT_CODES = new Set(['EAUTH', 'ENOAUTH', 'ETLS', 'EENVELOPE', 'EMESSAGE', 'ECONFIG'])

export async function sendAlertEmail(smtp: AlertSmtpConfig, email: AlertEmail): Promise<void> {
  await sendEmail(smtp, smtp.to, email, { 'Auto-Submitted': 'auto-generated' })
}

/** One e-mail through the SMTP server of the alerts (a password reset goes to its account's address). */
export async function sendEmail(
  smtp: AlertSmtpConfig,
  to: readonly string[],
  email: AlertEmail,
  headers: Record<string, string> = {},
): Promise<void> {
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.tls === 'implicit',
    requireTLS: smtp.tls === 'starttls',
    ignoreTLS: smtp.tls === 'none',
    ...(smtp.user === undefined ? {} : { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    logger: false,
    debug: false,
    disableFileAccess: true,
    disableUrlAccess: true,
  })
  try {
    await transport.sendMail({
      from: smtp.from,
      to: [...to],
      subject: email.subject,
      text: email.text,
      messageId: email.messageId,
      headers,
    })
  } catch (error) {
    const { code, responseCode, message } = error as { code?: string; responseCode?: number; message?: string }
    const permanent = (code !== undefined && PERMANENT_CODES.has(code)) || (responseCode ?? 0) >= 500
    const text = [code, responseCode, message].filter((part) => part !== undefined).join(' ')
    throw new AttemptFailed(withoutSecrets(text, [smtp.password]).slice(0, 300), !permanent)
  } finally {
    transport.close()
  }
}
