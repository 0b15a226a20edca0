/*
 * Every publication attempt as the operators read it (the panel's history, the dashboard): the
 * day, when and how it ran, who ran it, the rows, the files with their checksums and the address
 * this service serves them at, the warnings of a success and the issues of a failure, each issue
 * with its corrective message in Polish and English.
 */
import type { HostContext } from '../../host/context.js'
import type { PublicationRow } from '../../host/db/schema.js'
import { notFound } from '../../host/errors.js'
import type { PublicationIssue } from '../publication-issue.js'
import { PUBLIC_PATH } from '../publication-store.js'
import {
  countPublications,
  findPublication,
  type PublicationFilter,
  selectPublicationsPage,
} from '../publications-repository.js'

export interface HistoryIssue {
  code: string
  message_pl: string
  message_en: string
  details?: Record<string, unknown>
}

export interface PublicationRecord {
  id: number
  date: string
  status: string
  trigger: string
  actor: string
  started_at: string
  finished_at: string | null
  developer_id: number | null
  record_count: number | null
  version: string | null
  csv: { file_name: string; url: string; served_path: string; md5: string; bytes: number | null } | null
  xml: { url: string; md5_url: string; md5: string; resources: number | null; served_path: string } | null
  offers_without_type: number | null
  gaps: Record<string, number>
  warnings: HistoryIssue[]
  issues: HistoryIssue[]
}

interface StoredOutcome {
  outcome?: {
    csv?: { file_name?: string; url?: string; md5?: string; bytes?: number }
    xml?: { url?: string; md5_url?: string; md5?: string; resources?: number }
    offers_without_type?: number
    gaps?: Record<string, number>
  }
  warnings?: PublicationIssue[]
}

function parse(text: string | null): unknown {
  if (!text) return null
  try {
    return JSON.parse(text) as unknown
  } catch {
    return null
  }
}

/** Issues as stored; a record from before the bilingual messages keeps its one text in both. */
function readIssues(value: unknown): HistoryIssue[] {
  if (!Array.isArray(value)) return []
  return value
    .filter((item): item is Record<string, unknown> => item !== null && typeof item === 'object')
    .map((item) => {
      const fallback = typeof item.message === 'string' ? item.message : ''
      const details = item.details
      return {
        code: typeof item.code === 'string' ? item.code : 'unknown',
        message_pl: typeof item.message_pl === 'string' ? item.message_pl : fallback,
        message_en: typeof item.message_en === 'string' ? item.message_en : fallback,
        ...(details !== null && typeof details === 'object' && !Array.isArray(details)
          ? { details: details as Record<string, unknown> }
          : {}),
      }
    })
}

function servedBase(developerId: number | null): string {
  return developerId === null ? PUBLIC_PATH : `${PUBLIC_PATH}/d${developerId}`
}

export function publicationRecord(row: PublicationRow): PublicationRecord {
  const developerId = row.developer_id === null ? null : Number(row.developer_id)
  const base = servedBase(developerId)
  const record: PublicationRecord = {
    id: Number(row.id),
    date: row.publication_date,
    status: row.status,
    trigger: row.trigger,
    actor: row.actor_name,
    started_at: row.started_at,
    finished_at: row.finished_at,
    developer_id: developerId,
    record_count: row.record_count === null ? null : Number(row.record_count),
    version: row.version,
    csv: null,
    xml: null,
    offers_without_type: null,
    gaps: {},
    warnings: [],
    issues: [],
  }
  const stored = parse(row.issues)
  if (row.status !== 'published') {
    record.issues = readIssues(stored)
    return record
  }
  const { outcome, warnings } = (stored ?? {}) as StoredOutcome
  const csv = outcome?.csv
  if (csv?.file_name && row.csv_md5)
    record.csv = {
      file_name: csv.file_name,
      url: csv.url ?? '',
      served_path: `${base}/${csv.file_name}`,
      md5: row.csv_md5,
      bytes: csv.bytes ?? null,
    }
  if (row.xml_md5)
    record.xml = {
      url: outcome?.xml?.url ?? '',
      md5_url: outcome?.xml?.md5_url ?? '',
      md5: row.xml_md5,
      resources: outcome?.xml?.resources ?? null,
      served_path: `${base}/dataset.xml`,
    }
  record.offers_without_type = outcome?.offers_without_type ?? null
  record.gaps = outcome?.gaps ?? {}
  record.warnings = readIssues(warnings)
  return record
}

export async function publicationHistory(
  ctx: Pick<HostContext, 'db'>,
  filter: PublicationFilter,
  page: number,
  perPage: number,
): Promise<{ items: PublicationRecord[]; total: number }> {
  const [rows, total] = await Promise.all([
    selectPublicationsPage(ctx.db, filter, perPage, (page - 1) * perPage),
    countPublications(ctx.db, filter),
  ])
  return { items: rows.map(publicationRecord), total }
}

export async function getPublicationRecord(ctx: Pick<HostContext, 'db'>, id: number): Promise<PublicationRecord> {
  const row = await findPublication(ctx.db, id)
  if (!row) throw notFound('publication_not_found', `There is no publication ${id}.`)
  return publicationRecord(row)
}
