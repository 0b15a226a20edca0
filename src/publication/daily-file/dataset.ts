import { randomUUID } from 'node:crypto'

import type { HostContext } from '../../host/context.js'
import { getOrCreateOption } from '../../host/options/options.js'
import { findLastPublished } from '../publications-repository.js'

const DATASET_ID_OPTION = 'dg_dataset_ext_ident'

/**
 * The dataset's extIdent on dane.gov.pl: made once, 36 characters in UUID form as the portal's FAQ
 * recommends, then never changed, because the portal identifies the dataset by it (datasets made
 * before 2.1.1 keep their 32 hex characters).
 */
export async function getPublicDatasetId(ctx: Pick<HostContext, 'db'>): Promise<string> {
  return getOrCreateOption(ctx, DATASET_ID_OPTION, () => randomUUID(), true)
}

export interface LastPublication {
  date: string
  published_at: string | null
  record_count: number | null
  trigger: string
  version: string | null
  xml_md5: string | null
  csv_md5: string | null
  files: { csv: string; xml: string; md5: string } | null
  /** Offers left out of that file because they had no type (absent for publications before 2.1.1). */
  offers_without_type: number
  /** What that file showed incompletely, by kind (see the publication's warnings). */
  gaps: Record<string, number>
}

export async function getLastPublication(
  ctx: Pick<HostContext, 'db'>,
  developerId: number | null = null,
): Promise<LastPublication | Record<string, never>> {
  const row = await findLastPublished(ctx.db, developerId)
  if (!row) return {}
  const stored = row.issues
    ? (JSON.parse(row.issues) as {
        outcome?: {
          csv?: { url: string }
          xml?: { url: string; md5_url: string }
          offers_without_type?: number
          gaps?: Record<string, number>
        }
      })
    : {}
  const outcome = stored.outcome
  return {
    date: row.publication_date,
    published_at: row.finished_at,
    record_count: row.record_count,
    trigger: row.trigger,
    version: row.version,
    xml_md5: row.xml_md5,
    csv_md5: row.csv_md5,
    files:
      outcome?.csv && outcome.xml ? { csv: outcome.csv.url, xml: outcome.xml.url, md5: outcome.xml.md5_url } : null,
    offers_without_type: outcome?.offers_without_type ?? 0,
    gaps: outcome?.gaps ?? {},
  }
}

export interface PublicationFailure {
  date: string
  failed_at: string | null
  trigger: string
  issues: Array<{ code: string; message_en?: string }>
}

/** The latest failed publication, when it is newer than the latest success. */
export async function getLastPublicationFailure(
  ctx: Pick<HostContext, 'db'>,
  developerId: number | null = null,
): Promise<PublicationFailure | null> {
  const failed = await ctx.db
    .selectFrom('publications')
    .selectAll()
    .where('status', '=', 'failed')
    .where((eb) => (developerId === null ? eb('developer_id', 'is', null) : eb('developer_id', '=', developerId)))
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  if (!failed) return null
  const success = await findLastPublished(ctx.db, developerId)
  if (success && success.id > failed.id) return null
  return {
    date: failed.publication_date,
    failed_at: failed.finished_at,
    trigger: failed.trigger,
    issues: JSON.parse(failed.issues ?? '[]') as PublicationFailure['issues'],
  }
}
