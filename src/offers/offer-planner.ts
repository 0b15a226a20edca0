/*
 * The planner of the shared write path (docs/decisions/one-write-path.md): for each offer key one operation
 * (create, update with the changed fields, unchanged, archive) computed against the current
 * catalog. Preview is the plan without a commit, and execution re-plans inside its transaction and
 * must arrive at the same digest, so what is committed is exactly what the operator saw.
 */
import { createHash } from 'node:crypto'

import type { Executor } from '../host/context.js'
import { type OfferStatus, STANDALONE_PART_TYPES } from './canonical-fields.js'
import { decodeChangeSet, encodeChangeSet } from './change-set.js'
import { datedOnPublishedDay, earliestOpenDay, publishedDayError } from './closed-day.js'
import { createsExactlySent } from './compared-values.js'
import { META_FIELD_PREFIX } from './validation/meta-values.js'
import type {
  ClearableField,
  ComponentValues,
  EditorFields,
  EditorInput,
  EditorOperation,
  PlannedComponentChange,
  StoredComponent,
} from './editor-operation.js'
import { priceWithinRounding } from './validation/price-consistency.js'
import { fieldError, formatAreaPl, formatCentsPl } from './validation/row-errors.js'
import {
  type EditorTarget,
  type InvestmentKeyRow,
  type PlanOffer,
  type PlanOfferRow,
  selectEditorTargets,
  selectFirstPriceDates,
  selectInvestmentsBySourceIds,
  selectLastPublishedDays,
  selectOfferKeysOfInvestments,
  selectPartDesignations,
  selectOffersBySourceKeys,
  selectPlanOffersByKeys,
} from './offers-repository.js'
import {
  combinedBelowTotal,
  type ImportMode,
  type NormalizedOfferValues,
  offerKey,
  type RowError,
} from './validation/validate-offer-row.js'

export type PlanAction = 'create' | 'update' | 'unchanged' | 'archive'

/**
 * The planner's rules, as stored with a previewed plan: a plan made by other rules (a release in
 * between) is planned again before it is executed, never taken as it is. Change it with the rules.
 */
export const PLANNER_VERSION = '2026-11-29.1'

export interface PlannedOperation {
  /** Row of the file (or null for an archive, which has no row). */
  row: number | null
  key: string
  action: PlanAction
  sourceInvestmentId: string
  sourcePropertyId: string
  /** Values to write: the sent fields, plus defaults the planner added (price dates). */
  values: NormalizedOfferValues
  /** Canonical field names (and `meta:<key>` of custom fields) whose stored value changes. */
  changes: string[]
  /** The stored values of the changed fields, as the plan saw them (part of the digest). */
  before: Record<string, Comparable>
  offerId: number | null
  investmentId: number | null
  /** `values` as stored-operations text, when the input came with it and the planner added nothing. */
  storedValues?: string
  /** `changes` as a change set (change-set.ts), when the planner made them from one. */
  changeSet?: number
  /** The editor's part of the operation (an input with `editor`). */
  editor?: EditorOperation
  /**
   * Prices an automated channel dated on a published day, moved to the earliest open day
   * (closed-day.ts): price field → the date it was sent with, kept in the history's reason.
   */
  movedDates?: Record<string, string>
}

export interface ArchiveScope {
  /** Source ids of the investments the snapshot names, with how many offers it archives in each. */
  investments: Array<{ source_investment_id: string; archived: number }>
  total: number
}

export interface OfferPlan {
  mode: ImportMode
  operations: PlannedOperation[]
  errors: RowError[]
  counts: { create: number; update: number; unchanged: number; archive: number }
  archiveScope: ArchiveScope
  digest: string
}

export interface PlanInput {
  row: number | null
  values: NormalizedOfferValues
  /** The same values as stored-operations text, when the reader made it already (see encodeValues). */
  storedValues?: string
  /*
   * What a reader that encoded the values (the file worker) knows of them without decoding them:
   * both ids, the offer key and `sentChangeSet(values)`, all four or none, and `comparedText(values)`
   * unless the row's investment is new (compared-values.ts). A row whose text equals its stored
   * offer's is planned `unchanged`, and a new offer that `createsExactlySent` a `create`, without
   * reading `values`, which such a reader decodes only when they are read.
   */
  sourceInvestmentId?: string
  sourcePropertyId?: string
  key?: string
  compared?: string
  sent?: number
  /** An input of the offer editor, which names the offer by id (editor-operation.ts). */
  editor?: EditorInput
}

export type Comparable = string | number | boolean | null

interface FieldRule {
  field: string
  read: (offer: PlanOfferRow) => Comparable
  sent: (values: NormalizedOfferValues) => Comparable | undefined
}

const OFFER_FIELDS: FieldRule[] = [
  { field: 'prop_no', read: (o) => o.code, sent: (v) => v.code },
  { field: 'prop_type', read: (o) => o.property_type, sent: (v) => v.propertyType },
  { field: 'property_status', read: (o) => o.status, sent: (v) => v.status },
  { field: 'prop_area', read: (o) => o.area, sent: (v) => v.area },
  { field: 'prop_rooms', read: (o) => o.rooms, sent: (v) => v.rooms },
  { field: 'prop_floor', read: (o) => o.floor, sent: (v) => v.floor },
  { field: 'price_m2', read: (o) => o.price_m2_cents, sent: (v) => v.priceM2Cents },
  { field: 'price_m2_from', read: (o) => o.price_m2_from, sent: (v) => v.priceM2From },
  { field: 'price_total', read: (o) => o.price_total_cents, sent: (v) => v.priceTotalCents },
  { field: 'price_total_from', read: (o) => o.price_total_from, sent: (v) => v.priceTotalFrom },
  { field: 'price_combined', read: (o) => o.price_combined_cents, sent: (v) => v.priceCombinedCents },
  { field: 'price_combined_from', read: (o) => o.price_combined_from, sent: (v) => v.priceCombinedFrom },
  { field: 'price_combined_variant', read: (o) => o.price_combined_variant, sent: (v) => v.priceCombinedVariant },
  { field: 'price_combined_status', read: (o) => o.price_combined_status, sent: (v) => v.priceCombinedStatus },
]

