/*
 * Adding, changing and removing sources, for REST and the CLI alike. Audited with header names
 * only: a header's value (a token) is never in the audit log, a log line or an answer.
 */
import { type Actor, recordAudit } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { runView, type RunView, sourceNotFound } from './source-runs.js'
import { type SourceInput, sourceColumns, sourceView, type SourceView } from './source-settings.js'
import {
  countHeldRuns,
  deleteSource,
  findSource,
  insertSource,
  selectLatestRuns,
  selectRuns,
  selectSources,
  type SourceRow,
  transitionRun,
  updateSource,
} from './sources-repository.js'

function audited(input: SourceInput): Record<string, unknown> {
  const { headers, ...rest } = input
  return {
    fields: Object.keys(rest).filter((k) => rest[k as keyof typeof rest] !== undefined),
    ...(headers && typeof headers === 'object' ? { header_names: Object.keys(headers) } : {}),
  }
}

export async function listSources(ctx: HostContext): Promise<SourceView[]> {
  const latest = await selectLatestRuns(ctx.db)
  return (await selectSources(ctx.db)).map((row) => sourceView(row, latest.get(row.id)))
}

export async function getSource(ctx: HostContext, id: number): Promise<SourceView> {
  const row = await findSource(ctx.db, id)
  if (!row) throw sourceNotFound(id)
  const [last] = await selectRuns(ctx.db, { sourceId: id, limit: 1 })
  return sourceView(row, last)
}

export async function createSource(ctx: HostContext, actor: Actor, input: SourceInput): Promise<SourceView> {
  const columns = sourceColumns(ctx, input)
  const now = ctx.now().toISOString()
  const id = await ctx.db.transaction().execute(async (trx) => {
    const created = await insertSource(trx, {
      name: columns.name!,
      url: columns.url!,
      headers: columns.headers ?? '{}',
      mapping: columns.mapping!,
      mode: columns.mode ?? 'patch',
      sheet: columns.sheet ?? null,
      schedule: columns.schedule ?? null,
      private_hosts: columns.private_hosts ?? '[]',
      guards: columns.guards!,
      stale_after_days: columns.stale_after_days!,
      enabled: columns.enabled ?? 1,
      ca_certificate: columns.ca_certificate ?? null,
      created_at: now,
      updated_at: now,
      etag: null,
      last_modified: null,
      content_sha256: null,
      changed_at: null,
      applied_rows: null,
      // a new source runs at its next scheduled time, not at once for a time already passed today
      last_run_at: now,
    })
    await recordAudit(
      ctx,
      {
        actor,
        action: 'source.create',
        objectType: 'source',
        objectId: created,
        outcome: 'success',
        details: audited(input),
      },
      trx,
    )
    return created
  })
  return getSource(ctx, id)
}

/** What a change did besides what it was asked, for the operator to know (the settings' warnings' shape). */
export interface SourceWarning {
  field: string
  code: string
  message: string
  message_pl: string
  message_en: string
  details?: Record<string, unknown>
}

/**
 * The stored headers (a token) were given for one origin: an address moved to another scheme,
 * host or port must not take them along, unless the same change sends headers again.
 */
function headersLeftBehind(existing: SourceRow, url: string | undefined, input: SourceInput): SourceWarning | null {
  if (url === undefined || input.headers !== undefined) return null
  const from = new URL(existing.url).origin
  const to = new URL(url).origin
  const names = Object.keys(JSON.parse(existing.headers) as Record<string, string>)
  if (from === to || names.length === 0) return null
  const pl =
    `Adres źródła przeniesiono na inny serwer (${from} → ${to}), więc zapisane nagłówki (${names.join(', ')}) usunięto: ` +
    'nie zostaną wysłane pod nowy adres. Jeśli nowy serwer ich potrzebuje, wpisz je ponownie.'
  const en =
    `The source moved to another origin (${from} → ${to}), so its stored headers (${names.join(', ')}) were removed ` +
    'and will not be sent there. Send them again if the new server needs them.'
  return {
    field: 'headers',
    code: 'source_headers_removed',
    message: pl,
    message_pl: pl,
    message_en: en,
    details: { header_names: names, from_origin: from, to_origin: to },
  }
}

export async function changeSource(
  ctx: HostContext,
  actor: Actor,
  id: number,
  input: SourceInput,
): Promise<SourceView & { warnings: SourceWarning[] }> {
  const existing = await findSource(ctx.db, id)
  if (!existing) throw sourceNotFound(id)
  const columns = sourceColumns(ctx, input, existing)
  const removed = headersLeftBehind(existing, columns.url, input)
  if (removed) columns.headers = '{}'
  // another address, mapping or sheet makes the next file a new one, whatever its bytes
  const refetch = columns.url !== undefined || columns.mapping !== undefined || columns.sheet !== undefined
  await ctx.db.transaction().execute(async (trx) => {
    await updateSource(trx, id, {
      ...columns,
      ...(refetch ? { etag: null, last_modified: null, content_sha256: null } : {}),
      updated_at: ctx.now().toISOString(),
    })
    await recordAudit(
      ctx,
      {
        actor,
        action: 'source.update',
        objectType: 'source',
        objectId: id,
        outcome: 'success',
        details: { ...audited(input), ...(removed ? { headers_removed: removed.details?.header_names } : {}) },
      },
      trx,
    )
  })
  return { ...(await getSource(ctx, id)), warnings: removed ? [removed] : [] }
}

export async function removeSource(ctx: HostContext, actor: Actor, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    // The runs stay as the record of what was fetched and decided; a held plan of a source that
    // no longer exists must not be applied afterwards.
    for (const held of await selectRuns(trx, { sourceId: id, outcome: 'held', limit: 1000 }))
      await transitionRun(trx, held.id, 'held', {
        outcome: 'superseded',
        failure: JSON.stringify({ code: 'source_deleted', message: 'the source was deleted' }),
      })
    if (!(await deleteSource(trx, id))) throw sourceNotFound(id)
    await recordAudit(
      ctx,
      { actor, action: 'source.delete', objectType: 'source', objectId: id, outcome: 'success' },
      trx,
    )
  })
}

export async function listRuns(
  ctx: HostContext,
  filter: { sourceId?: number; outcome?: string; limit: number },
): Promise<Array<RunView & { source_name: string }>> {
  const names = new Map((await selectSources(ctx.db)).map((s) => [s.id, s.name]))
  return (await selectRuns(ctx.db, filter)).map((row) => ({
    ...runView(row),
    source_name: names.get(row.source_id) ?? '',
  }))
}

/** What the dashboard shows of the sources: how many, how many runs wait for a decision, the latest runs. */
export async function sourcesOverview(ctx: HostContext) {
  const sources = await listSources(ctx)
  return {
    sources: sources.length,
    held_runs: await countHeldRuns(ctx.db),
    failing: sources.filter((s) => s.last_run?.outcome === 'failed' || s.last_run?.outcome === 'invalid').length,
  }
}
