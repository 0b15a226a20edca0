/*
 * The offer editor's inputs (editor-operation.ts): the same field and price rules as a row's
 * (plan-row.ts), on the offer the input names by id, plus what only the editor does (removing a
 * field, archiving and restoring, its own fields, components).
 */
import type { ClearableField, EditorFields, EditorInput, EditorOperation } from '../editor-operation.js'
import { datedOnPublishedDay, publishedDayError } from '../closed-day.js'
import type { PlanOfferRow } from '../offers-repository.js'
import { combinedBelowStoredTotal, storedPriceInconsistency } from '../validation/price-consistency.js'
import { fieldError, type RowError } from '../validation/row-errors.js'
import type { NormalizedOfferValues } from '../validation/validate-offer-row.js'
import { planComponents } from './component-changes.js'
import { designationKey, type EditorTargets, type PartDesignation, partTakenError } from './editor-targets.js'
import { OFFER_FIELDS, sortChanges, storedObject } from './offer-fields.js'
import type { Comparable, PlanInput, PlannedOperation } from './planned-operation.js'
import {
  type FirstPriceDates,
  pairDate,
  priceBeforeFirstRecord,
  pricesOnPublishedDays,
  splitDatedPrices,
} from './price-dates.js'

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

/**
 * The operation of an editor input: the canonical fields compared with the stored offer exactly as
 * `planRow` compares a row's (a changed price without its date is dated today, the price rule is
 * held with the stored values), plus what only the editor does. `null` when the catalog makes the
 * input an error (added to `errors`).
 */
export function planEditorInput(
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
        fieldError(row, 'prop_no', 'required', 'a new offer needs its designation', 'nowa oferta musi mieć oznaczenie'),
      )
    if (values.propertyType === undefined)
      problems.push(
        fieldError(
          row,
          'prop_type',
          'required',
          'a new offer entered in the editor needs its type (mieszkanie, dom or a standalone part): it is never guessed',
          'nowa oferta wpisana w edytorze musi mieć rodzaj (mieszkanie, dom albo część samodzielna): nie jest on zgadywany',
        ),
      )
    if (sourcePropertyId !== null && targets.takenSourceKeys.has(`${editor.investmentId}/${sourcePropertyId}`))
      problems.push(
        fieldError(
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
        fieldError(
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
  const inconsistent = storedPriceInconsistency(row, values, { total, m2, area })
  if (inconsistent) problems.push(inconsistent)
  // a package price sent alone is held to the total; a total sent alone sets a stale package aside
  const below = combinedBelowStoredTotal(row, values, total)
  if (below) problems.push(below)
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
    const current = storedObject(stored?.custom_meta)
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
      fieldError(
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
