import type { Executor } from '../context.js'
import type { NewUser, UserRow } from '../db/schema.js'

export async function insertUser(db: Executor, user: NewUser): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow()
}

export async function findUserByLogin(db: Executor, login: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('login', '=', login).executeTakeFirst()
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst()
}

export async function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function updateUserPasswordHash(db: Executor, id: number, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute()
}

export async function selectUsers(db: Executor): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('id').execute()
}

export async function updateUserRow(
  db: Executor,
  id: number,
  changes: Partial<Pick<UserRow, 'role' | 'email' | 'display_name' | 'disabled_at'>>,
): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute()
}

/** Administrators whose account is active, other than `exceptId`. */
export async function countOtherActiveAdministrators(db: Executor, exceptId: number): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('role', '=', 'administrator')
    .where('disabled_at', 'is', null)
    .where('id', '!=', exceptId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Per user: how many application passwords it has and when one was last used. */
export async function selectAppPasswordStats(
  db: Executor,
): Promise<Array<{ user_id: number; count: number; last_used_at: string | null }>> {
  const rows = await db
    .selectFrom('app_passwords')
    .select((eb) => ['user_id', eb.fn.countAll().as('count'), eb.fn.max('last_used_at').as('last_used_at')])
    .groupBy('user_id')
    .execute()
  return rows.map((row) => ({
    user_id: Number(row.user_id),
    count: Number(row.count),
    last_used_at: row.last_used_at ?? null,
  }))
}
