/*
 * The transactional writer of the shared write path. It applies a plan inside the caller's
 * transaction: investments found or created by source id, offers created, updated or archived,
 * and the append-only price history (docs/decisions/one-write-path.md):
 * - `first`: no earlier record of that price (before = null);
 * - `withdrawal`: the price goes away, e.g. the offer is archived (after = null);
 * - `correction`: a new amount with the same valid-from date as the last record (correction = true);
 * - `change`: anything else.
 * A change of a price's date alone rewrites the offer but adds no history record. Every change of
 * an offer's status is a record of the status ledger (status_history), in the same transaction.
 */
import type { Insertable } from 'kysely'

import type { Executor } from '../host/context.js'
import { type DialectName, writerNumbersNewRows } from '../host/db/dialect.js'
import type { NewOffer, NewPriceHistory, OfferRow, OfferUpdate, StatusHistoryTable } from '../host/db/schema.js'
import { OFFER_TYPE_LABELS, slugify } from './names-and-slugs.js'
import { isStandalonePart, UNQUALIFIED_PROPERTY_TYPE } from './canonical-fields.js'
import { META_FIELD_PREFIX } from './validation/meta-values.js'
import {
  AWAITING_LOCATION,
  type ClearableField,
  type ComponentValues,
  type EditorFields,
  type EditorOperation,
  type PriceNote,
} from './editor-operation.js'
import type { OfferPlan, PlannedOperation } from './offer-planner.js'
import {
  deleteComponent,
  insertComponent,
  insertOffer,
  type InvestmentKeyRow,
  insertInvestment,
  insertOffers,
  insertFirstPricesOfNewOffers,
  insertPriceHistory,
  insertStatusHistory,
  selectNextSqliteOfferId,
  type LastPrice,
  selectLastComponentPrices,
  selectLastPrices,
  updateComponent,
  updateInvestmentLocation,
  updateOffer,
  updateOffers,
} from './offers-repository.js'
import type { NormalizedOfferValues } from './validation/validate-offer-row.js'

export interface ApplyCounts {
  processed: number
  created: number
  updated: number
  archived: number
  unchanged: number
}

export interface ApplyOptions {
  now: Date
  /** Today in Europe/Warsaw, the valid-from date of withdrawals. */
  today: string
  /**
   * Called with the counts of the plan before anything is written, inside the transaction; returns
   * the run id the history records carry (the audit entry of the run).
   */
  recordRun(counts: ApplyCounts): Promise<number>
}

/** What applying these operations will count; the same figures the writer counts as it goes. */
export function countPlannedOperations(operations: readonly Pick<PlannedOperation, 'action'>[]): ApplyCounts {
  const counts: ApplyCounts = { processed: 0, created: 0, updated: 0, archived: 0, unchanged: 0 }
  for (const op of operations) {
    if (op.action === 'archive') counts.archived++
    else {
      counts.processed++
      if (op.action === 'create') counts.created++
      else if (op.action === 'update') counts.updated++
      else counts.unchanged++
    }
  }
  return counts
}

type PriceType = 'total' | 'm2' | 'combined' | 'component'

const PRICE_COLUMNS: Array<{
  type: PriceType
  cents: 'price_total_cents' | 'price_m2_cents' | 'price_combined_cents'
  from: 'price_total_from' | 'price_m2_from' | 'price_combined_from'
  value: 'priceTotalCents' | 'priceM2Cents' | 'priceCombinedCents'
  date: 'priceTotalFrom' | 'priceM2From' | 'priceCombinedFrom'
  field: string
}> = [
  {
    type: 'total',
    cents: 'price_total_cents',
    from: 'price_total_from',
    value: 'priceTotalCents',
    date: 'priceTotalFrom',
    field: 'price_total',
  },
  {
    type: 'm2',
    cents: 'price_m2_cents',
    from: 'price_m2_from',
    value: 'priceM2Cents',
    date: 'priceM2From',
    field: 'price_m2',
  },
  {
    type: 'combined',
    cents: 'price_combined_cents',
    from: 'price_combined_from',
    value: 'priceCombinedCents',
    date: 'priceCombinedFrom',
    field: 'price_combined',
  },
]

/** `Mieszkanie A/1`; `Oferta A/1` for an offer not qualified yet (and any type without a label). */
function offerTitle(propertyType: string, code: string): string {
  return `${OFFER_TYPE_LABELS[propertyType] ?? 'Oferta'} ${code}`
}

