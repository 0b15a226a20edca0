/*
 * How a previewed plan is kept until it is executed or paged through: its operations in chunks of
 * JSON arrays, one row of `import_job_items` per chunk. A 100,000-row plan is about 25 MB this way
 * instead of 60 MB as objects with field names, and it is written and read back as text, never as
 * 100,000 live objects.
 *
 * Format 3 (current): each operation is a positional array `[row, action, values, changes, before,
 * offerId, investmentId]`, plus `sourceInvestmentId, sourcePropertyId, key` for an archive (which
 * has no values to derive them from). `values` are the normalized values in STORED_VALUE_FIELDS order;
 * `changes` is a bit set (change-set.ts: a created offer changes some twenty fields, and their
 * names made up a third of a stored plan). Chunks hold 500 operations; a chunk's `action` column
 * is `w` when it holds something to write and `u` when every operation in it is `unchanged`, so
 * execution reads only the former.
 * Format 2: the same, with `changes` as the field names joined by commas (still read: a preview
 * made before an upgrade may be executed after it).
 * Format 1: chunks of 100 objects `{r,k,a,v,c,b,o,i,s,p}`.
 */
import { decodeChangeSet, encodeChangeSet } from '../../offers/change-set.js'
import type { Comparable, PlanAction, PlannedOperation } from '../../offers/offer-planner.js'
import {
  type NormalizedLocation,
  type NormalizedOfferValues,
  offerKey,
} from '../../offers/validation/validate-offer-row.js'

export const PLAN_FORMAT = 3

export function chunkSizeOf(format: number): number {
  return format === 1 ? 100 : 500
}

export type Stored = string | number | null
type LocationKey = keyof NormalizedLocation

/** The positions of stored values (see `encodeValues`). */
export const STORED_VALUE_FIELDS = [
  'sourceInvestmentId',
  'sourcePropertyId',
  'code',
  'offerKind',
  'propertyType',
  'status',
  'area',
  'rooms',
  'floor',
  'priceM2Cents',
  'priceM2From',
  'priceTotalCents',
  'priceTotalFrom',
  'priceCombinedCents',
  'priceCombinedFrom',
  'priceCombinedVariant',
  'priceCombinedStatus',
] as const satisfies ReadonlyArray<Exclude<keyof NormalizedOfferValues, 'location'>>

export const STORED_LOCATION_FIELDS = [
  'voivodeship',
  'powiat',
  'gmina',
  'city',
  'street',
  'buildingNo',
  'localNo',
  'postalCode',
] as const satisfies readonly LocationKey[]

/** Where the custom fields are kept: after the values and the location. */
export const STORED_META_POSITION = STORED_VALUE_FIELDS.length + STORED_LOCATION_FIELDS.length

const ACTION_CODES: Readonly<Record<PlanAction, string>> = { create: 'c', update: 'u', unchanged: 'n', archive: 'a' }
const ACTIONS: Readonly<Record<string, PlanAction>> = { c: 'create', u: 'update', n: 'unchanged', a: 'archive' }

/*
 * The two functions below spell out the fields in STORED_VALUE_FIELDS and STORED_LOCATION_FIELDS
 * order, one by one (a test holds them to those lists): a loop over the names read and wrote the
 * properties by computed key, which cost a 100,000-row preview twice as much on both threads.
 */

/**
 * Normalized values as a positional array (STORED_VALUE_FIELDS, then STORED_LOCATION_FIELDS, then
 * the custom fields as JSON text), trailing nulls cut.
 */
export function encodeValues(v: NormalizedOfferValues): Stored[] {
  const out: Stored[] = [
    v.sourceInvestmentId ?? null,
    v.sourcePropertyId ?? null,
    v.code ?? null,
    v.offerKind ?? null,
    v.propertyType ?? null,
    v.status ?? null,
    v.area ?? null,
    v.rooms ?? null,
    v.floor ?? null,
    v.priceM2Cents ?? null,
    v.priceM2From ?? null,
    v.priceTotalCents ?? null,
    v.priceTotalFrom ?? null,
    v.priceCombinedCents ?? null,
    v.priceCombinedFrom ?? null,
    v.priceCombinedVariant ?? null,
    v.priceCombinedStatus ?? null,
  ]
  const l = v.location
  if (l || v.meta)
    out.push(
      l?.voivodeship ?? null,
      l?.powiat ?? null,
      l?.gmina ?? null,
      l?.city ?? null,
      l?.street ?? null,
      l?.buildingNo ?? null,
      l?.localNo ?? null,
      l?.postalCode ?? null,
    )
  // custom fields (an import's meta: columns) last, as one JSON text: most plans have none
  if (v.meta) out.push(JSON.stringify(v.meta))
  let end = out.length
  while (end > 0 && out[end - 1] === null) end--
  out.length = end
  return out
}

