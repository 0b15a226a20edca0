/*
 * The planner of the shared write path (docs/decisions/one-write-path.md): for each offer key one operation
 * (create, update with the changed fields, unchanged, archive) computed against the current
 * catalog. Preview is the plan without a commit, and execution re-plans inside its transaction and
 * must arrive at the same digest, so what is committed is exactly what the operator saw.
 * This file runs a planning session; each input is planned in planning/ (plan-row.ts for a keyed
 * row, plan-editor-input.ts for the editor's), with the price rules in one place for both.
 */
import { createHash } from 'node:crypto'

import { type AccessScope, assertInvestmentInScope } from '../host/auth/scope.js'
import type { Executor } from '../host/context.js'
import type { OfferStatus } from './canonical-fields.js'
import { encodeChangeSet } from './change-set.js'
import {
  type InvestmentKeyRow,
  type PlanOffer,
  selectFirstPriceDates,
  selectInvestmentsBySourceIds,
  selectLastPublishedDays,
  selectOfferKeysOfInvestments,
  selectPlanOffersByKeys,
} from './offers-repository.js'
import { knowEditorTargets } from './planning/editor-targets.js'
import { planEditorInput } from './planning/plan-editor-input.js'
import { planRow } from './planning/plan-row.js'
import type {
  ArchiveScope,
  OfferPlan,
  PlanInput,
  PlannedOperation,
  Planner,
  PlanSummary,
} from './planning/planned-operation.js'
import type { RowError } from './validation/row-errors.js'
import { type ImportMode, offerKey } from './validation/validate-offer-row.js'

export type {
  ArchiveScope,
  Comparable,
  OfferPlan,
  PlanAction,
  PlanInput,
  PlannedOperation,
  Planner,
  PlanSummary,
} from './planning/planned-operation.js'

/**
 * The planner's rules, as stored with a previewed plan: a plan made by other rules (a release in
 * between) is planned again before it is executed, never taken as it is. Change it with the rules.
 */
export const PLANNER_VERSION = '2026-11-29.1'

/** One line of the plan digest: what the plan decided and what it saw in the catalog. */
function digestLine(op: PlannedOperation): string {
  const line = `\n${op.key}\t${op.action}\t${op.changeSet ?? encodeChangeSet(op.changes)}\t${op.offerId ?? ''}\t${op.investmentId ?? ''}`
  return op.changes.length > 0 ? line + JSON.stringify(op.before) : line
}

/**
 * A planning session over an input read in batches, so that a 100,000-row file is planned without
 * holding it, or its plan, in memory: each batch reads only the investments and offers it names,
 * and the digest is computed as the operations go by. One session gives the same operations and
 * digest whatever the batch sizes.
 */
