import fs from 'node:fs'
import path from 'node:path'

import { beforeAll, describe, expect, it } from 'vitest'

import { runCli } from '../../src/cli/main.js'
import { openDatabase } from '../../src/host/db/database.js'
import { sendPropertyEvent, WebhookSendError } from '../../src/webhook/sender.js'
import { verifySignedRequest } from '../../src/webhook/verify-signature.js'
import { rotateWebhookSecret } from '../../src/webhook/webhook-secret.js'
import { grantProLicense } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

describeEachDatabase('reference webhook sender against a listening server', (getEnv) => {
  let env: TestEnv
  let url: string
  let secret: string
  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    secret = (await rotateWebhookSecret(env.ctx, { type: 'cli' })).secret
    env.clock.set(new Date().toISOString())
    url = `${await env.app.listen({ host: '127.0.0.1', port: 0 })}/wp-json/dg/v2/webhooks/properties`
  })

  it('delivers an event, and a retry of the same key and body learns that it was applied', async () => {
    const payload = {
      source_investment_id: 'SND',
      source_property_id: '1',
      prop_type: 'mieszkanie',
      price_total: '400000.00',
      price_total_from: '2026-05-01',
    }
    const first = await sendPropertyEvent({ url, secret, idempotencyKey: 'sender-evt-0001', payload })
    expect(first).toMatchObject({
      status: 202,
      replayed: false,
      attempts: 1,
      result: { status: 'completed', created: 1 },
    })
    const again = await sendPropertyEvent({ url, secret, idempotencyKey: 'sender-evt-0001', payload })
    expect(again).toMatchObject({ status: 200, replayed: true, result: first.result })
    const conflict = await sendPropertyEvent({
      url,
      secret,
      idempotencyKey: 'sender-evt-0001',
      payload: { ...payload, price_total: '1.00', price_total_from: '2026-05-02' },
    }).catch((e: unknown) => e)
    expect(conflict).toBeInstanceOf(WebhookSendError)
    expect(conflict).toMatchObject({ code: 'idempotency_body_conflict', status: 409, attempts: 1 })
  })

  it('runs as dg webhook send with the secret from a file', async () => {
    const dir = env.database.dataDir
    fs.writeFileSync(path.join(dir, 'secret.txt'), `${secret}\n`)
    fs.writeFileSync(
      path.join(dir, 'event.json'),
      JSON.stringify({ source_investment_id: 'SND', source_property_id: '2', prop_type: 'dom' }),
    )
    let stdout = ''
    let stderr = ''
    const code = await runCli(
      [
        'webhook',
        'send',
        '--url',
        url,
        '--secret-file',
        path.join(dir, 'secret.txt'),
        '--key',
        'sender-cli-0001',
        path.join(dir, 'event.json'),
        '--json',
      ],
      {
        config: env.config,
        io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
        openDatabase: () => openDatabase(env.database.connection),
      },
    )
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ status: 202, result: { created: 1 } })
  })
})

