/*
 * A query that runs on every request, built and compiled once per database handle. Building and
 * compiling a Kysely query costs more than running a one-row SQLite lookup, so the few queries on
 * the catalog's hot path skip it. Only for queries without parameters that change between calls.
 */
import type { CompiledQuery, Kysely } from 'kysely'

export function compiledOnce<DB, R>(build: (db: Kysely<DB>) => { compile(): CompiledQuery<R> }) {
  const compiled = new WeakMap<Kysely<DB>, CompiledQuery<R>>()
  return async function execute(db: Kysely<DB>): Promise<R[]> {
    let query = compiled.get(db)
    if (!query) {
      query = build(db).compile()
      compiled.set(db, query)
    }
    return (await db.executeQuery(query)).rows
  }
}
