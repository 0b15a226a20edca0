/*
 * Released migration: never edit it. A source may trust its own server's certificate (a
 * self-signed one, or one issued by a company's own authority): the PEM an administrator pasted,
 * used for that source's requests only, so no certificate has to be added to the whole service.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sources').addColumn('ca_certificate', 'text').execute()
}
