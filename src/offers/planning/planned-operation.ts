/*
 * What the offer planner makes (offer-planner.ts): one operation per offer key, and the plan of a
 * whole input. Shared by the row and editor planning, the writer and the stored plans of imports.
 */
import type { EditorInput, EditorOperation } from '../editor-operation.js'
import type { RowError } from '../validation/row-errors.js'
import type { ImportMode, NormalizedOfferValues } from '../validation/validate-offer-row.js'

export type PlanAction = 'create' | 'update' | 'unchanged' | 'archive'

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
