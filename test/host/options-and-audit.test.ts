import { sql } from 'kysely'
import { expect, it } from 'vitest'

import { listAudit, recordAudit } from '../../src/host/audit/audit.js'
import { getAutoloadedOptions, getOption, setOption } from '../../src/host/options/options.js'
import { getWebhookSecret, rotateWebhookSecret, WEBHOOK_SECRET_OPTION } from '../../src/webhook/webhook-secret.js'
import { describeEachDatabase } from '../helpers/test-app.js'

describeEachDatabase('site options, webhook secret and audit log', (env) => {
  it('keeps the autoload flag and round-trips JSON values', async () => {
    const { ctx } = env()
    await setOption(ctx, 'dg_site_label', { name: 'Demo', tags: ['a'] })
    await setOption(ctx, 'dg_private_note', 'x', { autoload: false })
    expect(await getOption(ctx, 'dg_site_label')).toEqual({ name: 'Demo', tags: ['a'] })
    const autoloaded = await getAutoloadedOptions(ctx)
    expect(autoloaded).toHaveProperty('dg_site_label')
    expect(autoloaded).not.toHaveProperty('dg_private_note')
  })

  it('stores the webhook secret in its own non-autoloaded option and replaces it at once on rotation', async () => {
    const { ctx } = env()
    const first = await rotateWebhookSecret(ctx, { type: 'cli' })
    const second = await rotateWebhookSecret(ctx, { type: 'cli' })
    expect(second.secret).not.toBe(first.secret)
    expect((await getWebhookSecret(ctx))?.secret).toBe(second.secret)
    expect(await getAutoloadedOptions(ctx)).not.toHaveProperty(WEBHOOK_SECRET_OPTION)
    const stored = await ctx.db.selectFrom('options').selectAll().execute()
    expect(JSON.stringify(stored)).not.toContain(first.secret)
    const audit = await listAudit(ctx, { action: 'webhook_secret.rotate', limit: 10 })
    expect(audit.length).toBeGreaterThanOrEqual(2)
    expect(JSON.stringify(audit)).not.toContain(second.secret)
  })

  it('records who did what with the outcome, and the database refuses to change or delete an entry', async () => {
    const { ctx } = env()
    const id = await recordAudit(ctx, {
      actor: { type: 'user', userId: 1, login: 'anna', credential: 'crm sync' },
      action: 'test.action',
      objectType: 'offer',
      objectId: 12,
      outcome: 'success',
      details: { created: 3 },
    })
    await recordAudit(ctx, { actor: { type: 'scheduler' }, action: 'test.action', outcome: 'failure' })
    const entries = await listAudit(ctx, { action: 'test.action', limit: 10 })
    expect(entries.map((e) => e.actor.type)).toEqual(['scheduler', 'user'])
    expect(entries[1]).toMatchObject({
      id,
      object_type: 'offer',
      object_id: '12',
      outcome: 'success',
      details: { created: 3 },
      actor: { name: 'anna', credential: 'crm sync' },
    })

    await expect(sql`UPDATE audit_log SET outcome = 'failure' WHERE id = ${id}`.execute(ctx.db)).rejects.toThrow(
      /append-only/,
    )
    await expect(sql`DELETE FROM audit_log WHERE id = ${id}`.execute(ctx.db)).rejects.toThrow(/append-only/)
    const still = await listAudit(ctx, { action: 'test.action', limit: 10 })
    expect(still).toHaveLength(2)
  })
})