export function createPlanner(
  db: Executor,
  options: {
    mode: ImportMode
    today: string
    /**
     * The inputs may carry custom fields (an import that maps `meta:` columns): the stored ones are
     * read to compare them, and every row is planned field by field (a row's compared text and
     * sent fields say nothing of custom fields).
     */
    customMeta?: boolean
    /**
     * The scope of the user the plan is made for (host/auth/scope.ts): a row of an investment
     * outside it, or of an investment that does not exist yet (it would belong to no developer
     * entity), refuses the whole input with 403 rest_forbidden_scope. Left out: the whole catalog
     * (the webhook, the scheduler, the command line).
     */
    scope?: AccessScope
  },
): Planner {
  const hash = createHash('sha256').update(options.today)
  const investmentBySource = new Map<string, InvestmentKeyRow | null>()
  // the keys a snapshot names: what `finish` does not archive (a patch archives nothing)
  const seen = new Set<string>()
  const snapshot = options.mode === 'snapshot'
  const errors: RowError[] = []
  const counts = { create: 0, update: 0, unchanged: 0, archive: 0 }
  // per investment, the last day a file that may list its offers was published (closed-day.ts)
  const lastPublished = new Map<number, string | undefined>()

  async function knowLastPublished(investmentIds: Iterable<number>): Promise<void> {
    const unknown = [...new Set(investmentIds)].filter((id) => !lastPublished.has(id))
    if (unknown.length === 0) return
    const days = await selectLastPublishedDays(db, unknown)
    for (const id of unknown) lastPublished.set(id, days.get(id))
  }

  async function knowInvestments(inputs: readonly PlanInput[]): Promise<void> {
    const unknown = new Set<string>()
    for (const input of inputs) {
      const source = input.sourceInvestmentId ?? input.values.sourceInvestmentId
      if (source !== undefined && !investmentBySource.has(source)) unknown.add(source)
    }
    if (unknown.size === 0) return
    for (const source of unknown) investmentBySource.set(source, null)
    for (const investment of await selectInvestmentsBySourceIds(db, [...unknown]))
      investmentBySource.set(investment.source_id ?? '', investment)
  }

  /** Every investment the inputs name must be in the scope; the one place the write path asks. */
  function checkScope(
    scope: AccessScope,
    inputs: readonly PlanInput[],
    editorTargets: Awaited<ReturnType<typeof knowEditorTargets>>,
  ): void {
    for (const input of inputs) {
      if (input.editor) {
        const target = input.editor.offerId === null ? undefined : editorTargets.byId.get(input.editor.offerId)
        assertInvestmentInScope(scope, target?.offer.investment_id ?? input.editor.investmentId)
        continue
      }
      const source = input.sourceInvestmentId ?? input.values.sourceInvestmentId
      if (source === undefined) continue
      assertInvestmentInScope(scope, investmentBySource.get(source)?.id ?? null, source)
    }
  }

  async function plan(inputs: readonly PlanInput[]): Promise<PlannedOperation[]> {
    await knowInvestments(inputs)
    const editorTargets = await knowEditorTargets(db, inputs)
    if (options.scope?.restricted) checkScope(options.scope, inputs, editorTargets)
    const keys: Array<{ investmentId: number; sourcePropertyId: string }> = []
    for (const input of inputs) {
      const source = input.sourceInvestmentId ?? input.values.sourceInvestmentId
      const investment = source === undefined ? undefined : investmentBySource.get(source)
      const sourcePropertyId = input.sourcePropertyId ?? input.values.sourcePropertyId
      if (investment && sourcePropertyId !== undefined) keys.push({ investmentId: investment.id, sourcePropertyId })
    }
    const offersByKey = new Map<string, PlanOffer>()
    if (keys.length > 0) {
      const sourceOf = new Map<number, string>()
      for (const [source, investment] of investmentBySource) if (investment) sourceOf.set(investment.id, source)
      for (const offer of await selectPlanOffersByKeys(db, keys, { customMeta: options.customMeta === true })) {
        if (offer.sourcePropertyId !== null)
          offersByKey.set(offerKey(sourceOf.get(offer.investmentId) ?? '', offer.sourcePropertyId), offer)
      }
    }

    await knowLastPublished([
      ...[...offersByKey.values()].map((offer) => offer.investmentId),
      ...[...editorTargets.byId.values()].map((target) => target.offer.investment_id),
    ])
    const firstDates = await selectFirstPriceDates(db, [
      ...[...offersByKey.values()].map((offer) => offer.id),
      ...editorTargets.byId.keys(),
    ])
    const operations: PlannedOperation[] = []
    // the digest takes the lines of a batch at once: the same bytes, one call instead of a thousand
    let lines = ''
    for (const input of inputs) {
      const op = input.editor
        ? planEditorInput(input, input.editor, editorTargets, options.today, errors, firstDates, lastPublished)
        : planRow(
            input,
            investmentBySource,
            offersByKey,
            options.today,
            errors,
            options.customMeta === true,
            firstDates,
            lastPublished,
          )
      if (op === undefined) continue
      if (op !== null) {
        operations.push(op)
        counts[op.action]++
        lines += digestLine(op)
        if (snapshot) seen.add(op.key)
      } else if (snapshot) {
        seen.add(
          input.key ?? offerKey(input.values.sourceInvestmentId as string, input.values.sourcePropertyId as string),
        )
      }
    }
    hash.update(lines)
    return operations
  }

  async function finish(): Promise<PlanSummary> {
    const archives: PlannedOperation[] = []
    const scope: ArchiveScope = { investments: [], total: 0 }
    if (snapshot) {
      const sourceOf = new Map<number, string>()
      for (const [source, investment] of investmentBySource) if (investment) sourceOf.set(investment.id, source)
      const perInvestment = new Map<string, number>()
      for (const offer of await selectOfferKeysOfInvestments(db, [...sourceOf.keys()])) {
        const source = sourceOf.get(offer.investment_id) ?? ''
        // an offer without a source id was entered in the editor (a standalone part, say, which no
        // file may carry): the CRM's file is not its truth, so a snapshot leaves it alone
        if (offer.source_property_id === null) continue
        const key = offerKey(source, offer.source_property_id)
        if (seen.has(key) || offer.status === ('archived' satisfies OfferStatus)) continue
        const op: PlannedOperation = {
          row: null,
          key,
          action: 'archive',
          sourceInvestmentId: source,
          sourcePropertyId: offer.source_property_id,
          values: {},
          changes: ['property_status'],
          before: { property_status: offer.status },
          offerId: offer.id,
          investmentId: offer.investment_id,
        }
        archives.push(op)
        counts.archive++
        hash.update(digestLine(op))
        perInvestment.set(source, (perInvestment.get(source) ?? 0) + 1)
      }
      for (const [source, archived] of perInvestment) scope.investments.push({ source_investment_id: source, archived })
      scope.total = archives.length
    }
    return { archives, counts: { ...counts }, archiveScope: scope, digest: hash.digest('hex') }
  }

  return { errors, plan, finish }
}

/** Plans a whole input at once: the webhook's one offer, the editor, tests. */
export async function planOffers(
  db: Executor,
  inputs: readonly PlanInput[],
  options: { mode: ImportMode; today: string; scope?: AccessScope },
): Promise<OfferPlan> {
  const planner = createPlanner(db, options)
  const operations = await planner.plan(inputs)
  const summary = await planner.finish()
  operations.push(...summary.archives)
  return {
    mode: options.mode,
    operations,
    errors: planner.errors,
    counts: summary.counts,
    archiveScope: summary.archiveScope,
    digest: summary.digest,
  }
}