function offerColumns(values: NormalizedOfferValues): OfferUpdate {
  const set: OfferUpdate = {}
  if (values.code !== undefined) set.code = values.code
  if (values.propertyType !== undefined) {
    set.property_type = values.propertyType
    set.offer_kind = isStandalonePart(values.propertyType) ? 'standalone_part' : 'property'
  }
  if (values.status !== undefined) set.status = values.status
  if (values.area !== undefined) set.area = values.area
  if (values.rooms !== undefined) set.rooms = values.rooms
  if (values.floor !== undefined) set.floor = values.floor
  if (values.priceM2Cents !== undefined) set.price_m2_cents = values.priceM2Cents
  if (values.priceM2From !== undefined) set.price_m2_from = values.priceM2From
  if (values.priceTotalCents !== undefined) set.price_total_cents = values.priceTotalCents
  if (values.priceTotalFrom !== undefined) set.price_total_from = values.priceTotalFrom
  if (values.priceCombinedCents !== undefined) set.price_combined_cents = values.priceCombinedCents
  if (values.priceCombinedFrom !== undefined) set.price_combined_from = values.priceCombinedFrom
  if (values.priceCombinedVariant !== undefined) set.price_combined_variant = values.priceCombinedVariant
  if (values.priceCombinedStatus !== undefined) set.price_combined_status = values.priceCombinedStatus
  return set
}

function locationColumns(values: NormalizedOfferValues): Partial<InvestmentKeyRow> {
  const loc = values.location ?? {}
  const set: Partial<InvestmentKeyRow> = {}
  if (loc.voivodeship !== undefined) set.loc_voivodeship = loc.voivodeship
  if (loc.powiat !== undefined) set.loc_powiat = loc.powiat
  if (loc.gmina !== undefined) set.loc_gmina = loc.gmina
  if (loc.city !== undefined) set.loc_city = loc.city
  if (loc.street !== undefined) set.loc_street = loc.street
  if (loc.buildingNo !== undefined) set.loc_building_no = loc.buildingNo
  if (loc.postalCode !== undefined) set.loc_postal_code = loc.postalCode
  return set
}

/** Whether every official location column (29–35) has a value. */
function hasFullLocation(location: Partial<InvestmentKeyRow>): boolean {
  return LOCATION_KEYS.every((key) => Boolean(location[key]?.trim()))
}

const LOCATION_KEYS = [
  'loc_voivodeship',
  'loc_powiat',
  'loc_gmina',
  'loc_city',
  'loc_street',
  'loc_building_no',
  'loc_postal_code',
] as const

/*
 * The editor's note (`reason`, `correction`) adds the operator's reason to every record of the operation,
 * and its correction flag makes a new amount a correction whatever its date; without the flag the
 * date decides, as for the import and the webhook. A first price and a withdrawal stay what they are.
 */
function historyRecord(
  args: {
    offerId: number
    componentId?: number
    type: PriceType
    before: number | null
    after: number | null
    validFrom: string
    last: LastPrice | undefined
    note?: PriceNote | undefined
    /** A price that comes back with its offer (restored from the archive) is a change, whatever its date. */
    reentry?: boolean
  },
  recordedAt: string,
  runId: number,
): NewPriceHistory {
  let recordType = 'change'
  if (args.after === null) recordType = 'withdrawal'
  else if (!args.last && args.before === null) recordType = 'first'
  else if (args.reentry) recordType = 'change'
  else if (args.note?.correction || args.last?.valid_from === args.validFrom) recordType = 'correction'
  return {
    offer_id: args.offerId,
    component_id: args.componentId ?? null,
    price_type: args.type,
    record_type: recordType,
    before_cents: args.before,
    after_cents: args.after,
    valid_from: args.validFrom,
    recorded_at: recordedAt,
    reason: args.note?.reason ?? '',
    correction: recordType === 'correction' ? 1 : 0,
    run_id: runId,
  }
}

/*
 * A created offer as one object literal naming the same columns in the same order: a batch INSERT
 * then has one SQL text (Kysely writes a missing column as an inline null, changing the text), and
 * 100,000 rows of one shape are cheap to build and to read back as parameters. The columns an
 * import never sets (building, variant, thumbnail, gallery, custom fields, and `host_status`, which
 * a new offer has `publish`) are left to their defaults: a sixth fewer values to bind.
 */