const LOCATION_FIELDS: Array<{
  field: string
  column: keyof InvestmentKeyRow
  key: keyof NonNullable<NormalizedOfferValues['location']>
}> = [
  { field: 'proj_voivod', column: 'loc_voivodeship', key: 'voivodeship' },
  { field: 'proj_powiat', column: 'loc_powiat', key: 'powiat' },
  { field: 'proj_gmina', column: 'loc_gmina', key: 'gmina' },
  { field: 'proj_city', column: 'loc_city', key: 'city' },
  { field: 'proj_street', column: 'loc_street', key: 'street' },
  { field: 'proj_build_no', column: 'loc_building_no', key: 'buildingNo' },
  { field: 'proj_zip', column: 'loc_postal_code', key: 'postalCode' },
]

/** Price fields whose change without its own date is dated today (Europe/Warsaw). */
const PRICE_DATES: Array<{
  date: 'priceM2From' | 'priceTotalFrom' | 'priceCombinedFrom'
  column: 'price_m2_from' | 'price_total_from' | 'price_combined_from'
  priceField: string
}> = [
  { date: 'priceM2From', column: 'price_m2_from', priceField: 'price_m2' },
  { date: 'priceTotalFrom', column: 'price_total_from', priceField: 'price_total' },
  { date: 'priceCombinedFrom', column: 'price_combined_from', priceField: 'price_combined' },
]

export function isStandalonePart(type: string): boolean {
  return (STANDALONE_PART_TYPES as readonly string[]).includes(type)
}

/** One line of the plan digest: what the plan decided and what it saw in the catalog. */
function digestLine(op: PlannedOperation): string {
  const line = `\n${op.key}\t${op.action}\t${op.changeSet ?? encodeChangeSet(op.changes)}\t${op.offerId ?? ''}\t${op.investmentId ?? ''}`
  return op.changes.length > 0 ? line + JSON.stringify(op.before) : line
}

/** The end of a planning session: what only the whole input can tell. */
export interface PlanSummary {
  /** A snapshot's archive operations, after every planned row. */
  archives: PlannedOperation[]
  counts: OfferPlan['counts']
  archiveScope: ArchiveScope
  /*
   * What the plan decided and what it saw in the catalog. The values are not hashed: execution
   * re-plans from the very values the preview stored, so only the catalog side can differ (and the
   * date a price without its own date gets, which is hashed as `today`).
   */
  digest: string
}

export interface Planner {
  /** Row-level problems only the catalog reveals (a price that disagrees with the stored values). */
  readonly errors: RowError[]
  /** Plans the next inputs, in file order; call as often as needed, then `finish` once. */
  plan(inputs: readonly PlanInput[]): Promise<PlannedOperation[]>
  finish(): Promise<PlanSummary>
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

