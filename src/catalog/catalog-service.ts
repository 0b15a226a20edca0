/*
 * The read-only catalog (docs/integration/catalog.md): builds the API's objects from published rows
 * only, in batches per page (components, thumbnails), and runs the extensions' hooks
 * (docs/integration/extensions.md).
 */
import type { HostContext } from '../host/context.js'
import type { DeveloperRow } from '../host/db/schema.js'
import { HostError } from '../host/errors.js'
import { CURRENT_LEGAL_CONTRACT } from '../offers/legal-contract.js'
import { API_VERSION, SERVICE_VERSION } from '../version.js'
import {
  countInvestments,
  countPublishedOffersByInvestment,
  type OfferRecord,
  type PropertyFilters,
  type PropertyOrder,
  selectAttachments,
  selectAttachmentsOf,
  selectComponentsOf,
  selectDeveloper,
  selectInvestmentPage,
  selectPriceHistory,
  selectPublishedInvestment,
  selectPublishedProperty,
} from './catalog-repository.js'
import {
  type CatalogRevisions,
  countAtRevision,
  narrowedFilters,
  pageAtRevision,
  withPricesDay,
} from './caching/listing-cache.js'
import { withPricesInForce } from './current-prices.js'
import { warsawDate, warsawDayOf } from '../host/warsaw-day.js'
import { exposableOffer, exposeCustomMeta, exposedExtensionOptions } from './custom-meta.js'
import {
  formatArea,
  formatDate,
  formatPln,
  OFFER_TYPE_LABELS,
  PRICE_TYPE_LABELS,
  RECORD_TYPE_LABELS,
  slugify,
  STATUS_LABELS,
} from './presentation.js'

export interface PageQuery {
  page: number
  perPage: number
}

export interface Collection<T> {
  items: T[]
  total: number
  totalPages: number
}

type ComponentRow = Awaited<ReturnType<typeof selectComponentsOf>>[number]
type AttachmentRow = Awaited<ReturnType<typeof selectAttachments>>[number]

function parseIds(json: string): number[] {
  try {
    const value: unknown = JSON.parse(json)
    return Array.isArray(value) ? value.filter((v): v is number => Number.isInteger(v)) : []
  } catch {
    return []
  }
}

function pageOrThrow(total: number, query: PageQuery): number {
  const totalPages = Math.ceil(total / query.perPage)
  if (query.page > totalPages && total > 0) {
    throw new HostError(
      'rest_post_invalid_page_number',
      400,
      'The page number requested is larger than the number of pages available.',
    )
  }
  return totalPages
}

function mediaItem(row: AttachmentRow) {
  return { id: row.id, url: row.url, title: row.title, alt: row.alt, mime_type: row.mime_type ?? '' }
}

function componentName(component: ComponentRow): string {
  return [component.kind_label, component.designation].filter(Boolean).join(' ')
}

function buildOffer(
  ctx: HostContext,
  record: OfferRecord,
  components: ComponentRow[],
  thumbnail: AttachmentRow | undefined,
) {
  const standalone = record.offer_kind === 'standalone_part'
  return {
    id: record.id,
    title: record.title,
    code: record.code,
    offer_kind: record.offer_kind,
    property_type: record.property_type,
    is_standalone_part: standalone,
    offer_type_label: OFFER_TYPE_LABELS[record.property_type] ?? record.property_type,
    url: `${ctx.config.siteUrl}/oferty/${record.investment_slug}/${slugify(record.code) || 'oferta'}-${record.id}/`,
    status: record.status,
    status_label: STATUS_LABELS[record.status] ?? record.status,
    area: record.area ?? '',
    area_label: formatArea(record.area),
    rooms: record.rooms === null ? '' : String(record.rooms),
    floor: record.floor === null ? '' : String(record.floor),
    building: record.building ?? '',
    price: formatPln(record.price_total_cents),
    price_cents: record.price_total_cents ?? 0,
    price_m2: formatPln(record.price_m2_cents),
    price_m2_cents: record.price_m2_cents ?? 0,
    price_date: formatDate(record.price_total_from),
    price_m2_date: formatDate(record.price_m2_from),
    variant: record.variant ?? '',
    variant_label: record.variant ? `Wariant ${record.variant}` : '',
    variant_components: components.map(componentName),
    image: thumbnail?.url ?? '',
    gallery: parseIds(record.gallery),
    investment_id: record.investment_id,
    investment_title: record.investment_title,
    modified: record.modified_at,
  }
}

export type OfferObject = ReturnType<typeof buildOffer>

/** Today in Europe/Warsaw: the day whose prices the catalog shows. */
export function catalogDay(ctx: HostContext): string {
  return warsawDate(ctx.now())
}

