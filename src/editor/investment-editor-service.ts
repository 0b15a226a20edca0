/*
 * Investments in the editor: listed and read in every host status, created, changed (title,
 * content, excerpt, host status, visibility, developer entity, location and prospectus URL,
 * registered custom fields) and deleted only while no offer belongs to them (an offer's price
 * history must keep its investment). Each write is validated first, then runs in one transaction
 * with its version check and its audit entry (`editor.investment.*`).
 */
import { englishCount, polishCount } from '../host/plural.js'
import type { Kysely } from 'kysely'

import { type Actor, recordAudit } from '../host/audit/audit.js'
import type { Executor, HostContext } from '../host/context.js'
import { lockOffersForWrite } from '../host/db/dialect.js'
import type { InvestmentRow, InvestmentsTable } from '../host/db/schema.js'
import { HostError, PluginError } from '../host/errors.js'
import { describeValue, describeValuePl, parseText, type ParseResult } from '../offers/validation/parse-values.js'
import { type RowError, rowError } from '../offers/validation/row-errors.js'
import { AWAITING_LOCATION, INVESTMENT_HOST_STATUSES, type InvestmentHostStatus } from '../offers/editor-operation.js'
import { mediaIds } from '../offers/validation/validate-editor-offer.js'
import { slugify } from '../catalog/presentation.js'
import { bilingualIssue, LOCATION_FIELDS, validateLocation } from '../publication/settings/settings-service.js'
import { metaChecker } from './custom-fields.js'
import {
  countInvestments,
  countOffersByInvestment,
  countOffersOfInvestment,
  deleteInvestmentRow,
  developerExists,
  type InvestmentFilters,
  insertInvestmentRow,
  investmentSourceIdTaken,
  selectAttachmentsOfOwner,
  selectInvestment,
  selectInvestmentForUpdate,
  selectInvestmentPage,
  updateInvestmentRow,
} from './editor-repository.js'
import { removeMediaFiles } from './media-files.js'
import { checkOwnImages } from './media-service.js'
import { validationFailed } from './refusals.js'
import { editConflict, expectedVersion, versionMatches, versionOf, versionRequired } from './versions.js'

export const VISIBILITIES = ['public', 'private'] as const

const LOCATION_KEYS = LOCATION_FIELDS.filter((field) => field !== 'prospectus_url')
type LocationKey = (typeof LOCATION_KEYS)[number]
const LOCATION_LABELS_PL: Readonly<Record<LocationKey, string>> = {
  voivodeship: 'województwo',
  powiat: 'powiat',
  gmina: 'gmina',
  city: 'miejscowość',
  street: 'ulica',
  building_no: 'numer budynku',
  postal_code: 'kod pocztowy',
}
const LOCATION_COLUMNS: Readonly<Record<LocationKey, keyof InvestmentRow>> = {
  voivodeship: 'loc_voivodeship',
  powiat: 'loc_powiat',
  gmina: 'loc_gmina',
  city: 'loc_city',
  street: 'loc_street',
  building_no: 'loc_building_no',
  postal_code: 'loc_postal_code',
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T
  } catch {
    return fallback
  }
}

export function investmentView(row: InvestmentRow, counts: { total: number; published: number } | undefined) {
  return {
    id: row.id,
    source_id: row.source_id,
    title: row.title,
    slug: row.slug,
    content: row.content,
    excerpt: row.excerpt,
    host_status: row.host_status,
    visibility: row.visibility,
    developer_id: row.developer_id,
    location: {
      voivodeship: row.loc_voivodeship,
      powiat: row.loc_powiat,
      gmina: row.loc_gmina,
      city: row.loc_city,
      street: row.loc_street,
      building_no: row.loc_building_no,
      postal_code: row.loc_postal_code,
    },
    prospectus_url: row.prospectus_url,
    custom_meta: parseJson<Record<string, unknown>>(row.custom_meta, {}),
    thumbnail_id: row.thumbnail_id,
    gallery: parseJson<number[]>(row.gallery, []),
    offers_count: counts?.total ?? 0,
    published_offers_count: counts?.published ?? 0,
    created_at: row.created_at,
    modified_at: row.modified_at,
    version: versionOf('investment', row),
  }
}

export type InvestmentView = ReturnType<typeof investmentView>

