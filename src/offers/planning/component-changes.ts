/*
 * The changes an editor input makes to an offer's components (parts, rooms, rights and other
 * payments listed with it), planned against the stored ones.
 */
import { datedOnPublishedDay, publishedDayError } from '../closed-day.js'
import type { ComponentValues, EditorInput, PlannedComponentChange, StoredComponent } from '../editor-operation.js'
import { fieldError, type RowError } from '../validation/row-errors.js'

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

/** The component changes against the stored components; a price without its date is dated today. */
export function planComponents(
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
        fieldError(
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
