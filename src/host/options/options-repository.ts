import type { Executor } from '../context.js'

export async function findOptionValue(db: Executor, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('options').select('value').where('name', '=', name).executeTakeFirst()
  return row?.value
}

export async function upsertOption(db: Executor, name: string, value: string, autoload: boolean): Promise<void> {
  await db
    .insertInto('options')
    .values({ name, value, autoload: autoload ? 1 : 0 })
    .onConflict((conflict) => conflict.column('name').doUpdateSet({ value, autoload: autoload ? 1 : 0 }))
    .execute()
}

/** Inserts only when absent; returns whether this call created the option. */
export async function insertOptionIfAbsent(
  db: Executor,
  name: string,
  value: string,
  autoload: boolean,
): Promise<boolean> {
  const result = await db
    .insertInto('options')
    .values({ name, value, autoload: autoload ? 1 : 0 })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

export async function deleteOptionRow(db: Executor, name: string): Promise<void> {
  await db.deleteFrom('options').where('name', '=', name).execute()
}

export async function listAutoloadedOptions(db: Executor): Promise<{ name: string; value: string }[]> {
  return db.selectFrom('options').select(['name', 'value']).where('autoload', '=', 1).orderBy('name').execute()
}