async function viewOf(db: Executor, row: InvestmentRow): Promise<InvestmentView> {
  return investmentView(row, (await countOffersByInvestment(db, [row.id])).get(row.id))
}

async function readInvestment(db: Executor, id: number, lock?: HostContext): Promise<InvestmentRow> {
  const row = lock ? await selectInvestmentForUpdate(db, lock.caps.name, id) : await selectInvestment(db, id)
  if (!row) throw new HostError('investment_not_found', 404, `There is no investment ${id}.`)
  return row
}

export async function getInvestment(ctx: HostContext, id: number): Promise<InvestmentView> {
  return viewOf(ctx.db, await readInvestment(ctx.db, id))
}

export async function listInvestments(
  ctx: HostContext,
  query: InvestmentFilters & { page: number; perPage: number },
): Promise<{ items: InvestmentView[]; total: number; totalPages: number }> {
  const total = await countInvestments(ctx.db, ctx.caps.name, query)
  const totalPages = Math.ceil(total / query.perPage)
  if (query.page > totalPages && total > 0)
    throw new HostError(
      'rest_post_invalid_page_number',
      400,
      'The page number requested is larger than the number of pages available.',
    )
  const rows = await selectInvestmentPage(ctx.db, ctx.caps.name, query, {
    limit: query.perPage,
    offset: (query.page - 1) * query.perPage,
  })
  const counts = await countOffersByInvestment(
    ctx.db,
    rows.map((r) => r.id),
  )
  return { items: rows.map((row) => investmentView(row, counts.get(row.id))), total, totalPages }
}

// ---------------------------------------------------------------------------------------------
// validation

const LABELS_PL: Readonly<Record<string, string>> = {
  title: 'Nazwa inwestycji',
  slug: 'Adres (slug)',
  content: 'Opis',
  excerpt: 'Zajawka',
  host_status: 'Status publikacji',
  visibility: 'Widoczność',
  developer_id: 'Deweloper',
  source_id: 'Identyfikator inwestycji',
  custom_meta: 'Pola dodatkowe',
  gallery: 'Galeria',
  thumbnail_id: 'Zdjęcie główne',
}

function issue(field: string, code: string, en: string, pl: string): RowError {
  const label = LABELS_PL[field.split('.')[0] ?? field] ?? field
  return rowError(1, field, code, { en: `${field}: ${en}`, pl: `${label}: ${pl}` })
}

function fromParse(field: string, result: ParseResult<unknown>): RowError | undefined {
  return result.ok ? undefined : issue(field, result.code, result.message, result.message_pl)
}

const TEXT_LIMITS = { title: 255, slug: 200, excerpt: 2000, content: 100_000, source_id: 100 } as const
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

type InvestmentChanges = Partial<Omit<InvestmentsTable, 'id' | 'created_at'>>

