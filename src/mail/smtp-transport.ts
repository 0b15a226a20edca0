/*
 * One e-mail over SMTP with nodemailer. `starttls` (the default) refuses to send, and so to log in,
 * unless the server upgrades the connection to TLS; `implicit` speaks TLS from the first byte (port
 * 465); `none` is for a relay on the same machine. Certificates are checked against Node's trust
 * store (a private CA: NODE_EXTRA_CA_CERTS).
 */
import nodemailer from 'nodemailer'

import type { SmtpServer } from './mail-settings.js'

export interface OutgoingEmail {
  subject: string
  text: string
  /** Stable per message, so that a resent e-mail is recognisably the same message. */
  messageId: string
}

// nodemailer's codes of failures that a second attempt cannot mend
const PERMANENT_CODES = new Set(['EAUTH', 'ENOAUTH', 'ETLS', 'EENVELOPE', 'EMESSAGE', 'ECONFIG'])

/** The server refused or could not be reached; the text never carries the SMTP password. */
export class SmtpFailure extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message)
    this.name = 'SmtpFailure'
  }
}

export async function sendOverSmtp(
  smtp: SmtpServer,
  to: readonly string[],
  email: OutgoingEmail,
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
    let text = [code, responseCode, message].filter((part) => part !== undefined).join(' ')
    if (smtp.password) text = text.replaceAll(smtp.password, '***')
    throw new SmtpFailure(text.slice(0, 300), permanent)
  } finally {
    transport.close()
  }
}
