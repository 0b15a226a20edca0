/*
 * The offer fields a plan compares with the stored offer, shared by the planning of rows
 * (plan-row.ts) and of editor inputs (plan-editor-input.ts), so that both channels see a change alike.
 */
import { decodeChangeSet, encodeChangeSet } from '../change-set.js'
import type { PlanOfferRow } from '../offers-repository.js'
import type { NormalizedOfferValues } from '../validation/validate-offer-row.js'
import type { Comparable } from './planned-operation.js'

export interface FieldRule {
  field: string
  read: (offer: PlanOfferRow) => Comparable
  sent: (values: NormalizedOfferValues) => Comparable | undefined
}

export const OFFER_FIELDS: FieldRule[] = [
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

/**
 * Field names in sorted order: through the change set (already in that order) when every name is a
 * canonical field, as they all are; `sort` otherwise.
 */
export function sortChanges(changes: string[]): string[] {
  const set = encodeChangeSet(changes)
  return typeof set === 'number' ? decodeChangeSet(set) : changes.sort()
}

/** A stored JSON object column (custom fields), or none when the text is not an object. */
export function storedObject(json: string | undefined): Record<string, unknown> {
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
