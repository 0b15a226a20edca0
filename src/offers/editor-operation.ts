/*
 * What the offer editor adds to an input of the shared write path (docs/decisions/editor.md: the admin
 * editor is a third channel through the same validator, planner and writer as the import and the
 * webhook): the offer it names by id, the fields only it may change or remove, the note that goes
 * with a price change, archiving and restoring, and the offer's components. The
 * planner compares them with the stored offer; the writer applies them in the same transaction as
 * the canonical fields, with the same price history and audit run.
 */

/**
 * Host statuses (docs/decisions/editor.md); the catalog and the daily file show `publish` only (an
 * investment may also be `pending`, below).
 */
export const HOST_STATUSES = ['publish', 'draft', 'private', 'trash'] as const
export type HostStatus = (typeof HOST_STATUSES)[number]

/**
 * The host status of an investment an import, the webhook or a source created without its full
 * location (columns 29–35): off the website and the catalog until an operator completes the
 * location and publishes it in the editor. Its offers on sale stay in the official file, which the
 * act wants to list every unit on offer whatever the website shows.
 */
export const AWAITING_LOCATION = 'pending'

/** An investment's host statuses: the offers' own, and `pending` (awaiting its location). */
export const INVESTMENT_HOST_STATUSES = [...HOST_STATUSES, AWAITING_LOCATION] as const
export type InvestmentHostStatus = (typeof INVESTMENT_HOST_STATUSES)[number]

/** The investments whose offers the official daily file lists. */
export const INVESTMENT_STATUSES_IN_DAILY_FILE: readonly string[] = ['publish', AWAITING_LOCATION]

/**
 * Canonical fields the editor may remove by sending null. A removed price is withdrawn (history
 * record with `after` null) and its date goes with it; the type, the designation and the status
 * are never empty.
 */
export const CLEARABLE_FIELDS = [
  'prop_area',
  'prop_rooms',
  'prop_floor',
  'price_m2',
  'price_m2_from',
  'price_total',
  'price_total_from',
  'price_combined',
  'price_combined_from',
  'price_combined_variant',
  'price_combined_status',
] as const
export type ClearableField = (typeof CLEARABLE_FIELDS)[number]

/** Blocks of the official file a component fills (docs/decisions/publication-pipeline.md): 44–47, 48–51, 52–54, 55–57. */
export const COMPONENT_GROUPS = ['part', 'appurtenant_room', 'right', 'other_payment'] as const
export type ComponentGroup = (typeof COMPONENT_GROUPS)[number]

/*
 * The kinds an operator picks (parking space, garage, storage room, other
 * appurtenant room), each a group and the official file's name of its kind; as the official
 * sample does, parking spaces and garages are parts of the property, storage rooms appurtenant rooms.
 */
export const COMPONENT_KINDS = {
  parking_space: { group: 'part', label: 'Miejsce postojowe' },
  garage: { group: 'part', label: 'Garaż' },
  storage_room: { group: 'appurtenant_room', label: 'Komórka lokatorska' },
  other_room: { group: 'appurtenant_room', label: 'Pomieszczenie przynależne' },
} as const satisfies Record<string, { group: ComponentGroup; label: string }>
export type ComponentKind = keyof typeof COMPONENT_KINDS

/** The kind of a stored component whose label is its kind's own name, else null. */
export function componentKindOf(group: string, label: string): ComponentKind | null {
  for (const [kind, known] of Object.entries(COMPONENT_KINDS) as [ComponentKind, { group: string; label: string }][])
    if (known.group === group && known.label === label) return kind
  return null
}

/** A component's values as the editor sends them, validated; absent keys are not sent. */
export interface ComponentValues {
  group?: ComponentGroup
  kindLabel?: string
  designation?: string | null
  description?: string | null
  priceCents?: number | null
  priceFrom?: string | null
  relation?: string | null
  requirement?: string | null
  variant?: string | null
  legalTitle?: string | null
  position?: number
}

export type ComponentChange =
  | { action: 'create'; values: ComponentValues }
  | { action: 'update'; id: number; values: ComponentValues }
  | { action: 'delete'; id: number; priceFrom?: string }

/** The note of every price record the operation writes (`reason`, `correction`). */
export interface PriceNote {
  reason: string
  /** The operator marks the new amount as replacing a wrong one; otherwise the date decides (see the writer). */
  correction: boolean
}

/** Offer fields only the editor writes. `customMeta` is merged: a null value removes its key. */
export interface EditorFields {
  title?: string
  building?: string | null
  variant?: string | null
  hostStatus?: HostStatus
  customMeta?: Record<string, unknown>
  /** Image attachments of the offer in gallery order (the caller checks they are the offer's images). */
  gallery?: number[]
  /** The offer's main image (`image` in the catalog), one of its image attachments, or null. */
  thumbnailId?: number | null
}

export interface EditorInput {
  /** The offer edited; null creates one in `investmentId`. */
  offerId: number | null
  investmentId: number
  /** A new offer's id in the source system (a later import or webhook may address it by it); null: none. */
  sourcePropertyId?: string | null
  /** Canonical fields sent as null: removed. */
  cleared: readonly ClearableField[]
  fields: EditorFields
  lifecycle?: 'archive' | 'restore'
  note: PriceNote
  components: readonly ComponentChange[]
}

/** A component as stored. */
export interface StoredComponent {
  id: number
  offer_id: number
  position: number
  group_kind: string
  kind_label: string
  designation: string | null
  description: string | null
  price_cents: number | null
  price_from: string | null
  relation: string | null
  requirement: string | null
  variant: string | null
  legal_title: string | null
}

/** One planned change of a component: the values to write and the stored row it changes. */
export type PlannedComponentChange =
  | { action: 'create'; values: ComponentValues }
  | { action: 'update'; stored: StoredComponent; values: ComponentValues; changes: string[] }
  | { action: 'delete'; stored: StoredComponent; priceFrom?: string }

/** What the planner decided of the editor's part of an operation. */
export interface EditorOperation {
  offerId: number | null
  investmentId: number
  sourcePropertyId: string | null
  /** Stored columns removed (the fields sent as null that held a value). */
  cleared: ClearableField[]
  /** The editor fields that change, with their new values. */
  fields: EditorFields
  restore: boolean
  note: PriceNote
  components: PlannedComponentChange[]
  /** The effective date of a withdrawn offer price (`price_total`, …), when one was sent; else today. */
  withdrawnOn?: Record<string, string>
}
