/*
 * The fields an operation changes, as a bit set over the canonical fields in sorted order: the
 * order the planner sorts `changes` in. A created offer changes some twenty fields; as a number
 * they cost a stored plan and the plan digest a few bytes instead of two hundred.
 */
import { CANONICAL_FIELDS } from './canonical-fields.js'

const CHANGE_FIELDS: readonly string[] = [...CANONICAL_FIELDS].sort()
const CHANGE_BIT = new Map(CHANGE_FIELDS.map((field, bit) => [field, 1 << bit]))

/** The bit of one canonical field (0 for any other name). */
export function changeBit(field: string): number {
  return CHANGE_BIT.get(field) ?? 0
}

/** Sorted field names as a bit set; a name outside the canonical fields keeps the list as text. */
export function encodeChangeSet(changes: readonly string[]): number | string {
  let bits = 0
  for (const field of changes) {
    const bit = CHANGE_BIT.get(field)
    if (bit === undefined) return changes.join(',')
    bits |= bit
  }
  return bits
}

/** Field lists by bit set: most operations of a plan share a handful of them. */
const changesByBits = new Map<number, readonly string[]>()

/** The sorted field names of a bit set, or of the text `encodeChangeSet` falls back to. */
export function decodeChangeSet(stored: number | string): string[] {
  if (typeof stored === 'string') return stored === '' ? [] : stored.split(',')
  let changes = changesByBits.get(stored)
  if (changes === undefined) {
    const fields: string[] = []
    for (let bit = 0; bit < CHANGE_FIELDS.length; bit++)
      if ((stored >>> bit) & 1) fields.push(CHANGE_FIELDS[bit] as string)
    changes = fields
    if (changesByBits.size < 10_000) changesByBits.set(stored, changes)
  }
  // a copy: an operation's list is its own to change
  return changes.slice()
}