/** The columns a body sets, validated against each other and the catalog; the errors when it cannot. */
async function investmentChanges(
  ctx: HostContext,
  db: Executor,
  body: Record<string, unknown>,
  existing: InvestmentRow | undefined,
): Promise<{ set: InvestmentChanges; errors: RowError[] }> {
  const errors: RowError[] = []
  const set: InvestmentChanges = {}
  for (const field of ['title', 'slug', 'excerpt', 'source_id'] as const) {
    const value = body[field]
    if (value === undefined) continue
    if (value === null) {
      if (field === 'source_id') set.source_id = null
      else if (field === 'excerpt') set.excerpt = ''
      else errors.push(issue(field, 'not_clearable', 'cannot be removed', 'nie można usunąć tej wartości'))
      continue
    }
    const text = parseText(value, { maxLength: TEXT_LIMITS[field] })
    const problem = fromParse(field, text)
    if (problem) errors.push(problem)
    else if (text.ok && text.value !== null) set[field] = text.value
    else if (field === 'excerpt') set.excerpt = ''
    else errors.push(issue(field, 'required', 'cannot be empty', 'nie może być puste'))
  }
  if (body.content !== undefined) {
    // the description keeps its lines and spacing: it is shown as written (escaped by the website)
    if (body.content === null) set.content = ''
    else if (typeof body.content !== 'string')
      errors.push(issue('content', 'invalid_type', 'must be text', 'musi być tekstem'))
    else if (body.content.length > TEXT_LIMITS.content)
      errors.push(
        issue(
          'content',
          'too_long',
          `is longer than ${TEXT_LIMITS.content} characters`,
          `ma więcej niż ${TEXT_LIMITS.content} znaków`,
        ),
      )
    else set.content = body.content
  }
  if (set.slug !== undefined && !SLUG.test(set.slug))
    errors.push(
      issue(
        'slug',
        'invalid_slug',
        `${describeValue(set.slug)} must be lowercase letters, digits and single dashes, e.g. osiedle-zielone`,
        `${describeValuePl(set.slug)} może zawierać tylko małe litery, cyfry i pojedyncze kreski, np. osiedle-zielone`,
      ),
    )
  if (body.host_status !== undefined) {
    const status = body.host_status
    if (typeof status === 'string' && (INVESTMENT_HOST_STATUSES as readonly string[]).includes(status))
      set.host_status = status as InvestmentHostStatus
    else
      errors.push(
        issue(
          'host_status',
          'invalid_enum',
          `${describeValue(status)} is not one of ${INVESTMENT_HOST_STATUSES.join(', ')}`,
          `${describeValuePl(status)} nie jest jednym z: publish (opublikowana), draft (szkic), private (prywatna), trash (kosz), pending (czeka na lokalizację)`,
        ),
      )
  }
  if (body.visibility !== undefined) {
    const visibility = body.visibility
    if (typeof visibility === 'string' && (VISIBILITIES as readonly string[]).includes(visibility))
      set.visibility = visibility
    else
      errors.push(
        issue(
          'visibility',
          'invalid_enum',
          `${describeValue(visibility)} is not one of ${VISIBILITIES.join(', ')}`,
          `${describeValuePl(visibility)} nie jest jednym z: public (publiczna), private (prywatna)`,
        ),
      )
  }
  if (body.developer_id !== undefined) {
    const developer = body.developer_id
    if (developer === null) set.developer_id = null
    else if (typeof developer !== 'number' || !Number.isSafeInteger(developer) || developer < 1)
      errors.push(
        issue(
          'developer_id',
          'invalid_type',
          'must be a developer id or null',
          'musi być identyfikatorem dewelopera albo null',
        ),
      )
    else if (!(await developerExists(db, developer)))
      errors.push(
        issue(
          'developer_id',
          'not_found',
          `there is no developer ${developer} (POST /developers adds one)`,
          `nie ma dewelopera ${developer} (dodaje się go w ustawieniach publikacji)`,
        ),
      )
    else set.developer_id = developer
  }
  if (set.source_id && (await investmentSourceIdTaken(db, set.source_id, existing?.id)))
    errors.push(
      issue(
        'source_id',
        'duplicate_key',
        `another investment already has the source id ${describeValue(set.source_id)}`,
        `inna inwestycja ma już identyfikator ${describeValuePl(set.source_id)}`,
      ),
    )

  const location: Record<string, string | null> = {}
  if (body.location !== undefined && body.location !== null) {
    if (typeof body.location !== 'object' || Array.isArray(body.location))
      errors.push(issue('location', 'invalid_type', 'must be an object', 'musi być obiektem'))
    else
      for (const [key, value] of Object.entries(body.location as Record<string, unknown>)) {
        if (!(LOCATION_KEYS as readonly string[]).includes(key)) continue
        if (value !== null && typeof value !== 'string') {
          errors.push(issue(`location.${key}`, 'invalid_type', 'must be text or null', 'musi być tekstem albo null'))
          continue
        }
        const trimmed = value?.trim() ?? ''
        location[key] = trimmed === '' ? null : trimmed
      }
  }
  if (body.prospectus_url !== undefined) {
    const url = body.prospectus_url
    if (url !== null && typeof url !== 'string')
      errors.push(issue('prospectus_url', 'invalid_type', 'must be text or null', 'musi być tekstem albo null'))
    else location.prospectus_url = url?.trim() ? url.trim() : null
  }
  if (location.voivodeship) location.voivodeship = location.voivodeship.toLowerCase()
  for (const found of validateLocation(location)) {
    const view = bilingualIssue(found)
    const field = found.field === 'prospectus_url' ? found.field : `location.${found.field}`
    errors.push({ row: 1, ...view, field })
  }
  for (const key of LOCATION_KEYS)
    if (location[key] !== undefined) (set as Record<string, unknown>)[LOCATION_COLUMNS[key]] = location[key]
  if (location.prospectus_url !== undefined) set.prospectus_url = location.prospectus_url
  // one an import made without its location is published only with all of it (columns 29–35)
  const awaiting = existing?.host_status === AWAITING_LOCATION ? existing : undefined
  if (set.host_status === 'publish' && awaiting) {
    const missing = LOCATION_KEYS.filter((key) => {
      const value = location[key] !== undefined ? location[key] : awaiting[LOCATION_COLUMNS[key]]
      return typeof value !== 'string' || value.trim() === ''
    })
    if (missing.length > 0)
      errors.push(
        issue(
          'host_status',
          'location_required',
          `an investment awaiting its location is published with its full location (columns 29–35); missing: ${missing.join(', ')}`,
          `inwestycję czekającą na lokalizację można opublikować dopiero z pełną lokalizacją (kolumny 29–35); brakuje: ${missing.map((key) => LOCATION_LABELS_PL[key]).join(', ')}`,
        ),
      )
  }

  if (body.gallery !== undefined || body.thumbnail_id !== undefined) {
    const media: { gallery?: number[]; thumbnailId?: number | null } = {}
    if (body.gallery !== undefined) {
      const gallery = mediaIds(1, 'gallery', body.gallery === null ? [] : body.gallery, errors)
      if (gallery) media.gallery = gallery
    }
    if (body.thumbnail_id === null) media.thumbnailId = null
    else if (body.thumbnail_id !== undefined) {
      const [id] = mediaIds(1, 'thumbnail_id', [body.thumbnail_id], errors) ?? []
      if (id !== undefined) media.thumbnailId = id
    }
    if (existing) errors.push(...(await checkOwnImages(db, { investmentId: existing.id }, media, existing)))
    else if ((media.gallery?.length ?? 0) > 0 || typeof media.thumbnailId === 'number')
      errors.push(
        issue(
          'gallery',
          'not_own_image',
          'a new investment has no images yet: upload them, then set the gallery',
          'nowa inwestycja nie ma jeszcze zdjęć: prześlij je, potem ustaw galerię',
        ),
      )
    if (media.gallery !== undefined) set.gallery = JSON.stringify(media.gallery)
    if (media.thumbnailId !== undefined) set.thumbnail_id = media.thumbnailId
  }
  if (body.custom_meta !== undefined) {
    const meta = body.custom_meta
    if (meta === null || typeof meta !== 'object' || Array.isArray(meta))
      errors.push(
        issue(
          'custom_meta',
          'invalid_type',
          'must be an object of registered custom fields',
          'musi być obiektem zarejestrowanych pól dodatkowych',
        ),
      )
    else {
      const check = metaChecker(ctx, 'dg_investment')
      const next = { ...parseJson<Record<string, unknown>>(existing?.custom_meta ?? '{}', {}) }
      for (const [key, value] of Object.entries(meta as Record<string, unknown>)) {
        const refused = check(key, value)
        if (refused) errors.push(issue(`custom_meta.${key}`, 'invalid_meta', refused.en, refused.pl))
        else if (value === null) delete next[key]
        else next[key] = value
      }
      set.custom_meta = JSON.stringify(next)
    }
  }
  return { set, errors }
}

