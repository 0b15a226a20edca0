/*
 * Released migration: never edit it. Each developer entity publishes its own dataset, so the
 * dataset's `<url>` (the page of that company's website with the prices) and the note ending its
 * description belong to the entity, not to the service: they were one setting shared by every
 * entity (`dg_publication_settings.dataset_url` and `.description_note`), so the second company's
 * `<url>` pointed to the parent's page. The values move to the publishing developer (the setting
 * `developer_id`, else the first entity), whose dataset they were written for; the note becomes
 * its Polish note (it was written in Polish and also went into `<english>`), with no English
 * note until one is given. Other entities start without them.
 */
import { type Kysely, sql } from 'kysely'

interface OldSettings {
  developer_id?: number | null
  dataset_url?: string | null
  description_note?: string | null
  [key: string]: unknown
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('developers').addColumn('dataset_url', 'text').execute()
  await db.schema.alterTable('developers').addColumn('description_note_pl', 'text').execute()
  await db.schema.alterTable('developers').addColumn('description_note_en', 'text').execute()

  const option = await sql<{ value: string }>`select value from options where name = 'dg_publication_settings'`.execute(
    db,
  )
  const raw = option.rows[0]?.value
  if (raw === undefined) return
  let settings: OldSettings
  try {
    settings = JSON.parse(raw) as OldSettings
  } catch {
    return
  }
  const { dataset_url: url, description_note: note, ...rest } = settings
  const chosen =
    typeof settings.developer_id === 'number'
      ? await sql<{ id: number }>`select id from developers where id = ${settings.developer_id}`.execute(db)
      : await sql<{ id: number }>`select id from developers order by id limit 1`.execute(db)
  const developerId = chosen.rows[0]?.id
  if (developerId !== undefined && (url || note))
    await sql`update developers set dataset_url = ${url ?? null}, description_note_pl = ${note ?? null} where id = ${developerId}`.execute(
      db,
    )
  await sql`update options set value = ${JSON.stringify(rest)} where name = 'dg_publication_settings'`.execute(db)
}