/** The offers with their components, each price as in force today, and their thumbnails. */
async function offersInForce<O extends OfferRecord>(ctx: HostContext, stored: O[]) {
  const ids = stored.map((r) => r.id)
  const thumbnailIds = stored.map((r) => r.thumbnail_id).filter((id): id is number => id !== null)
  const [storedComponents, thumbnails] = await Promise.all([
    selectComponentsOf(ctx.db, ids),
    selectAttachments(ctx.db, thumbnailIds),
  ])
  const { offers, components } = await withPricesInForce(ctx.db, stored, storedComponents, catalogDay(ctx))
  return { offers, components, thumbnails }
}

async function buildOffers(
  ctx: HostContext,
  inForce: Awaited<ReturnType<typeof offersInForce>>,
): Promise<Record<string, unknown>[]> {
  const { offers: records, components, thumbnails } = inForce
  const componentsByOffer = new Map<number, ComponentRow[]>()
  for (const component of components) {
    const list = componentsByOffer.get(component.offer_id) ?? []
    list.push(component)
    componentsByOffer.set(component.offer_id, list)
  }
  const thumbnailById = new Map(thumbnails.map((t) => [t.id, t]))
  const filtered = ctx.hooks.hasFilter('dg_frontend_property_data')
  const out: Record<string, unknown>[] = []
  for (const record of records) {
    const offer = buildOffer(
      ctx,
      record,
      componentsByOffer.get(record.id) ?? [],
      record.thumbnail_id === null ? undefined : thumbnailById.get(record.thumbnail_id),
    )
    if (!filtered) {
      out.push(offer)
      continue
    }
    // a copy: the filters may change the object they are given, and what they change is checked
    const built = { ...offer }
    out.push(exposableOffer(built, await ctx.hooks.applyFilters('dg_frontend_property_data', offer, record.id)))
  }
  return out
}

export type { CatalogRevisions } from './caching/listing-cache.js'

export interface PropertyListQuery extends PageQuery, PropertyFilters {
  orderBy: PropertyOrder
  order: 'asc' | 'desc'
}

/** `revisions`: the catalog revisions the request read, under which totals may be shared. */
export async function listProperties(
  ctx: HostContext,
  query: PropertyListQuery,
  revisions?: CatalogRevisions,
): Promise<Collection<Record<string, unknown>>> {
  await ctx.hooks.doAction('dg_before_listing', { ...query })
  const order = { by: query.orderBy, direction: query.order }
  const priced = await withPricesDay(ctx, query, order, catalogDay(ctx), revisions)
  const filters = await narrowedFilters(ctx, priced, order, revisions)
  const total = await countAtRevision(ctx, filters, revisions)
  const totalPages = pageOrThrow(total, query)
  const records = await pageAtRevision(
    ctx,
    filters,
    order,
    { limit: query.perPage, offset: (query.page - 1) * query.perPage },
    revisions,
  )
  const items = await buildOffers(ctx, await offersInForce(ctx, records))
  await ctx.hooks.doAction('dg_after_listing', { ...query })
  return { items, total, totalPages }
}

async function requirePublishedProperty(ctx: HostContext, id: number) {
  const record = await selectPublishedProperty(ctx.db, id)
  if (!record) throw new HostError('dg_property_not_found', 404, 'No published offer has this id.')
  return record
}

function salesOfficeAddress(developer: DeveloperRow | undefined): string {
  if (!developer) return ''
  const street = [
    developer.sales_street,
    [developer.sales_building_no, developer.sales_local_no].filter(Boolean).join('/'),
  ]
    .filter(Boolean)
    .join(' ')
  const city = [developer.sales_postal_code, developer.sales_city].filter(Boolean).join(' ')
  return [street, city].filter(Boolean).join(', ')
}

