/*
 * The scope of a user: the developer entities and investments a user who is not an administrator
 * may see and change (docs/decisions/roles-and-capabilities.md, "Scope"). Capabilities say what a
 * user may do; the scope says on which part of the catalog. This module is the one place that
 * decides it: a request's scope is resolved once (`scopeOf`), lists apply `investmentFilter` /
 * `developerFilter` in their repositories, and everything that reads or changes one object calls
 * `assertInScope` (per-object routes through `requireInScope`, the write path through the planner).
 *
 * A developer entity in the scope brings every investment it has when the request is made, so an
 * investment added to it later is in the scope from then on. An investment in the scope brings only
 * itself: its developer entity may be read (its name is on the investment) but not changed or
 * published, since a dataset is published for the whole entity.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'

import type { Actor } from '../audit/audit.js'
import type { Executor } from '../context.js'
import { userCan } from './capabilities.js'
import { HostError } from '../errors.js'
import { requirePrincipal } from '../http/authenticate.js'
import {
  selectInvestmentsOfOffers,
  selectOwningInvestment,
  selectScopedInvestments,
  selectScopeRows,
  selectUserRole,
} from './scope-repository.js'

/** A scope as stored and as the users API shows it; null: the whole catalog. */
export interface StoredScope {
  developers: number[]
  investments: number[]
}

export interface AccessScope {
  /** false: the whole catalog (an administrator, or a user with no scope). */
  readonly restricted: boolean
  readonly stored: StoredScope | null
  /** Developer entities of the scope: each may be changed and published. */
  readonly developers: ReadonlySet<number>
  /** Every investment the user may see and change: those named and those of its developer entities. */
  readonly investments: ReadonlySet<number>
  /** Developer entities the user may read: its own and those of its investments. */
  readonly visibleDevelopers: ReadonlySet<number>
}

export const WHOLE_CATALOG: AccessScope = Object.freeze({
  restricted: false,
  stored: null,
  developers: new Set<number>(),
  investments: new Set<number>(),
  visibleDevelopers: new Set<number>(),
})

/**
 * Administrators (manage_options, which they alone hold) are never scoped: rows left for one are
 * ignored. Asked by capability, as everywhere, never by the role's name.
 */
export function mayBeScoped(role: string): boolean {
  return !userCan({ role }, 'manage_options')
}

/** The stored scopes of some users (a user without rows is absent from the map). */
export async function storedScopesOf(db: Executor, userIds: readonly number[]): Promise<Map<number, StoredScope>> {
  const scopes = new Map<number, StoredScope>()
  for (const row of await selectScopeRows(db, userIds)) {
    let scope = scopes.get(row.user_id)
    if (!scope) {
      scope = { developers: [], investments: [] }
      scopes.set(row.user_id, scope)
    }
    ;(row.kind === 'developer' ? scope.developers : scope.investments).push(row.target_id)
  }
  return scopes
}

/** A user's scope as stored (null: the whole catalog; always null for an administrator). */
export async function storedScopeOf(db: Executor, user: { id: number; role: string }): Promise<StoredScope | null> {
  if (!mayBeScoped(user.role)) return null
  return (await storedScopesOf(db, [user.id])).get(user.id) ?? null
}

/** What a stored scope allows now: the investments of its developer entities are read at this moment. */
export async function resolveStoredScope(db: Executor, stored: StoredScope | null): Promise<AccessScope> {
  if (stored === null) return WHOLE_CATALOG
  const investments = new Set<number>()
  const visibleDevelopers = new Set<number>(stored.developers)
  for (const row of await selectScopedInvestments(db, stored.developers, stored.investments)) {
    investments.add(row.id)
    if (row.developer_id !== null) visibleDevelopers.add(row.developer_id)
  }
  return Object.freeze({
    restricted: true,
    stored,
    developers: new Set(stored.developers),
    investments,
    visibleDevelopers,
  })
}

export async function resolveScope(db: Executor, user: { id: number; role: string }): Promise<AccessScope> {
  if (!mayBeScoped(user.role)) return WHOLE_CATALOG
  return resolveStoredScope(db, (await storedScopesOf(db, [user.id])).get(user.id) ?? null)
}

/**
 * The scope of whoever acts: a user's as stored now; the webhook, the scheduler and the command
 * line act for the whole catalog. The write path asks here rather than trusting its caller.
 */
export async function actorScope(db: Executor, actor: Actor): Promise<AccessScope> {
  if (actor.type !== 'user') return WHOLE_CATALOG
  const user = await selectUserRole(db, actor.userId)
  // a user removed meanwhile has no scope to widen: nothing is allowed
  if (!user) return resolveStoredScope(db, { developers: [], investments: [] })
  return resolveScope(db, user)
}