// ---------------------------------------------------------------------------------------------
// writes

export async function createInvestment(
  ctx: HostContext,
  actor: Actor,
  body: Record<string, unknown>,
): Promise<InvestmentView> {
  return ctx.db.transaction().execute(async (trx) => {
    const { set, errors } = await investmentChanges(ctx, trx, body, undefined)
    if (set.title === undefined && !errors.some((e) => e.field === 'title'))
      errors.unshift(issue('title', 'required', 'a new investment needs its name', 'nowa inwestycja musi mieć nazwę'))
    if (errors.length > 0) throw validationFailed(errors)
    const nowIso = ctx.now().toISOString()
    const title = set.title as string
    const id = await insertInvestmentRow(trx, {
      title,
      slug: set.slug ?? (slugify(title) || 'inwestycja'),
      content: set.content ?? '',
      excerpt: set.excerpt ?? '',
      host_status: set.host_status ?? 'publish',
      visibility: set.visibility ?? 'public',
      custom_meta: set.custom_meta ?? '{}',
      gallery: '[]',
      documents: '[]',
      ...set,
      created_at: nowIso,
      modified_at: nowIso,
    })
    await recordAudit(
      ctx,
      {
        actor,
        action: 'editor.investment.create',
        objectType: 'investment',
        objectId: id,
        outcome: 'success',
        details: { channel: 'editor', fields: Object.keys(set) },
      },
      trx,
    )
    return viewOf(trx, await readInvestment(trx, id))
  })
}