function newOfferRow(
  op: PlannedOperation,
  investmentId: number,
  nowIso: string,
  id: number | undefined,
  customMeta: boolean,
): NewOffer {
  const values = op.values
  // a new offer sent without a type is not qualified: never a guessed type
  const type: string = values.propertyType ?? UNQUALIFIED_PROPERTY_TYPE
  const code = values.code ?? op.sourcePropertyId
  const row: NewOffer = {
    investment_id: investmentId,
    source_property_id: op.sourcePropertyId,
    offer_kind: isStandalonePart(type) ? 'standalone_part' : 'property',
    property_type: type,
    code,
    title: offerTitle(type, code),
    status: values.status ?? 'available',
    area: values.area ?? null,
    rooms: values.rooms ?? null,
    floor: values.floor ?? null,
    price_total_cents: values.priceTotalCents ?? null,
    price_total_from: values.priceTotalFrom ?? null,
    price_m2_cents: values.priceM2Cents ?? null,
    price_m2_from: values.priceM2From ?? null,
    price_combined_cents: values.priceCombinedCents ?? null,
    price_combined_from: values.priceCombinedFrom ?? null,
    price_combined_variant: values.priceCombinedVariant ?? null,
    price_combined_status: values.priceCombinedStatus ?? null,
    created_at: nowIso,
    modified_at: nowIso,
  }
  // an import that maps custom fields names the column in every row, so its rows keep one shape
  if (customMeta) row.custom_meta = JSON.stringify(values.meta ?? {})
  if (id !== undefined) row.id = id
  return row
}

/** The stored custom fields with the sent ones merged in (a text that is not an object counts as none). */
function mergedCustomMeta(storedJson: string, sent: Readonly<Record<string, unknown>>): string {
  let stored: unknown
  try {
    stored = JSON.parse(storedJson)
  } catch {
    stored = {}
  }
  const base = typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? stored : {}
  return JSON.stringify({ ...base, ...sent })
}

export interface PlanWriter {
  /** What has been applied so far. */
  readonly counts: ApplyCounts
  /** Applies the next operations of the plan, in plan order; call as often as needed. */
  apply(operations: readonly PlannedOperation[]): Promise<void>
}

/**
 * Applies a plan in parts inside the caller's transaction, so that a 100,000-row import is written
 * without holding its plan in memory. Investments created by one part are known to the next.
 */
