/*
 * The editor's channel of the shared validator (docs/decisions/editor.md). An offer sent by the editor
 * uses the canonical field names of the import and the webhook, and those fields go through
 * `validateOfferRow` itself, so they follow the same rules with the same codes and messages; the
 * editor's own type rule lets `prop_type` name a standalone part. What only the editor sends (the
 * title, the host status, custom fields, a price change's reason and correction flag, components)
 * is checked here with the same value parsers, and every problem is a row error with both texts.
 *
 * A canonical field sent as null is removed (CLEARABLE_FIELDS; a price is withdrawn); in the import
 * and the webhook an empty value means "not sent".
 */
import { type CanonicalField, CANONICAL_FIELDS } from '../canonical-fields.js'
import {
  CLEARABLE_FIELDS,
  type ClearableField,
  COMPONENT_GROUPS,
  COMPONENT_KINDS,
  type ComponentChange,
  type ComponentGroup,
  type ComponentKind,
  type ComponentValues,
  type EditorFields,
  HOST_STATUSES,
  type HostStatus,
  type PriceNote,
} from '../editor-operation.js'
import {
  describeValue,
  describeValuePl,
  parseCalendarDate,
  parseInteger,
  parseMoney,
  parseOfficialText,
  parseText,
  type ParseResult,
} from './parse-values.js'
import { fieldLabelPl, type RowError, rowError } from './row-errors.js'
import { ID_MAX_LENGTH, type NormalizedOfferValues, TEXT_MAX_LENGTH, validateOfferRow } from './validate-offer-row.js'

/** The canonical fields of an offer itself: the investment's ids and location are not the editor's to send here. */
export const EDITOR_OFFER_FIELDS = CANONICAL_FIELDS.filter(
  (field) => field !== 'source_investment_id' && field !== 'source_property_id' && !field.startsWith('proj_'),
) as readonly CanonicalField[]

const CLEARABLE: ReadonlySet<string> = new Set(CLEARABLE_FIELDS)
const EDITOR_FIELD_SET: ReadonlySet<string> = new Set(EDITOR_OFFER_FIELDS)

export const REASON_MAX_LENGTH = 500
const SHORT_TEXT_MAX_LENGTH = 100
const DESCRIPTION_MAX_LENGTH = 1000
const POSITION_BOUNDS = { min: 0, max: 10_000 }

/** Polish names of the editor's own fields (the canonical ones have theirs in row-errors.ts). */
const EDITOR_LABELS_PL: Readonly<Record<string, string>> = {
  offer_kind: 'Rodzaj oferty (część samodzielna)',
  title: 'Tytuł',
  building: 'Budynek',
  variant: 'Wariant',
  host_status: 'Status publikacji',
  custom_meta: 'Pola dodatkowe',
  reason: 'Powód zmiany ceny',
  gallery: 'Galeria',
  thumbnail_id: 'Zdjęcie główne',
  correction: 'Korekta ceny',
  source_property_id: 'Identyfikator oferty',
  investment_id: 'Inwestycja',
  components: 'Elementy dodatkowe',
  kind: 'Rodzaj elementu',
  group: 'Grupa elementu',
  kind_label: 'Nazwa rodzaju elementu',
  designation: 'Oznaczenie elementu',
  description: 'Opis elementu',
  price: 'Cena elementu',
  price_from: 'Data obowiązywania ceny elementu',
  relation: 'Związek z lokalem',
  requirement: 'Wymóg nabycia',
  legal_title: 'Tytuł prawny',
  position: 'Kolejność',
}

function labelPl(field: string): string {
  const own = field.replace(/^components\[\d+\]\./, '')
  const label = EDITOR_LABELS_PL[own] ?? fieldLabelPl(own)
  return own === field ? label : `${label} (${field.slice(0, field.indexOf('.'))})`
}

/** An error about one field, prefixed with its name (English) or its label (Polish), as the import's. */
export function editorFieldError(row: number, field: string, code: string, en: string, pl: string): RowError {
  return rowError(row, field, code, { en: `${field}: ${en}`, pl: `${labelPl(field)}: ${pl}` })
}

