/*
 * A fresh install started after the schedule's time has nobody to tell and nothing to publish: no
 * catch-up, no scheduled run and no alert (by the schedule or the hourly rules) until there is an
 * active administrator and a developer entity. Once both exist the schedule publishes as always,
 * and a failed publication says whether an earlier file is still served, never claiming a
 * previous version when nothing was ever published.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { recentAlerts } from '../../src/alerts/alert-service.js'
import { MAINTENANCE_JOBS } from '../../src/maintenance-jobs.js'
import { runScheduledPublication, startPublicationSchedule } from '../../src/publication/publication-schedule.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { TEST_DIALECTS } from '../helpers/databases.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'

const WEBHOOK_PATH = '/alerts'

/** The notification webhook's receiver: every alert sent, as its JSON body. */
async function startReceiver() {
  const received: Array<Record<string, unknown>> = []
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${WEBHOOK_PATH}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

for (const dialect of TEST_DIALECTS) {
  describe(`a fresh install before its set-up [${dialect}]`, () => {
    let env: TestEnv
    let receiver: Awaited<ReturnType<typeof startReceiver>>

    /** The service's start: the schedule with its catch-up, then the hourly alert rules. */
    const start = async () => {
      const running = await startPublicationSchedule(env.ctx, { reloadMs: 60_000 })
      try {
        const outcome = await running.catchUp
        const alerts = MAINTENANCE_JOBS.find((job) => job.name === 'alerts')
        if (!alerts) throw new Error('no alerts job')
        return { outcome, hourly: await alerts.run(env.ctx) }
      } finally {
        running.stop()
      }
    }
    const publications = () => env.ctx.db.selectFrom('publications').selectAll().orderBy('id').execute()

    beforeAll(async () => {
      receiver = await startReceiver()
      env = await startTestApp(dialect, {
        env: { DG_ALERT_WEBHOOK_URL: receiver.url, DG_ALERT_WEBHOOK_SECRET: 'fresh-install-secret-0123456789abcdef' },
      })
    })
    afterAll(async () => {
      await env?.app.close()
      await env?.database.cleanup()
      await receiver?.close()
    })

    it('started after the schedule’s time with no administrator, publishes nothing and alerts nobody', async () => {
      env.clock.set('2026-11-20T10:00:00+01:00') // 00:30 has passed today
      expect(await start()).toEqual({ outcome: 'not_set_up', hourly: { alertsRaised: 0, alertsResent: 0 } })
      // a disabled administrator is nobody to tell either
      const disabled = await createTestUser(env.ctx, 'administrator')
      await env.ctx.db
        .updateTable('users')
        .set({ disabled_at: env.clock.now().toISOString() })
        .where('id', '=', disabled.id)
        .execute()
      expect((await start()).outcome).toBe('not_set_up')
      expect(await publications()).toEqual([])
      expect(await recentAlerts(env.ctx)).toEqual([])
      expect(receiver.received).toEqual([])
    })

    let admin: TestUser
    it('with an administrator but no developer entity, the same: not even a failed publication', async () => {
      admin = await createTestUser(env.ctx, 'administrator')
      env.clock.set('2026-11-21T09:00:00+01:00')
      expect(await start()).toEqual({ outcome: 'not_set_up', hourly: { alertsRaised: 0, alertsResent: 0 } })
      // the schedule's own run at its time too
      env.clock.set('2026-11-22T00:30:00+01:00')
      expect(await runScheduledPublication(env.ctx)).toBe('not_set_up')
      expect(await publications()).toEqual([])
      expect(await recentAlerts(env.ctx)).toEqual([])
      expect(receiver.received).toEqual([])
    })

    it('once both exist, a failed first publication alerts without promising a previous version', async () => {
      const developer = await env.app.inject({
        method: 'POST',
        url: '/wp-json/dg/v2/developers',
        headers: { authorization: admin.authorization },
        payload: { name: 'Dom Deweloper sp. z o.o.', nip: '5251234560' },
      })
      expect(developer.statusCode, developer.body).toBe(201)
      // no public address of the files yet: the first publication fails with public_base_url_missing
      env.clock.set('2026-11-22T09:00:00+01:00')
      expect((await start()).outcome).toBe('failed')
      const [failed] = await recentAlerts(env.ctx)
      expect(failed).toMatchObject({
        cause: 'publication_failed',
        day: '2026-11-22',
        details: { issues: ['public_base_url_missing'], earlier_file_served: false },
      })
      expect(failed?.message_pl).toContain('Nie opublikowano jeszcze żadnego pliku')
      expect(failed?.message_pl).not.toContain('Poprzednia wersja')
      expect(failed?.message_en).not.toContain('previous version')
      expect(receiver.received.map((body) => body.cause)).toEqual(['publication_failed'])
    })

    it('then the schedule publishes, and a later failure says the earlier file is still served', async () => {
      await updatePublicationSettings(env.ctx, { public_base_url: 'http://127.0.0.1:9/dane-gov' }, { type: 'cli' })
      env.clock.set('2026-11-22T10:00:00+01:00')
      expect((await start()).outcome).toBe('published')
      env.clock.set('2026-11-23T00:30:00+01:00')
      expect(await runScheduledPublication(env.ctx)).toBe('published')
      expect((await publications()).filter((p) => p.status === 'published').map((p) => p.publication_date)).toEqual([
        '2026-11-22',
        '2026-11-23',
      ])

      await updatePublicationSettings(env.ctx, { public_base_url: null }, { type: 'cli' })
      env.clock.set('2026-11-24T00:30:00+01:00')
      expect(await runScheduledPublication(env.ctx)).toBe('failed')
      const failed = (await recentAlerts(env.ctx)).find(
        (a) => a.cause === 'publication_failed' && a.day === '2026-11-24',
      )
      expect(failed?.details).toMatchObject({ earlier_file_served: true })
      expect(failed?.message_pl).toContain('Poprzednia wersja jest nadal udostępniana')
    })
  })
}