export function createPlanWriter(
  db: Executor,
  options: {
    now: Date
    today: string
    runId: number
    /** The dialect, for the bulk insert path of large plans (an import); a webhook's one offer does without. */
    bulk?: DialectName
    /** The plan writes custom fields (an import that maps `meta:` columns; see createPlanner). */
    customMeta?: boolean
    /**
     * The note of every price record of the run (a bulk price change's reason); an editor
     * operation's own note comes first.
     */
    note?: PriceNote
  },
): PlanWriter {
  const nowIso = options.now.toISOString()
  const counts: ApplyCounts = { processed: 0, created: 0, updated: 0, archived: 0, unchanged: 0 }
  const investmentIds = new Map<string, number>()
  // the writer may number its new offers itself (see selectNextSqliteOfferId), which spares the
  // bulk INSERT its RETURNING clause and the lookup of every id by key
  const explicitIds = options.bulk !== undefined && writerNumbersNewRows(options.bulk)
  let nextOfferId: number | undefined
  // the records of one editor operation, written as it is applied
  const editorHistory: NewPriceHistory[] = []
  // the status ledger's records, written with the price history
  const statuses: Insertable<StatusHistoryTable>[] = []
  const statusChange = (offer: OfferRow, after: string | undefined, reason = '') => {
    if (after === undefined || after === offer.status) return
    statuses.push({
      offer_id: offer.id,
      before_status: offer.status,
      after_status: after,
      valid_from: options.today,
      recorded_at: nowIso,
      reason,
      run_id: options.runId,
    })
  }

  async function apply(operations: readonly PlannedOperation[]): Promise<void> {
    for (const op of operations) if (op.investmentId !== null) investmentIds.set(op.sourceInvestmentId, op.investmentId)
    // a new investment takes every location its rows carry, and is published only with all of it
    const newLocations = new Map<string, Partial<InvestmentKeyRow>>()
    for (const op of operations) {
      if (op.action === 'archive' || op.action === 'unchanged' || op.editor) continue
      if (investmentIds.has(op.sourceInvestmentId)) continue
      newLocations.set(op.sourceInvestmentId, {
        ...newLocations.get(op.sourceInvestmentId),
        ...locationColumns(op.values),
      })
    }
    const locationUpdates = new Map<string, Partial<InvestmentKeyRow>>()
    for (const op of operations) {
      // the editor names an investment that exists (and sends no location with an offer)
      if (op.action === 'archive' || op.action === 'unchanged' || op.editor) continue
      if (op.values.location !== undefined && op.changes.some((c) => c.startsWith('proj_'))) {
        locationUpdates.set(op.sourceInvestmentId, {
          ...locationUpdates.get(op.sourceInvestmentId),
          ...locationColumns(op.values),
        })
      }
      if (!investmentIds.has(op.sourceInvestmentId)) {
        const location = newLocations.get(op.sourceInvestmentId) ?? {}
        const id = await insertInvestment(db, {
          source_id: op.sourceInvestmentId,
          title: op.sourceInvestmentId,
          slug: slugify(op.sourceInvestmentId) || 'inwestycja',
          content: '',
          excerpt: '',
          host_status: hasFullLocation(location) ? 'publish' : AWAITING_LOCATION,
          visibility: 'public',
          custom_meta: '{}',
          gallery: '[]',
          documents: '[]',
          created_at: nowIso,
          modified_at: nowIso,
          ...location,
        })
        investmentIds.set(op.sourceInvestmentId, id)
        locationUpdates.delete(op.sourceInvestmentId)
      }
    }
    for (const [source, location] of locationUpdates) {
      const id = investmentIds.get(source)
      if (id !== undefined && Object.keys(location).length > 0) await updateInvestmentLocation(db, id, location, nowIso)
    }

    const existingIds: number[] = []
    for (const op of operations) if (op.offerId !== null && op.action !== 'unchanged') existingIds.push(op.offerId)
    const current = existingIds.length > 0 ? await selectOffersById(db, existingIds) : new Map<number, OfferRow>()
    const lastPrices = new Map<string, LastPrice>()
    if (existingIds.length > 0)
      for (const p of await selectLastPrices(db, existingIds)) lastPrices.set(`${p.offer_id}:${p.price_type}`, p)
    const history: NewPriceHistory[] = []
    const record = (args: Parameters<typeof historyRecord>[0]) => {
      history.push(historyRecord({ ...args, note: args.note ?? options.note }, nowIso, options.runId))
    }

    const creates: Array<{ op: PlannedOperation; row: NewOffer }> = []
    // a large plan (an import) updates its offers in batches (see updateOffers); one offer, or
    // the editor's, by itself
    const batched = new Map<number, OfferUpdate>()
    const bulk = options.bulk
    const update = async (id: number, set: OfferUpdate) => {
      if (bulk === undefined) return updateOffer(db, id, set)
      if (batched.has(id)) await flushUpdates()
      batched.set(id, set)
    }
    const flushUpdates = async () => {
      if (bulk === undefined || batched.size === 0) return
      const updates = [...batched].map(([id, set]) => ({ id, set }))
      batched.clear()
      await updateOffers(db, bulk, updates)
    }
    for (const op of operations) {
      if (op.action !== 'archive') counts.processed++
      if (op.action === 'unchanged') {
        counts.unchanged++
        continue
      }
      if (op.action === 'create' && op.editor) {
        counts.created++
        await createEditorOffer(op, op.editor)
        continue
      }
      if (op.action === 'create') {
        const investmentId = investmentIds.get(op.sourceInvestmentId) as number
        if (explicitIds && nextOfferId === undefined) nextOfferId = await selectNextSqliteOfferId(db)
        creates.push({
          op,
          row: newOfferRow(
            op,
            investmentId,
            nowIso,
            nextOfferId === undefined ? undefined : nextOfferId++,
            options.customMeta === true,
          ),
        })
        continue
      }
      const offer = current.get(op.offerId as number)
      if (!offer) throw new Error(`offer ${op.offerId} disappeared during the transaction`)
      if (op.action === 'archive') {
        counts.archived++
        statusChange(offer, 'archived', op.editor?.note?.reason ?? options.note?.reason)
        await update(offer.id, { status: 'archived', host_status: 'private', modified_at: nowIso })
        for (const price of PRICE_COLUMNS) {
          if (offer[price.cents] === null) continue
          record({
            offerId: offer.id,
            type: price.type,
            before: offer[price.cents],
            after: null,
            validFrom: options.today,
            last: lastPrices.get(`${offer.id}:${price.type}`),
            note: op.editor?.note,
          })
        }
        continue
      }
      counts.updated++
      if (op.editor) {
        await updateEditorOffer(op, op.editor, offer, lastPrices)
        continue
      }
      const set = offerColumns(op.values)
      // a title the service made follows the code and the type (`Oferta A/1` becomes `Mieszkanie
      // A/1` when the offer is qualified); one an operator wrote is kept
      if (
        (set.code !== undefined || set.property_type !== undefined) &&
        offer.title === offerTitle(offer.property_type, offer.code)
      ) {
        set.title = offerTitle(set.property_type ?? offer.property_type, set.code ?? offer.code)
      }
      // an archived offer that a file lists again with a live status is back on sale
      if (
        offer.status === 'archived' &&
        set.status !== undefined &&
        set.status !== 'archived' &&
        offer.host_status === 'private'
      )
        set.host_status = 'publish'
      if (set.status === 'archived') set.host_status = 'private'
      statusChange(offer, set.status)
      if (op.values.meta !== undefined && op.changes.some((change) => change.startsWith(META_FIELD_PREFIX)))
        set.custom_meta = mergedCustomMeta(offer.custom_meta, op.values.meta)
      await update(offer.id, { ...set, modified_at: nowIso })
      for (const price of PRICE_COLUMNS) {
        const after = op.values[price.value]
        if (after === undefined || !op.changes.includes(price.field)) continue
        const validFrom = op.values[price.date] ?? options.today
        const claimed = op.movedDates?.[price.field]
        record({
          offerId: offer.id,
          type: price.type,
          before: offer[price.cents],
          after,
          validFrom,
          last: lastPrices.get(`${offer.id}:${price.type}`),
          // the date the channel sent was on a published day: kept in the reason, in force from the open day
          ...(claimed !== undefined
            ? {
                note: {
                  reason: `Przesłano z datą ${claimed}, a ten dzień jest objęty opublikowanymi już plikami urzędowymi; cena obowiązuje od ${validFrom}.`,
                  correction: false,
                },
              }
            : {}),
        })
      }
    }

    await flushUpdates()
    if (history.length > 0) await insertPriceHistory(db, history.splice(0), options.bulk)
    if (statuses.length > 0) await insertStatusHistory(db, statuses.splice(0))
    if (creates.length > 0 && explicitIds) {
      // numbered in one range by this writer: their first prices are copied by the database
      await insertOffers(
        db,
        creates.map((c) => c.row),
        options.bulk,
      )
      counts.created += creates.length
      await insertFirstPricesOfNewOffers(db, {
        fromId: creates[0]?.row.id as number,
        toId: creates[creates.length - 1]?.row.id as number,
        recordedAt: nowIso,
        today: options.today,
        runId: options.runId,
      })
    } else if (creates.length > 0) {
      const inserted = await insertOffers(
        db,
        creates.map((c) => c.row),
        options.bulk,
      )
      const idByKey = explicitIds
        ? undefined
        : new Map(inserted.map((r) => [`${r.investment_id}:${r.source_property_id}`, r.id]))
      for (const { op, row } of creates) {
        counts.created++
        const id = idByKey ? idByKey.get(`${row.investment_id}:${op.sourcePropertyId}`) : row.id
        if (id === undefined) throw new Error(`created offer ${op.key} was not returned`)
        for (const price of PRICE_COLUMNS) {
          const after = op.values[price.value]
          if (after === undefined) continue
          record({
            offerId: id,
            type: price.type,
            before: null,
            after,
            validFrom: op.values[price.date] ?? options.today,
            last: undefined,
          })
        }
      }
      if (history.length > 0) await insertPriceHistory(db, history, options.bulk)
    }
  }

  /** A new offer of the editor: the shared row of a created offer, plus what only the editor sets. */
  async function createEditorOffer(op: PlannedOperation, editor: EditorOperation): Promise<void> {
    const row: NewOffer = {
      ...newOfferRow(op, editor.investmentId, nowIso, undefined, false),
      source_property_id: editor.sourcePropertyId,
      ...editorColumns(editor.fields),
    }
    // as every channel keeps it: an archived offer is private
    if (row.status === 'archived' && editor.fields.hostStatus === undefined) row.host_status = 'private'
    const id = await insertOffer(db, row)
    // the caller learns the new offer's id from its operation
    op.offerId = id
    editor.offerId = id
    for (const price of PRICE_COLUMNS) {
      const after = op.values[price.value]
      if (after === undefined) continue
      editorHistory.push(
        historyRecord(
          {
            offerId: id,
            type: price.type,
            before: null,
            after,
            validFrom: op.values[price.date] ?? options.today,
            last: undefined,
            note: editor.note,
          },
          nowIso,
          options.runId,
        ),
      )
    }
    await applyComponents(id, editor, new Map())
    await flushHistory()
  }

  async function updateEditorOffer(
    op: PlannedOperation,
    editor: EditorOperation,
    offer: OfferRow,
    lastPrices: ReadonlyMap<string, LastPrice>,
  ): Promise<void> {
    const set: OfferUpdate = { ...offerColumns(op.values), ...editorColumns(editor.fields) }
    for (const field of editor.cleared) (set as Record<string, null>)[CLEARED_COLUMNS[field]] = null
    if (
      editor.fields.title === undefined &&
      (set.code !== undefined || set.property_type !== undefined) &&
      offer.title === offerTitle(offer.property_type, offer.code)
    )
      set.title = offerTitle(set.property_type ?? offer.property_type, set.code ?? offer.code)
    // the same status rules as every channel: an archived offer is private, one back on sale public
    if (set.status === 'archived') set.host_status = editor.fields.hostStatus ?? 'private'
    else if (offer.status === 'archived' && set.status !== undefined && editor.fields.hostStatus === undefined)
      set.host_status = 'publish'
    statusChange(offer, set.status, editor.note?.reason)
    await updateOffer(db, offer.id, { ...set, modified_at: nowIso })

    const cleared = new Set<ClearableField>(editor.cleared)
    for (const price of PRICE_COLUMNS) {
      const last = lastPrices.get(`${offer.id}:${price.type}`)
      const after = op.values[price.value]
      if (after !== undefined && op.changes.includes(price.field)) {
        editorHistory.push(
          historyRecord(
            {
              offerId: offer.id,
              type: price.type,
              // a price coming back from the archive had been withdrawn: it is entered again
              before: editor.restore ? null : offer[price.cents],
              after,
              validFrom: op.values[price.date] ?? options.today,
              last,
              note: editor.note,
              reentry: editor.restore,
            },
            nowIso,
            options.runId,
          ),
        )
      } else if (cleared.has(price.field as ClearableField)) {
        editorHistory.push(
          historyRecord(
            {
              offerId: offer.id,
              type: price.type,
              before: offer[price.cents],
              after: null,
              validFrom: editor.withdrawnOn?.[price.field] ?? options.today,
              last,
              note: editor.note,
            },
            nowIso,
            options.runId,
          ),
        )
      } else if (editor.restore && offer[price.cents] !== null) {
        editorHistory.push(
          historyRecord(
            {
              offerId: offer.id,
              type: price.type,
              before: null,
              after: offer[price.cents],
              validFrom: options.today,
              last,
              note: editor.note,
              reentry: true,
            },
            nowIso,
            options.runId,
          ),
        )
      }
    }
    const componentIds = editor.components.flatMap((c) => (c.action === 'create' ? [] : [c.stored.id]))
    await applyComponents(
      offer.id,
      editor,
      componentIds.length > 0 ? await selectLastComponentPrices(db, componentIds) : new Map(),
    )
    await flushHistory()
  }

  /** The offer's component changes, each price with its history (price type `component`). */
  async function applyComponents(
    offerId: number,
    editor: EditorOperation,
    lastPrices: ReadonlyMap<number, LastPrice>,
  ): Promise<void> {
    const record = (componentId: number, before: number | null, after: number | null, validFrom: string) =>
      editorHistory.push(
        historyRecord(
          {
            offerId,
            componentId,
            type: 'component',
            before,
            after,
            validFrom,
            last: lastPrices.get(componentId),
            note: editor.note,
          },
          nowIso,
          options.runId,
        ),
      )
    for (const change of editor.components) {
      if (change.action === 'create') {
        const v = change.values
        const id = await insertComponent(db, {
          offer_id: offerId,
          position: v.position ?? 0,
          group_kind: v.group ?? 'part',
          kind_label: v.kindLabel ?? '',
          designation: v.designation ?? null,
          description: v.description ?? null,
          price_cents: v.priceCents ?? null,
          price_from: v.priceCents == null ? null : (v.priceFrom ?? options.today),
          relation: v.relation ?? null,
          requirement: v.requirement ?? null,
          variant: v.variant ?? null,
          legal_title: v.legalTitle ?? null,
          created_at: nowIso,
          modified_at: nowIso,
        })
        if (v.priceCents != null) record(id, null, v.priceCents, v.priceFrom ?? options.today)
      } else if (change.action === 'update') {
        const v = change.values
        await updateComponent(db, change.stored.id, { ...componentColumns(v), modified_at: nowIso })
        if (change.changes.includes('price')) {
          const validFrom = v.priceFrom ?? options.today
          record(change.stored.id, change.stored.price_cents, v.priceCents ?? null, validFrom)
        }
      } else {
        if (change.stored.price_cents !== null)
          record(change.stored.id, change.stored.price_cents, null, change.priceFrom ?? options.today)
        await deleteComponent(db, change.stored.id)
      }
    }
  }

  async function flushHistory(): Promise<void> {
    if (editorHistory.length > 0) await insertPriceHistory(db, editorHistory.splice(0))
    if (statuses.length > 0) await insertStatusHistory(db, statuses.splice(0))
  }

  return { counts, apply }
}