function failure(row: number, field: string, result: ParseResult<unknown>): RowError | undefined {
  return result.ok ? undefined : editorFieldError(row, field, result.code, result.message, result.message_pl)
}

/** Whether a custom field may be written, and the reason in both languages when not. */
export type MetaCheck = (key: string, value: unknown) => { en: string; pl: string } | undefined

export interface EditorOfferInput {
  /** The canonical fields sent with a value, validated. */
  values: NormalizedOfferValues
  cleared: ClearableField[]
  fields: EditorFields
  note: PriceNote
  /** A new offer's source id (create only). */
  sourcePropertyId?: string | null
  components: ComponentChange[]
  errors: RowError[]
}

export interface EditorOfferOptions {
  row: number
  /** A new offer: `components` and `source_property_id` may be sent. */
  create: boolean
  checkMeta: MetaCheck
}

/** The keys a body may have besides the canonical fields (the route's schema refuses any other). */
export const EDITOR_OFFER_KEYS = [
  'offer_kind',
  'title',
  'building',
  'variant',
  'host_status',
  'custom_meta',
  'reason',
  'correction',
  'gallery',
  'thumbnail_id',
] as const

export function validateEditorOffer(body: Record<string, unknown>, options: EditorOfferOptions): EditorOfferInput {
  const { row } = options
  const errors: RowError[] = []
  const canonical: Record<string, unknown> = {}
  const cleared: ClearableField[] = []
  for (const [field, value] of Object.entries(body)) {
    if (!EDITOR_FIELD_SET.has(field)) continue
    if (value !== null) canonical[field] = value
    else if (CLEARABLE.has(field)) cleared.push(field as ClearableField)
    else errors.push(notClearable(row, field))
  }
  const validated = validateOfferRow(canonical, { row, mode: 'patch', channel: 'editor' })
  errors.push(...validated.errors)
  const values = validated.values

  if (body.offer_kind !== undefined) {
    const kind = body.offer_kind
    if (kind !== 'property' && kind !== 'standalone_part')
      errors.push(
        editorFieldError(
          row,
          'offer_kind',
          'invalid_enum',
          `${describeValue(kind)} is not property or standalone_part`,
          `${describeValuePl(kind)} nie jest wartością property (mieszkanie, dom) ani standalone_part (część samodzielna)`,
        ),
      )
    else if (values.offerKind === undefined && !errors.some((e) => e.field === 'prop_type'))
      errors.push(
        editorFieldError(
          row,
          'prop_type',
          'required',
          'offer_kind follows from prop_type: send the type (e.g. parking_space for a standalone part)',
          'rodzaj oferty wynika z pola prop_type: podaj rodzaj (np. parking_space dla miejsca postojowego)',
        ),
      )
    else if (values.offerKind !== undefined && values.offerKind !== kind)
      errors.push(
        editorFieldError(
          row,
          'offer_kind',
          'inconsistent_offer_kind',
          `${kind} does not match prop_type ${values.propertyType}`,
          `${kind} nie zgadza się z rodzajem ${values.propertyType}`,
        ),
      )
  }

  const fields: EditorFields = {}
  if (body.title !== undefined) {
    const title = parseText(body.title, { maxLength: TEXT_MAX_LENGTH })
    if (!title.ok || title.value === null)
      errors.push(
        failure(row, 'title', title) ??
          editorFieldError(row, 'title', 'required', 'cannot be empty', 'nie może być pusty'),
      )
    else fields.title = title.value
  }
  for (const field of ['building', 'variant'] as const) {
    if (body[field] === undefined) continue
    const text = parseText(body[field], { maxLength: SHORT_TEXT_MAX_LENGTH })
    const problem = failure(row, field, text)
    if (problem) errors.push(problem)
    else fields[field] = text.ok ? text.value : null
  }
  if (body.host_status !== undefined) {
    const status = body.host_status
    if (typeof status === 'string' && (HOST_STATUSES as readonly string[]).includes(status))
      fields.hostStatus = status as HostStatus
    else
      errors.push(
        editorFieldError(
          row,
          'host_status',
          'invalid_enum',
          `${describeValue(status)} is not one of ${HOST_STATUSES.join(', ')}`,
          `${describeValuePl(status)} nie jest jednym z: publish (opublikowana), draft (szkic), private (prywatna), trash (kosz)`,
        ),
      )
  }
  if (body.custom_meta !== undefined) {
    const meta = validateCustomMeta(row, body.custom_meta, options.checkMeta, errors)
    if (meta) fields.customMeta = meta
  }
  if (body.gallery !== undefined) {
    const gallery = mediaIds(row, 'gallery', body.gallery === null ? [] : body.gallery, errors)
    if (gallery) fields.gallery = gallery
  }
  if (body.thumbnail_id !== undefined) {
    if (body.thumbnail_id === null) fields.thumbnailId = null
    else {
      const [id] = mediaIds(row, 'thumbnail_id', [body.thumbnail_id], errors) ?? []
      if (id !== undefined) fields.thumbnailId = id
    }
  }

  const note: PriceNote = { reason: '', correction: false }
  if (body.reason !== undefined && body.reason !== null) {
    const reason = parseText(body.reason, { maxLength: REASON_MAX_LENGTH })
    const problem = failure(row, 'reason', reason)
    if (problem) errors.push(problem)
    else note.reason = (reason.ok && reason.value) || ''
  }
  if (body.correction !== undefined && body.correction !== null) {
    if (typeof body.correction === 'boolean') note.correction = body.correction
    else
      errors.push(
        editorFieldError(
          row,
          'correction',
          'invalid_type',
          `${describeValue(body.correction)} is not true or false`,
          `${describeValuePl(body.correction)} nie jest wartością true ani false`,
        ),
      )
  }

  const input: EditorOfferInput = { values, cleared, fields, note, components: [], errors }
  if (options.create) {
    if (body.source_property_id !== undefined && body.source_property_id !== null) {
      const id = parseText(body.source_property_id, { maxLength: ID_MAX_LENGTH })
      const problem = failure(row, 'source_property_id', id)
      if (problem) errors.push(problem)
      else input.sourcePropertyId = id.ok ? id.value : null
    }
    if (body.components !== undefined && body.components !== null) {
      if (!Array.isArray(body.components))
        errors.push(editorFieldError(row, 'components', 'invalid_type', 'must be a list', 'musi być listą elementów'))
      else
        body.components.forEach((component, index) => {
          const checked = validateComponent(component, { row, create: true, prefix: `components[${index}].` })
          errors.push(...checked.errors)
          input.components.push({ action: 'create', values: checked.values })
        })
    }
  }
  return input
}

