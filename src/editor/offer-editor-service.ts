/*
 * The offer editor (docs/decisions/editor.md, docs/integration/editor-api.md): offers of every host
 * status listed, read, created, changed, archived and restored, with their components. Every write
 * is one input of the shared write path, exactly as an import row or a webhook event is: the
 * validator (validate-editor-offer.ts, which runs the import's own row validator on the canonical
 * fields), the planner and the transactional writer with its price history, in one transaction
 * with the audit entry of the run (action `editor.offer.*`; the history records carry its id as
 * `run_id`, which names the channel). Every write names the version it edits (versions.ts).
 */
import type { Kysely } from 'kysely'

import { actorScope } from '../host/auth/scope.js'
import { type Actor, recordAudit } from '../host/audit/audit.js'
import type { Executor, HostContext } from '../host/context.js'
import { lockOffersForWrite } from '../host/db/dialect.js'
import type { OfferRow } from '../host/db/schema.js'
import { HostError } from '../host/errors.js'
import { warsawDate, warsawDayOf } from '../host/warsaw-day.js'
import { selectCatalogState } from '../catalog/catalog-repository.js'
import { formatPln, PRICE_TYPE_LABELS, RECORD_TYPE_LABELS } from '../catalog/presentation.js'
import { valuesPerOwner } from '../catalog/caching/values-at-revision.js'
import { UNQUALIFIED_PROPERTY_TYPE } from '../offers/canonical-fields.js'
import {
  type ComponentChange,
  componentKindOf,
  type EditorInput,
  type StoredComponent,
} from '../offers/editor-operation.js'
import { planOffers } from '../offers/offer-planner.js'
import { unitPricesOnDay } from '../offers/prices-on-day.js'
import { applyOfferPlan } from '../offers/offer-writer.js'
import { type EditorTarget, selectEditorTargets, selectPriceRecordsUpTo } from '../offers/offers-repository.js'
import {
  groupPriceRecords,
  nextAnnounced,
  type OfferPriceRecords,
  priceInForce,
  priceKey,
} from '../offers/price-in-force.js'
import type { RowError } from '../offers/validation/row-errors.js'
import { editorFieldError, validateComponent, validateEditorOffer } from '../offers/validation/validate-editor-offer.js'
import type { NormalizedOfferValues } from '../offers/validation/validate-offer-row.js'
import { formatMoney } from '../publication/daily-file/daily-csv.js'
import { metaChecker } from './custom-fields.js'
import { checkOwnImages } from './media-service.js'
import { validationFailed } from './refusals.js'
import {
  countOffers,
  type OfferFilters,
  type OfferOrder,
  pricesDayOf,
  selectInvestment,
  selectInvestmentTitles,
  selectOfferPage,
  selectOfferPriceHistory,
  selectRunActions,
} from './editor-repository.js'
import { editConflict, expectedVersion, versionMatches, versionOf, versionRequired } from './versions.js'

const amount = (cents: number | null): string | null => (cents === null ? null : formatMoney(cents))

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T
  } catch {
    return fallback
  }
}

export function componentView(c: StoredComponent) {
  return {
    id: c.id,
    kind: componentKindOf(c.group_kind, c.kind_label),
    group: c.group_kind,
    kind_label: c.kind_label,
    designation: c.designation,
    description: c.description,
    price: amount(c.price_cents),
    price_from: c.price_from,
    relation: c.relation,
    requirement: c.requirement,
    variant: c.variant,
    legal_title: c.legal_title,
    position: c.position,
  }
}

/*
 * The stored offer, its components and its latest history record: an archive and a restore within
 * the same millisecond would give back the very same row, but not the same history.
 */
export function offerVersion(target: EditorTarget): string {
  return versionOf('offer', target.offer, target.components, target.lastHistoryId)
}

/** An offer as the editor shows it: the canonical field names of the import for what they cover. */
/**
 * The prices in force on `day` beside the stored ones: a stored price dated after the day is an
 * announcement (shown "od 01.12.2026 (zapowiedziana)"), and the price in force is the one before it.
 */