/** The stored columns of the canonical fields the editor removes. */
const CLEARED_COLUMNS: Readonly<Record<ClearableField, keyof OfferUpdate>> = {
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

function editorColumns(fields: EditorFields): OfferUpdate {
  const set: OfferUpdate = {}
  if (fields.title !== undefined) set.title = fields.title
  if (fields.building !== undefined) set.building = fields.building
  if (fields.variant !== undefined) set.variant = fields.variant
  if (fields.hostStatus !== undefined) set.host_status = fields.hostStatus
  if (fields.customMeta !== undefined) set.custom_meta = JSON.stringify(fields.customMeta)
  if (fields.gallery !== undefined) set.gallery = JSON.stringify(fields.gallery)
  if (fields.thumbnailId !== undefined) set.thumbnail_id = fields.thumbnailId
  return set
}

function componentColumns(v: ComponentValues): Record<string, string | number | null> {
  const set: Record<string, string | number | null> = {}
  if (v.group !== undefined) set.group_kind = v.group
  if (v.kindLabel !== undefined) set.kind_label = v.kindLabel
  if (v.designation !== undefined) set.designation = v.designation
  if (v.description !== undefined) set.description = v.description
  if (v.priceCents !== undefined) {
    set.price_cents = v.priceCents
    // a withdrawn price takes its date with it; the date sent beside it dated the withdrawal
    set.price_from = v.priceCents === null ? null : (v.priceFrom ?? null)
  } else if (v.priceFrom !== undefined) set.price_from = v.priceFrom
  if (v.relation !== undefined) set.relation = v.relation
  if (v.requirement !== undefined) set.requirement = v.requirement
  if (v.variant !== undefined) set.variant = v.variant
  if (v.legalTitle !== undefined) set.legal_title = v.legalTitle
  if (v.position !== undefined) set.position = v.position
  return set
}

async function selectOffersById(db: Executor, ids: number[]): Promise<Map<number, OfferRow>> {
  const out = new Map<number, OfferRow>()
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom('offers')
      .selectAll()
      .where('id', 'in', ids.slice(i, i + 500))
      .execute()
    for (const row of rows) out.set(row.id, row)
  }
  return out
}

/** Applies a whole plan: the audit entry of the run first (its id marks the history), then the writes. */
export async function applyOfferPlan(db: Executor, plan: OfferPlan, options: ApplyOptions): Promise<ApplyCounts> {
  const runId = await options.recordRun(countPlannedOperations(plan.operations))
  const writer = createPlanWriter(db, { now: options.now, today: options.today, runId })
  await writer.apply(plan.operations)
  return writer.counts
}