/** The inverse of `encodeValues`: a null or missing position is a field not sent. */
export function decodeValues(s: Stored[]): NormalizedOfferValues {
  const v: Record<string, unknown> = {}
  let x: Stored | undefined
  if ((x = s[0]) != null) v.sourceInvestmentId = x
  if ((x = s[1]) != null) v.sourcePropertyId = x
  if ((x = s[2]) != null) v.code = x
  if ((x = s[3]) != null) v.offerKind = x
  if ((x = s[4]) != null) v.propertyType = x
  if ((x = s[5]) != null) v.status = x
  if ((x = s[6]) != null) v.area = x
  if ((x = s[7]) != null) v.rooms = x
  if ((x = s[8]) != null) v.floor = x
  if ((x = s[9]) != null) v.priceM2Cents = x
  if ((x = s[10]) != null) v.priceM2From = x
  if ((x = s[11]) != null) v.priceTotalCents = x
  if ((x = s[12]) != null) v.priceTotalFrom = x
  if ((x = s[13]) != null) v.priceCombinedCents = x
  if ((x = s[14]) != null) v.priceCombinedFrom = x
  if ((x = s[15]) != null) v.priceCombinedVariant = x
  if ((x = s[16]) != null) v.priceCombinedStatus = x
  if (s.length <= STORED_VALUE_FIELDS.length) return v as NormalizedOfferValues
  const l: Record<string, Stored> = {}
  if ((x = s[17]) != null) l.voivodeship = x
  if ((x = s[18]) != null) l.powiat = x
  if ((x = s[19]) != null) l.gmina = x
  if ((x = s[20]) != null) l.city = x
  if ((x = s[21]) != null) l.street = x
  if ((x = s[22]) != null) l.buildingNo = x
  if ((x = s[23]) != null) l.localNo = x
  if ((x = s[24]) != null) l.postalCode = x
  // a row that sends custom fields but no location has the location's positions empty
  if (Object.keys(l).length > 0) v.location = l
  if (typeof (x = s[STORED_META_POSITION]) === 'string') v.meta = JSON.parse(x) as Record<string, unknown>
  return v as NormalizedOfferValues
}

/**
 * One operation as stored JSON text. Values the planner passed through untouched come as the text
 * the file's reader made of them (`storedValues`), which is not made again.
 */
export function encodeOperation(op: PlannedOperation): string {
  const before = op.changes.length > 0 && Object.keys(op.before).length > 0 ? JSON.stringify(op.before) : '0'
  const values = op.storedValues ?? JSON.stringify(encodeValues(op.values))
  const changes = op.changeSet ?? encodeChangeSet(op.changes)
  const head = `[${op.row ?? 'null'},"${ACTION_CODES[op.action]}",${values},${typeof changes === 'number' ? changes : JSON.stringify(changes)},${before},${op.offerId ?? 'null'},${op.investmentId ?? 'null'}`
  return op.action === 'archive'
    ? `${head},${JSON.stringify(op.sourceInvestmentId)},${JSON.stringify(op.sourcePropertyId)},${JSON.stringify(op.key)}]`
    : `${head}]`
}

function decodeV2(stored: unknown[]): PlannedOperation {
  const [row, code, rawValues, changes, before, offerId, investmentId] = stored as [
    number | null,
    string,
    Stored[],
    number | string,
    Record<string, Comparable> | 0,
    number | null,
    number | null,
  ]
  const action = ACTIONS[code]
  if (action === undefined) throw new Error(`stored operation with unknown action ${String(code)}`)
  const values = decodeValues(rawValues)
  let sourceInvestmentId: string
  let sourcePropertyId: string
  let key: string
  if (action === 'archive') {
    ;[sourceInvestmentId, sourcePropertyId, key] = stored.slice(7, 10) as [string, string, string]
  } else {
    sourceInvestmentId = values.sourceInvestmentId ?? ''
    sourcePropertyId = values.sourcePropertyId ?? ''
    key = offerKey(sourceInvestmentId, sourcePropertyId)
  }
  return {
    row,
    key,
    action,
    sourceInvestmentId,
    sourcePropertyId,
    values,
    changes: decodeChangeSet(changes),
    before: before === 0 ? {} : before,
    offerId,
    investmentId,
  }
}

interface StoredV1 {
  r: number | null
  k: string
  a: PlanAction
  v: NormalizedOfferValues
  c: string[]
  b: Record<string, Comparable> | null
  o: number | null
  i: number | null
  s: string
  p: string
}

function decodeV1(op: StoredV1): PlannedOperation {
  return {
    row: op.r,
    key: op.k,
    action: op.a,
    sourceInvestmentId: op.s,
    sourcePropertyId: op.p,
    values: op.v,
    changes: op.c,
    before: op.b ?? {},
    offerId: op.o,
    investmentId: op.i,
  }
}

/** The operations of one stored chunk, in plan order (formats 2 and 3 differ only in `changes`). */
export function decodeChunk(payload: string, format: number): PlannedOperation[] {
  const parsed = JSON.parse(payload) as unknown[]
  return format === 1 ? (parsed as StoredV1[]).map(decodeV1) : (parsed as unknown[][]).map((stored) => decodeV2(stored))
}

export interface EncodedChunk {
  seq: number
  /** `w` when the chunk holds a create, update or archive; `u` when all of it is unchanged. */
  action: 'w' | 'u'
  payload: string
}

/** Collects encoded operations into chunks of text as a plan streams by; `take` hands them over. */
export class ChunkBuilder {
  private chunks: EncodedChunk[] = []
  private pending: string[] = []
  private writes = false
  private nextSeq = 0
  total = 0

  add(op: PlannedOperation): void {
    this.pending.push(encodeOperation(op))
    if (op.action !== 'unchanged') this.writes = true
    this.total++
    if (this.pending.length === chunkSizeOf(PLAN_FORMAT)) this.flush()
  }

  /** Closes the chunk being filled, even if it is not full. */
  flush(): void {
    if (this.pending.length === 0) return
    this.chunks.push({ seq: this.nextSeq++, action: this.writes ? 'w' : 'u', payload: `[${this.pending.join(',')}]` })
    this.pending = []
    this.writes = false
  }

  /** The complete chunks not taken yet. */
  get ready(): number {
    return this.chunks.length
  }

  take(): EncodedChunk[] {
    const taken = this.chunks
    this.chunks = []
    return taken
  }
}