function inForceView(target: EditorTarget, records: OfferPriceRecords | undefined, day: string) {
  const o = target.offer
  const at = (type: string, cents: number | null, from: string | null) => {
    const own = records?.get(type) ?? []
    const price = priceInForce(own, { cents, from }, day)
    const next = nextAnnounced(own, { cents, from }, day)
    return {
      amount: amount(price.cents),
      from: price.from,
      announced: next !== null,
      next: next === null ? null : { amount: amount(next.cents), from: next.from },
    }
  }
  // column 42 as the file of the day shows it: the package price while it holds, else total plus parts
  const { combined } = unitPricesOnDay(o, target.components, records, day)
  return {
    day,
    price_total: at('total', o.price_total_cents, o.price_total_from),
    price_m2: at('m2', o.price_m2_cents, o.price_m2_from),
    price_combined: {
      ...at('combined', o.price_combined_cents, o.price_combined_from),
      amount: amount(combined.cents),
      from: combined.from,
      source: combined.source,
      held_package:
        combined.heldPackage === null
          ? null
          : { amount: amount(combined.heldPackage.cents), from: combined.heldPackage.from },
    },
    components: target.components.map((c) => ({
      id: c.id,
      ...at(priceKey('component', c.id), c.price_cents, c.price_from),
    })),
  }
}

export function offerView(
  target: EditorTarget,
  investment: { title: string; source_id: string | null } | undefined,
  inForce?: ReturnType<typeof inForceView>,
) {
  const o: OfferRow = target.offer
  return {
    id: o.id,
    investment_id: o.investment_id,
    investment_title: investment?.title ?? '',
    source_investment_id: investment?.source_id ?? null,
    source_property_id: o.source_property_id,
    offer_kind: o.offer_kind,
    prop_type: o.property_type,
    /** false until an operator sets the type of an offer sent without one (never guessed). */
    qualified: o.property_type !== UNQUALIFIED_PROPERTY_TYPE,
    prop_no: o.code,
    title: o.title,
    property_status: o.status,
    host_status: o.host_status,
    prop_area: o.area,
    prop_rooms: o.rooms,
    prop_floor: o.floor,
    building: o.building,
    variant: o.variant,
    price_total: amount(o.price_total_cents),
    price_total_from: o.price_total_from,
    price_m2: amount(o.price_m2_cents),
    price_m2_from: o.price_m2_from,
    price_combined: amount(o.price_combined_cents),
    price_combined_from: o.price_combined_from,
    price_combined_variant: o.price_combined_variant,
    price_combined_status: o.price_combined_status,
    custom_meta: parseJson<Record<string, unknown>>(o.custom_meta, {}),
    thumbnail_id: o.thumbnail_id,
    gallery: parseJson<number[]>(o.gallery, []),
    components: target.components.map(componentView),
    ...(inForce ? { in_force: inForce } : {}),
    created_at: o.created_at,
    modified_at: o.modified_at,
    version: offerVersion(target),
  }
}

export type OfferView = ReturnType<typeof offerView>

async function viewsOf(db: Executor, targets: EditorTarget[], day?: string): Promise<OfferView[]> {
  const investments = await selectInvestmentTitles(db, [...new Set(targets.map((t) => t.offer.investment_id))])
  const records =
    day === undefined
      ? undefined
      : groupPriceRecords(
          // all of them: an announcement after the day is shown beside the price in force
          await selectPriceRecordsUpTo(
            db,
            targets.map((t) => t.offer.id),
            undefined,
          ),
        )
  return targets.map((target) =>
    offerView(
      target,
      investments.get(target.offer.investment_id),
      day === undefined ? undefined : inForceView(target, records?.get(target.offer.id), day),
    ),
  )
}

async function readTarget(db: Executor, id: number): Promise<EditorTarget> {
  const target = (await selectEditorTargets(db, [id])).get(id)
  if (!target) throw new HostError('offer_not_found', 404, `There is no offer ${id}.`)
  return target
}

export async function getOffer(ctx: HostContext, id: number): Promise<OfferView> {
  const [view] = await viewsOf(ctx.db, [await readTarget(ctx.db, id)], warsawDate(ctx.now()))
  return view as OfferView
}

export interface OfferListQuery extends OfferFilters {
  page: number
  perPage: number
  orderBy: OfferOrder
  order: 'asc' | 'desc'
}

