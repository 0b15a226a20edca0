/*
 * Settings an operator changes in the panel take effect at once, without a restart:
 * - the schedule: its next runs are answered with the save, and a running schedule follows a
 *   change saved by another instance within its reload period;
 * - the alert channels: e-mail (SMTP, a local server) and the notification webhook (a local
 *   receiver) set over the API, used by the next alert, with a test alert; secrets never answered
 *   back; a channel the environment sets wins and cannot be set in the panel;
 * - the licence: seen with what it lets run, installed (audited), the refusal of a licensed
 *   function ending with it;
 * - `dg publication publish` republishes a failed first day once its cause is corrected.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { runCli } from '../../src/cli/main.js'
import { openDatabase } from '../../src/host/db/database.js'
import { startPublicationSchedule } from '../../src/publication/publication-schedule.js'
import { runScheduledPublication } from '../../src/publication/publication-schedule.js'
import { TEST_DIALECTS } from '../helpers/databases.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
const SMTP_PASSWORD = 'panel-smtp-Pa55-never-answered'
const WEBHOOK_SECRET = 'panel-webhook-secret-never-answered-0123456789'
const WEBHOOK_PATH = '/hooks/T0KEN-never-answered'

async function startSmtp() {
  const mails: Array<{ to: string[]; raw: string }> = []
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.password === SMTP_PASSWORD) callback(null, { user: auth.username })
      else callback(new Error('Invalid username or password'))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

async function startReceiver() {
  const received: Array<{ url: string; body: string }> = []
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      received.push({ url: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') })
      response.writeHead(200).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

for (const dialect of TEST_DIALECTS) {
  describe(`operator settings without a restart [${dialect}]`, () => {
    let env: TestEnv
    let admin: TestUser
    let smtp: Awaited<ReturnType<typeof startSmtp>>
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    const call = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) =>
      env.app.inject({
        method,
        url: `${API}${url}`,
        headers: { authorization: admin.authorization },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      })

    beforeAll(async () => {
      env = await startTestApp(dialect)
      admin = await createTestUser(env.ctx, 'administrator')
      smtp = await startSmtp()
      receiver = await startReceiver()
    })
    afterAll(async () => {
      await smtp?.close()
      await receiver?.close()
      await env?.app.close()
      await env?.database.cleanup()
    })

    it('answers the schedule’s next runs with the save, and a running schedule follows the change', async () => {
      env.clock.set('2026-11-20T10:00:00Z') // 11:00 in Warsaw
      const before = await call('GET', '/publication/settings')
      expect(before.json()).toMatchObject({
        schedule: '30 0 * * *',
        schedule_time: { time: '00:30', days: [0, 1, 2, 3, 4, 5, 6] },
        next_runs: ['2026-11-20T23:30:00.000Z', '2026-11-21T23:30:00.000Z', '2026-11-22T23:30:00.000Z'],
      })
      const running = await startPublicationSchedule(env.ctx, { reloadMs: 20 })
      // 00:30 has passed today, but there is no developer entity yet: nothing to catch up
      expect(await running.catchUp).toBe('not_set_up')
      try {
        expect(running.nextRun()).toMatch(/T23:30:00/)
        const saved = await call('PUT', '/publication/settings', { schedule: '0 2 * * 1,2,3,4,5' })
        expect(saved.statusCode, saved.body).toBe(200)
        // 02:00 Warsaw is 01:00 UTC in winter; 21.11.2026 is a Saturday, so Monday 23.11 comes first
        expect(saved.json()).toMatchObject({
          schedule: '0 2 * * 1,2,3,4,5',
          schedule_time: { time: '02:00', days: [1, 2, 3, 4, 5] },
          next_runs: ['2026-11-23T01:00:00.000Z', '2026-11-24T01:00:00.000Z', '2026-11-25T01:00:00.000Z'],
        })
        await expect.poll(() => running.nextRun(), { timeout: 2000 }).toMatch(/T01:00:00/)
      } finally {
        running.stop()
      }
      const refused = await call('PUT', '/publication/settings', { schedule: 'every day' })
      expect(refused.statusCode).toBe(422)
      expect((await call('GET', '/publication/settings')).json().schedule).toBe('0 2 * * 1,2,3,4,5')
    })

    it('sets the alert channels in the panel, uses them for a test alert, and never answers a secret back', async () => {
      expect((await call('GET', '/alerts/settings')).json()).toMatchObject({
        email: { source: null, to: [], password_set: false },
        webhook: { source: null, origin: null, secret_set: false },
      })
      const noChannel = await call('POST', '/alerts/test', {})
      expect(noChannel.statusCode).toBe(400)
      expect(noChannel.json().code).toBe('alerts_not_configured')

      const wrong = await call('PUT', '/alerts/settings', {
        email: { host: 'smtp example', to: ['ops'], from: 'x' },
        webhook: { url: 'ftp://x', secret: 'short' },
      })
      expect(wrong.statusCode).toBe(422)
      expect(
        wrong
          .json()
          .issues.map((i: { field: string }) => i.field)
          .sort(),
      ).toEqual(['email.from', 'email.host', 'email.to', 'webhook.secret', 'webhook.url'])
      expect((await call('GET', '/alerts/settings')).json().email.source).toBe(null)

      const saved = await call('PUT', '/alerts/settings', {
        email: {
          host: '127.0.0.1',
          port: smtp.port,
          tls: 'none',
          user: 'alerts@ceny.example.pl',
          password: SMTP_PASSWORD,
          to: ['biuro@ceny.example.pl', ' szef@ceny.example.pl '],
        },
        webhook: { url: `http://127.0.0.1:${receiver.port}${WEBHOOK_PATH}`, secret: WEBHOOK_SECRET },
      })
      expect(saved.statusCode, saved.body).toBe(200)
      expect(saved.json()).toMatchObject({
        email: {
          source: 'panel',
          host: '127.0.0.1',
          from: 'alerts@ceny.example.pl',
          to: ['biuro@ceny.example.pl', 'szef@ceny.example.pl'],
          password_set: true,
        },
        webhook: { source: 'panel', origin: `http://127.0.0.1:${receiver.port}`, secret_set: true },
      })
      for (const answer of [saved.body, (await call('GET', '/alerts/settings')).body]) {
        expect(answer).not.toContain(SMTP_PASSWORD)
        expect(answer).not.toContain(WEBHOOK_SECRET)
        expect(answer).not.toContain('T0KEN')
      }

      const test = await call('POST', '/alerts/test', {})
      expect(test.statusCode, test.body).toBe(200)
      expect(test.json()).toMatchObject({
        cause: 'test',
        state: 'delivered',
        channels: expect.arrayContaining([
          expect.objectContaining({ channel: 'email', status: 'sent', attempts: 1 }),
          expect.objectContaining({ channel: 'webhook', status: 'sent', attempts: 1 }),
        ]),
      })
      expect(smtp.mails.at(-1)?.to).toEqual(['biuro@ceny.example.pl', 'szef@ceny.example.pl'])
      expect(receiver.received.at(-1)?.url).toBe(WEBHOOK_PATH)
      expect(JSON.parse(receiver.received.at(-1)?.body ?? '{}')).toMatchObject({ cause: 'test', event: 'dg.alert' })

      // a save without the password keeps it; turning the webhook off leaves e-mail alone
      const kept = await call('PUT', '/alerts/settings', {
        email: {
          host: '127.0.0.1',
          port: smtp.port,
          tls: 'none',
          user: 'alerts@ceny.example.pl',
          to: ['biuro@ceny.example.pl'],
        },
        webhook: null,
      })
      expect(kept.json()).toMatchObject({
        email: { password_set: true, to: ['biuro@ceny.example.pl'] },
        webhook: { source: null },
      })
      const second = await call('POST', '/alerts/test', {})
      expect(second.json()).toMatchObject({
        state: 'delivered',
        channels: [expect.objectContaining({ channel: 'email' })],
      })
      expect(smtp.mails.at(-1)?.to).toEqual(['biuro@ceny.example.pl'])

      const audit = await env.ctx.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'alerts.settings')
        .execute()
      expect(audit).toHaveLength(2)
      for (const row of audit) {
        expect(JSON.stringify(row)).not.toContain(SMTP_PASSWORD)
        expect(JSON.stringify(row)).not.toContain(WEBHOOK_SECRET)
        expect(JSON.stringify(row)).not.toContain('T0KEN')
      }
    })

    it('lets the environment win for the channel it sets', async () => {
      const other = await startTestApp(dialect, {
        env: {
          DG_ALERT_WEBHOOK_URL: `http://127.0.0.1:${receiver.port}/env-hook`,
          DG_ALERT_WEBHOOK_SECRET: 'e'.repeat(40),
        },
      })
      try {
        const otherAdmin = await createTestUser(other.ctx, 'administrator')
        const put = (payload: unknown) =>
          other.app.inject({
            method: 'PUT',
            url: `${API}/alerts/settings`,
            headers: { authorization: otherAdmin.authorization },
            payload: payload as Record<string, unknown>,
          })
        const refused = await put({ webhook: { url: 'https://hooks.example.com/x', secret: 'w'.repeat(40) } })
        expect(refused.statusCode).toBe(422)
        expect(refused.json().issues).toEqual([
          expect.objectContaining({ field: 'webhook', code: 'set_by_environment' }),
        ])
        const view = await other.app.inject({
          method: 'GET',
          url: `${API}/alerts/settings`,
          headers: { authorization: otherAdmin.authorization },
        })
        expect(view.json().webhook).toEqual({
          source: 'environment',
          origin: `http://127.0.0.1:${receiver.port}`,
          secret_set: true,
        })
      } finally {
        await other.app.close()
        await other.database.cleanup()
      }
    })

    it('shows the licence with what it lets run, and installing one ends the refusal at once', async () => {
      const refused = await call('POST', '/publications', {})
      expect(refused.statusCode).toBe(403)
      expect(refused.json()).toEqual({ error: 'pro_feature_required', feature: 'api_webhooks' })
      const before = await call('GET', '/license')
      expect(before.json()).toMatchObject({ status: 'inactive', continuity_mode: true })
      expect(before.json().functions).toContainEqual({
        function: 'publication',
        entitlement: 'api_webhooks',
        allowed: false,
      })

      const bad = await call('PUT', '/license', { plan: 'pro', entitlements: ['everything'] })
      expect(bad.statusCode).toBe(400)
      const installed = await call('PUT', '/license', {
        plan: 'pro',
        entitlements: ['api_webhooks', 'bulk_import'],
        valid_until: '2027-12-31',
      })
      expect(installed.statusCode, installed.body).toBe(200)
      expect(installed.json()).toMatchObject({ status: 'active', continuity_mode: false, valid_until: '2027-12-31' })
      expect(installed.json().functions).toEqual(
        expect.arrayContaining([
          { function: 'publication', entitlement: 'api_webhooks', allowed: true },
          { function: 'offer_import', entitlement: 'bulk_import', allowed: true },
          { function: 'preflight', entitlement: 'publishing_gov', allowed: false },
        ]),
      )
      const status = await call('GET', '/status')
      expect(status.statusCode).toBe(200)
      const audit = await env.ctx.db.selectFrom('audit_log').selectAll().where('action', '=', 'license.set').execute()
      expect(audit.at(-1)).toMatchObject({ outcome: 'success' })
    })

    it('republishes a failed first day with dg publication publish once the cause is corrected', async () => {
      // the command reads the real clock, so the service's is set to it
      env.clock.set(new Date().toISOString())
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Warsaw' }).format(env.clock.now())
      // no developer entity yet: the schedule waits, and a publication by hand fails
      expect(await runScheduledPublication(env.ctx)).toBe('not_set_up')
      const cli = async (args: string[]) => {
        let stdout = ''
        let stderr = ''
        const code = await runCli(args, {
          config: env.config,
          io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
          openDatabase: () => openDatabase(env.database.connection),
        })
        return { code, stdout, stderr }
      }
      const failing = await cli(['publication', 'publish'])
      expect(failing.code).not.toBe(0)
      expect(failing.stderr).toContain('developer_missing')
      const developer = await call('POST', '/developers', { name: 'Dom Deweloper sp. z o.o.', nip: '5251234560' })
      expect(developer.statusCode, developer.body).toBe(201)
      expect(
        (await call('PUT', '/publication/settings', { public_base_url: 'http://127.0.0.1/dane-gov' })).statusCode,
      ).toBe(200)
      const done = await cli(['publication', 'publish', '--json'])
      expect(done.code, done.stderr).toBe(0)
      expect(JSON.parse(done.stdout)).toMatchObject({ status: 'published', date: today, trigger: 'cli' })
      const rows = await env.ctx.db
        .selectFrom('publications')
        .select(['status', 'trigger'])
        .where('publication_date', '=', today)
        .orderBy('id')
        .execute()
      expect(rows.map((r) => `${r.trigger}:${r.status}`)).toContain('cli:published')
      expect(rows.map((r) => r.trigger)).not.toContain('schedule')
    })
  })
}
