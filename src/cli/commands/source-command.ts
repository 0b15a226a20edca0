/*
 * `dg source …`: sources from the command line through the same service functions as REST and
 * the panel. Header values are read from a file (--headers-file, a JSON object), so a token is in
 * neither the shell's history nor the process list; they are never printed.
 */
import { readFile } from 'node:fs/promises'

import type { Command } from '../command.js'
import { withHostContext } from '../cli-context.js'
import { HostError } from '../../host/errors.js'
import { applyHeldRun, rejectHeldRun, runSource, type RunView } from '../../sources/source-runs.js'
import { createSource, listRuns, listSources, removeSource } from '../../sources/source-service.js'
import type { SourceInput } from '../../sources/source-settings.js'

function json(text: string | undefined, option: string): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new HostError('invalid_option', 400, `--${option} must be JSON`)
  }
}

function positiveId(text: string | undefined, what: string): number {
  const id = Number(text)
  if (!Number.isInteger(id) || id < 1)
    throw new HostError('invalid_argument', 400, `${what} must be a positive integer`)
  return id
}

function runLine(run: RunView): string {
  const counts = run.summary.counts
  return [
    `run ${run.id} (source ${run.source_id}): ${run.outcome}`,
    counts ? ` plan +${counts.create} ~${counts.update} -${counts.archive}` : '',
    run.guards.length > 0
      ? ` held by: ${run.guards.map((g) => `${g.guard} ${g.actual_pct}% > ${g.limit_pct}%`).join(', ')}`
      : '',
    run.failure ? ` ${run.failure.code}: ${run.failure.message}` : '',
  ].join('')
}

const cliDecider = { actor: { type: 'cli' as const }, userId: null, name: 'cli' }

export const SOURCE_COMMANDS: Command[] = [
  {
    name: 'source add',
    summary: 'Add a scheduled source (an https CSV/XLSX address imported within guards)',
    options: {
      name: { type: 'string', required: true, description: 'name shown to operators' },
      url: { type: 'string', required: true, description: 'https address of the file' },
      mapping: { type: 'string', required: true, description: 'JSON: canonical field → column header' },
      mode: { type: 'string', description: 'patch (default) or snapshot' },
      sheet: { type: 'string', description: 'XLSX sheet to read (default: the first)' },
      schedule: {
        type: 'string',
        description: 'cron pattern in Europe/Warsaw (default: 30 min before the publication)',
      },
      'headers-file': { type: 'string', description: 'JSON file {"Header": "value"} (a token); never printed' },
      'private-hosts': { type: 'string', description: 'comma-separated hosts allowed to be private addresses' },
      guards: { type: 'string', description: 'JSON limits in percent, e.g. {"max_price_change_pct": 15}' },
      'stale-after-days': { type: 'string', description: 'alert after this many days without a change (default 3)' },
    },
    run: (values, env) =>
      withHostContext(env, async (ctx) => {
        const headersFile = values['headers-file']
        const input: SourceInput = {
          name: values.name,
          url: values.url,
          mapping: json(values.mapping as string, 'mapping'),
          ...(values.mode ? { mode: values.mode } : {}),
          ...(values.sheet ? { sheet: values.sheet } : {}),
          ...(values.schedule ? { schedule: values.schedule } : {}),
          ...(typeof headersFile === 'string'
            ? { headers: json(await readFile(headersFile, 'utf8'), 'headers-file') }
            : {}),
          ...(typeof values['private-hosts'] === 'string'
            ? {
                private_hosts: values['private-hosts']
                  .split(',')
                  .map((h) => h.trim())
                  .filter(Boolean),
              }
            : {}),
          ...(values.guards ? { guards: json(values.guards as string, 'guards') } : {}),
          ...(values['stale-after-days'] ? { stale_after_days: Number(values['stale-after-days']) } : {}),
        }
        const source = await createSource(ctx, { type: 'cli' }, input)
        return {
          json: source,
          text: `source ${source.id} added: ${source.name} (${source.url}); headers: ${source.header_names.join(', ') || 'none'}`,
        }
      }),
  },
  {
    name: 'source list',
    summary: 'List the sources with their latest run',
    options: {},
    run: (_values, env) =>
      withHostContext(env, async (ctx) => {
        const sources = await listSources(ctx)
        return {
          json: sources,
          text:
            sources
              .map(
                (s) =>
                  `${s.id}\t${s.name}\t${s.url}\t${s.schedule ?? 'before the publication'}\t${s.last_run ? `run ${s.last_run.id}: ${s.last_run.outcome}` : 'not run yet'}`,
              )
              .join('\n') || 'no sources',
        }
      }),
  },
  {
    name: 'source run',
    summary: 'Run a source now (fetch, preview, guards, apply or hold)',
    options: {},
    positionals: ['source-id'],
    run: (_values, env, positionals) =>
      withHostContext(env, async (ctx) => {
        const ran = await runSource(ctx, positiveId(positionals[0], 'source-id'), 'manual', { type: 'cli' })
        if (ran.busy)
          throw new HostError('source_busy', 409, 'This source is being run by another instance; retry later.')
        return { json: ran.run, text: runLine(ran.run) }
      }),
  },
  {
    name: 'source runs',
    summary: 'The latest runs (--held: only those waiting for a decision)',
    options: { held: { type: 'boolean', description: 'only held runs' } },
    run: (values, env) =>
      withHostContext(env, async (ctx) => {
        const runs = await listRuns(ctx, { limit: 50, ...(values.held ? { outcome: 'held' } : {}) })
        return { json: runs, text: runs.map(runLine).join('\n') || 'no runs' }
      }),
  },
  {
    name: 'source apply',
    summary: "Apply a held run's plan (the import's execution; never twice)",
    options: {},
    positionals: ['run-id'],
    run: (_values, env, positionals) =>
      withHostContext(env, async (ctx) => {
        const run = await applyHeldRun(ctx, positiveId(positionals[0], 'run-id'), cliDecider)
        return { json: run, text: runLine(run) }
      }),
  },
  {
    name: 'source reject',
    summary: 'Reject a held run: nothing is written',
    options: {},
    positionals: ['run-id'],
    run: (_values, env, positionals) =>
      withHostContext(env, async (ctx) => {
        const run = await rejectHeldRun(ctx, positiveId(positionals[0], 'run-id'), cliDecider)
        return { json: run, text: runLine(run) }
      }),
  },
  {
    name: 'source remove',
    summary: 'Remove a source (its runs stay on record)',
    options: {},
    positionals: ['source-id'],
    run: (_values, env, positionals) =>
      withHostContext(env, async (ctx) => {
        const id = positiveId(positionals[0], 'source-id')
        await removeSource(ctx, { type: 'cli' }, id)
        return { json: { deleted: true, id }, text: `source ${id} removed` }
      }),
  },
]