const scopes = new WeakMap<FastifyRequest, Promise<AccessScope>>()
const scopeRevisions = new WeakMap<FastifyRequest, () => Promise<string>>()
// per database (an app), per user: a scope resolved under a revision of the credentials and the catalog
const kept = new WeakMap<Executor, Map<number, { revision: string; scope: AccessScope }>>()
const KEPT_USERS = 1000

/**
 * A route on the hot path (the catalog) that reads the credentials and catalog revisions anyway
 * hands them over: a user's scope is then resolved once per change of either, not per request.
 * A change of scope bumps the credentials revision (migration 0029), a new investment the catalog's.
 */
export function useScopeRevision(request: FastifyRequest, revision: () => Promise<string>): void {
  scopeRevisions.set(request, revision)
}

async function resolveRequestScope(request: FastifyRequest): Promise<AccessScope> {
  const principal = await requirePrincipal(request)
  const db = request.server.ctx.db
  if (!mayBeScoped(principal.user.role)) return WHOLE_CATALOG
  const revision = await scopeRevisions.get(request)?.()
  if (revision === undefined) return resolveScope(db, principal.user)
  let users = kept.get(db)
  if (!users) {
    users = new Map<number, { revision: string; scope: AccessScope }>()
    kept.set(db, users)
  }
  const hit = users.get(principal.user.id)
  if (hit?.revision === revision) return hit.scope
  const scope = await resolveScope(db, principal.user)
  if (users.size >= KEPT_USERS) users.clear()
  users.set(principal.user.id, { revision, scope })
  return scope
}

/** The caller's scope, resolved once per request (401 without credentials, as requirePrincipal). */
export function scopeOf(request: FastifyRequest): Promise<AccessScope> {
  let pending = scopes.get(request)
  if (!pending) {
    pending = resolveRequestScope(request)
    scopes.set(request, pending)
  }
  return pending
}

/** The investments a list may hold; undefined: no restriction. */
export function investmentFilter(scope: AccessScope): readonly number[] | undefined {
  return scope.restricted ? [...scope.investments] : undefined
}

/** The developer entities a list may hold; undefined: no restriction. */
export function developerFilter(scope: AccessScope): readonly number[] | undefined {
  return scope.restricted ? [...scope.visibleDevelopers] : undefined
}

export function allowsInvestment(scope: AccessScope, investmentId: number): boolean {
  return !scope.restricted || scope.investments.has(investmentId)
}

/** Changing or publishing a developer entity, or creating an investment in it (null: no entity). */
export function allowsDeveloper(scope: AccessScope, developerId: number | null): boolean {
  return !scope.restricted || (developerId !== null && scope.developers.has(developerId))
}

const MESSAGES = {
  object: {
    en: 'This object is outside the part of the catalog your account may work on.',
    pl: 'Ten obiekt jest poza częścią katalogu, w której może pracować Twoje konto.',
  },
  developer: {
    en: 'Only a user whose scope includes this developer entity may change or publish it.',
    pl: 'Ten podmiot (dewelopera) może zmieniać lub publikować tylko użytkownik, którego zakres go obejmuje.',
  },
  new_investment: {
    en: 'A new investment may be created only in a developer entity within your scope.',
    pl: 'Nową inwestycję można utworzyć tylko w podmiocie (deweloperze) z Twojego zakresu.',
  },
  unscoped_only: {
    en: 'Only a user without a scope may do this: it concerns the whole catalog.',
    pl: 'To może zrobić tylko użytkownik bez ograniczonego zakresu: dotyczy całego katalogu.',
  },
} as const

export type ScopeRefusalReason = keyof typeof MESSAGES

/** 403 `rest_forbidden_scope`, with the reason in Polish and English (`message` by Accept-Language). */
export class ScopeRefusal extends HostError {
  readonly reason: ScopeRefusalReason

  constructor(reason: ScopeRefusalReason, data: Record<string, unknown> = {}) {
    super('rest_forbidden_scope', 403, MESSAGES[reason].en, { reason, ...data })
    this.reason = reason
  }

  override toBody(): { code: string; message: string; data: Record<string, unknown> } {
    const body = super.toBody()
    return Object.assign(body, { message_pl: MESSAGES[this.reason].pl, message_en: MESSAGES[this.reason].en })
  }
}

export type ScopeTarget =
  /** reading or changing an offer, an investment or a medium (and what it holds) */
  | { kind: 'offer' | 'investment' | 'media'; id: number }
  /** reading a developer entity */
  | { kind: 'developer'; id: number }
  /** changing or publishing a developer entity's dataset; null: the entity the settings name by default */
  | { kind: 'dataset'; developerId: number | null }
  /** creating an investment in a developer entity (null: in none) */
  | { kind: 'new_investment'; developerId: number | null }
  /** something of the whole catalog (a new developer entity, a scheduled source, global settings) */
  | { kind: 'whole_catalog' }

