/*
 * Migration 0018 on both databases: the dataset <url> and the description note, once settings
 * shared by every developer entity, move to the publishing developer, whose dataset they were
 * written for; the note becomes its Polish note only, and the other entities start without them.
 */
import { type Kysely, sql } from 'kysely'
import { expect, it } from 'vitest'

import { up } from '../../src/host/db/migrations/0018-developer-dataset.js'
import { getPublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { describeEachDatabase } from '../helpers/test-app.js'

describeEachDatabase('migration of the shared dataset settings to the developer entities', (getEnv) => {
  it('moves dataset_url and description_note to the publishing developer and drops them from the settings', async () => {
    const { ctx } = getEnv()
    const db = ctx.db as unknown as Kysely<unknown>
    const now = new Date().toISOString()
    const ids: number[] = []
    for (const name of ['Pierwsza Sp. z o.o.', 'Druga Sp. z o.o.', 'Trzecia Sp. z o.o.'])
      ids.push(
        (
          await ctx.db
            .insertInto('developers')
            .values({ name, created_at: now, modified_at: now })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id,
      )
    // the database as it was before the migration: no columns, the values in the shared option
    for (const column of ['dataset_url', 'description_note_pl', 'description_note_en'])
      await sql`alter table developers drop column ${sql.ref(column)}`.execute(db)
    const old = {
      public_base_url: 'https://ceny.example.pl/dane-gov',
      developer_id: ids[1],
      published_statuses: ['available', 'reserved'],
      schedule: '30 0 * * *',
      dataset_url: 'https://www.druga.example.pl/ceny',
      description_note: 'Sprzedaż inwestycji zakończona.',
    }
    await ctx.db
      .insertInto('options')
      .values({ name: 'dg_publication_settings', value: JSON.stringify(old), autoload: 1 })
      .execute()

    await up(db)

    const rows = await ctx.db
      .selectFrom('developers')
      .select(['id', 'dataset_url', 'description_note_pl', 'description_note_en'])
      .orderBy('id')
      .execute()
    expect(rows).toEqual([
      { id: ids[0], dataset_url: null, description_note_pl: null, description_note_en: null },
      {
        id: ids[1],
        dataset_url: 'https://www.druga.example.pl/ceny',
        description_note_pl: 'Sprzedaż inwestycji zakończona.',
        description_note_en: null,
      },
      { id: ids[2], dataset_url: null, description_note_pl: null, description_note_en: null },
    ])
    const stored = await ctx.db
      .selectFrom('options')
      .select('value')
      .where('name', '=', 'dg_publication_settings')
      .executeTakeFirstOrThrow()
    expect(JSON.parse(stored.value)).toEqual({
      public_base_url: 'https://ceny.example.pl/dane-gov',
      developer_id: ids[1],
      published_statuses: ['available', 'reserved'],
      schedule: '30 0 * * *',
    })
    expect(await getPublicationSettings(ctx)).toEqual({
      public_base_url: 'https://ceny.example.pl/dane-gov',
      developer_id: ids[1],
      published_statuses: ['available', 'reserved'],
      schedule: '30 0 * * *',
    })
  })
})
