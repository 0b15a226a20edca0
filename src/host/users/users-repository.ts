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
