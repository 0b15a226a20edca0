import { randomBytes } from 'node:crypto'

import type { HostContext } from '../host/context.js'
import { getOrCreateOption } from '../host/options/options.js'
import { findLastPublished } from './publications-repository.js'

const DATASET_ID_OPTION = 'dg_dataset_ext_ident'

/**
 * The dataset's extIdent on dane.gov.pl: made once (32 hex characters, within the portal's 36),
 * then never changed, because the portal identifies the dataset by it.
 */
export async function getPublicDatasetId(ctx: Pick<HostContext, 'db'>): Promise<string> {
  return getOrCreateOption(ctx, DATASET_ID_OPTION, () => randomBytes(16).toString('hex'), true)
}

export interface LastPublication {
  date: string
  published_at: string | null
  record_count: number | null
  trigger: string
  version: string | null
  xml_md5: string | null
}

export async function getLastPublication(
  ctx: Pick<HostContext, 'db'>,
): Promise<LastPublication | Record<string, never>> {
  const row = await findLastPublished(ctx.db)
  if (!row) return {}
  return {
    date: row.publication_date,
    published_at: row.finished_at,
    record_count: row.record_count,
    trigger: row.trigger,
    version: row.version,
    xml_md5: row.xml_md5,
  }
}