  async function plan(inputs: readonly PlanInput[]): Promise<PlannedOperation[]> {
    await knowInvestments(inputs)
    const editorTargets = await knowEditorTargets(db, inputs)
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
        ? planEditorOne(input, input.editor, editorTargets, options.today, errors, firstDates, lastPublished)
        : planOne(
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

/**
 * The operation of one input: `undefined` when the input has no key (the validator reported it),
 * `null` when the catalog makes it an error (added to `errors`).
 */
function planOne(
  input: PlanInput,
  investmentBySource: ReadonlyMap<string, InvestmentKeyRow | null>,
  offersByKey: ReadonlyMap<string, PlanOffer>,
  today: string,
  errors: RowError[],
  customMeta: boolean,
  firstDates: FirstPriceDates,
  lastPublished: ReadonlyMap<number, string | undefined>,
): PlannedOperation | null | undefined {
  const sourceInvestmentId = input.sourceInvestmentId ?? input.values.sourceInvestmentId
  const sourcePropertyId = input.sourcePropertyId ?? input.values.sourcePropertyId
  if (sourceInvestmentId === undefined || sourcePropertyId === undefined) return undefined
  const key = input.key ?? offerKey(sourceInvestmentId, sourcePropertyId)
  const investment = investmentBySource.get(sourceInvestmentId) ?? undefined
  const stored = offersByKey.get(key)
  if (input.sent !== undefined && !customMeta) {
    if (stored !== undefined && input.compared !== undefined && input.compared === stored.compared)
      return new KnownOperation(
        input,
        'unchanged',
        0,
        key,
        sourceInvestmentId,
        sourcePropertyId,
        stored.id,
        stored.investmentId,
      )
    if (stored === undefined && createsExactlySent(input.sent, investment !== undefined))
      return new KnownOperation(
        input,
        'create',
        input.sent,
        key,
        sourceInvestmentId,
        sourcePropertyId,
        null,
        investment?.id ?? null,
      )
  }

  // the input's own values unless the planner adds a date (then a copy): inputs are not reused
  let values: NormalizedOfferValues = input.values
  const existing = stored?.row
  const row = input.row ?? 0

  const changes: string[] = []
  const before: Record<string, Comparable> = {}
  for (const rule of OFFER_FIELDS) {
    const sent = rule.sent(values)
    if (sent === undefined) continue
    if (!existing || rule.read(existing) !== sent) {
      changes.push(rule.field)
      if (existing) before[rule.field] = rule.read(existing)
    }
  }
  let datesAdded = false
  for (const price of PRICE_DATES) {
    if (values[price.date] === undefined && changes.includes(price.priceField)) {
      if (values === input.values) values = { ...input.values }
      const from = pairDate(input.values, price.date) ?? today
      values[price.date] = from
      datesAdded = true
      if (!existing || existing[price.column] !== from) {
        changes.push(`${price.priceField}_from`)
        if (existing) before[`${price.priceField}_from`] = existing[price.column]
      }
    }
  }
  // a price an automated channel dates on a published day takes effect on the earliest open day
  // instead (closed-day.ts); a sent date alone that would move a price onto a published day is ignored
  let movedDates: Record<string, string> | undefined
  const closedThrough = existing ? lastPublished.get(existing.investment_id) : undefined
  if (existing && closedThrough !== undefined) {
    for (const price of PRICE_DATES) {
      const from = values[price.date]
      const dateField = `${price.priceField}_from`
      if (from === undefined || !datedOnPublishedDay(from, closedThrough, today)) continue
      const priceChanged = changes.includes(price.priceField)
      if (!priceChanged && !changes.includes(dateField)) continue
      if (values === input.values) values = { ...input.values }
      datesAdded = true
      const at = changes.indexOf(dateField)
      if (at >= 0) changes.splice(at, 1)
      delete before[dateField]
      if (!priceChanged) {
        delete values[price.date]
        continue
      }
      const open = earliestOpenDay(closedThrough, today)
      values[price.date] = open
      ;(movedDates ??= {})[price.priceField] = from
      if (existing[price.column] !== open) {
        changes.push(dateField)
        before[dateField] = existing[price.column]
      }
    }
  }
  if (values.location) {
    for (const loc of LOCATION_FIELDS) {
      const sent = values.location[loc.key]
      if (sent !== undefined && (!investment || investment[loc.column] !== sent)) {
        changes.push(loc.field)
        if (investment) before[loc.field] = investment[loc.column]
      }
    }
  }

  if (values.meta !== undefined) {
    // custom fields are merged into the stored ones: a key the row leaves empty keeps its value
    const storedMeta = existing ? storedCustomMeta(stored?.customMeta) : {}
    for (const [key, sent] of Object.entries(values.meta)) {
      const current = Object.hasOwn(storedMeta, key) ? storedMeta[key] : null
      if (!existing || current !== sent) {
        changes.push(`${META_FIELD_PREFIX}${key}`)
        if (existing) before[`${META_FIELD_PREFIX}${key}`] = comparable(current)
      }
    }
  }

  // a new offer without `prop_type` is created without a type (contract 4.7.2): its legal
  // qualification is never guessed; the writer stores it as unqualified
  const total = values.priceTotalCents ?? existing?.price_total_cents ?? null
  const m2 = values.priceM2Cents ?? existing?.price_m2_cents ?? null
  const area = values.area ?? existing?.area ?? null
  const sentPrices =
    (values.priceTotalCents !== undefined ? 1 : 0) +
    (values.priceM2Cents !== undefined ? 1 : 0) +
    (values.area !== undefined ? 1 : 0)
  // a row that sends all three was held to the rule by the validator already; one that sends some
  // of them is held to it with the stored values
  if (
    sentPrices > 0 &&
    sentPrices < 3 &&
    total !== null &&
    m2 !== null &&
    area !== null &&
    total > 0 &&
    !priceWithinRounding(total, m2, area)
  ) {
    errors.push(
      fieldError(
        row,
        'price_total',
        'inconsistent_price',
        `${(total / 100).toFixed(2)} does not match price_m2 × area with the stored values (${(m2 / 100).toFixed(2)} × ${area})`,
        `${formatCentsPl(total)} zł nie zgadza się z ceną za m² × powierzchnią, licząc z wartościami zapisanymi ` +
          `w katalogu (${formatCentsPl(m2)} zł × ${formatAreaPl(area)} m²)`,
      ),
    )
    return null
  }

  const split = existing ? splitDatedPrices(row, values, new Set(changes), existing, area) : undefined
  if (split) {
    errors.push(split)
    return null
  }

  const early = priceBeforeFirstRecord(row, existing?.id, values, new Set(changes), firstDates, false)
  if (early) {
    errors.push(early)
    return null
  }

  // a package price sent alone is held to the stored total; a total sent alone is never held to a
  // stored package price: a price rise goes through, and the package is set aside (combined-price.ts)
  if (values.priceCombinedCents !== undefined && values.priceTotalCents === undefined) {
    const below = combinedBelowTotal(values.priceCombinedCents, existing?.price_total_cents ?? null)
    if (below !== undefined) {
      errors.push(fieldError(row, 'price_combined', 'combined_below_total', below.en, below.pl))
      return null
    }
  }

  const op: PlannedOperation = {
    row: input.row,
    key,
    action: !existing ? 'create' : changes.length > 0 ? 'update' : 'unchanged',
    sourceInvestmentId,
    sourcePropertyId,
    values,
    // sorted: re-planning sees planner-added dates as sent fields, in another order
    changes: changes.length > 1 ? sortChanges(changes) : changes,
    before,
    offerId: existing?.id ?? null,
    investmentId: investment?.id ?? null,
  }
  if (input.storedValues !== undefined && !datesAdded) op.storedValues = input.storedValues
  if (movedDates) op.movedDates = movedDates
  return op
}

// ---------------------------------------------------------------------------------------------
// the offer editor (editor-operation.ts): the same field rules, on the offer it names by id

interface EditorTargets {
  byId: Map<number, EditorTarget>
  /** `investmentId/sourcePropertyId` of the source ids new offers ask for that an offer has already. */
  takenSourceKeys: Set<string>
  /** Per investment, the parts and rooms listed with units and the standalone parts, by designation. */
  partDesignations: Map<number, PartDesignation[]>
}

interface PartDesignation {
  key: string
  offerId: number
  offerCode: string
  componentId: number | null
}

/** A designation as people write it: "MP 24", "mp24" and " MP  24 " name the same place. */
const designationKey = (designation: string) => designation.replace(/\s+/g, '').toLowerCase()

async function knowEditorTargets(db: Executor, inputs: readonly PlanInput[]): Promise<EditorTargets> {
  const ids: number[] = []
  const sourceKeys: Array<{ investmentId: number; sourcePropertyId: string }> = []
  for (const input of inputs) {
    const editor = input.editor
    if (!editor) continue
    if (editor.offerId !== null) ids.push(editor.offerId)
    else if (editor.sourcePropertyId)
      sourceKeys.push({ investmentId: editor.investmentId, sourcePropertyId: editor.sourcePropertyId })
  }
  const taken = new Set<string>()
  if (sourceKeys.length > 0)
    for (const row of await selectOffersBySourceKeys(db, sourceKeys))
      taken.add(`${row.investment_id}/${row.source_property_id ?? ''}`)
  const byId = ids.length > 0 ? await selectEditorTargets(db, ids) : new Map<number, EditorTarget>()
  // only inputs that name a part (a component's designation, a standalone part's code) need the list
  const investments = new Set<number>()
  for (const input of inputs) {
    const editor = input.editor
    if (!editor) continue
    const target = editor.offerId === null ? undefined : byId.get(editor.offerId)
    const names =
      editor.components.some((c) => c.action !== 'delete') ||
      input.values.offerKind === 'standalone_part' ||
      (target?.offer.offer_kind === 'standalone_part' && input.values.code !== undefined)
    if (names) investments.add(target?.offer.investment_id ?? editor.investmentId)
  }
  const partDesignations = new Map<number, PartDesignation[]>()
  for (const row of await selectPartDesignations(db, [...investments])) {
    let list = partDesignations.get(row.investment_id)
    if (!list) partDesignations.set(row.investment_id, (list = []))
    list.push({
      key: designationKey(row.designation),
      offerId: row.offer_id,
      offerCode: row.offer_code,
      componentId: row.component_id,
    })
  }
  return { byId, takenSourceKeys: taken, partDesignations }
}

/**
 * A part or room listed with one unit and also with another, or also offered on its own (a
 * parking space sold twice): refused at the field that names it.
 */
function partTakenError(row: number, field: string, designation: string, taken: PartDesignation): RowError {
  const where =
    taken.componentId === null
      ? {
          pl: 'jest już oferowane osobno jako część samodzielna',
          en: 'is already offered on its own as a standalone part',
        }
      : { pl: `jest już przypisane do lokalu ${taken.offerCode}`, en: `is already listed with unit ${taken.offerCode}` }
  return editorError(
    row,
    field,
    'part_already_listed',
    `${JSON.stringify(designation)} ${where.en}; a part or room belongs to one unit or is offered on its own, never both`,
    `${JSON.stringify(designation)} ${where.pl}; część lub pomieszczenie należy do jednego lokalu albo jest oferowane ` +
      'osobno, nigdy jedno i drugie. Usuń je tam albo popraw oznaczenie.',
  )
}

/** Stored columns of the canonical fields the editor may remove. */
const CLEARABLE_COLUMNS: Readonly<Record<ClearableField, keyof PlanOfferRow>> = {
  prop_area: 'area',
  prop_rooms: 'rooms',
  prop_floor: 'floor',
  price_m2: 'price_m2_cents',
  price_m2_from: 'price_m2_from',
  price_total: 'price_total_cents',
  price_total_from: 'price_total_from',
  price_combined: 'price_combined_cents',
  price_combined_from: 'price_combined_from',
  price_combined_variant: 'price_combined_variant',
  price_combined_status: 'price_combined_status',
}

/** The offer's three prices, as the editor's rules need them. */
const EDITOR_PRICES = [
  {
    field: 'price_total',
    dateField: 'price_total_from',
    value: 'priceTotalCents',
    date: 'priceTotalFrom',
    cents: 'price_total_cents',
    from: 'price_total_from',
  },
  {
    field: 'price_m2',
    dateField: 'price_m2_from',
    value: 'priceM2Cents',
    date: 'priceM2From',
    cents: 'price_m2_cents',
    from: 'price_m2_from',
  },
  {
    field: 'price_combined',
    dateField: 'price_combined_from',
    value: 'priceCombinedCents',
    date: 'priceCombinedFrom',
    cents: 'price_combined_cents',
    from: 'price_combined_from',
  },
] as const

const COMPONENT_COLUMNS: ReadonlyArray<{ key: keyof ComponentValues; column: keyof StoredComponent; field: string }> = [
  { key: 'group', column: 'group_kind', field: 'group' },
  { key: 'kindLabel', column: 'kind_label', field: 'kind_label' },
  { key: 'designation', column: 'designation', field: 'designation' },
  { key: 'description', column: 'description', field: 'description' },
  { key: 'priceCents', column: 'price_cents', field: 'price' },
  { key: 'priceFrom', column: 'price_from', field: 'price_from' },
  { key: 'relation', column: 'relation', field: 'relation' },
  { key: 'requirement', column: 'requirement', field: 'requirement' },
  { key: 'variant', column: 'variant', field: 'variant' },
  { key: 'legalTitle', column: 'legal_title', field: 'legal_title' },
  { key: 'position', column: 'position', field: 'position' },
]

function editorError(row: number, field: string, code: string, en: string, pl: string): RowError {
  return fieldError(row, field, code, en, pl)
}

/**
 * The operation of an editor input: the canonical fields compared with the stored offer exactly as
 * `planOne` compares a row's (a changed price without its date is dated today, the price rule is
 * held with the stored values), plus what only the editor does. `null` when the catalog makes the
 * input an error (added to `errors`).
 */
function planEditorOne(
  input: PlanInput,
  editor: EditorInput,
  targets: EditorTargets,
  today: string,
  errors: RowError[],
  firstDates: FirstPriceDates,
  lastPublished: ReadonlyMap<number, string | undefined>,
): PlannedOperation | null {
  const row = input.row ?? 0
  const target = editor.offerId === null ? undefined : targets.byId.get(editor.offerId)
  if (editor.offerId !== null && target === undefined)
    throw new Error(`offer ${editor.offerId} is not in the catalog (the caller checks it in the same transaction)`)
  const stored = target?.offer
  const storedComponents = target?.components ?? []
  const sourcePropertyId = stored ? stored.source_property_id : (editor.sourcePropertyId ?? null)
  const base = {
    row: input.row,
    key: `editor:${editor.offerId ?? 'new'}`,
    sourceInvestmentId: '',
    sourcePropertyId: sourcePropertyId ?? '',
    offerId: stored?.id ?? null,
    investmentId: stored?.investment_id ?? editor.investmentId,
  }
  const operation = (
    action: PlannedOperation['action'],
    values: NormalizedOfferValues,
    changes: string[],
    before: Record<string, Comparable>,
    part: Partial<EditorOperation> = {},
  ): PlannedOperation => ({
    ...base,
    action,
    values,
    changes,
    before,
    editor: {
      offerId: base.offerId,
      investmentId: base.investmentId,
      sourcePropertyId,
      cleared: [],
      fields: {},
      restore: false,
      note: editor.note,
      components: [],
      ...part,
    },
  })

  if (stored && editor.lifecycle === 'archive') {
    if (stored.status === 'archived') return operation('unchanged', {}, [], {})
    return operation('archive', {}, ['property_status'], { property_status: stored.status })
  }
  const restore = stored !== undefined && editor.lifecycle === 'restore' && stored.status === 'archived'
  let values: NormalizedOfferValues = input.values
  if (restore && values.status === undefined) values = { ...values, status: 'available' }
  if (stored && editor.lifecycle === 'restore' && !restore && Object.keys(values).length === 0)
    return operation('unchanged', {}, [], {})

  const before: Record<string, Comparable> = {}
  const changes = new Set<string>()
  const change = (field: string, was: Comparable | undefined) => {
    changes.add(field)
    if (stored && was !== undefined) before[field] = was
  }
  const problems: RowError[] = []

  if (!stored) {
    if (values.code === undefined)
      problems.push(
        editorError(
          row,
          'prop_no',
          'required',
          'a new offer needs its designation',
          'nowa oferta musi mieć oznaczenie',
        ),
      )
    if (values.propertyType === undefined)
      problems.push(
        editorError(
          row,
          'prop_type',
          'required',
          'a new offer entered in the editor needs its type (mieszkanie, dom or a standalone part): it is never guessed',
          'nowa oferta wpisana w edytorze musi mieć rodzaj (mieszkanie, dom albo część samodzielna): nie jest on zgadywany',
        ),
      )
    if (sourcePropertyId !== null && targets.takenSourceKeys.has(`${editor.investmentId}/${sourcePropertyId}`))
      problems.push(
        editorError(
          row,
          'source_property_id',
          'duplicate_key',
          `an offer of this investment already has the source id ${JSON.stringify(sourcePropertyId)}`,
          `oferta tej inwestycji ma już identyfikator ${JSON.stringify(sourcePropertyId)}`,
        ),
      )
  }

  for (const rule of OFFER_FIELDS) {
    const sent = rule.sent(values)
    if (sent === undefined) continue
    if (!stored || rule.read(stored) !== sent) change(rule.field, stored ? rule.read(stored) : undefined)
  }

  // a price removed is withdrawn and its date goes with it; a date sent beside it dates the withdrawal
  const cleared = new Set<ClearableField>(editor.cleared)
  const withdrawnOn: Record<string, string> = {}
  for (const price of EDITOR_PRICES) {
    if (!cleared.has(price.field)) continue
    cleared.add(price.dateField)
    const date = values[price.date]
    if (date !== undefined) {
      withdrawnOn[price.field] = date
      if (values === input.values) values = { ...input.values }
      delete values[price.date]
      changes.delete(price.dateField)
      delete before[price.dateField]
    }
  }
  const effectiveCleared: ClearableField[] = []
  for (const field of cleared) {
    const was = stored ? stored[CLEARABLE_COLUMNS[field]] : null
    if (was === null) continue
    effectiveCleared.push(field)
    change(field, was)
  }
  for (const price of EDITOR_PRICES) {
    if (cleared.has(price.field)) continue
    const priced = values[price.value] !== undefined || (stored?.[price.cents] ?? null) !== null
    if (cleared.has(price.dateField) && priced)
      problems.push(
        editorError(
          row,
          price.dateField,
          'required',
          `a price needs its "valid from" date; to withdraw the price send ${price.field}: null`,
          `cena musi mieć datę obowiązywania; aby wycofać cenę, wyślij ${price.field}: null`,
        ),
      )
    if (values[price.date] === undefined && changes.has(price.field)) {
      if (values === input.values) values = { ...input.values }
      const from = pairDate(input.values, price.date) ?? today
      values[price.date] = from
      if (!stored || stored[price.from] !== from) change(price.dateField, stored?.[price.from])
    }
  }

  const pick = <T>(sent: T | undefined, field: ClearableField, storedValue: T | null | undefined): T | null =>
    sent !== undefined ? sent : cleared.has(field) ? null : (storedValue ?? null)
  const total = pick(values.priceTotalCents, 'price_total', stored?.price_total_cents)
  const m2 = pick(values.priceM2Cents, 'price_m2', stored?.price_m2_cents)
  const area = pick(values.area, 'prop_area', stored?.area)
  const sentPrices =
    (values.priceTotalCents !== undefined ? 1 : 0) +
    (values.priceM2Cents !== undefined ? 1 : 0) +
    (values.area !== undefined ? 1 : 0)
  if (sentPrices > 0 && sentPrices < 3 && total !== null && m2 !== null && area !== null && total > 0) {
    if (!priceWithinRounding(total, m2, area))
      problems.push(
        fieldError(
          row,
          'price_total',
          'inconsistent_price',
          `${(total / 100).toFixed(2)} does not match price_m2 × area with the stored values (${(m2 / 100).toFixed(2)} × ${area})`,
          `${formatCentsPl(total)} zł nie zgadza się z ceną za m² × powierzchnią, licząc z wartościami zapisanymi ` +
            `w katalogu (${formatCentsPl(m2)} zł × ${formatAreaPl(area)} m²)`,
        ),
      )
  }

  // a package price sent alone is held to the total; a total sent alone sets a stale package aside
  if (values.priceCombinedCents !== undefined && values.priceTotalCents === undefined) {
    const below = combinedBelowTotal(values.priceCombinedCents, total)
    if (below !== undefined)
      problems.push(fieldError(row, 'price_combined', 'combined_below_total', below.en, below.pl))
  }
  const split = stored ? splitDatedPrices(row, values, changes, stored, area) : undefined
  if (split) problems.push(split)
  const early = priceBeforeFirstRecord(row, stored?.id, values, changes, firstDates, editor.note?.correction === true)
  if (early) problems.push(early)
  const closedThrough = stored ? lastPublished.get(stored.investment_id) : undefined
  if (stored) {
    problems.push(...pricesOnPublishedDays(row, values, changes, closedThrough, today))
    for (const [field, date] of Object.entries(withdrawnOn))
      if (datedOnPublishedDay(date, closedThrough, today))
        problems.push(publishedDayError(row, `${field}_from`, date, closedThrough as string, today))
  }

  const fields: EditorFields = {}
  const sentFields = editor.fields
  if (sentFields.title !== undefined && sentFields.title !== stored?.title) {
    fields.title = sentFields.title
    change('title', stored?.title)
  }
  if (sentFields.building !== undefined && sentFields.building !== (stored?.building ?? null)) {
    fields.building = sentFields.building
    change('building', stored?.building)
  }
  if (sentFields.variant !== undefined && sentFields.variant !== (stored?.variant ?? null)) {
    fields.variant = sentFields.variant
    change('variant', stored?.variant)
  }
  if (sentFields.hostStatus !== undefined && sentFields.hostStatus !== stored?.host_status) {
    fields.hostStatus = sentFields.hostStatus
    change('host_status', stored?.host_status)
  }
  if (sentFields.customMeta !== undefined) {
    const current = parseObject(stored?.custom_meta)
    const next: Record<string, unknown> = { ...current }
    for (const [key, value] of Object.entries(sentFields.customMeta)) {
      if (value === null) delete next[key]
      else next[key] = value
    }
    if (JSON.stringify(next) !== JSON.stringify(current)) {
      fields.customMeta = next
      change('custom_meta', stored?.custom_meta)
    }
  }

  if (sentFields.gallery !== undefined) {
    const current = stored?.gallery ?? '[]'
    if (JSON.stringify(sentFields.gallery) !== current) {
      fields.gallery = sentFields.gallery
      change('gallery', current)
    }
  }
  if (sentFields.thumbnailId !== undefined && sentFields.thumbnailId !== (stored?.thumbnail_id ?? null)) {
    fields.thumbnailId = sentFields.thumbnailId
    change('thumbnail_id', stored?.thumbnail_id ?? null)
  }

  const kind = values.offerKind ?? stored?.offer_kind ?? 'property'
  const components = planComponents(row, editor, storedComponents, today, problems, stored ? closedThrough : undefined)
  const remaining =
    storedComponents.length -
    components.filter((c) => c.action === 'delete').length +
    components.filter((c) => c.action === 'create').length
  if (kind === 'standalone_part' && remaining > 0)
    problems.push(
      editorError(
        row,
        values.propertyType !== undefined && stored ? 'prop_type' : 'components',
        'components_not_allowed',
        'a standalone part sold on its own has no components; parking spaces, garages and rooms belong to a flat or a house',
        'część samodzielna sprzedawana osobno nie ma elementów dodatkowych; miejsca postojowe, garaże i pomieszczenia ' +
          'przynależne dołącza się do mieszkania lub domu',
      ),
    )
  if (components.length > 0) changes.add('components')
  const investmentOfOffer = stored?.investment_id ?? editor.investmentId
  const listed = targets.partDesignations.get(investmentOfOffer) ?? []
  const takenBy = (designation: string, except: (t: PartDesignation) => boolean) => {
    const key = designationKey(designation)
    return key === '' ? undefined : listed.find((t) => t.key === key && !except(t))
  }
  editor.components.forEach((change, index) => {
    if (change.action === 'delete') return
    const storedComponent = change.action === 'update' ? storedComponents.find((c) => c.id === change.id) : undefined
    const group = change.values.group ?? storedComponent?.group_kind
    const designation = change.values.designation ?? storedComponent?.designation ?? null
    if (designation === null || (group !== 'part' && group !== 'appurtenant_room')) return
    if (change.action === 'update' && change.values.designation === undefined && change.values.group === undefined)
      return
    const taken = takenBy(
      designation,
      (t) => t.componentId !== null && change.action === 'update' && t.componentId === change.id,
    )
    if (taken) problems.push(partTakenError(row, `components[${index}].designation`, designation, taken))
  })
  if (kind === 'standalone_part' && values.code !== undefined && (!stored || values.code !== stored.code)) {
    const taken = takenBy(values.code, (t) => stored !== undefined && t.offerId === stored.id && t.componentId === null)
    if (taken) problems.push(partTakenError(row, 'prop_no', values.code, taken))
  }

  if (problems.length > 0) {
    errors.push(...problems)
    return null
  }
  const sorted = changes.size > 1 ? sortChanges([...changes]) : [...changes]
  const action = !stored ? 'create' : sorted.length > 0 || restore ? 'update' : 'unchanged'
  return operation(action, values, sorted, before, {
    cleared: effectiveCleared,
    fields,
    restore,
    components,
    ...(Object.keys(withdrawnOn).length > 0 ? { withdrawnOn } : {}),
  })
}

function parseObject(json: string | undefined): Record<string, unknown> {
  if (!json) return {}
  try {
    const value: unknown = JSON.parse(json)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

/** The component changes against the stored components; a price without its date is dated today. */
function planComponents(
  row: number,
  editor: EditorInput,
  stored: readonly StoredComponent[],
  today: string,
  problems: RowError[],
  closedThrough: string | undefined,
): PlannedComponentChange[] {
  const closed = (index: number, from: string | null | undefined) => {
    if (from != null && datedOnPublishedDay(from, closedThrough, today))
      problems.push(publishedDayError(row, `components[${index}].price_from`, from, closedThrough as string, today))
  }
  const byId = new Map(stored.map((c) => [c.id, c]))
  let nextPosition = stored.reduce((max, c) => Math.max(max, c.position), 0) + 1
  const planned: PlannedComponentChange[] = []
  editor.components.forEach((change, index) => {
    const field = `components[${index}]`
    if (change.action === 'create') {
      const values = { ...change.values }
      if (values.position === undefined) values.position = nextPosition++
      if (values.priceCents != null && values.priceFrom == null) values.priceFrom = today
      if (values.priceCents != null) closed(index, values.priceFrom)
      planned.push({ action: 'create', values })
      return
    }
    const current = byId.get(change.id)
    if (!current) {
      problems.push(
        editorError(
          row,
          field,
          'component_not_found',
          `this offer has no component ${change.id}`,
          `ta oferta nie ma elementu ${change.id}`,
        ),
      )
      return
    }
    if (change.action === 'delete') {
      if (current.price_cents !== null) closed(index, change.priceFrom)
      planned.push({ action: 'delete', stored: current, ...(change.priceFrom ? { priceFrom: change.priceFrom } : {}) })
      return
    }
    const values = { ...change.values }
    if (values.priceCents === null) {
      // withdrawn: a date sent beside it dates the withdrawal, the stored date goes with the price
      if (values.priceFrom == null) values.priceFrom = today
    } else if (values.priceCents !== undefined && values.priceCents !== current.price_cents && values.priceFrom == null)
      values.priceFrom = today
    const changes: string[] = []
    for (const column of COMPONENT_COLUMNS) {
      const value = values[column.key]
      if (value === undefined) continue
      if (column.key === 'priceFrom' && values.priceCents === null) {
        if (current.price_cents !== null) changes.push('price_from')
        continue
      }
      if (value !== current[column.column]) changes.push(column.field)
    }
    if (changes.includes('price') || changes.includes('price_from')) closed(index, values.priceFrom)
    if (changes.length > 0) planned.push({ action: 'update', stored: current, values, changes })
  })
  return planned
}

/** An offer's stored custom fields (an object of the JSON column), or none when the text is not one. */
function storedCustomMeta(json: string | undefined): Record<string, unknown> {
  if (json === undefined) return {}
  try {
    const value: unknown = JSON.parse(json)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

/** A stored custom field as the plan records it: a scalar as it is, anything else (a list) as its JSON. */
function comparable(value: unknown): Comparable {
  if (value === null || value === undefined) return null
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  return JSON.stringify(value)
}

/**
 * A row the planner planned from what the reader knew of it (`compared`, `sent`): an `unchanged`
 * row, or a `create` of exactly the fields it sends; what field-by-field planning would have made
 * of it, with the values read from the input only when asked for (the preview shows the first
 * operations; the rest are stored as the reader's text).
 */
class KnownOperation implements PlannedOperation {
  readonly row: number | null
  readonly changes: string[]
  readonly before: Record<string, Comparable> = {}
  readonly storedValues: string | undefined

  constructor(
    private readonly input: PlanInput,
    readonly action: 'unchanged' | 'create',
    readonly changeSet: number,
    readonly key: string,
    readonly sourceInvestmentId: string,
    readonly sourcePropertyId: string,
    readonly offerId: number | null,
    readonly investmentId: number | null,
  ) {
    this.row = input.row
    this.storedValues = input.storedValues
    this.changes = changeSet === 0 ? [] : decodeChangeSet(changeSet)
  }

  get values(): NormalizedOfferValues {
    return this.input.values
  }
}

/**
 * Field names in sorted order: through the change set (already in that order) when every name is a
 * canonical field, as they all are; `sort` otherwise.
 */
function sortChanges(changes: string[]): string[] {
  const set = encodeChangeSet(changes)
  return typeof set === 'number' ? decodeChangeSet(set) : changes.sort()
}

/** Plans a whole input at once: the webhook's one offer, the editor, tests. */
export async function planOffers(
  db: Executor,
  inputs: readonly PlanInput[],
  options: { mode: ImportMode; today: string },
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

/** Per offer id, the earliest "valid from" date of each of its offer-level prices. */
type FirstPriceDates = ReadonlyMap<number, ReadonlyMap<string, string>>

const FIRST_DATE_PRICES = [
  { type: 'total', field: 'price_total', date: 'priceTotalFrom' },
  { type: 'm2', field: 'price_m2', date: 'priceM2From' },
  { type: 'combined', field: 'price_combined', date: 'priceCombinedFrom' },
] as const

/**
 * A plain change of a price dated before the offer's first record of that price would rewrite the
 * past the published files show (the file of that day said there was no such price, or another
 * one): refused on every channel. A correction (the editor's flag) fixes a recorded amount instead.
 */
function priceBeforeFirstRecord(
  row: number,
  offerId: number | undefined,
  values: NormalizedOfferValues,
  changes: ReadonlySet<string>,
  firstDates: FirstPriceDates,
  correction: boolean,
): RowError | undefined {
  if (offerId === undefined || correction) return undefined
  const firsts = firstDates.get(offerId)
  if (!firsts) return undefined
  for (const price of FIRST_DATE_PRICES) {
    const from = values[price.date]
    const first = firsts.get(price.type)
    if (from === undefined || from === null || first === undefined || from >= first) continue
    if (!changes.has(price.field) && !changes.has(`${price.field}_from`)) continue
    return fieldError(
      row,
      `${price.field}_from`,
      'price_before_first_record',
      `${from} is before the first recorded ${price.field} of this offer (${first}); a change cannot start before the offer had that price`,
      `data ${formatDatePl(from)} jest wcześniejsza niż pierwsza zapisana cena tej oferty (od ${formatDatePl(first)}): ` +
        'zmiana ceny nie może obowiązywać przed pierwszą ceną. Podaj datę od dnia pierwszej ceny lub późniejszą; ' +
        'jeśli pierwsza cena była błędna, popraw ją jako korektę (w edytorze zaznacz „To korekta błędnie wpisanej ceny, nie zmiana ceny”).',
    )
  }
  return undefined
}

/**
 * Both prices changed with different dates: between the two dates the file would pair the new
 * price with the old other one (a total from 07.11 beside the old price per m² until 09.11), which
 * must agree with the area as any pair does. Checked when the prices are entered, at the field of
 * the earlier date, rather than first by the night's publication.
 */
function splitDatedPrices(
  row: number,
  values: NormalizedOfferValues,
  changes: ReadonlySet<string>,
  stored: { price_total_cents: number | null; price_m2_cents: number | null },
  area: string | null,
): RowError | undefined {
  if (!changes.has('price_total') || !changes.has('price_m2') || area === null) return undefined
  const totalFrom = values.priceTotalFrom
  const m2From = values.priceM2From
  if (!totalFrom || !m2From || totalFrom === m2From) return undefined
  const totalFirst = totalFrom < m2From
  const total = totalFirst ? values.priceTotalCents : stored.price_total_cents
  const m2 = totalFirst ? stored.price_m2_cents : values.priceM2Cents
  if (total === undefined || total === null || m2 === undefined || m2 === null || total <= 0) return undefined
  if (priceWithinRounding(total, m2, area)) return undefined
  const [earlier, later] = totalFirst ? [totalFrom, m2From] : [m2From, totalFrom]
  return fieldError(
    row,
    totalFirst ? 'price_total_from' : 'price_m2_from',
    'inconsistent_price_dates',
    `the total takes effect on ${totalFrom} and the price per m² on ${m2From}: from ${earlier} until ${later} ` +
      `${(total / 100).toFixed(2)} would stand beside ${(m2 / 100).toFixed(2)} per m² × ${area}, which do not agree; give both the same date`,
    `cena całkowita obowiązuje od ${formatDatePl(totalFrom)}, a cena za m² od ${formatDatePl(m2From)}: ` +
      `od ${formatDatePl(earlier)} do dnia przed ${formatDatePl(later)} w pliku byłaby cena całkowita ${formatCentsPl(total)} zł ` +
      `obok ceny za m² ${formatCentsPl(m2)} zł × ${formatAreaPl(area)} m², a te się nie zgadzają. Podaj obu cenom tę samą datę.`,
  )
}

/**
 * The date sent with the other price of the pair (total and price per m²), which an undated one of
 * them takes: a row that dates its total and leaves the price per m² undated means one price list,
 * not a price per m² of today beside a total of months ago.
 */
function pairDate(sent: NormalizedOfferValues, date: 'priceM2From' | 'priceTotalFrom' | 'priceCombinedFrom') {
  if (date === 'priceM2From') return sent.priceTotalCents !== undefined ? sent.priceTotalFrom : undefined
  if (date === 'priceTotalFrom') return sent.priceM2Cents !== undefined ? sent.priceM2From : undefined
  return undefined
}

/** A change of an offer-level price (or of its date alone) dated on a published day, before today. */
function pricesOnPublishedDays(
  row: number,
  values: NormalizedOfferValues,
  changes: ReadonlySet<string>,
  closedThrough: string | undefined,
  today: string,
): RowError[] {
  if (closedThrough === undefined) return []
  const out: RowError[] = []
  for (const price of FIRST_DATE_PRICES) {
    const from = values[price.date]
    if (from === undefined || from === null) continue
    if (!changes.has(price.field) && !changes.has(`${price.field}_from`)) continue
    if (datedOnPublishedDay(from, closedThrough, today))
      out.push(publishedDayError(row, `${price.field}_from`, from, closedThrough, today))
  }
  return out
}

function formatDatePl(date: string): string {
  return `${date.slice(8, 10)}.${date.slice(5, 7)}.${date.slice(0, 4)}`
}