const MAX_GALLERY = 100

/** Attachment ids: positive integers, each once (whether they are the entry's images is the caller's check). */
export function mediaIds(row: number, field: string, value: unknown, errors: RowError[]): number[] | undefined {
  const ids = Array.isArray(value) ? value : undefined
  if (
    !ids ||
    ids.length > MAX_GALLERY ||
    !ids.every((id) => typeof id === 'number' && Number.isSafeInteger(id) && id > 0) ||
    new Set(ids).size !== ids.length
  ) {
    errors.push(
      editorFieldError(
        row,
        field,
        'invalid_type',
        `must be ${field === 'gallery' ? `a list of at most ${MAX_GALLERY} different image ids` : 'an image id or null'}`,
        field === 'gallery'
          ? `musi być listą najwyżej ${MAX_GALLERY} różnych identyfikatorów zdjęć`
          : 'musi być identyfikatorem zdjęcia albo null',
      ),
    )
    return undefined
  }
  return ids as number[]
}

function notClearable(row: number, field: string): RowError {
  return editorFieldError(
    row,
    field,
    'not_clearable',
    'cannot be removed (null): an offer always has its designation, type and status',
    'nie można usunąć tej wartości (null): oferta zawsze ma oznaczenie, rodzaj i status',
  )
}

const MAX_META_KEYS = 50

