/*
 * Site options, stored as JSON text with an autoload flag as in the CMS. Autoloaded options are
 * the small settings read together on most requests; secrets are never autoloaded, so they are
 * only ever read by the one code path that needs them.
 */
import type { Executor, HostContext } from '../context.js'
import {
  deleteOptionRow,
  findOptionValue,
  insertOptionIfAbsent,
  listAutoloadedOptions,
  upsertOption,
} from './options-repository.js'

export interface SetOptionArgs {
  autoload?: boolean
  db?: Executor
}

export async function getOption<T>(
  ctx: Pick<HostContext, 'db'>,
  name: string,
  db: Executor = ctx.db,
): Promise<T | undefined> {
  const raw = await findOptionValue(db, name)
  return raw === undefined ? undefined : (JSON.parse(raw) as T)
}

export async function setOption(
  ctx: Pick<HostContext, 'db'>,
  name: string,
  value: unknown,
  args: SetOptionArgs = {},
): Promise<void> {
  await upsertOption(args.db ?? ctx.db, name, JSON.stringify(value), args.autoload ?? true)
}

/**
 * Returns the stored value, creating it with `create()` first when absent. Safe when several
 * instances start at once: exactly one insert wins and everyone reads the winner's value.
 */
export async function getOrCreateOption<T>(
  ctx: Pick<HostContext, 'db'>,
  name: string,
  create: () => T,
  autoload: boolean,
): Promise<T> {
  const existing = await getOption<T>(ctx, name)
  if (existing !== undefined) return existing
  await insertOptionIfAbsent(ctx.db, name, JSON.stringify(create()), autoload)
  const stored = await getOption<T>(ctx, name)
  if (stored === undefined) throw new Error(`option ${name} could not be created`)
  return stored
}

export async function deleteOption(ctx: Pick<HostContext, 'db'>, name: string): Promise<void> {
  await deleteOptionRow(ctx.db, name)
}

export async function getAutoloadedOptions(ctx: Pick<HostContext, 'db'>): Promise<Record<string, unknown>> {
  const rows = await listAutoloadedOptions(ctx.db)
  return Object.fromEntries(rows.map((row) => [row.name, JSON.parse(row.value) as unknown]))
}