/**
 * Refuses (403 rest_forbidden_scope) what the scope does not allow. An object that does not exist
 * passes: the operation itself answers its 404, so a scoped user learns no more than any other.
 */
export async function assertInScope(db: Executor, scope: AccessScope, target: ScopeTarget): Promise<void> {
  if (!scope.restricted) return
  switch (target.kind) {
    case 'whole_catalog':
      throw new ScopeRefusal('unscoped_only')
    case 'dataset': {
      if (allowsDeveloper(scope, target.developerId)) return
      // a developer entity that does not exist is the operation's 404
      const exists =
        target.developerId !== null &&
        (await db.selectFrom('developers').select('id').where('id', '=', target.developerId).executeTakeFirst())
      if (target.developerId === null || exists)
        throw new ScopeRefusal('developer', { developer_id: target.developerId })
      return
    }
    case 'new_investment':
      if (!allowsDeveloper(scope, target.developerId))
        throw new ScopeRefusal('new_investment', { developer_id: target.developerId })
      return
    case 'developer': {
      if (scope.visibleDevelopers.has(target.id)) return
      const exists = await db.selectFrom('developers').select('id').where('id', '=', target.id).executeTakeFirst()
      if (exists) throw new ScopeRefusal('object', { developer_id: target.id })
      return
    }
    default: {
      if (target.kind === 'investment' && scope.investments.has(target.id)) return
      const owner = await selectOwningInvestment(db, target.kind, target.id)
      if (owner === undefined) return
      if (owner.investment_id === null || !scope.investments.has(owner.investment_id))
        throw new ScopeRefusal('object', { [`${target.kind}_id`]: target.id })
    }
  }
}

/**
 * A scoped user works with its own import jobs only: another user's preview may name any
 * investment, and reading the plan would show them. An unscoped user reads and runs every job.
 */
export function assertOwnJob(
  scope: AccessScope,
  job: { id: string; operator_user_id: number | null },
  userId: number | null,
): void {
  if (scope.restricted && (job.operator_user_id === null || job.operator_user_id !== userId))
    throw new ScopeRefusal('object', { import_id: job.id })
}

/** Every offer named (that exists) must be of an investment in the scope: a selection of offers. */
export async function assertOffersInScope(
  db: Executor,
  scope: AccessScope,
  offerIds: readonly number[],
): Promise<void> {
  if (!scope.restricted) return
  const outside = new Set<number>()
  // a few thousand ids at most, read in slices so that no statement holds too many parameters
  for (let from = 0; from < offerIds.length; from += 500)
    for (const id of await selectInvestmentsOfOffers(db, offerIds.slice(from, from + 500)))
      if (!scope.investments.has(id)) outside.add(id)
  if (outside.size > 0) throw new ScopeRefusal('object', { investment_ids: [...outside].sort((a, b) => a - b) })
}

/** Throws when an investment is outside the scope (the planner's check of each row). */
export function assertInvestmentInScope(scope: AccessScope, investmentId: number | null, what?: string): void {
  if (!scope.restricted) return
  if (investmentId === null)
    throw new ScopeRefusal('new_investment', what === undefined ? {} : { source_investment_id: what })
  if (!scope.investments.has(investmentId))
    throw new ScopeRefusal('object', { investment_id: investmentId, ...(what === undefined ? {} : { key: what }) })
}

/**
 * A route guard (after the capability's): the object the path parameter names must be in the
 * caller's scope; a developer entity to be changed (`change`) must be one of the scope's own. A
 * parameter that is not a positive integer is left to the route's schema, an object that does not
 * exist to the route's 404.
 */
export function requireInScope(
  kind: 'offer' | 'investment' | 'media' | 'developer',
  param = 'id',
  mode: 'read' | 'change' = 'read',
) {
  return async function checkScope(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const scope = await scopeOf(request)
    if (!scope.restricted) return
    const id = Number((request.params as Record<string, string | undefined>)[param])
    if (!Number.isSafeInteger(id) || id < 1) return
    const db = request.server.ctx.db
    if (kind === 'developer' && mode === 'change') {
      if (scope.developers.has(id)) return
      if (await db.selectFrom('developers').select('id').where('id', '=', id).executeTakeFirst())
        throw new ScopeRefusal('developer', { developer_id: id })
      return
    }
    await assertInScope(db, scope, { kind, id })
  }
}

/** A route guard for what only an unscoped user may do. */
export async function requireWholeCatalog(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const scope = await scopeOf(request)
  if (scope.restricted) throw new ScopeRefusal('unscoped_only')
}
