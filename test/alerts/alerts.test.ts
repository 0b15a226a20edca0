/*
 * Operators are told when the legal duty is at risk: a failed scheduled publication, a missed day,
 * files not served as published, a day's file with far fewer rows, a lapsed licence. Each alert
 * goes once per cause and day by e-mail (to a local SMTP server the test starts) and by a signed
 * webhook (to a local receiver), is audited and shown in /status; a failing channel is retried,
 * recorded and never breaks the publication, and no secret reaches the log.
 */
import { createHmac } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'

import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { ALERT_TITLES, type AlertCause, testAlert } from '../../src/alerts/alert-causes.js'
import { checkAlertConditions } from '../../src/alerts/alert-rules.js'
import { recentAlerts, resendStaleAlerts, sendTestAlert } from '../../src/alerts/alert-service.js'
import { runCli } from '../../src/cli/main.js'
import { setUpDemo } from '../../src/demo/demo-setup.js'
import type { HostContext } from '../../src/host/context.js'
import { openDatabase } from '../../src/host/db/database.js'
import { loggerOptions } from '../../src/host/http/logging.js'
import { setLicense } from '../../src/licensing/license.js'
import { runScheduledPublication } from '../../src/publication/publication-schedule.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { TEST_DIALECTS } from '../helpers/databases.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { type Mail, SMTP_PASSWORD, SMTP_USER, startSmtp } from '../helpers/servers/smtp-server.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'

const WEBHOOK_SECRET = 'alert-webhook-secret-never-logged-0123456789abcdef'
// a Slack/Teams address carries its token in the path: it must stay out of logs and records too
const WEBHOOK_PATH = '/services/T0KEN-IN-PATH-never-logged'
const RETRY_BASE_MS = 40

interface Received {
  at: number
  headers: http.IncomingHttpHeaders
  body: Buffer
}

/** A local receiver: the notification webhook (answers from `statuses`, then 200) and 404 for /dane-gov/ (a stale proxy). */
async function startReceiver() {
  const received: Received[] = []
  const statuses: number[] = []
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (request.method === 'POST' && request.url === WEBHOOK_PATH) {
        received.push({ at: Date.now(), headers: request.headers, body: Buffer.concat(chunks) })
        response.writeHead(statuses.shift() ?? 200, { 'content-type': 'text/plain' }).end('ok')
        return
      }
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not here')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    received,
    statuses,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Checks the request as a receiver of the property webhook would, with its own HMAC. */
function expectSigned(request: Received): Record<string, unknown> {
  const timestamp = String(request.headers['x-dg-timestamp'])
  const nonce = String(request.headers['x-dg-nonce'])
  const key = String(request.headers['idempotency-key'])
  expect(request.headers['content-type']).toBe('application/json')
  expect(timestamp).toMatch(/^\d{10}$/)
  expect(nonce).toMatch(/^[A-Za-z0-9._:-]{16,128}$/)
  expect(key).toMatch(/^[A-Za-z0-9._:-]{8,128}$/)
  const expected = createHmac('sha256', WEBHOOK_SECRET)
    .update(Buffer.concat([Buffer.from(`${timestamp}.${nonce}.${key}.`), request.body]))
    .digest('hex')
  expect(request.headers['x-dg-signature']).toBe(expected)
  return JSON.parse(request.body.toString('utf8')) as Record<string, unknown>
}

const lines: string[] = []
const logSink = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    lines.push(chunk.toString())
    callback()
  },
})

const HEADER = 'Inwestycja;ID;Rodzaj;Status;Powierzchnia;Cena m2;Cena;Cena od;Miasto'
const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  price_m2: 'Cena m2',
  price_total: 'Cena',
  price_total_from: 'Cena od',
  proj_city: 'Miasto',
}
const offerLine = (i: number, status: string) =>
  `W-ALERT;L-${i};mieszkanie;${status};50,00;10 000,00;500 000,00;2026-05-01;Łódź`