function validateCustomMeta(
  row: number,
  value: unknown,
  check: MetaCheck,
  errors: RowError[],
): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    errors.push(
      editorFieldError(
        row,
        'custom_meta',
        'invalid_type',
        'must be an object of registered custom fields',
        'musi być obiektem zarejestrowanych pól dodatkowych',
      ),
    )
    return undefined
  }
  const entries = Object.entries(value as Record<string, unknown>)
  if (entries.length > MAX_META_KEYS) {
    errors.push(
      editorFieldError(
        row,
        'custom_meta',
        'too_long',
        `at most ${MAX_META_KEYS} fields at once`,
        `najwyżej ${MAX_META_KEYS} pól naraz`,
      ),
    )
    return undefined
  }
  const out: Record<string, unknown> = {}
  let valid = true
  for (const [key, item] of entries) {
    const refused = check(key, item)
    if (refused) {
      valid = false
      errors.push(editorFieldError(row, `custom_meta.${key}`, 'invalid_meta', refused.en, refused.pl))
    } else out[key] = item
  }
  return valid ? out : undefined
}

export interface ComponentOptions {
  row: number
  /** A new component: its group and kind name are required. */
  create: boolean
  /** Prefix of the fields in errors (`components[0].`), empty for a component sent alone. */
  prefix: string
}

/** The keys of a component body. */
export const COMPONENT_KEYS = [
  'kind',
  'group',
  'kind_label',
  'designation',
  'description',
  'price',
  'price_from',
  'relation',
  'requirement',
  'variant',
  'legal_title',
  'position',
] as const

const COMPONENT_TEXTS: ReadonlyArray<{ key: string; value: keyof ComponentValues; max: number }> = [
  { key: 'designation', value: 'designation', max: SHORT_TEXT_MAX_LENGTH },
  { key: 'description', value: 'description', max: DESCRIPTION_MAX_LENGTH },
  { key: 'relation', value: 'relation', max: TEXT_MAX_LENGTH },
  { key: 'requirement', value: 'requirement', max: TEXT_MAX_LENGTH },
  { key: 'variant', value: 'variant', max: SHORT_TEXT_MAX_LENGTH },
  { key: 'legal_title', value: 'legalTitle', max: TEXT_MAX_LENGTH },
]

/**
 * A component of a flat or a house: its kind (`kind` picks the group and the name of
 * the official file; `group` and `kind_label` name any other), designation, price with its date,
 * relation, requirement, variant and legal title. Texts and amounts follow the import's rules.
 */