describe('reference webhook sender retry rules', () => {
  const secret = 'dgwh_test-secret'
  function scripted(
    responses: Array<{ status: number; body?: unknown; headers?: Record<string, string> } | 'network'>,
  ) {
    const seen: Array<{ headers: Record<string, string>; body: Buffer }> = []
    const fetchImpl: typeof fetch = async (_url, init) => {
      seen.push({ headers: init?.headers as Record<string, string>, body: Buffer.from(init?.body as Buffer) })
      const next = responses.shift()
      if (!next || next === 'network') throw new TypeError('fetch failed')
      return new Response(next.body === undefined ? '' : JSON.stringify(next.body), {
        status: next.status,
        headers: next.headers ?? {},
      })
    }
    return { fetchImpl, seen }
  }

  it('waits Retry-After on webhook_in_progress and signs every attempt anew with the same body and key', async () => {
    const { fetchImpl, seen } = scripted([
      { status: 409, body: { error: 'webhook_in_progress' }, headers: { 'retry-after': '3' } },
      'network',
      { status: 503, body: { error: 'execution_storage_unavailable' } },
      { status: 202, body: { accepted: true, result: { status: 'completed' } } },
    ])
    const waits: number[] = []
    const result = await sendPropertyEvent({
      url: 'http://x',
      secret,
      idempotencyKey: 'retry-evt-01',
      payload: { a: '1' },
      fetch: fetchImpl,
      sleep: async (ms) => void waits.push(ms),
      baseDelayMs: 100,
    })
    expect(result).toMatchObject({ status: 202, attempts: 4 })
    expect(waits).toEqual([3000, 100, 200])
    expect(new Set(seen.map((s) => s.headers['x-dg-nonce'])).size).toBe(4)
    expect(new Set(seen.map((s) => s.body.toString())).size).toBe(1)
    expect(new Set(seen.map((s) => s.headers['idempotency-key']))).toEqual(new Set(['retry-evt-01']))
    for (const attempt of seen) {
      const verified = verifySignedRequest({
        headers: attempt.headers,
        rawBody: attempt.body,
        secret,
        nowSeconds: Math.floor(Date.now() / 1000),
      })
      expect(verified.ok).toBe(true)
    }
  })

  it('keeps waiting for an execution in progress longer than its attempts allow, within a total wait', async () => {
    // a long import: 12 answers "in progress" (60 s) before the event applies; maxAttempts bounds failures only
    const busy = Array.from({ length: 12 }, () => ({
      status: 409,
      body: { error: 'webhook_in_progress' },
      headers: { 'retry-after': '5' },
    }))
    const long = scripted([...busy, { status: 202, body: { accepted: true, result: { status: 'completed' } } }])
    const waits: number[] = []
    const result = await sendPropertyEvent({
      url: 'http://x',
      secret,
      idempotencyKey: 'long-import-evt-01',
      payload: { a: '1' },
      fetch: long.fetchImpl,
      sleep: async (ms) => void waits.push(ms),
    })
    expect(result).toMatchObject({ status: 202, attempts: 13 })
    expect(waits).toEqual(Array.from({ length: 12 }, () => 5000))
    expect(new Set(long.seen.map((s) => s.headers['x-dg-nonce'])).size).toBe(13)

    // past the total wait, the sender gives up and says why
    const endless = scripted(Array.from({ length: 10 }, () => busy[0]!))
    await expect(
      sendPropertyEvent({
        url: 'http://x',
        secret,
        idempotencyKey: 'long-import-evt-02',
        payload: '{}',
        fetch: endless.fetchImpl,
        sleep: async () => undefined,
        maxInProgressWaitSeconds: 12,
      }),
    ).rejects.toMatchObject({ code: 'webhook_in_progress', status: 409, attempts: 3 })
    expect(endless.seen).toHaveLength(3)
  })

  it('stops at once on conflicts, validation failures and recovery_required, and gives up after bounded retries', async () => {
    for (const [status, error] of [
      [409, 'idempotency_body_conflict'],
      [422, 'validation_failed'],
      [409, 'recovery_required'],
      [503, 'recovery_required'],
    ] as const) {
      const { fetchImpl, seen } = scripted([{ status, body: { error } }])
      await expect(
        sendPropertyEvent({
          url: 'http://x',
          secret,
          idempotencyKey: 'stop-evt-01',
          payload: '{}',
          fetch: fetchImpl,
          sleep: async () => undefined,
        }),
      ).rejects.toMatchObject({ code: error, status })
      expect(seen).toHaveLength(1)
    }
    const { fetchImpl, seen } = scripted(Array.from({ length: 10 }, () => 'network' as const))
    await expect(
      sendPropertyEvent({
        url: 'http://x',
        secret,
        idempotencyKey: 'down-evt-01',
        payload: '{}',
        fetch: fetchImpl,
        sleep: async () => undefined,
        maxAttempts: 4,
      }),
    ).rejects.toMatchObject({ code: 'network_error', attempts: 4 })
    expect(seen).toHaveLength(4)
  })
})