// the offers table's totals, apart from the catalog's (this table lists every host status)
const offerTotalsOf = valuesPerOwner<number>(1000)

export async function listOffers(
  ctx: HostContext,
  query: OfferListQuery,
): Promise<{ items: OfferView[]; total: number; totalPages: number }> {
  const { page: _page, perPage: _perPage, orderBy: _orderBy, order: _order, ...asked } = query
  const day = warsawDate(ctx.now())
  const filters: OfferFilters = { ...asked, pricesOn: await pricesDayOf(ctx.db, asked, query.orderBy, day) }
  const totals = offerTotalsOf(ctx.db)
  const revision = Number((await selectCatalogState(ctx.db)).revision)
  const key = JSON.stringify(filters)
  const readPage = () =>
    selectOfferPage(
      ctx.db,
      ctx.caps.name,
      filters,
      { by: query.orderBy, direction: query.order },
      { limit: query.perPage, offset: (query.page - 1) * query.perPage },
    )
  let offers: number[] | undefined
  let total = totals.get(revision, key)
  if (total === undefined) {
    // A page that is neither full nor past the end holds the last offers, so the total follows from
    // it: a search that finds a few offers, or none, then reads the offers once instead of twice.
    offers = await readPage()
    const offset = (query.page - 1) * query.perPage
    total =
      offers.length < query.perPage && (offers.length > 0 || offset === 0)
        ? offset + offers.length
        : await countOffers(ctx.db, ctx.caps.name, filters)
    totals.set(revision, key, total)
  }
  const totalPages = Math.ceil(total / query.perPage)
  if (query.page > totalPages && total > 0)
    throw new HostError(
      'rest_post_invalid_page_number',
      400,
      'The page number requested is larger than the number of pages available.',
    )
  offers ??= await readPage()
  // read as a write reads them, so that every version a list shows is the one a write compares
  const targets = await selectEditorTargets(ctx.db, offers)
  const items = await viewsOf(
    ctx.db,
    offers.map((id) => targets.get(id)).filter((t): t is EditorTarget => t !== undefined),
    day,
  )
  return { items, total, totalPages }
}

// ---------------------------------------------------------------------------------------------
// writes

export interface OfferWriteResult {
  offer: OfferView
  /** false when the input changed nothing (nothing written, nothing audited). */
  changed: boolean
  run_id: number | null
}

/** What the editor does to an offer, audited as `editor.offer.<what>` (the event log labels each). */
export const OFFER_EDITOR_ACTIONS = [
  'create',
  'update',
  'archive',
  'restore',
  'component.create',
  'component.update',
  'component.delete',
] as const

interface WriteArgs {
  actor: Actor
  action: (typeof OFFER_EDITOR_ACTIONS)[number]
  offerId: number | null
  investmentId?: number
  /** The version named by the request (If-Match or `version`); required for every write to an existing offer. */
  ifMatch?: string | string[] | undefined
  bodyVersion?: unknown
  values: NormalizedOfferValues
  editor: Omit<EditorInput, 'offerId' | 'investmentId'>
}