for (const dialect of TEST_DIALECTS) {
  describe(`alerts [${dialect}]`, () => {
    let smtp: Awaited<ReturnType<typeof startSmtp>>
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let env: TestEnv
    let admin: TestUser
    let origin: string

    const status = async () => {
      const response = await env.app.inject({
        method: 'GET',
        url: '/wp-json/dg/v2/status',
        headers: { authorization: admin.authorization },
      })
      expect(response.statusCode, response.body).toBe(200)
      return response.json()
    }
    /** Runs the daily job at 00:40 of `day` (Europe/Warsaw, winter time), as the schedule would. */
    const scheduledRunOn = async (day: string) => {
      env.clock.set(`${day}T00:40:00+01:00`)
      return runScheduledPublication(env.ctx)
    }
    const importOffers = async (rows: string[], key: string) => {
      const body = multipart(
        { mode: 'patch', mapping: JSON.stringify(MAPPING) },
        { name: 'oferty.csv', content: `${HEADER}\n${rows.join('\n')}\n` },
      )
      const preview = await env.app.inject({
        method: 'POST',
        url: '/wp-json/dg/v2/imports/offer',
        payload: body.payload,
        headers: { ...body.headers, authorization: admin.authorization },
      })
      expect(preview.json().preview?.errors ?? preview.json(), preview.body).toEqual([])
      const done = await env.app.inject({
        method: 'POST',
        url: '/wp-json/dg/v2/imports/offer',
        payload: `job_id=${preview.json().id}&confirm_archiving=false`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': key,
          authorization: admin.authorization,
        },
      })
      expect(done.statusCode, done.body).toBe(200)
    }
    const publishedRows = async () => {
      const last = (await status()).last_publication as { record_count: number }
      return last.record_count
    }
    const webhooksOf = (cause: string) => receiver.received.map(expectSigned).filter((body) => body.cause === cause)
    // an alert's e-mail is a letter: its subject names the alert by its title
    const mailsAbout = (cause: AlertCause) => smtp.mails.filter((mail) => mail.subject.includes(ALERT_TITLES[cause].pl))

    beforeAll(async () => {
      smtp = await startSmtp()
      receiver = await startReceiver()
      env = await startTestApp(dialect, {
        logger: pino(loggerOptions('trace'), logSink),
        env: {
          DG_ALERT_SMTP_HOST: '127.0.0.1',
          DG_ALERT_SMTP_PORT: String(smtp.port),
          DG_ALERT_SMTP_TLS: 'none',
          DG_ALERT_SMTP_USER: SMTP_USER,
          DG_ALERT_SMTP_PASSWORD: SMTP_PASSWORD,
          DG_ALERT_EMAIL_TO: 'ops@ceny.example.pl, dyzurny@ceny.example.pl',
          DG_ALERT_WEBHOOK_URL: `http://127.0.0.1:${receiver.port}${WEBHOOK_PATH}`,
          DG_ALERT_WEBHOOK_SECRET: WEBHOOK_SECRET,
          DG_ALERT_RETRY_BASE_MS: String(RETRY_BASE_MS),
          DG_ALERT_MAX_ATTEMPTS: '4',
        },
      })
      origin = await env.app.listen({ host: '127.0.0.1', port: 0 })
      await setUpDemo(env.ctx)
      admin = await createTestUser(env.ctx, 'administrator')
    })
    afterAll(async () => {
      await env?.app.close()
      await env?.database.cleanup()
      await smtp?.close()
      await receiver?.close()
    })

    it('a failed scheduled publication sends one e-mail and one signed webhook, audited and shown in /status', async () => {
      // no public address yet: the day's publication fails with public_base_url_missing
      expect(await scheduledRunOn('2026-11-20')).toBe('failed')

      expect(smtp.mails).toHaveLength(1)
      const mail = smtp.mails[0] as Mail
      expect(mail.user).toBe(SMTP_USER)
      expect(mail.from).toBe(SMTP_USER)
      expect(mail.to).toEqual(['ops@ceny.example.pl', 'dyzurny@ceny.example.pl'])
      expect(mail.subject).toBe('[dg-offers] PILNE: Publikacja z harmonogramu nie powiodła się (20.11.2026)')
      expect(mail.text).toMatch(/^Dzień dobry,/)
      expect(mail.text).toContain('Codzienna publikacja z dnia 20.11.2026')
      expect(mail.text).not.toContain('The daily publication')
      expect(mail.text).toMatch(/^http:\/\/\S+\/dg-admin\/#\/historia$/m)
      expect(mail.text).toMatch(/^http:\/\/\S+\/dg-admin\/podrecznik\/alerty\.md#publikacja-z-harmonogramu/m)
      expect(mail.text).not.toMatch(/[{}]|\/wp-json/)
      // the first publication failed: there is no previous version to speak of
      expect(mail.text).toContain('Nie opublikowano jeszcze żadnego pliku')
      expect(mail.text).not.toContain('Poprzednia wersja')

      expect(receiver.received).toHaveLength(1)
      const body = expectSigned(receiver.received[0] as Received)
      expect(body).toMatchObject({
        event: 'dg.alert',
        cause: 'publication_failed',
        day: '2026-11-20',
        severity: 'critical',
        details: expect.objectContaining({ issues: ['public_base_url_missing'] }),
      })
      // what Slack and Teams show: Polish by default
      expect(body.text).toEqual(expect.stringContaining('Publikacja z harmonogramu nie powiodła się'))
      expect(body.message_en).toEqual(expect.stringContaining('The daily publication of 2026-11-20'))

      const shown = (await status()).alerts as Array<Record<string, unknown>>
      expect(shown).toHaveLength(1)
      expect(shown[0]).toMatchObject({
        cause: 'publication_failed',
        day: '2026-11-20',
        state: 'delivered',
        message: expect.stringContaining('nie powiodła się'),
        channels: [
          { channel: 'email', status: 'sent', attempts: 1 },
          { channel: 'webhook', status: 'sent', attempts: 1 },
        ],
      })
      const audit = await env.ctx.db
        .selectFrom('audit_log')
        .select(['action', 'outcome'])
        .where('action', 'like', 'alert.%')
        .orderBy('id')
        .execute()
      expect(audit).toEqual([
        { action: 'alert.raise', outcome: 'success' },
        { action: 'alert.deliver', outcome: 'success' },
      ])
    })

    it('a second failure the same day sends nothing more', async () => {
      env.clock.set('2026-11-20T14:00:00+01:00')
      expect(await runScheduledPublication(env.ctx)).toBe('failed')
      expect(smtp.mails).toHaveLength(1)
      expect(receiver.received).toHaveLength(1)
      expect((await status()).alerts).toHaveLength(1)
    })

    it('a successful publication whose files are served as published alerts nothing', async () => {
      await updatePublicationSettings(env.ctx, { public_base_url: `${origin}/dane-gov` }, { type: 'cli' })
      await importOffers(
        Array.from({ length: 100 }, (_, i) => offerLine(i + 1, 'dostępne')),
        `alerts-create-${dialect}`,
      )
      env.clock.set('2026-11-20T15:00:00+01:00')
      expect(await runScheduledPublication(env.ctx)).toBe('published')
      // served as published: no delivery alert; told only that the test's own investment lacks its
      // full location and prospectus (the import gave a city alone)
      const told = receiver.received.slice(1).map(expectSigned)
      expect(told.map((body) => body.cause)).toEqual(['publication_gaps'])
      expect(told[0]?.details).toMatchObject({
        codes: ['investment_location_missing', 'investment_prospectus_missing'],
      })
      expect(smtp.mails.slice(1).map((mail) => mail.subject.includes(ALERT_TITLES.publication_gaps.pl))).toEqual([true])
    })

    it('a missed day is alerted once, on the next day the schedule runs', async () => {
      // nothing ran on 2026-11-21 (the service was down)
      expect(await scheduledRunOn('2026-11-22')).toBe('published')
      const [mail] = mailsAbout('missed_days')
      expect(mail?.text).toContain('21.11.2026')
      const [body] = webhooksOf('missed_days')
      expect(body).toMatchObject({ day: '2026-11-22', severity: 'critical', details: { dates: ['2026-11-21'] } })
      expect(body?.developer_id).toEqual(expect.any(Number))
      // the hourly check the same day finds the same cause: told already
      env.clock.set('2026-11-22T09:05:00+01:00')
      expect(await checkAlertConditions(env.ctx)).toEqual([])
      expect(mailsAbout('missed_days')).toHaveLength(1)
      expect(webhooksOf('missed_days')).toHaveLength(1)
    })

    it('a drop of 31% of the rows from the previous day is alerted, one of 20% is not', async () => {
      const before = await publishedRows()
      const sold31 = Math.round(before * 0.31)
      await importOffers(
        Array.from({ length: sold31 }, (_, i) => offerLine(i + 1, 'sprzedane')),
        `alerts-sell-31-${dialect}`,
      )
      expect(await scheduledRunOn('2026-11-23')).toBe('published')
      const after = await publishedRows()
      expect(1 - after / before).toBeGreaterThan(0.3)
      expect(1 - after / before).toBeLessThan(0.32)
      const [body] = webhooksOf('row_drop')
      expect(body).toMatchObject({
        day: '2026-11-23',
        severity: 'warning',
        details: { rows: after, previous_rows: before, previous_date: '2026-11-22', threshold: 0.3 },
      })
      expect(mailsAbout('row_drop')).toHaveLength(1)
      expect(mailsAbout('row_drop')[0]?.text).toContain(`ma ${after} wierszy`)

      const sold20 = Math.floor(after * 0.2)
      await importOffers(
        Array.from({ length: sold20 }, (_, i) => offerLine(sold31 + i + 1, 'sprzedane')),
        `alerts-sell-20-${dialect}`,
      )
      expect(await scheduledRunOn('2026-11-24')).toBe('published')
      const third = await publishedRows()
      expect(1 - third / after).toBeGreaterThan(0.18)
      expect(1 - third / after).toBeLessThanOrEqual(0.2)
      expect(webhooksOf('row_drop')).toHaveLength(1)

      // a stricter configured share would have told that drop too
      const stricter: HostContext = {
        ...env.ctx,
        config: { ...env.ctx.config, alerts: { ...env.ctx.config.alerts, rowDropShare: 0.15 } },
      }
      const raised = await checkAlertConditions(stricter)
      expect(raised.map((alert) => [alert.cause, alert.day])).toEqual([['row_drop', '2026-11-24']])
      expect(webhooksOf('row_drop')).toHaveLength(2)
    })

    it('files the public address does not serve as published are alerted after the scheduled publication', async () => {
      // a stale proxy in front of the service answers 404 for every file
      await updatePublicationSettings(
        env.ctx,
        { public_base_url: `http://127.0.0.1:${receiver.port}/dane-gov` },
        { type: 'cli' },
      )
      expect(await scheduledRunOn('2026-11-25')).toBe('published')
      const [body] = webhooksOf('delivery_failed')
      expect(body).toMatchObject({
        day: '2026-11-25',
        details: { issues: expect.arrayContaining(['delivery_http_status']) },
      })
      expect(mailsAbout('delivery_failed')).toHaveLength(1)
      await updatePublicationSettings(env.ctx, { public_base_url: `${origin}/dane-gov` }, { type: 'cli' })
    })

    it('the licence lapsing into continuity mode is alerted once a day', async () => {
      // a free plan is a choice, not a lapse: continuity mode without an alert
      env.clock.set('2026-11-26T06:00:00+01:00')
      await setLicense(env.ctx, { plan: 'free', entitlements: [], validUntil: null, actor: { type: 'cli' } })
      expect(await checkAlertConditions(env.ctx)).toEqual([])
      env.clock.set('2026-11-26T08:00:00+01:00')
      await setLicense(env.ctx, {
        plan: 'pro',
        entitlements: ['api_webhooks', 'bulk_import', 'publishing_gov'],
        validUntil: '2026-11-25',
        actor: { type: 'cli' },
      })
      const raised = await checkAlertConditions(env.ctx)
      expect(raised.map((alert) => alert.cause)).toEqual(['license_continuity'])
      expect(raised[0]).toMatchObject({ severity: 'warning', details: { license_status: 'expired' } })
      expect(mailsAbout('license_continuity')).toHaveLength(1)
      expect(webhooksOf('license_continuity')[0]?.text).toEqual(expect.stringContaining('tryb ciągłości'))
      env.clock.set('2026-11-26T12:00:00+01:00')
      expect(await checkAlertConditions(env.ctx)).toEqual([])
      // the next day it is still lapsed: told again
      env.clock.set('2026-11-27T08:00:00+01:00')
      expect((await checkAlertConditions(env.ctx)).map((alert) => alert.cause)).toContain('license_continuity')
      expect(webhooksOf('license_continuity')).toHaveLength(2)
      await setLicense(env.ctx, {
        plan: 'pro',
        entitlements: ['api_webhooks', 'bulk_import', 'publishing_gov'],
        validUntil: null,
        actor: { type: 'cli' },
      })
    })

    it('retries the webhook with growing waits after the receiver answers 500, with a new nonce each time', async () => {
      const first = receiver.received.length
      receiver.statuses.push(500, 500)
      const alert = await sendTestAlert(env.ctx, testAlert('2026-11-27'))
      const attempts = receiver.received.slice(first)
      expect(attempts).toHaveLength(3)
      const bodies = attempts.map(expectSigned)
      expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1)
      expect(new Set(attempts.map((a) => a.headers['idempotency-key'])).size).toBe(1)
      expect(new Set(attempts.map((a) => a.headers['x-dg-nonce'])).size).toBe(3)
      const waits = [attempts[1]!.at - attempts[0]!.at, attempts[2]!.at - attempts[1]!.at]
      // timers may fire a millisecond early; the jitter adds at most a fifth
      expect(waits[0]).toBeGreaterThanOrEqual(RETRY_BASE_MS - 2)
      expect(waits[1]).toBeGreaterThanOrEqual(RETRY_BASE_MS * 2 - 2)
      expect(waits[1]).toBeGreaterThan(waits[0] as number)
      expect(alert).toMatchObject({ state: 'delivered' })
      expect(alert.channels.find((c) => c.channel === 'webhook')).toMatchObject({ status: 'sent', attempts: 3 })

      // a receiver that keeps failing: given up after DG_ALERT_MAX_ATTEMPTS, recorded, not thrown
      receiver.statuses.push(503, 503, 503, 503)
      const failed = await sendTestAlert(env.ctx, testAlert('2026-11-27'))
      expect(failed.state).toBe('failed')
      expect(failed.channels.find((c) => c.channel === 'webhook')).toMatchObject({
        status: 'failed',
        attempts: 4,
        error: expect.stringContaining('HTTP 503'),
      })
      expect(failed.channels.find((c) => c.channel === 'email')).toMatchObject({ status: 'sent' })
      const audit = await env.ctx.db
        .selectFrom('audit_log')
        .select(['outcome', 'details'])
        .where('action', '=', 'alert.deliver')
        .where('object_id', '=', String(failed.id))
        .executeTakeFirstOrThrow()
      expect(audit.outcome).toBe('failure')
    })

    it('does not log in or send over a connection that STARTTLS did not protect (the default)', async () => {
      const logins = smtp.logins.length
      const mails = smtp.mails.length
      const strict: HostContext = {
        ...env.ctx,
        config: {
          ...env.ctx.config,
          alerts: {
            ...env.ctx.config.alerts,
            webhook: undefined,
            smtp: { ...env.ctx.config.alerts.smtp!, tls: 'starttls' },
          },
        },
      }
      const alert = await sendTestAlert(strict, testAlert('2026-11-27'))
      expect(alert.state).toBe('failed')
      // refused at once: no retry can make the server offer TLS
      expect(alert.channels).toEqual([expect.objectContaining({ channel: 'email', status: 'failed', attempts: 1 })])
      expect(smtp.logins.length).toBe(logins)
      expect(smtp.mails.length).toBe(mails)
    })

    it('two instances checking at once send each alert once: the stored row is the claim', async () => {
      const other = openDatabase(env.database.connection)
      try {
        const instanceB: HostContext = { ...env.ctx, db: other.db }
        env.clock.set('2026-11-28T08:00:00+01:00')
        await setLicense(env.ctx, {
          plan: 'pro',
          entitlements: ['api_webhooks', 'bulk_import', 'publishing_gov'],
          validUntil: '2026-11-27',
          actor: { type: 'cli' },
        })
        const mails = smtp.mails.length
        const hooks = receiver.received.length
        const [a, b] = await Promise.all([checkAlertConditions(env.ctx), checkAlertConditions(instanceB)])
        // 2026-11-26 and 27 have no file, and the licence ended yesterday: two causes, each told once
        expect([...a, ...b].map((alert) => alert.cause).sort()).toEqual(['license_continuity', 'missed_days'])
        expect(smtp.mails.length - mails).toBe(2)
        expect(receiver.received.length - hooks).toBe(2)
        const stored = await env.ctx.db.selectFrom('alerts').select(['cause']).where('day', '=', '2026-11-28').execute()
        expect(stored.map((row) => row.cause).sort()).toEqual(['license_continuity', 'missed_days'])
      } finally {
        await other.destroy()
        await setLicense(env.ctx, {
          plan: 'pro',
          entitlements: ['api_webhooks', 'bulk_import', 'publishing_gov'],
          validUntil: null,
          actor: { type: 'cli' },
        })
      }
    })

    it('an alert whose instance stopped while sending is finished by one instance, only on the channels left', async () => {
      const raisedAt = '2026-11-28T06:50:00.000Z'
      await env.ctx.db
        .insertInto('alerts')
        .values({
          cause: 'missed_days',
          day: '2026-11-28',
          scope: 'developer:999',
          developer_id: 999,
          severity: 'critical',
          message_pl: 'Nie opublikowano pliku za 1 dni: 2026-11-27.',
          message_en: 'No file was published for 1 day(s): 2026-11-27.',
          details: JSON.stringify({ dates: ['2026-11-27'] }),
          raised_at: raisedAt,
          state: 'sending',
          claimed_at: raisedAt,
          channels: JSON.stringify({
            email: { status: 'pending', attempts: 0, at: null },
            webhook: { status: 'sent', attempts: 1, at: raisedAt },
          }),
          finished_at: null,
        })
        .execute()
      const other = openDatabase(env.database.connection)
      try {
        const mails = smtp.mails.length
        const hooks = receiver.received.length
        // ten minutes later it may still be under way; hours later it is taken over by one of the two instances
        env.clock.set('2026-11-28T08:00:00+01:00')
        expect(await resendStaleAlerts(env.ctx)).toBe(0)
        env.clock.set('2026-11-28T10:00:00+01:00')
        const resent = await Promise.all([resendStaleAlerts(env.ctx), resendStaleAlerts({ ...env.ctx, db: other.db })])
        expect(resent.sort()).toEqual([0, 1])
        expect(smtp.mails.length - mails).toBe(1)
        expect(receiver.received.length - hooks).toBe(0)
        const row = await env.ctx.db
          .selectFrom('alerts')
          .select(['state', 'channels'])
          .where('scope', '=', 'developer:999')
          .executeTakeFirstOrThrow()
        expect(row.state).toBe('delivered')
        expect(JSON.parse(row.channels)).toMatchObject({ email: { status: 'sent' }, webhook: { status: 'sent' } })
      } finally {
        await other.destroy()
      }
    })

    it('dg alerts test sends a test alert through both channels', async () => {
      let stdout = ''
      let stderr = ''
      const mails = smtp.mails.length
      const code = await runCli(['alerts', 'test', '--json'], {
        config: env.config,
        io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
        openDatabase: () => openDatabase(env.database.connection),
      })
      expect(code, stderr).toBe(0)
      expect(JSON.parse(stdout)).toMatchObject({ cause: 'test', state: 'delivered', severity: 'info' })
      expect(smtp.mails.slice(mails).map((mail) => mail.subject)).toEqual([
        expect.stringContaining('[dg-offers] INFO: Alert testowy'),
      ])
      expect(stdout + stderr).not.toContain(SMTP_PASSWORD)
    })

    it('never writes the SMTP password, the webhook secret or its address to the log, the audit or /status', async () => {
      const logged = lines.join('')
      expect(logged).toContain('alert')
      for (const secret of [SMTP_PASSWORD, WEBHOOK_SECRET, WEBHOOK_PATH]) {
        expect(logged).not.toContain(secret)
        expect(JSON.stringify(await status())).not.toContain(secret)
        const audit = await env.ctx.db.selectFrom('audit_log').select('details').execute()
        expect(JSON.stringify(audit)).not.toContain(secret)
        const stored = await env.ctx.db.selectFrom('alerts').selectAll().execute()
        expect(JSON.stringify(stored)).not.toContain(secret)
      }
    })
  })

  describe(`alerts with a dead SMTP server [${dialect}]`, () => {
    let env: TestEnv

    beforeAll(async () => {
      // a port nobody listens on
      const probe = await startReceiver()
      const deadPort = probe.port
      await probe.close()
      env = await startTestApp(dialect, {
        logger: pino(loggerOptions('trace'), logSink),
        env: {
          DG_ALERT_SMTP_HOST: '127.0.0.1',
          DG_ALERT_SMTP_PORT: String(deadPort),
          DG_ALERT_SMTP_TLS: 'none',
          DG_ALERT_SMTP_USER: SMTP_USER,
          DG_ALERT_SMTP_PASSWORD: SMTP_PASSWORD,
          DG_ALERT_EMAIL_TO: 'ops@ceny.example.pl',
          DG_ALERT_RETRY_BASE_MS: String(RETRY_BASE_MS),
          DG_ALERT_MAX_ATTEMPTS: '3',
        },
      })
      await setUpDemo(env.ctx)
    })
    afterAll(async () => {
      await env?.app.close()
      await env?.database.cleanup()
    })

    it('publishes all the same, records the e-mail as failed and says so in the log without the password', async () => {
      await updatePublicationSettings(env.ctx, { public_base_url: 'http://127.0.0.1:9/dane-gov' }, { type: 'cli' })
      env.clock.set('2026-11-20T00:40:00+01:00')
      expect(await runScheduledPublication(env.ctx)).toBe('published')
      // the next run finds a missed day, and the licence lapsed meanwhile: the e-mails cannot go
      await setLicense(env.ctx, {
        plan: 'pro',
        entitlements: ['api_webhooks'],
        validUntil: '2026-11-21',
        actor: { type: 'cli' },
      })
      env.clock.set('2026-11-22T00:40:00+01:00')
      const logsBefore = lines.length
      expect(await runScheduledPublication(env.ctx)).toBe('published')
      const served = await env.app.inject({ method: 'GET', url: '/dane-gov/dataset.xml' })
      expect(served.statusCode).toBe(200)
      expect(served.body).toContain('2026-11-22')

      // the fake address of the files (port 9) fails the delivery check as well
      const alerts = (await recentAlerts(env.ctx)).filter((a) => a.day === '2026-11-22')
      expect(alerts.map((a) => a.cause).sort()).toEqual(['delivery_failed', 'license_continuity', 'missed_days'])
      for (const alert of alerts) {
        expect(alert.state).toBe('failed')
        expect(alert.channels).toEqual([
          expect.objectContaining({
            channel: 'email',
            status: 'failed',
            attempts: 3,
            error: expect.stringMatching(/ECONNREFUSED|ECONNECTION|ESOCKET/),
            error_code: 'network_connection_refused',
            error_pl: expect.stringContaining('Serwer odrzucił połączenie'),
          }),
        ])
      }
      const logged = lines.slice(logsBefore).join('')
      expect(logged).toContain('alert channel gave up')
      expect(logged).not.toContain(SMTP_PASSWORD)
    })
  })

  describe(`alerts of a file published with gaps [${dialect}]`, () => {
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let env: TestEnv
    let admin: TestUser

    beforeAll(async () => {
      receiver = await startReceiver()
      env = await startTestApp(dialect, {
        env: {
          DG_ALERT_WEBHOOK_URL: `http://127.0.0.1:${receiver.port}${WEBHOOK_PATH}`,
          DG_ALERT_WEBHOOK_SECRET: WEBHOOK_SECRET,
          DG_ALERT_RETRY_BASE_MS: String(RETRY_BASE_MS),
        },
      })
      await setUpDemo(env.ctx)
      admin = await createTestUser(env.ctx, 'administrator')
      await updatePublicationSettings(env.ctx, { public_base_url: 'http://127.0.0.1:9/dane-gov' }, { type: 'cli' })
    })
    afterAll(async () => {
      await env?.app.close()
      await env?.database.cleanup()
      await receiver?.close()
    })

    it('an offered flat without a price is published as X and told once that day, with what to do', async () => {
      const body = multipart(
        { mode: 'patch', mapping: JSON.stringify(MAPPING) },
        {
          name: 'oferty.csv',
          content: `${HEADER}\n${offerLine(1, 'dostępne')}\nW-ALERT;L-2;mieszkanie;dostępne;48,00;;;;Łódź\n`,
        },
      )
      const preview = await env.app.inject({
        method: 'POST',
        url: '/wp-json/dg/v2/imports/offer',
        payload: body.payload,
        headers: { ...body.headers, authorization: admin.authorization },
      })
      expect(preview.json().preview?.errors, preview.body).toEqual([])
      const done = await env.app.inject({
        method: 'POST',
        url: '/wp-json/dg/v2/imports/offer',
        payload: `job_id=${preview.json().id}&confirm_archiving=false`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': `gaps-${dialect}`,
          authorization: admin.authorization,
        },
      })
      expect(done.statusCode, done.body).toBe(200)

      env.clock.set('2026-11-20T00:40:00+01:00')
      expect(await runScheduledPublication(env.ctx)).toBe('published')
      const gaps = receiver.received.map(expectSigned).filter((b) => b.cause === 'publication_gaps')
      expect(gaps).toHaveLength(1)
      expect(gaps[0]).toMatchObject({
        day: '2026-11-20',
        severity: 'warning',
        details: { codes: expect.arrayContaining(['offer_price_missing']) },
      })
      expect(gaps[0]?.text).toEqual(expect.stringContaining('L-2'))
      expect(gaps[0]?.text).toEqual(expect.stringContaining('uzupełnij cenę'))

      // published again the same day (forced, as the demo does): told once per day
      expect(await runScheduledPublication(env.ctx, { force: true })).toBe('published')
      expect(receiver.received.map(expectSigned).filter((b) => b.cause === 'publication_gaps')).toHaveLength(1)
    })
  })
}
