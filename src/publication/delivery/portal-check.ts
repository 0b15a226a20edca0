/*
 * "Did it land?" — asks the public dane.gov.pl API (version 1.4, JSON:API bodies) whether our
 * dataset has a resource for a date. The public API does not expose extIdent, so the dataset is
 * found by a full-text search on its title and matched on the harvester source URL (our XML URL)
 * first, then on the title; its resources are listed newest data date first and matched on
 * `data_date` (or a title ending with the date). The public index can lag an import by hours, so a
 * missing resource is a warning, never a refusal. Network failures become `unreachable`.
 */
import { explainNetworkError } from '../../host/http/network-errors.js'
import { HttpProbeError, probeUrl } from './http-probe.js'

export const PORTAL_API_VERSION = '1.4'
export const PORTAL_TIMEOUT_MS = 8000
const DATASET_TITLE_PREFIX = 'Ceny ofertowe mieszkań dewelopera'

export type PortalStatus = 'not_checked' | 'ok' | 'missing_resource' | 'unreachable' | 'dataset_not_found'

export interface PortalSummary {
  api_url: string
  api_version: string
  checked_at: string
  date: string
  query: string
  dataset: {
    id: string
    title: string
    matched_by: 'source_url' | 'title'
    source_url: string | null
    source_type: string | null
    last_import_timestamp: string | null
    modified: string | null
  } | null
  resource: {
    id: string
    title: string
    data_date: string | null
    created: string | null
    link: string | null
    file_url: string | null
  } | null
  resources_seen: number
  latest_data_date: string | null
  /** The raw failure (technical detail). */
  error?: string
  /** The failure as an operator reads it (see explainNetworkError). */
  error_code?: string
  error_pl?: string
  error_en?: string
}

type Json = Record<string, unknown>

const obj = (value: unknown): Json =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {}
const text = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null

class PortalUnreachable extends Error {}
class PortalNotFound extends Error {}

async function getJson(url: string): Promise<Json> {
  let answer
  try {
    answer = await probeUrl(url, {
      timeoutMs: PORTAL_TIMEOUT_MS,
      keepBytes: 8 * 1024 * 1024,
      maxBytes: 8 * 1024 * 1024,
      headers: {
        accept: 'application/vnd.api+json, application/json',
        'x-api-version': PORTAL_API_VERSION,
        'accept-language': 'pl',
      },
    })
  } catch (error) {
    if (error instanceof HttpProbeError) throw new PortalUnreachable(`${error.reason}: ${error.message}`)
    throw error
  }
  if (answer.status === 404) throw new PortalNotFound(`${url}: 404`)
  if (answer.status !== 200) throw new PortalUnreachable(`${url}: HTTP ${answer.status}`)
  try {
    return obj(JSON.parse(answer.body.toString('utf8')))
  } catch {
    throw new PortalUnreachable(`${url}: the answer is not JSON`)
  }
}

const fold = (value: string): string => value.normalize('NFC').trim().toLowerCase()
const sameUrl = (a: string, b: string): boolean => fold(a).replace(/\/+$/, '') === fold(b).replace(/\/+$/, '')

export async function verifyPortal(args: {
  apiUrl: string
  date: string
  developerName: string | null
  xmlUrl: string | null
  now: () => Date
}): Promise<{ status: Exclude<PortalStatus, 'not_checked'>; summary: PortalSummary }> {
  const api = args.apiUrl.replace(/\/+$/, '')
  const titlePrefix = args.developerName ? `${DATASET_TITLE_PREFIX} ${args.developerName}` : DATASET_TITLE_PREFIX
  const summary: PortalSummary = {
    api_url: api,
    api_version: PORTAL_API_VERSION,
    checked_at: args.now().toISOString(),
    date: args.date,
    query: titlePrefix,
    dataset: null,
    resource: null,
    resources_seen: 0,
    latest_data_date: null,
  }
  try {
    const search = await getJson(
      `${api}/${PORTAL_API_VERSION}/datasets?q=${encodeURIComponent(titlePrefix)}&per_page=100`,
    ).catch((error: unknown) => {
      if (error instanceof PortalNotFound) return { data: [] }
      throw error
    })
    const datasets = (Array.isArray(search.data) ? search.data : []).map(obj)
    const describe = (entry: Json, matchedBy: 'source_url' | 'title') => {
      const attributes = obj(entry.attributes)
      const source = obj(attributes.source)
      return {
        id: text(entry.id) ?? '',
        title: text(attributes.title) ?? '',
        matched_by: matchedBy,
        source_url: text(source.url),
        source_type: text(source.type),
        last_import_timestamp: text(source.last_import_timestamp),
        modified: text(attributes.modified),
      }
    }
    const bySource = args.xmlUrl
      ? datasets.find((d) => {
          const url = text(obj(obj(d.attributes).source).url)
          return url !== null && sameUrl(url, args.xmlUrl as string)
        })
      : undefined
    const byTitle =
      bySource || !args.developerName
        ? undefined
        : datasets.find((d) => fold(text(obj(d.attributes).title) ?? '').startsWith(fold(titlePrefix)))
    const found = bySource ? describe(bySource, 'source_url') : byTitle ? describe(byTitle, 'title') : null
    if (!found?.id) return { status: 'dataset_not_found', summary }
    summary.dataset = found

    const listing = await getJson(
      `${api}/${PORTAL_API_VERSION}/datasets/${encodeURIComponent(found.id)}/resources?sort=-data_date&per_page=100`,
    )
    const resources = (Array.isArray(listing.data) ? listing.data : []).map(obj)
    summary.resources_seen = resources.length
    const dates = resources
      .map((r) => text(obj(r.attributes).data_date)?.slice(0, 10))
      .filter((d): d is string => Boolean(d))
      .sort()
    summary.latest_data_date = dates.at(-1) ?? null
    const match = resources.find((r) => {
      const attributes = obj(r.attributes)
      return (
        text(attributes.data_date)?.slice(0, 10) === args.date ||
        (text(attributes.title) ?? '').trim().endsWith(args.date)
      )
    })
    if (!match) return { status: 'missing_resource', summary }
    const attributes = obj(match.attributes)
    summary.resource = {
      id: text(match.id) ?? '',
      title: text(attributes.title) ?? '',
      data_date: text(attributes.data_date),
      created: text(attributes.created),
      link: text(attributes.link),
      file_url: text(attributes.file_url) ?? text(attributes.download_url),
    }
    return { status: 'ok', summary }
  } catch (error) {
    if (error instanceof PortalNotFound) return { status: 'dataset_not_found', summary }
    if (error instanceof PortalUnreachable) {
      const explained = explainNetworkError(error.message, { assumeNetwork: true })
      return {
        status: 'unreachable',
        summary: {
          ...summary,
          error: error.message,
          ...(explained
            ? { error_code: explained.code, error_pl: explained.message_pl, error_en: explained.message_en }
            : {}),
        },
      }
    }
    throw error
  }
}