export async function updateInvestment(
  ctx: HostContext,
  actor: Actor,
  id: number,
  body: Record<string, unknown>,
  ifMatch: string | string[] | undefined,
): Promise<{ investment: InvestmentView; changed: boolean }> {
  const { version, ...fields } = body
  const expected = expectedVersion(ifMatch, version)
  if (expected === undefined) throw versionRequired('investment')
  return ctx.db.transaction().execute(async (trx) => {
    const existing = await readInvestment(trx, id, ctx)
    const current = versionOf('investment', existing)
    if (!versionMatches(expected, current)) throw editConflict('investment', await viewOf(trx, existing), current)
    const { set, errors } = await investmentChanges(ctx, trx, fields, existing)
    if (errors.length > 0) throw validationFailed(errors)
    const changed = Object.keys(set).filter(
      (key) => (existing as unknown as Record<string, unknown>)[key] !== (set as Record<string, unknown>)[key],
    )
    if (changed.length === 0) return { investment: await viewOf(trx, existing), changed: false }
    await updateInvestmentRow(trx, id, { ...set, modified_at: ctx.now().toISOString() })
    await recordAudit(
      ctx,
      {
        actor,
        action: 'editor.investment.update',
        objectType: 'investment',
        objectId: id,
        outcome: 'success',
        details: { channel: 'editor', fields: changed },
      },
      trx,
    )
    return { investment: await viewOf(trx, await readInvestment(trx, id)), changed: true }
  })
}

/** Deletes an investment without offers; one with offers (archived ones included) is refused with 409. */
export async function deleteInvestment(
  ctx: HostContext,
  actor: Actor,
  id: number,
  ifMatch: string | string[] | undefined,
): Promise<void> {
  const expected = expectedVersion(ifMatch, undefined)
  if (expected === undefined) throw versionRequired('investment')
  const files = await ctx.db.transaction().execute(async (trx) => {
    // an offer created in it meanwhile would otherwise lose its investment (offers lock, PostgreSQL)
    await lockOffersForWrite(trx as unknown as Kysely<never>, ctx.caps.name)
    const existing = await readInvestment(trx, id, ctx)
    const current = versionOf('investment', existing)
    if (!versionMatches(expected, current)) throw editConflict('investment', await viewOf(trx, existing), current)
    const offers = await countOffersOfInvestment(trx, id)
    if (offers > 0) {
      const en = `The investment has ${englishCount(offers, ['offer', 'offers'])}, archived ones included; their price history must keep its investment, so it cannot be deleted. Set its publication status to draft or private to hide it instead.`
      const pl = `Inwestycja ma ${polishCount(offers, ['ofertę', 'oferty', 'ofert'])}, licząc archiwalne; ich historia cen musi zachować swoją inwestycję, więc nie można jej usunąć. Aby ją ukryć, ustaw status publikacji „szkic” albo „prywatna”.`
      throw new PluginError('investment_has_offers', 409, {
        message: en,
        message_en: en,
        message_pl: pl,
        offers,
      })
    }
    const media = await selectAttachmentsOfOwner(trx, { investmentId: id })
    await deleteInvestmentRow(trx, id)
    await recordAudit(
      ctx,
      {
        actor,
        action: 'editor.investment.delete',
        objectType: 'investment',
        objectId: id,
        outcome: 'success',
        details: { channel: 'editor', title: existing.title, media: media.length },
      },
      trx,
    )
    return media.map((row) => row.url.slice(row.url.lastIndexOf('/') + 1))
  })
  // its uploads go with it, once the deletion is committed
  for (const file of files) await removeMediaFiles(ctx.config.dataDir, file)
}
