/* What a publication answers, and records as its outcome. */
import type { HostContext } from '../../host/context.js'
import { type Dataset, datasetBase } from '../daily-file/datasets.js'
import type { PublicationIssue } from '../publication-issue.js'
import { type Manifest, MD5_NAME, XML_NAME } from '../publication-store.js'
import { getPublicationSettings } from '../settings/publication-settings.js'
import { gapCounts } from './gap-warnings.js'
import type { PreparedPublication } from './prepare-publication.js'

export type PublicationTrigger = 'api' | 'schedule' | 'admin' | 'legacy_generate' | 'report_import' | 'cli'

export interface PublicationOutcome {
  status: 'published'
  date: string
  version: string
  record_count: number
  csv: { file_name: string; url: string; md5: string; bytes: number }
  xml: { url: string; md5_url: string; md5: string; resources: number }
  published_at: string
  trigger: PublicationTrigger
  /** The developer entity whose dataset this is. */
  developer_id: number | null
  /** That dataset's extIdent on dane.gov.pl. */
  public_dataset_id: string | null
  /** Offers left out of the file because they have no type (each named in `warnings`). */
  offers_without_type: number
  /** What the file shows incompletely (each named in `warnings`). */
  gaps: Record<string, number>
  /** Findings that did not stop the publication (offers without type, a trial http address…). */
  warnings: PublicationIssue[]
}

export async function outcomeOf(
  ctx: HostContext,
  dataset: Dataset | undefined,
  args: { date: string; trigger: PublicationTrigger },
  prepared: PreparedPublication,
  manifest: Manifest,
  version: string,
): Promise<PublicationOutcome> {
  const settings = await getPublicationSettings(ctx)
  const base = dataset ? datasetBase(settings.public_base_url ?? '', dataset) : ''
  return {
    status: 'published',
    date: args.date,
    version,
    record_count: prepared.csv.rows,
    csv: {
      file_name: prepared.csv.fileName,
      url: prepared.csv.url ?? `${base}/${prepared.csv.fileName}`,
      md5: prepared.csv.md5,
      bytes: prepared.csv.bytes,
    },
    xml: {
      url: `${base}/${XML_NAME}`,
      md5_url: `${base}/${MD5_NAME}`,
      md5: manifest.xml_md5,
      resources: manifest.days.length,
    },
    published_at: ctx.now().toISOString(),
    trigger: args.trigger,
    developer_id: dataset?.developer.id ?? null,
    public_dataset_id: dataset?.extIdent ?? null,
    offers_without_type: prepared.offersWithoutType.length,
    gaps: gapCounts(prepared.gaps, prepared.fileGaps),
    warnings: prepared.warnings,
  }
}