/** One editor input through the shared write path, in one transaction with its version check and audit. */
async function writeOffer(ctx: HostContext, args: WriteArgs): Promise<OfferWriteResult> {
  const expected = expectedVersion(args.ifMatch, args.bodyVersion)
  if (args.offerId !== null && expected === undefined) throw versionRequired('offer')
  const now = ctx.now()
  const today = warsawDate(now)
  return ctx.db.transaction().execute(async (trx) => {
    await lockOffersForWrite(trx as unknown as Kysely<never>, ctx.caps.name)
    let investmentId = args.investmentId ?? 0
    if (args.offerId !== null) {
      const target = await readTarget(trx, args.offerId)
      const current = offerVersion(target)
      if (expected && !versionMatches(expected, current)) {
        const [view] = await viewsOf(trx, [target], today)
        throw editConflict('offer', view as OfferView, current)
      }
      investmentId = target.offer.investment_id
      const media = await checkOwnImages(trx, { offerId: args.offerId }, args.editor.fields, target.offer)
      if (media.length > 0) throw validationFailed(media)
    } else if ((args.editor.fields.gallery?.length ?? 0) > 0 || typeof args.editor.fields.thumbnailId === 'number') {
      // a new offer has no images yet: they are uploaded to it, then placed
      throw validationFailed(await checkOwnImages(trx, { offerId: 0 }, args.editor.fields, undefined))
    } else if (!(await selectInvestment(trx, investmentId))) {
      throw validationFailed([
        editorFieldError(
          1,
          'investment_id',
          'not_found',
          `there is no investment ${investmentId}; create it first (POST /investments)`,
          `nie ma inwestycji ${investmentId}; najpierw ją utwórz`,
        ),
      ])
    }

    const editor: EditorInput = { ...args.editor, offerId: args.offerId, investmentId }
    const plan = await planOffers(trx, [{ row: 1, values: args.values, editor }], {
      mode: 'patch',
      today,
      scope: await actorScope(trx, args.actor),
    })
    if (plan.errors.length > 0) throw validationFailed(plan.errors)
    const op = plan.operations[0]
    if (!op || op.action === 'unchanged') {
      const [view] = await viewsOf(trx, [await readTarget(trx, args.offerId ?? 0)], today)
      return { offer: view as OfferView, changed: false, run_id: null }
    }
    let runId = 0
    await applyOfferPlan(trx, plan, {
      now,
      today,
      recordRun: async (counts) => {
        runId = await recordAudit(
          ctx,
          {
            actor: args.actor,
            action: `editor.offer.${args.action}`,
            objectType: 'offer',
            ...(args.offerId !== null ? { objectId: args.offerId } : {}),
            outcome: 'success',
            details: {
              channel: 'editor',
              investment_id: investmentId,
              changes: op.changes,
              ...(editor.note.reason ? { reason: editor.note.reason } : {}),
              ...(editor.note.correction ? { correction: true } : {}),
              ...counts,
            },
          },
          trx,
        )
        return runId
      },
    })
    // the writer names the offer it created in the operation
    const id = op.offerId ?? args.offerId
    if (id === null) throw new Error('the writer did not name the offer it created')
    const [view] = await viewsOf(trx, [await readTarget(trx, id)], today)
    return { offer: view as OfferView, changed: true, run_id: runId }
  })
}

function refuseInvalid(errors: readonly RowError[]): void {
  if (errors.length > 0) throw validationFailed(errors)
}

export async function createOffer(
  ctx: HostContext,
  actor: Actor,
  body: Record<string, unknown>,
): Promise<OfferWriteResult> {
  const input = validateEditorOffer(body, { row: 1, create: true, checkMeta: metaChecker(ctx, 'dg_property') })
  const investmentId = body.investment_id
  if (typeof investmentId !== 'number' || !Number.isSafeInteger(investmentId) || investmentId < 1)
    input.errors.unshift(
      editorFieldError(
        1,
        'investment_id',
        'required',
        'name the investment of the new offer by its id',
        'wskaż inwestycję nowej oferty (jej identyfikator)',
      ),
    )
  refuseInvalid(input.errors)
  return writeOffer(ctx, {
    actor,
    action: 'create',
    offerId: null,
    investmentId: investmentId as number,
    values: input.values,
    editor: {
      ...(input.sourcePropertyId !== undefined ? { sourcePropertyId: input.sourcePropertyId } : {}),
      cleared: [],
      fields: input.fields,
      note: input.note,
      components: input.components,
    },
  })
}

export async function updateOffer(
  ctx: HostContext,
  actor: Actor,
  id: number,
  body: Record<string, unknown>,
  ifMatch: string | string[] | undefined,
): Promise<OfferWriteResult> {
  const { version, ...fields } = body
  const input = validateEditorOffer(fields, { row: 1, create: false, checkMeta: metaChecker(ctx, 'dg_property') })
  refuseInvalid(input.errors)
  return writeOffer(ctx, {
    actor,
    action: 'update',
    offerId: id,
    ifMatch,
    bodyVersion: version,
    values: input.values,
    editor: { cleared: input.cleared, fields: input.fields, note: input.note, components: [] },
  })
}

