/*
 * A local SMTP server for tests (the service set to DG_ALERT_SMTP_TLS=none, or STARTTLS on request)
 * that keeps what it receives, decoded: the alert e-mails and the password-reset e-mails.
 */
import type { AddressInfo } from 'node:net'

import { SMTPServer } from 'smtp-server'

export const SMTP_USER = 'alerts@ceny.example.pl'
export const SMTP_PASSWORD = 'smtp-Pa55word-never-logged-7f3a'

export interface Mail {
  from: string
  to: string[]
  subject: string
  /** The text part, decoded from its transfer encoding. */
  text: string
  user: string | undefined
}

/** Subject and text of a single-part message as nodemailer writes it (quoted-printable, base64 or 7bit). */
function readMessage(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n')
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ')
  const body = raw.slice(split + 4)
  const subject = (/^Subject: (.*)$/im.exec(head)?.[1] ?? '').replace(
    /=\?UTF-8\?([QB])\?([^?]*)\?=\s*/gi,
    (_all, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ).toString('utf8'),
  )
  const encoding = /^Content-Transfer-Encoding: (\S+)/im.exec(head)?.[1]?.toLowerCase()
  const text =
    encoding === 'quoted-printable'
      ? Buffer.from(
          body
            .replace(/=\r\n/g, '')
            .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8')
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : body
  return { subject, text }
}

/** A local SMTP server without TLS (the service is set to DG_ALERT_SMTP_TLS=none) that keeps what it receives. */
export async function startSmtp(options: { starttls?: boolean } = {}) {
  const mails: Mail[] = []
  const logins: Array<{ user: string; password: string }> = []
  const server = new SMTPServer({
    secure: false,
    ...(options.starttls ? {} : { disabledCommands: ['STARTTLS'] }),
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ user: auth.username ?? '', password: auth.password ?? '' })
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username })
      else callback(new Error('Invalid username or password'))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          ...readMessage(Buffer.concat(chunks).toString('utf8')),
          user: session.user as string | undefined,
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  return { server, port, mails, logins, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}
