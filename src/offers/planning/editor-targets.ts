/*
 * What the editor's inputs name in the catalog, read once per batch: the offers they edit, the
 * source ids new offers ask for, and the parts and rooms already listed in their investments.
 */
import type { Executor } from '../../host/context.js'
import {
  type EditorTarget,
  selectEditorTargets,
  selectOffersBySourceKeys,
  selectPartDesignations,
} from '../offers-repository.js'
import { fieldError, type RowError } from '../validation/row-errors.js'
import type { PlanInput } from './planned-operation.js'

export interface EditorTargets {
  byId: Map<number, EditorTarget>
  /** `investmentId/sourcePropertyId` of the source ids new offers ask for that an offer has already. */
  takenSourceKeys: Set<string>
  /** Per investment, the parts and rooms listed with units and the standalone parts, by designation. */
  partDesignations: Map<number, PartDesignation[]>
}

export interface PartDesignation {
  key: string
  offerId: number
  offerCode: string
  componentId: number | null
}

/** A designation as people write it: "MP 24", "mp24" and " MP  24 " name the same place. */
export const designationKey = (designation: string) => designation.replace(/\s+/g, '').toLowerCase()

export async function knowEditorTargets(db: Executor, inputs: readonly PlanInput[]): Promise<EditorTargets> {
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
export function partTakenError(row: number, field: string, designation: string, taken: PartDesignation): RowError {
  const where =
    taken.componentId === null
      ? {
          pl: 'jest już oferowane osobno jako część samodzielna',
          en: 'is already offered on its own as a standalone part',
        }
      : { pl: `jest już przypisane do lokalu ${taken.offerCode}`, en: `is already listed with unit ${taken.offerCode}` }
  return fieldError(
    row,
    field,
    'part_already_listed',
    `${JSON.stringify(designation)} ${where.en}; a part or room belongs to one unit or is offered on its own, never both`,
    `${JSON.stringify(designation)} ${where.pl}; część lub pomieszczenie należy do jednego lokalu albo jest oferowane ` +
      'osobno, nigdy jedno i drugie. Usuń je tam albo popraw oznaczenie.',
  )
}
