/*
 * Recovery of executions a process left unfinished: nothing of them committed (see
 * docs/decisions/import-two-steps.md), so their jobs can be executed again.
 */
import { recordAudit } from '../../host/audit/audit.js'
import type { HostContext } from '../../host/context.js'
import { isLockOwnerAlive, releaseLock } from '../../host/locks.js'
import { selectRunningJobs, transitionJob } from '../import-jobs-repository.js'
import { IMPORT_LOCK } from '../import-job-lifecycle.js'

/**
 * A job left `running` by a process that died has not committed (completion commits with the
 * writes), so it goes back to `previewed` and can be executed again. A run counts as alive while
 * its lock lease lasts; on this machine a holder whose process is gone is dead at once (SQLite
 * files are shared only by processes of one host: `dg serve` and `dg import`, say).
 */
export async function recoverInterruptedImports(ctx: HostContext): Promise<number> {
  let recovered = 0
  const lock = await ctx.db.selectFrom('locks').selectAll().where('name', '=', IMPORT_LOCK).executeTakeFirst()
  const lockAlive = lock !== undefined && lock.expires_at >= ctx.now().toISOString() && isLockOwnerAlive(lock.owner)
  for (const job of await selectRunningJobs(ctx.db)) {
    if (lockAlive && lock.owner === job.run_token) continue
    await ctx.db.transaction().execute(async (trx) => {
      const reset = await transitionJob(trx, job.id, 'running', {
        status: 'previewed',
        idempotency_key: null,
        run_token: null,
        started_at: null,
        updated_at: ctx.now().toISOString(),
      })
      if (!reset) return
      if (job.run_token) await releaseLock(trx, IMPORT_LOCK, job.run_token)
      await recordAudit(
        ctx,
        {
          actor: { type: 'system' },
          action: 'import.recovered',
          objectType: 'import_job',
          objectId: job.id,
          outcome: 'success',
          details: { file: job.file_name, reason: 'execution interrupted before commit; nothing was written' },
        },
        trx,
      )
      recovered++
    })
  }
  // a lock whose holder died without a running job (crash before the job was marked) is removed
  if (lock && !lockAlive) await releaseLock(ctx.db, IMPORT_LOCK, lock.owner)
  return recovered
}
