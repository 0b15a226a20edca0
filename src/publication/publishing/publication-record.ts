/*
 * Every publication that ran is recorded, published or failed: a row of the publications table
 * (the history, /status, the schedule's "done today") and an audit entry. A published one is
 * recorded in one transaction with its audit entry; a failed one as far as the database allows.
 */
import { type Actor, recordAudit } from '../../host/audit/audit.js'
import type { HostContext } from '../../host/context.js'
import type { Dataset } from '../daily-file/datasets.js'
import type { PublicationIssue } from '../publication-issue.js'
import { insertPublication } from '../publications-repository.js'
import type { PublicationOutcome, PublicationTrigger } from './publication-outcome.js'

interface RanPublication {
  dataset: Dataset | undefined
  args: { date: string; trigger: PublicationTrigger; actor: Actor }
  started: Date
}

/** The publishing developer's dataset is recorded under no developer, as before datasets existed. */
const recordedDeveloperId = (dataset: Dataset | undefined): number | null =>
  dataset && !dataset.primary ? dataset.developer.id : null

function actorName(actor: Actor): string {
  return actor.type === 'user' ? actor.login : actor.type
}

export async function recordPublished(
  ctx: HostContext,
  ran: RanPublication & { outcome: PublicationOutcome; xmlMd5: string },
): Promise<void> {
  const { args, outcome } = ran
  await ctx.db.transaction().execute(async (trx) => {
    await insertPublication(trx, {
      developer_id: recordedDeveloperId(ran.dataset),
      publication_date: args.date,
      status: 'published',
      trigger: args.trigger,
      actor_name: actorName(args.actor),
      started_at: ran.started.toISOString(),
      finished_at: outcome.published_at,
      record_count: outcome.record_count,
      version: outcome.version,
      csv_md5: outcome.csv.md5,
      xml_md5: ran.xmlMd5,
      issues: JSON.stringify({ outcome, warnings: outcome.warnings }),
    })
    await recordAudit(
      ctx,
      {
        actor: args.actor,
        action: 'publication.publish',
        objectType: 'publication',
        objectId: args.date,
        outcome: 'success',
        details: {
          version: outcome.version,
          trigger: args.trigger,
          records: outcome.record_count,
          xml_md5: ran.xmlMd5,
        },
      },
      trx,
    )
  })
}

/** Never throws: the failure itself is what the caller answers. */
export async function recordFailedPublication(
  ctx: HostContext,
  ran: RanPublication & { issues: PublicationIssue[] },
): Promise<void> {
  const { args, issues } = ran
  await insertPublication(ctx.db, {
    developer_id: recordedDeveloperId(ran.dataset),
    publication_date: args.date,
    status: 'failed',
    trigger: args.trigger,
    actor_name: actorName(args.actor),
    started_at: ran.started.toISOString(),
    finished_at: ctx.now().toISOString(),
    record_count: null,
    version: null,
    csv_md5: null,
    xml_md5: null,
    issues: JSON.stringify(issues),
  }).catch(() => undefined)
  await recordAudit(ctx, {
    actor: args.actor,
    action: 'publication.publish',
    objectType: 'publication',
    objectId: args.date,
    outcome: 'failure',
    details: { trigger: args.trigger, issues: issues.map((i) => i.code) },
  }).catch(() => undefined)
}