export async function getPropertyDetail(ctx: HostContext, id: number): Promise<Record<string, unknown>> {
  await ctx.hooks.doAction('dg_before_property', id)
  const storedRecord = await requirePublishedProperty(ctx, id)
  // the offer's prices, components and thumbnail are read once, for its summary and its details
  const inForce = await offersInForce(ctx, [storedRecord])
  const [offer] = await buildOffers(ctx, inForce)
  const [gallery, documents, developer] = await Promise.all([
    selectAttachments(ctx.db, parseIds(storedRecord.gallery)),
    selectAttachmentsOf(ctx.db, { offerId: id }, 'document'),
    storedRecord.developer_id === null
      ? Promise.resolve(undefined)
      : selectDeveloper(ctx.db, storedRecord.developer_id),
  ])
  const record = inForce.offers[0] ?? storedRecord
  const components = inForce.components
  const thumbnail =
    record.thumbnail_id === null ? undefined : inForce.thumbnails.find((t) => t.id === record.thumbnail_id)
  const galleryById = new Map(gallery.map((g) => [g.id, g]))

  await ctx.hooks.doAction('dg_before_details', id)
  const componentItems = components.map((c) => ({
    group: c.group_kind,
    description: [componentName(c), c.description].filter(Boolean).join(' — '),
    price: formatPln(c.price_cents),
    date: formatDate(c.price_from),
    relation: c.relation ?? '',
    requirement: c.requirement ?? '',
    variant: c.variant ?? '',
    legal_title: c.legal_title ?? '',
  }))
  await ctx.hooks.doAction('dg_after_details', id)

  await ctx.hooks.doAction('dg_before_contact', id)
  // developer contact only: the catalog never holds or returns buyer data
  const contact = {
    developer_name: developer?.name ?? '',
    phone: developer?.phone ?? '',
    email: developer?.email ?? '',
    sales_office_address: salesOfficeAddress(developer),
  }
  await ctx.hooks.doAction('dg_after_contact', id)

  await ctx.hooks.doAction('dg_before_documents', id)
  const documentItems = documents.map(mediaItem)
  await ctx.hooks.doAction('dg_after_documents', id)

  const detail = {
    offer,
    components: componentItems,
    contact,
    media: {
      thumbnail: thumbnail ? mediaItem(thumbnail) : null,
      gallery: parseIds(record.gallery)
        .map((gid) => galleryById.get(gid))
        .filter((g): g is AttachmentRow => g !== undefined)
        .map(mediaItem),
      documents: documentItems,
    },
    price: {
      cents: record.price_total_cents ?? 0,
      formatted: formatPln(record.price_total_cents),
      valid_from: record.price_total_from ?? '',
    },
    custom_meta: await exposeCustomMeta(ctx, 'dg_property', record.custom_meta),
  }
  await ctx.hooks.doAction('dg_after_property_details', id)
  await ctx.hooks.doAction('dg_after_property', id)
  return detail
}

function amount(cents: number | null): { cents: number | null; formatted: string } {
  return { cents, formatted: formatPln(cents) }
}

export async function getPriceHistory(
  ctx: HostContext,
  id: number,
): Promise<{ property_id: number; items: Record<string, unknown>[] }> {
  await requirePublishedProperty(ctx, id)
  await ctx.hooks.doAction('dg_before_price_history', id)
  const rows = await selectPriceHistory(ctx.db, id)
  // a record dated after today is an announcement, not yet the price (price-in-force.ts)
  const today = catalogDay(ctx)
  const items = rows.map((row) => {
    const subject =
      row.price_type === 'component' && (row.component_label || row.component_designation)
        ? [row.component_label, row.component_designation].filter(Boolean).join(' ')
        : (PRICE_TYPE_LABELS[row.price_type] ?? row.price_type)
    return {
      record_type: row.record_type,
      price_type: row.price_type,
      valid_from: row.valid_from,
      recorded_at: warsawDayOf(row.recorded_at),
      before: amount(row.before_cents),
      after: amount(row.after_cents),
      label: `${subject}: ${RECORD_TYPE_LABELS[row.record_type] ?? row.record_type}`,
      reason: row.reason,
      correction: row.correction === 1,
      announced: row.valid_from > today,
    }
  })
  await ctx.hooks.doAction('dg_after_price_history', id)
  return { property_id: id, items }
}

export async function listRelated(
  ctx: HostContext,
  id: number,
  query: PageQuery,
  revisions?: CatalogRevisions,
): Promise<Collection<Record<string, unknown>>> {
  const record = await requirePublishedProperty(ctx, id)
  const filters: PropertyFilters = { investment: record.investment_id, excludeId: id }
  const total = await countAtRevision(ctx, filters, revisions)
  const totalPages = pageOrThrow(total, query)
  const records = await pageAtRevision(
    ctx,
    filters,
    { by: 'title', direction: 'asc' },
    { limit: query.perPage, offset: (query.page - 1) * query.perPage },
    revisions,
  )
  return { items: await buildOffers(ctx, await offersInForce(ctx, records)), total, totalPages }
}

type InvestmentRowT = Awaited<ReturnType<typeof selectInvestmentPage>>[number]

function investmentSummary(
  ctx: HostContext,
  row: InvestmentRowT,
  thumbnail: AttachmentRow | undefined,
  offerCount: number,
) {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    url: `${ctx.config.siteUrl}/inwestycje/${row.slug}/`,
    excerpt: row.excerpt,
    location: {
      voivodeship: row.loc_voivodeship ?? '',
      powiat: row.loc_powiat ?? '',
      gmina: row.loc_gmina ?? '',
      city: row.loc_city ?? '',
      street: row.loc_street ?? '',
      building_no: row.loc_building_no ?? '',
      postal_code: row.loc_postal_code ?? '',
    },
    image: thumbnail?.url ?? '',
    offers_count: offerCount,
    modified: row.modified_at,
  }
}

