import type { Executor } from '../host/context.js'
import type { PublicationRow } from '../host/db/schema.js'

export async function findLastPublished(db: Executor): Promise<PublicationRow | undefined> {
  return db
    .selectFrom('publications')
    .selectAll()
    .where('status', '=', 'published')
    .orderBy('finished_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
}
