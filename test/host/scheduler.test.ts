import { expect, it } from 'vitest'

import { listAudit } from '../../src/host/audit/audit.js'
import { runScheduledJob } from '../../src/host/scheduler.js'
import { MAINTENANCE_JOBS } from '../../src/maintenance-jobs.js'
import { describeEachDatabase } from '../helpers/test-app.js'

describeEachDatabase('scheduled maintenance', (env) => {
  it('removes expired import jobs and sessions, and keeps running after a failing job', async () => {
    const { ctx, clock } = env()
    const now = clock.now().toISOString()
    await ctx.db
      .insertInto('import_jobs')
      .values({
        id: 'a'.repeat(32),
        type: 'offer',
        mode: 'patch',
        status: 'previewed',
        operator_user_id: null,
        operator_name: 't',
        file_name: 'f.csv',
        file_sha256: '',
        file_format: 'csv',
        mapping: '{}',
        counters: '{}',
        errors: '[]',
        archive_scope: '{}',
        plan_digest: '',
        created_at: now,
        updated_at: now,
        expires_at: new Date(clock.now().getTime() - 1000).toISOString(),
      })
      .execute()
    const retention = MAINTENANCE_JOBS.find((job) => job.name === 'retention')
    if (!retention) throw new Error('no retention job')
    await runScheduledJob(ctx, retention)
    expect(await ctx.db.selectFrom('import_jobs').selectAll().execute()).toEqual([])

    await runScheduledJob(ctx, {
      name: 'broken',
      pattern: '* * * * *',
      run: async () => Promise.reject(new Error('disk full')),
    })
    const audit = await listAudit(ctx, { action: 'schedule.broken', limit: 5 })
    expect(audit).toEqual([
      expect.objectContaining({
        outcome: 'failure',
        actor: expect.objectContaining({ type: 'scheduler' }),
        details: { message: 'disk full' },
      }),
    ])
  })
})