export async function listInvestments(
  ctx: HostContext,
  query: PageQuery & { search?: string | undefined; ids?: readonly number[] | undefined },
): Promise<Collection<Record<string, unknown>>> {
  await ctx.hooks.doAction('dg_before_listing', { ...query, resource: 'investments' })
  const total = await countInvestments(ctx.db, ctx.caps.name, query)
  const totalPages = pageOrThrow(total, query)
  const rows = await selectInvestmentPage(ctx.db, ctx.caps.name, query, {
    limit: query.perPage,
    offset: (query.page - 1) * query.perPage,
  })
  const thumbnails = await selectAttachments(
    ctx.db,
    rows.map((r) => r.thumbnail_id).filter((id): id is number => id !== null),
  )
  const byId = new Map(thumbnails.map((t) => [t.id, t]))
  const counts = await countPublishedOffersByInvestment(
    ctx.db,
    rows.map((r) => r.id),
  )
  const items = rows.map((row) =>
    investmentSummary(
      ctx,
      row,
      row.thumbnail_id === null ? undefined : byId.get(row.thumbnail_id),
      counts.get(row.id) ?? 0,
    ),
  )
  await ctx.hooks.doAction('dg_after_listing', { ...query, resource: 'investments' })
  return { items, total, totalPages }
}

function parseDocuments(json: string): Array<{ title: string; url: string }> {
  try {
    const value: unknown = JSON.parse(json)
    if (!Array.isArray(value)) return []
    return value
      .filter((d): d is { title?: unknown; url?: unknown } => d !== null && typeof d === 'object')
      .filter((d) => typeof d.url === 'string')
      .map((d) => ({ title: typeof d.title === 'string' ? d.title : '', url: d.url as string }))
  } catch {
    return []
  }
}

export async function getInvestmentDetail(ctx: HostContext, id: number): Promise<Record<string, unknown>> {
  await ctx.hooks.doAction('dg_before_investment', id)
  const row = await selectPublishedInvestment(ctx.db, id)
  if (!row) throw new HostError('dg_investment_not_found', 404, 'No published investment has this id.')
  const galleryIds = parseIds(row.gallery)
  const [attachments, documents, developer, counts] = await Promise.all([
    selectAttachments(ctx.db, [...galleryIds, ...(row.thumbnail_id === null ? [] : [row.thumbnail_id])]),
    selectAttachmentsOf(ctx.db, { investmentId: id }, 'document'),
    row.developer_id === null ? Promise.resolve(undefined) : selectDeveloper(ctx.db, row.developer_id),
    countPublishedOffersByInvestment(ctx.db, [id]),
  ])
  const byId = new Map(attachments.map((a) => [a.id, a]))
  const thumbnail = row.thumbnail_id === null ? undefined : byId.get(row.thumbnail_id)
  await ctx.hooks.doAction('dg_before_documents', id)
  const documentItems = [
    ...documents.map(mediaItem),
    ...parseDocuments(row.documents).map((d) => ({ id: 0, url: d.url, title: d.title, alt: '', mime_type: '' })),
  ]
  await ctx.hooks.doAction('dg_after_documents', id)
  const detail = {
    ...investmentSummary(ctx, row, thumbnail, counts.get(id) ?? 0),
    content: row.content,
    excerpt: row.excerpt,
    context: {
      developer: developer
        ? {
            name: developer.name,
            website: developer.website ?? '',
            phone: developer.phone ?? '',
            email: developer.email ?? '',
          }
        : null,
      prospectus_url: row.prospectus_url ?? '',
      contract: { id: CURRENT_LEGAL_CONTRACT.id, valid_until: CURRENT_LEGAL_CONTRACT.validUntil },
    },
    media: {
      thumbnail: thumbnail ? mediaItem(thumbnail) : null,
      gallery: galleryIds
        .map((gid) => byId.get(gid))
        .filter((a): a is AttachmentRow => a !== undefined)
        .map(mediaItem),
    },
    documents: documentItems,
    visibility: row.visibility,
    custom_meta: await exposeCustomMeta(ctx, 'dg_investment', row.custom_meta),
  }
  await ctx.hooks.doAction('dg_after_investment', id)
  return detail
}

export async function getDiscovery(ctx: HostContext, baseUrl: string): Promise<Record<string, unknown>> {
  return {
    api_version: API_VERSION,
    plugin_version: SERVICE_VERSION,
    contract: { id: CURRENT_LEGAL_CONTRACT.id, valid_until: CURRENT_LEGAL_CONTRACT.validUntil },
    resources: { investments: `${baseUrl}/catalog/investments`, properties: `${baseUrl}/catalog/properties` },
    extension_options: await exposedExtensionOptions(ctx),
  }
}
