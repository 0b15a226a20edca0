import type { Executor } from '../../host/context.js'
import { recordedCsvOf } from '../publications-repository.js'

/** A successful publication of a dataset as recorded: the version it served and the file it published. */
export interface PublishedRecord {
  version: string | null
  csv_md5: string | null
  /** The day file the publication named (absent in records that cannot be read). */
  file_name: string | null
}

/** Every successful publication of a dataset (developerId null: the publishing developer's), oldest first. */
export async function publishedRecords(db: Executor, developerId: number | null): Promise<PublishedRecord[]> {
  const rows = await db
    .selectFrom('publications')
    .select(['version', 'csv_md5', 'issues'])
    .where('status', '=', 'published')
    .where((eb) => (developerId === null ? eb('developer_id', 'is', null) : eb('developer_id', '=', developerId)))
    .orderBy('id', 'asc')
    .execute()
  // an unreadable record names no file
  return rows.map((row) => ({
    version: row.version,
    csv_md5: row.csv_md5,
    file_name: recordedCsvOf(row.issues).fileName ?? null,
  }))
}