/** Archive (status `archived`, host status `private`, every price withdrawn today) or restore. */
export async function changeOfferLifecycle(
  ctx: HostContext,
  actor: Actor,
  id: number,
  lifecycle: 'archive' | 'restore',
  body: Record<string, unknown>,
  ifMatch: string | string[] | undefined,
): Promise<OfferWriteResult> {
  const { version, ...fields } = body
  const input = validateEditorOffer(fields, { row: 1, create: false, checkMeta: metaChecker(ctx, 'dg_property') })
  refuseInvalid(input.errors)
  return writeOffer(ctx, {
    actor,
    action: lifecycle,
    offerId: id,
    ifMatch,
    bodyVersion: version,
    values: input.values,
    editor: {
      cleared: [],
      fields: input.fields,
      note: input.note,
      components: [],
      lifecycle,
    },
  })
}

/** A component added, changed or removed: a write of its offer (the offer's version is named). */
export async function changeComponent(
  ctx: HostContext,
  actor: Actor,
  args: {
    offerId: number
    action: 'create' | 'update' | 'delete'
    componentId?: number
    body: Record<string, unknown>
    ifMatch: string | string[] | undefined
  },
): Promise<OfferWriteResult> {
  const { version, reason, correction, ...fields } = args.body
  const note = validateEditorOffer(
    { ...(reason !== undefined ? { reason } : {}), ...(correction !== undefined ? { correction } : {}) },
    { row: 1, create: false, checkMeta: metaChecker(ctx, 'dg_property') },
  )
  const errors = [...note.errors]
  let change: ComponentChange
  if (args.action === 'delete') {
    const checked = validateComponent(fields.price_from === undefined ? {} : { price_from: fields.price_from }, {
      row: 1,
      create: false,
      prefix: '',
    })
    errors.push(...checked.errors)
    change = {
      action: 'delete',
      id: args.componentId as number,
      ...(checked.values.priceFrom ? { priceFrom: checked.values.priceFrom } : {}),
    }
  } else {
    const checked = validateComponent(fields, { row: 1, create: args.action === 'create', prefix: '' })
    errors.push(...checked.errors)
    change =
      args.action === 'create'
        ? { action: 'create', values: checked.values }
        : { action: 'update', id: args.componentId as number, values: checked.values }
  }
  refuseInvalid(errors)
  return writeOffer(ctx, {
    actor,
    action: `component.${args.action}`,
    offerId: args.offerId,
    ifMatch: args.ifMatch,
    bodyVersion: version,
    values: {},
    editor: { cleared: [], fields: {}, note: note.note, components: [change] },
  })
}

// ---------------------------------------------------------------------------------------------
// price history

/** The channel of a history run, from its audit entry's action. */
function channelOf(action: string | undefined): string | null {
  if (!action) return null
  return action.split('.')[0] ?? null
}

/**
 * The offer's price history in the catalog's shape, for any host status, with what
 * the editor adds: the component a record is about and the channel that wrote it.
 */
export async function getOfferPriceHistory(ctx: HostContext, id: number) {
  await readTarget(ctx.db, id)
  const today = warsawDate(ctx.now())
  const rows = await selectOfferPriceHistory(ctx.db, id)
  const runs = await selectRunActions(ctx.db, [
    ...new Set(rows.map((r) => r.run_id).filter((r): r is number => r !== null)),
  ])
  const items = rows.map((row) => {
    const subject =
      row.price_type === 'component' && (row.component_label || row.component_designation)
        ? [row.component_label, row.component_designation].filter(Boolean).join(' ')
        : (PRICE_TYPE_LABELS[row.price_type] ?? row.price_type)
    return {
      record_type: row.record_type,
      price_type: row.price_type,
      valid_from: row.valid_from,
      recorded_at: warsawDayOf(row.recorded_at),
      before: { cents: row.before_cents, formatted: formatPln(row.before_cents) },
      after: { cents: row.after_cents, formatted: formatPln(row.after_cents) },
      label: `${subject}: ${RECORD_TYPE_LABELS[row.record_type] ?? row.record_type}`,
      reason: row.reason,
      correction: row.correction === 1,
      component_id: row.component_id,
      channel: row.run_id === null ? null : channelOf(runs.get(row.run_id)),
      announced: row.valid_from > today,
    }
  })
  return { property_id: id, items }
}