export function validateComponent(
  body: unknown,
  options: ComponentOptions,
): { values: ComponentValues; errors: RowError[] } {
  const { row, prefix } = options
  const errors: RowError[] = []
  const values: ComponentValues = {}
  const at = (key: string) => `${prefix}${key}`
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    errors.push(
      editorFieldError(
        row,
        prefix === '' ? 'components' : prefix.slice(0, -1),
        'invalid_type',
        'must be an object',
        'musi być obiektem',
      ),
    )
    return { values, errors }
  }
  const input = body as Record<string, unknown>
  let kind: ComponentKind | undefined
  if (input.kind !== undefined && input.kind !== null) {
    if (typeof input.kind === 'string' && Object.hasOwn(COMPONENT_KINDS, input.kind)) kind = input.kind as ComponentKind
    else
      errors.push(
        editorFieldError(
          row,
          at('kind'),
          'invalid_enum',
          `${describeValue(input.kind)} is not one of ${Object.keys(COMPONENT_KINDS).join(', ')}`,
          `${describeValuePl(input.kind)} nie jest jednym z: parking_space (miejsce postojowe), garage (garaż), ` +
            'storage_room (komórka lokatorska), other_room (inne pomieszczenie przynależne)',
        ),
      )
  }
  if (input.group !== undefined && input.group !== null) {
    if (typeof input.group === 'string' && (COMPONENT_GROUPS as readonly string[]).includes(input.group)) {
      values.group = input.group as ComponentGroup
      if (kind && COMPONENT_KINDS[kind].group !== values.group)
        errors.push(
          editorFieldError(
            row,
            at('group'),
            'inconsistent_group',
            `${kind} belongs to the group ${COMPONENT_KINDS[kind].group}, not ${values.group}`,
            `${kind} należy do grupy ${COMPONENT_KINDS[kind].group}, nie ${values.group}`,
          ),
        )
    } else
      errors.push(
        editorFieldError(
          row,
          at('group'),
          'invalid_enum',
          `${describeValue(input.group)} is not one of ${COMPONENT_GROUPS.join(', ')}`,
          `${describeValuePl(input.group)} nie jest jedną z grup: part (część nieruchomości), appurtenant_room ` +
            '(pomieszczenie przynależne), right (prawo), other_payment (inne świadczenie)',
        ),
      )
  } else if (kind) values.group = COMPONENT_KINDS[kind].group
  if (input.kind_label !== undefined && input.kind_label !== null) {
    const label = parseOfficialText(input.kind_label, { maxLength: TEXT_MAX_LENGTH })
    const problem = failure(row, at('kind_label'), label)
    if (problem) errors.push(problem)
    else if (label.ok && label.value !== null) values.kindLabel = label.value
  } else if (kind) values.kindLabel = COMPONENT_KINDS[kind].label
  if (input.kind_label === null)
    errors.push(
      editorFieldError(row, at('kind_label'), 'not_clearable', 'cannot be removed', 'nie można usunąć tej wartości'),
    )
  if (
    options.create &&
    values.group === undefined &&
    !errors.some((e) => e.field === at('group') || e.field === at('kind'))
  )
    errors.push(
      editorFieldError(
        row,
        at('kind'),
        'required',
        'send kind (parking_space, garage, storage_room, other_room) or group with kind_label',
        'podaj rodzaj elementu (kind) albo grupę (group) z nazwą rodzaju (kind_label)',
      ),
    )
  else if (
    options.create &&
    values.group !== undefined &&
    values.kindLabel === undefined &&
    !errors.some((e) => e.field === at('kind_label'))
  )
    errors.push(
      editorFieldError(
        row,
        at('kind_label'),
        'required',
        'name the kind of this component as the official file shows it (e.g. Piwnica)',
        'podaj nazwę rodzaju elementu, jak ma ją pokazać plik urzędowy (np. Piwnica)',
      ),
    )

  for (const text of COMPONENT_TEXTS) {
    if (input[text.key] === undefined) continue
    // a component's texts are columns of the official daily CSV (see parseOfficialText)
    const parsed = parseOfficialText(input[text.key], { maxLength: text.max })
    const problem = failure(row, at(text.key), parsed)
    if (problem) errors.push(problem)
    else (values as Record<string, unknown>)[text.value] = parsed.ok ? parsed.value : null
  }
  if (input.price !== undefined) {
    const price = parseMoney(input.price)
    const problem = failure(row, at('price'), price)
    if (problem) errors.push(problem)
    else values.priceCents = price.ok ? price.value : null
  }
  if (input.price_from !== undefined && input.price_from !== null) {
    const date = parseCalendarDate(input.price_from)
    const problem = failure(row, at('price_from'), date)
    if (problem) errors.push(problem)
    else if (date.ok && date.value !== null) values.priceFrom = date.value
  }
  if (input.price_from === null && input.price !== null)
    errors.push(
      editorFieldError(
        row,
        at('price_from'),
        'required',
        'a price needs its "valid from" date; to withdraw the price send price: null',
        'cena musi mieć datę obowiązywania; aby wycofać cenę, wyślij price: null',
      ),
    )
  if (options.create && values.priceCents === null) delete values.priceCents
  if (input.position !== undefined && input.position !== null) {
    const position = parseInteger(input.position, POSITION_BOUNDS)
    const problem = failure(row, at('position'), position)
    if (problem) errors.push(problem)
    else if (position.ok && position.value !== null) values.position = position.value
  }
  return { values, errors }
}
