/*
 * Setting a user's scope (docs/decisions/roles-and-capabilities.md, "Scope"): the developer
 * entities and investments a user who is not an administrator may work on. Checked as a whole
 * before anything is written: an administrator is never scoped (`scope_on_administrator`), every id
 * must name an existing developer entity or investment (`unknown_developer`, `unknown_investment`),
 * and a scope names at least one of them (`scope_empty`; null is the whole catalog).
 */
import type { Actor } from '../audit/audit.js'
import { recordAudit } from '../audit/audit.js'
import { mayBeScoped, type StoredScope, storedScopesOf } from '../auth/scope.js'
import { replaceScopeRows, selectExistingIds } from '../auth/scope-repository.js'
import type { Executor, HostContext } from '../context.js'
import { PluginError } from '../errors.js'
import { requireUser } from './users.js'

export interface ScopeIssue {
  field: string
  code: string
  message_pl: string
  message_en: string
}

const unique = (ids: readonly number[]): number[] => [...new Set(ids)].sort((a, b) => a - b)

export function normalizeScope(scope: StoredScope | null): StoredScope | null {
  return scope === null ? null : { developers: unique(scope.developers), investments: unique(scope.investments) }
}

export async function scopeIssues(
  db: Executor,
  role: string,
  scope: StoredScope | null | undefined,
): Promise<ScopeIssue[]> {
  if (scope === undefined || scope === null) return []
  if (!mayBeScoped(role))
    return [
      {
        field: 'scope',
        code: 'scope_on_administrator',
        message_pl: 'Administrator zawsze pracuje na całym katalogu: nie można ograniczyć jego zakresu.',
        message_en: 'An administrator always works on the whole catalog: its scope cannot be limited.',
      },
    ]
  const issues: ScopeIssue[] = []
  if (scope.developers.length === 0 && scope.investments.length === 0)
    issues.push({
      field: 'scope',
      code: 'scope_empty',
      message_pl: 'Wybierz co najmniej jednego dewelopera lub inwestycję (albo zdejmij ograniczenie zakresu).',
      message_en: 'Choose at least one developer entity or investment (or remove the scope).',
    })
  const developers = unique(scope.developers)
  const knownDevelopers = new Set(await selectExistingIds(db, 'developers', developers))
  const unknownDevelopers = developers.filter((id) => !knownDevelopers.has(id))
  if (unknownDevelopers.length > 0)
    issues.push({
      field: 'scope.developers',
      code: 'unknown_developer',
      message_pl: `Nie ma dewelopera o identyfikatorze: ${unknownDevelopers.join(', ')}.`,
      message_en: `There is no developer entity with the id: ${unknownDevelopers.join(', ')}.`,
    })
  const investments = unique(scope.investments)
  const knownInvestments = new Set(await selectExistingIds(db, 'investments', investments))
  const unknownInvestments = investments.filter((id) => !knownInvestments.has(id))
  if (unknownInvestments.length > 0)
    issues.push({
      field: 'scope.investments',
      code: 'unknown_investment',
      message_pl: `Nie ma inwestycji o identyfikatorze: ${unknownInvestments.join(', ')}.`,
      message_en: `There is no investment with the id: ${unknownInvestments.join(', ')}.`,
    })
  return issues
}

const sameScope = (a: StoredScope | null, b: StoredScope | null): boolean =>
  JSON.stringify(normalizeScope(a)) === JSON.stringify(normalizeScope(b))

/** Writes a checked scope inside the caller's transaction and audits it when it changed. */
export async function writeUserScope(
  ctx: Pick<HostContext, 'now'>,
  trx: Executor,
  user: { id: number; login: string },
  before: StoredScope | null,
  after: StoredScope | null,
  actor: Actor,
): Promise<boolean> {
  if (sameScope(before, after)) return false
  const next = normalizeScope(after)
  await replaceScopeRows(trx, user.id, [
    ...(next?.developers ?? []).map((id) => ({ kind: 'developer' as const, target_id: id })),
    ...(next?.investments ?? []).map((id) => ({ kind: 'investment' as const, target_id: id })),
  ])
  await recordAudit(
    { ...ctx, db: trx },
    {
      actor,
      action: 'user.scope',
      objectType: 'user',
      objectId: user.id,
      outcome: 'success',
      details: { login: user.login, from: normalizeScope(before), to: next },
    },
    trx,
  )
  return true
}

/**
 * Sets or clears (null) the scope of a user named by login or e-mail (`dg user scope`): checked as
 * the users API checks it, 422 `invalid_user` with the issues, nothing written.
 */
export async function setUserScopeByLogin(
  ctx: HostContext,
  login: string,
  scope: StoredScope | null,
  actor: Actor,
): Promise<{ id: number; login: string; scope: StoredScope | null; changed: boolean }> {
  const user = await requireUser(ctx, login)
  const issues = await scopeIssues(ctx.db, user.role, scope)
  if (issues.length > 0) throw new PluginError('invalid_user', 422, { message: 'The scope was not saved.', issues })
  const before = normalizeScope((await storedScopesOf(ctx.db, [user.id])).get(user.id) ?? null)
  const changed = await ctx.db.transaction().execute((trx) => writeUserScope(ctx, trx, user, before, scope, actor))
  return { id: user.id, login: user.login, scope: normalizeScope(scope), changed }
}
