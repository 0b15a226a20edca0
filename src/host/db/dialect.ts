/*
 * Every difference between SQLite and PostgreSQL lives in this file: connection set-up,
 * column types that Kysely cannot express portably, triggers, locks and upserts that need
 * dialect syntax. Feature code asks `caps` instead of testing the dialect name.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

import type SqliteDatabase from 'better-sqlite3'
import {
  type ColumnDefinitionBuilder,
  type DatabaseIntrospector,
  CompiledQuery,
  type CreateTableBuilder,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  type RawBuilder,
  sql,
  SqliteDialect,
} from 'kysely'
import pg from 'pg'

import { ReadWriteSqliteDialect, sqliteFileBehind } from './sqlite-connections.js'
import { FALLBACK_CHECKPOINT_PAGES, startWalCheckpointer } from './wal-checkpointer.js'

export type DialectName = 'sqlite' | 'postgres'

export interface DialectCaps {
  readonly name: DialectName
  /** Several processes may write at once (PostgreSQL); SQLite has one writer at a time. */
  readonly concurrentWriters: boolean
}

/** The dialect of a connection or transaction, for SQL built where no `caps` is at hand. */
export function dialectOf(db: Pick<Kysely<never>, 'getExecutor'>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

export interface SqliteOptions {
  file: string
  /**
   * Page cache in KiB (negative pragma value). Reads go through the memory map, not the cache; the
   * cache holds the pages a write transaction changes, and those of a large one spill to the WAL
   * whatever its size, so a small cache costs a 100,000-offer import no time and saves its memory.
   */
  cacheSizeKib?: number
  mmapSizeBytes?: number
  /** Off for a second connection of a file whose own process already checkpoints it. */
  walCheckpointer?: boolean
}

/**
 * better-sqlite3, loaded on first use: it is an optional dependency, so that a PostgreSQL-only
 * installation (`npm ci --omit=dev --omit=optional`) needs no native SQLite build.
 */
export function loadSqliteDriver(): typeof SqliteDatabase {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as typeof SqliteDatabase
  } catch (error) {
    throw new Error(
      `The embedded SQLite database needs the better-sqlite3 package, which is not installed (${(error as Error).message.split('\n')[0]}). ` +
        'Install with optional dependencies (npm ci --omit=dev), or set DATABASE_URL to use PostgreSQL.',
    )
  }
}

export function createSqliteDialect(options: SqliteOptions): { dialect: SqliteDialect; caps: DialectCaps } {
  const Driver = loadSqliteDriver()
  const inMemory = options.file === ':memory:'
  if (!inMemory) fs.mkdirSync(path.dirname(options.file), { recursive: true })
  const open = () => {
    const database = new Driver(options.file)
    database.pragma('busy_timeout = 5000')
    database.pragma(`cache_size = -${options.cacheSizeKib ?? 16384}`)
    database.pragma(`mmap_size = ${options.mmapSizeBytes ?? 268435456}`)
    database.pragma('temp_store = MEMORY')
    return database
  }
  const database = open()
  if (!inMemory) database.pragma('journal_mode = WAL')
  // FULL, not NORMAL: a commit that answered 200/202 must survive a power cut, not only a crash
  database.pragma('synchronous = FULL')
  database.pragma('foreign_keys = ON')
  const caps: DialectCaps = { name: 'sqlite', concurrentWriters: false }
  if (inMemory) {
    // one connection: an in-memory database exists only on the connection that made it
    return { dialect: new SqliteDialect({ database: withStatementCache(database, () => database.close()) }), caps }
  }
  database.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`)
  const stopCheckpointer = options.walCheckpointer === false ? () => undefined : startWalCheckpointer(options.file)
  const reader = open()
  reader.pragma('query_only = ON')
  return {
    dialect: new ReadWriteSqliteDialect(options.file, withStatementCache(database), withStatementCache(reader), () => {
      stopCheckpointer()
      reader.close()
      database.close()
    }),
    caps,
  }
}

/*
 * Kysely's SQLite driver calls prepare() for every query, and compiling the statement costs more
 * than running it. Statements are reusable, and each connection runs one query at a time (a query
 * completes in one synchronous call), so the same SQL text gets the same prepared statement.
 */
function withStatementCache(database: SqliteDatabase.Database, close = () => database.close(), maxStatements = 500) {
  const statements = new Map<string, SqliteDatabase.Statement>()
  return {
    close,
    prepare(text: string): SqliteDatabase.Statement {
      let statement = statements.get(text)
      if (!statement) {
        statement = database.prepare(text)
        if (statements.size >= maxStatements) {
          const oldest = statements.keys().next()
          if (!oldest.done) statements.delete(oldest.value)
        }
        statements.set(text, statement)
      }
      return statement
    },
  }
}

/**
 * Bulk load on SQLite: drops the table's secondary indexes for the rest of the transaction and
 * returns the function that creates them again from their own stored definitions. Inserting a
 * large share of a table row by row into a dozen b-trees costs several times more than sorting
 * each index once at the end. Everything happens inside the caller's transaction, so a failure or
 * a crash rolls the indexes back with the rows; unique indexes stay, as they are constraints.
 * PostgreSQL keeps its indexes (dropping them would lock the table against readers).
 */
export async function deferSecondaryIndexes(
  db: Kysely<never>,
  dialect: DialectName,
  table: string,
): Promise<() => Promise<void>> {
  if (!bulkLoadDefersIndexes(dialect)) return async () => undefined
  const { rows } = await sql<{ name: string; sql: string }>`
    SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ${table} AND sql IS NOT NULL`.execute(db)
  const secondary = rows.filter((index) => !/^\s*CREATE\s+UNIQUE\b/i.test(index.sql))
  for (const index of secondary) await sql.raw(`DROP INDEX "${index.name.replace(/"/g, '""')}"`).execute(db)
  return async () => {
    for (const index of secondary) await sql.raw(index.sql).execute(db)
  }
}

/** Whether `deferSecondaryIndexes` drops anything: a caller may skip the reads that decide on it. */
export function bulkLoadDefersIndexes(dialect: DialectName): boolean {
  return dialect === 'sqlite'
}

/**
 * Whether a bulk write may number its new rows itself, from the table's sequence read in its own
 * transaction, sparing its INSERT the RETURNING clause: only SQLite's single writer can be sure
 * that no other transaction takes the same numbers.
 */
export function writerNumbersNewRows(dialect: DialectName): boolean {
  return dialect === 'sqlite'
}

/**
 * The rows of a JSON array parameter (objects naming `columns`) as a table an UPDATE … FROM reads:
 * PostgreSQL's jsonb_populate_recordset gives each value the type of `table`'s column of its name;
 * SQLite's json_each gives it its JSON type, which the column's affinity then converts. The one
 * parameter is the array's JSON text.
 */
export function jsonRowsSql(dialect: DialectName, table: string, columns: readonly string[]): string {
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`
  if (dialect === 'postgres') return `jsonb_populate_recordset(NULL::${quote(table)}, $1::jsonb)`
  const read = columns.map((column) => `value ->> '$.${column.replace(/'/g, "''")}' AS ${quote(column)}`).join(', ')
  return `(SELECT ${read} FROM json_each(?))`
}

/**
 * A JSON array of the values as text, written exactly as JSON.stringify writes it: SQLite's
 * json_array does; PostgreSQL's json_build_array puts a space after each comma, so there the array
 * is joined from each value's own JSON.
 */
export function jsonArrayTextSql(dialect: DialectName, values: readonly RawBuilder<unknown>[]): RawBuilder<string> {
  if (dialect === 'sqlite') return sql<string>`json_array(${sql.join(values)})`
  const items = values.map((value) => sql`coalesce(to_json(${value})::text, 'null')`)
  return sql<string>`'[' || ${sql.join(items, sql` || ',' || `)} || ']'`
}

/** Case-insensitive LIKE: SQLite's LIKE already ignores ASCII case, PostgreSQL's needs ILIKE. */
export function likeIgnoringCase(dialect: DialectName): RawBuilder<unknown> {
  return sql.raw(dialect === 'postgres' ? 'ILIKE' : 'LIKE')
}

/**
 * The query with its rows locked until the transaction ends where writers run at once
 * (PostgreSQL), so that two writes that read them take turns; SQLite's single writer already does.
 */
export function lockedForUpdate<Q extends { forUpdate(): Q }>(query: Q, dialect: DialectName): Q {
  return dialect === 'postgres' ? query.forUpdate() : query
}

/**
 * Inserts rows that all name the same columns, in multi-row INSERTs whose SQL text is written
 * here once per batch size: Kysely would compile thousands of placeholders anew for every batch
 * of a large import, and the SQLite statement cache reuses the prepared statement. `returning`
 * columns come back for every row, in no promised order.
 */
export async function insertRows<R = Record<string, unknown>>(
  db: Kysely<never>,
  dialect: DialectName,
  table: string,
  rows: readonly object[],
  options: { returning?: readonly string[] } = {},
): Promise<R[]> {
  const first = rows[0]
  if (first === undefined) return []
  const columns = Object.keys(first)
  // SQLite allows 32,766 parameters per statement, PostgreSQL 65,535
  const batchRows = Math.max(1, Math.floor((dialect === 'sqlite' ? 12_000 : 30_000) / columns.length))
  const out: R[] = []
  for (let at = 0; at < rows.length; at += batchRows) {
    const part = rows.slice(at, at + batchRows)
    const parameters: unknown[] = []
    for (const row of part) {
      // every row must name the same columns, in the same order (the writer builds them alike): a
      // column only some rows had would be lost
      let i = 0
      for (const column in row) {
        if (column !== columns[i]) throw new Error(`insertRows: rows of ${table} differ in columns (${column})`)
        parameters.push((row as Record<string, unknown>)[column] ?? null)
        i++
      }
      if (i !== columns.length) throw new Error(`insertRows: rows of ${table} differ in columns`)
    }
    const text = insertText(dialect, table, columns, part.length, options.returning)
    const result = await db.executeQuery<R>(CompiledQuery.raw(text, parameters))
    for (const row of result.rows) out.push(row)
  }
  return out
}

/** The INSERT texts of the batch sizes in use: a 100,000-row load writes the same one 175 times. */
const insertTexts = new Map<string, string>()

function insertText(
  dialect: DialectName,
  table: string,
  columns: readonly string[],
  rowCount: number,
  returning: readonly string[] | undefined,
): string {
  const cacheKey = `${dialect}\u0000${table}\u0000${columns.join('\u0000')}\u0000${rowCount}\u0000${returning?.join('\u0000') ?? ''}`
  let text = insertTexts.get(cacheKey)
  if (text !== undefined) return text
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`
  const list = columns.map(quote).join(', ')
  const returningClause = returning?.length ? ` RETURNING ${returning.map(quote).join(', ')}` : ''
  let n = 0
  const placeholder = dialect === 'sqlite' ? () => '?' : () => `$${++n}`
  const values = Array.from({ length: rowCount }, () => `(${columns.map(placeholder).join(', ')})`).join(', ')
  text = `INSERT INTO ${quote(table)} (${list}) VALUES ${values}${returningClause}`
  if (insertTexts.size >= 200) insertTexts.clear()
  insertTexts.set(cacheKey, text)
  return text
}

/**
 * The schema is a start-up option of every connection, never a SET on a pooled one. node-postgres
 * lets an `options` parameter of the URL win over the pool's: a `-c search_path=…` there would put
 * every company of a platform (src/tenancy) into the first one's schema. So the URL's options are
 * taken out and kept, with the schema's setting last (the last `-c` of a name wins).
 */
export function withSchemaOption(
  connectionString: string,
  schema: string | undefined,
): { connectionString: string; options: string | undefined } {
  if (schema === undefined) return { connectionString, options: undefined }
  let url: URL
  try {
    url = new URL(connectionString)
  } catch {
    return { connectionString, options: `-c search_path=${schema}` }
  }
  const fromUrl = url.searchParams.get('options')
  url.searchParams.delete('options')
  return {
    connectionString: url.toString(),
    options: [fromUrl, `-c search_path=${schema}`].filter(Boolean).join(' '),
  }
}

export interface PostgresOptions {
  connectionString: string
  /** Schema to work in (tests use a fresh schema per run). */
  schema?: string
  maxConnections?: number
}

const INT8_OID = 20

export function createPostgresDialect(options: PostgresOptions): {
  dialect: PostgresDialect
  caps: DialectCaps
  pool: pg.Pool
} {
  const { connectionString, options: serverOptions } = withSchemaOption(options.connectionString, options.schema)
  const pool = new pg.Pool({
    connectionString,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 5000,
    ...(serverOptions ? { options: serverOptions } : {}),
    // bigint ids and grosze amounts stay far below 2^53, so numbers are exact and the same as SQLite's
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
        oid === INT8_OID
          ? (value: string) => Number(value)
          : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
    },
  })
  // an idle client that loses its server must not crash the process; the next query reports it
  pool.on('error', () => undefined)
  // nor one that is checked out (inside a transaction, between two queries): pg-pool listens for
  // the errors of its idle clients only, and a client's 'error' event without a listener throws.
  // The query under way, and every later one on that client, fails instead, and the pool drops it.
  pool.on('connect', (client) => client.on('error', () => undefined))
  return { dialect: new PostgresDialect({ pool }), caps: { name: 'postgres', concurrentWriters: true }, pool }
}

/** Adds the auto-incrementing primary key `id`. */
export function withIdColumn<T extends string>(
  builder: CreateTableBuilder<T, never>,
  dialect: DialectName,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'sqlite'
    ? builder.addColumn('id', 'integer', (column: ColumnDefinitionBuilder) => column.primaryKey().autoIncrement())
    : builder.addColumn('id', 'bigserial', (column: ColumnDefinitionBuilder) => column.primaryKey())
}

/** Column type of foreign keys to `id` and of money in grosze. */
export function bigintType(dialect: DialectName): 'integer' | 'bigint' {
  return dialect === 'sqlite' ? 'integer' : 'bigint'
}

/**
 * Makes a table append-only in the database itself, so that no code path (nor a later bug) can
 * rewrite the audit trail or price history: UPDATE, DELETE and (PostgreSQL) TRUNCATE are refused.
 */
export async function makeAppendOnly(db: Kysely<unknown>, dialect: DialectName, table: string): Promise<void> {
  if (dialect === 'sqlite') {
    for (const event of ['UPDATE', 'DELETE']) {
      await sql
        .raw(
          `CREATE TRIGGER ${table}_no_${event.toLowerCase()} BEFORE ${event} ON ${table} ` +
            `BEGIN SELECT RAISE(ABORT, '${table} is append-only'); END`,
        )
        .execute(db)
    }
    return
  }
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION dg_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
        `BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$`,
    )
    .execute(db)
  await sql
    .raw(
      `CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION dg_refuse_change()`,
    )
    .execute(db)
  await refuseTruncate(db, dialect, table)
}

/*
 * TRUNCATE fires no row trigger, so on PostgreSQL an append-only table needs a statement trigger
 * as well. SQLite has no TRUNCATE (its DELETE without WHERE still fires the row trigger). Safe to
 * run again on a table that has it already.
 */
export async function refuseTruncate(db: Kysely<unknown>, dialect: DialectName, table: string): Promise<void> {
  if (dialect === 'sqlite') return
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION dg_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
        `BEGIN RAISE EXCEPTION '% is append-only: TRUNCATE is refused', TG_TABLE_NAME; END $$`,
    )
    .execute(db)
  await sql.raw(`DROP TRIGGER IF EXISTS ${table}_no_truncate ON ${table}`).execute(db)
  await sql
    .raw(
      `CREATE TRIGGER ${table}_no_truncate BEFORE TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION dg_refuse_truncate()`,
    )
    .execute(db)
}

/** Current UTC time as ISO-8601 text with milliseconds, evaluated by the database. */
export function nowIsoSql(dialect: DialectName): string {
  return dialect === 'sqlite'
    ? `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`
    : `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
}

/**
 * Bumps `catalog_state.revision` on every write to `table`, inside the writing transaction. The
 * catalog's cache validators and response cache key on that revision, so no writer (nor a manual
 * SQL fix) can change the catalog without changing its ETag. PostgreSQL uses statement-level
 * triggers so that a 100,000-row import bumps the counter once, not once per row.
 */
export async function addCatalogRevisionTriggers(
  db: Kysely<unknown>,
  dialect: DialectName,
  table: string,
): Promise<void> {
  const bump = `UPDATE catalog_state SET revision = revision + 1, modified_at = ${nowIsoSql(dialect)} WHERE id = 1`
  if (dialect === 'sqlite') {
    for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
      await sql
        .raw(`CREATE TRIGGER ${table}_catalog_rev_${event.toLowerCase()} AFTER ${event} ON ${table} BEGIN ${bump}; END`)
        .execute(db)
    }
    return
  }
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION dg_bump_catalog_revision() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
        `BEGIN ${bump}; RETURN NULL; END $$`,
    )
    .execute(db)
  await sql
    .raw(
      `CREATE TRIGGER ${table}_catalog_rev AFTER INSERT OR UPDATE OR DELETE ON ${table} ` +
        `FOR EACH STATEMENT EXECUTE FUNCTION dg_bump_catalog_revision()`,
    )
    .execute(db)
}

const BUMP_LISTING_REVISION = 'UPDATE catalog_state SET listing_revision = listing_revision + 1 WHERE id = 1'

/**
 * Bumps `catalog_state.listing_revision` (migration 0014) inside the writing transaction when a
 * write can change which offers a list without a price or modification-time filter counts: an
 * offer inserted or deleted, an update that changes one of `listedColumns`, an investment's host
 * status changed or an investment deleted. SQLite's triggers are named like the catalog
 * revision's (`_catalog_rev_`), so that a bulk import defers them with those and bumps both once.
 * PostgreSQL compares the statement's old and new rows (transition tables), once per statement.
 */
export async function addListingRevisionTriggers(
  db: Kysely<unknown>,
  dialect: DialectName,
  listedColumns: readonly string[],
): Promise<void> {
  const changed = (oldRow: string, newRow: string, op: string) =>
    listedColumns.map((column) => `${oldRow}.${column} ${op} ${newRow}.${column}`).join(' OR ')
  if (dialect === 'sqlite') {
    const triggers = [
      `offers_catalog_rev_listing_insert AFTER INSERT ON offers`,
      `offers_catalog_rev_listing_delete AFTER DELETE ON offers`,
      `offers_catalog_rev_listing_update AFTER UPDATE ON offers WHEN ${changed('OLD', 'NEW', 'IS NOT')}`,
      `investments_catalog_rev_listing_update AFTER UPDATE OF host_status ON investments ` +
        `WHEN OLD.host_status IS NOT NEW.host_status`,
      `investments_catalog_rev_listing_delete AFTER DELETE ON investments`,
    ]
    for (const trigger of triggers)
      await sql.raw(`CREATE TRIGGER ${trigger} BEGIN ${BUMP_LISTING_REVISION}; END`).execute(db)
    return
  }
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION dg_bump_listing_revision() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
        `BEGIN ${BUMP_LISTING_REVISION}; RETURN NULL; END $$`,
    )
    .execute(db)
  // a statement's old and new rows (transition tables), compared by id: one bump if any row moved
  const bumpWhenRowsDiffer = (name: string, difference: string) =>
    sql
      .raw(
        `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ` +
          `IF EXISTS (SELECT 1 FROM dg_old_rows o JOIN dg_new_rows n ON n.id = o.id WHERE ${difference}) ` +
          `THEN ${BUMP_LISTING_REVISION}; END IF; RETURN NULL; END $$`,
      )
      .execute(db)
  await bumpWhenRowsDiffer(
    'dg_bump_listing_revision_if_offers_listed_differently',
    changed('o', 'n', 'IS DISTINCT FROM'),
  )
  await bumpWhenRowsDiffer(
    'dg_bump_listing_revision_if_investments_published_differently',
    'o.host_status IS DISTINCT FROM n.host_status',
  )
  const statements = [
    `offers_listing_rev_insert AFTER INSERT ON offers FOR EACH STATEMENT EXECUTE FUNCTION dg_bump_listing_revision()`,
    `offers_listing_rev_delete AFTER DELETE ON offers FOR EACH STATEMENT EXECUTE FUNCTION dg_bump_listing_revision()`,
    `offers_listing_rev_update AFTER UPDATE ON offers REFERENCING OLD TABLE AS dg_old_rows NEW TABLE AS dg_new_rows ` +
      `FOR EACH STATEMENT EXECUTE FUNCTION dg_bump_listing_revision_if_offers_listed_differently()`,
    `investments_listing_rev_update AFTER UPDATE ON investments REFERENCING OLD TABLE AS dg_old_rows ` +
      `NEW TABLE AS dg_new_rows FOR EACH STATEMENT EXECUTE FUNCTION ` +
      `dg_bump_listing_revision_if_investments_published_differently()`,
    `investments_listing_rev_delete AFTER DELETE ON investments FOR EACH STATEMENT EXECUTE FUNCTION dg_bump_listing_revision()`,
  ]
  for (const trigger of statements) await sql.raw(`CREATE TRIGGER ${trigger}`).execute(db)
}

/**
 * Bumps `credentials_state.revision` when `table` changes in a way that can change who an
 * application password authenticates as (`columns`: the columns whose update counts; the last-use
 * columns are left out, so a sign-in that records its use does not empty every instance's cache).
 * Verified credentials are cached per instance under that revision, so a revoked password or a
 * disabled account is refused by every instance on its next request.
 */
export async function addCredentialsRevisionTriggers(
  db: Kysely<unknown>,
  dialect: DialectName,
  table: string,
  columns: readonly string[],
): Promise<void> {
  const bump = 'UPDATE credentials_state SET revision = revision + 1 WHERE id = 1'
  const events = ['INSERT', `UPDATE OF ${columns.join(', ')}`, 'DELETE']
  if (dialect === 'sqlite') {
    for (const [index, event] of events.entries()) {
      const name = `${table}_credentials_rev_${['insert', 'update', 'delete'][index]}`
      await sql.raw(`CREATE TRIGGER ${name} AFTER ${event} ON ${table} BEGIN ${bump}; END`).execute(db)
    }
    return
  }
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION dg_bump_credentials_revision() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
        `BEGIN ${bump}; RETURN NULL; END $$`,
    )
    .execute(db)
  await sql
    .raw(
      `CREATE TRIGGER ${table}_credentials_rev AFTER ${events.join(' OR ')} ON ${table} ` +
        `FOR EACH STATEMENT EXECUTE FUNCTION dg_bump_credentials_revision()`,
    )
    .execute(db)
}

/**
 * For a large write on SQLite: the row triggers that bump the catalog revision are dropped inside
 * the caller's transaction, and the returned function creates them again from their stored SQL and
 * bumps the revision (and the listing revision) once. A revision bumped 230,000 times by a 100,000-offer import means the same
 * to every reader as one bump, at a fifth of the insert time. A failure or a crash rolls the
 * triggers back with the rows; the crash tests check them after every kill. PostgreSQL's triggers
 * fire once per statement already.
 */
export async function deferCatalogRevisionTriggers(
  db: Kysely<never>,
  dialect: DialectName,
  tables: readonly string[],
): Promise<() => Promise<void>> {
  if (dialect !== 'sqlite') return async () => undefined
  const { rows } = await sql<{ name: string; sql: string }>`
    SELECT name, sql FROM sqlite_master
    WHERE type = 'trigger' AND tbl_name IN (${sql.join(tables)}) AND instr(name, '_catalog_rev_') > 0`.execute(db)
  for (const trigger of rows) await sql.raw(`DROP TRIGGER "${trigger.name.replace(/"/g, '""')}"`).execute(db)
  return async () => {
    for (const trigger of rows) await sql.raw(trigger.sql).execute(db)
    // the listing revision too: the deferred triggers include its own (added, removed or changed offers)
    await sql
      .raw(
        `UPDATE catalog_state SET revision = revision + 1, listing_revision = listing_revision + 1, ` +
          `modified_at = ${nowIsoSql(dialect)} WHERE id = 1`,
      )
      .execute(db)
  }
}

/**
 * The catalog revision, read by a writer that must see no other catalog write commit before its
 * own: on PostgreSQL the row is locked until the transaction ends (every catalog write updates it
 * through its trigger, so all of them wait); SQLite's single writer needs no lock.
 */
export async function lockCatalogRevision(db: Kysely<never>, dialect: DialectName): Promise<number> {
  const { rows } =
    dialect === 'postgres'
      ? await sql<{ revision: number }>`SELECT revision FROM catalog_state WHERE id = 1 FOR UPDATE`.execute(db)
      : await sql<{ revision: number }>`SELECT revision FROM catalog_state WHERE id = 1`.execute(db)
  const revision = rows[0]?.revision
  if (revision === undefined) throw new Error('catalog_state has no row')
  return Number(revision)
}

/**
 * The query planner's statistics. SQLite keeps none until ANALYZE runs, and without them it plans
 * a catalog list filtered by a price range and ordered by modification time as a sort of every
 * offer in the range (56-120 ms at 120,000 offers, against 0.2 ms walking the modification-time
 * index with the range as a filter). `PRAGMA optimize` analyzes only the tables that have no
 * statistics yet or whose size changed a lot since (0x10002 on opening: every table). Other
 * connections load statistics only with the schema, and new statistics do not change the schema:
 * a table created and dropped in the same transaction does, so that the service's reader (and,
 * after an import thread's analysis, its writer too) plan with them from their next statement.
 * PostgreSQL's autovacuum vacuums and analyzes a table a minute or so after it grew by a fifth;
 * until then every count of the catalog's lists read the new rows from the table, not from the
 * index alone (the visibility map is set by VACUUM: 52 → 26 ms to count 120,000 offers), with
 * statistics of the table before the import. So `tables` are vacuumed and analyzed at once after a
 * large write: neither blocks reads or writes, and ANALYZE samples a fixed number of rows.
 * SQLite's `PRAGMA optimize` analyzes a sample (since 3.46 it sets its own analysis limit), and
 * on the catalog's offers the sample misleads: at 120,000 offers it counted 667 rows per host
 * status instead of 40,008, so every index led by host status looked equally selective. The 60
 * lists of bench:mixed then took 2.5 s in all, 1.7 s with every row analyzed (ANALYZE of the offers
 * alone: 0.56 s, on the import thread). So after a large write the offers are analyzed whole.
 */
export async function refreshPlannerStatistics<DB>(
  db: Kysely<DB>,
  dialect: DialectName,
  moment: 'opening' | 'after a large write',
  tables: readonly string[] = [],
): Promise<void> {
  if (dialect === 'postgres') {
    if (moment === 'after a large write' && tables.length > 0)
      await sql
        .raw(`VACUUM (ANALYZE) ${tables.map((table) => `"${table.replace(/"/g, '""')}"`).join(', ')}`)
        .execute(db)
    return
  }
  await db.transaction().execute((trx) => analyzeSqlite(trx, moment))
}

/**
 * SQLite's part of refreshPlannerStatistics, in a transaction of the caller's: a large import
 * analyzes in its own transaction before it commits, so that the other connections see its rows
 * and the statistics that describe them at once.
 */
export async function analyzeSqlite<DB>(trx: Kysely<DB>, moment: 'opening' | 'after a large write'): Promise<void> {
  await sql.raw(moment === 'opening' ? 'PRAGMA optimize=0x10002' : 'PRAGMA optimize').execute(trx)
  if (moment === 'after a large write') {
    // every row (the connection's analysis limit is SQLite's default, none), not a sample
    await sql.raw('ANALYZE offers').execute(trx)
  }
  await sql.raw('CREATE TABLE dg_planner_statistics_reload (x INTEGER)').execute(trx)
  await sql.raw('DROP TABLE dg_planner_statistics_reload').execute(trx)
}

/**
 * The statistics refresh of a large write that belongs inside its transaction: SQLite's analysis
 * (analyzeSqlite), so that other connections see the rows and their statistics at once. PostgreSQL
 * refreshes after the commit (refreshStatisticsAfterLargeWrite): VACUUM cannot run in a transaction.
 */
export async function refreshStatisticsInsideLargeWrite<DB>(trx: Kysely<DB>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') await analyzeSqlite(trx, 'after a large write')
}

/** The statistics refresh of a large write after its commit: PostgreSQL's (see the one inside). */
export async function refreshStatisticsAfterLargeWrite<DB>(
  db: Kysely<DB>,
  dialect: DialectName,
  tables: readonly string[],
): Promise<void> {
  if (dialect === 'postgres') await refreshPlannerStatistics(db, dialect, 'after a large write', tables)
}

/**
 * The schema Kysely's migration tables are looked up in: PostgreSQL's current one, since a database
 * may hold several schemas (tests, tenants) and another schema's table would be mistaken for ours.
 * SQLite has one schema.
 */
export async function migrationSchema<DB>(db: Kysely<DB>, dialect: DialectName): Promise<string | undefined> {
  if (dialect !== 'postgres') return undefined
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
  return rows[0]?.schema
}

/**
 * The database the migrator works through. On PostgreSQL, Kysely's migrator asks whether its
 * bookkeeping tables exist by introspecting every table of every schema, calling functions on each
 * (`has_schema_privilege`, `pg_get_serial_sequence`) that fail when another schema is dropped
 * meanwhile ("schema … does not exist"): with several schemas in one database (tests, tenants),
 * one migration would fail because of another's clean-up. Its introspection is narrowed to `schema`,
 * read from the catalog without such functions.
 */
export function migratorDatabase<DB>(db: Kysely<DB>, schema: string | undefined): Kysely<DB> {
  if (schema === undefined) return db
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => [{ name: schema }],
    getTables: async () => {
      const { rows } = await sql<{ name: string }>`
        select c.relname as name from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v')`.execute(db)
      return rows.map(({ name }) => ({ name, schema, isView: false, columns: [] }))
    },
    getMetadata: async () => ({ tables: await introspection.getTables() }),
  }
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
}

/**
 * The offer area (decimal text) as a number, in the one form both the index and the queries use;
 * `column` names the area column as the query names it (`offers.area` in a join).
 */
export function areaNumericSql(dialect: DialectName, column = 'area'): string {
  return dialect === 'sqlite' ? `CAST(${column} AS REAL)` : `CAST(${column} AS numeric)`
}

/**
 * Serialises catalog writers for the rest of the transaction. PostgreSQL: a table lock that lets
 * readers through but makes concurrent writers (another import, a webhook) wait, so a plan checked
 * inside the transaction stays true until commit. SQLite: the single connection already does it.
 */
export async function lockOffersForWrite(db: Kysely<never>, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') await sql`LOCK TABLE offers IN SHARE ROW EXCLUSIVE MODE`.execute(db)
}

/**
 * `lockOffersForWrite` for a writer that must not wait long. PostgreSQL: every lock wait of the rest
 * of the transaction gives up after `waitMs` (SQLSTATE 55P03), and when `mayWait` (asked after that
 * is set) says no, the table lock is not waited for at all. SQLite: as `lockOffersForWrite`.
 */
export async function lockOffersForWriteWithin(
  db: Kysely<never>,
  dialect: DialectName,
  waitMs: number,
  mayWait: () => Promise<boolean>,
): Promise<void> {
  if (dialect !== 'postgres') return lockOffersForWrite(db, dialect)
  await sql.raw(`SET LOCAL lock_timeout = '${Math.trunc(waitMs)}ms'`).execute(db)
  const wait = await mayWait()
  await sql.raw(`LOCK TABLE offers IN SHARE ROW EXCLUSIVE MODE${wait ? '' : ' NOWAIT'}`).execute(db)
}

/** Socket failures of the PostgreSQL connection (refused, reset, unreachable, name not resolved). */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
/**
 * PostgreSQL SQLSTATEs of a server that cannot serve the connection: terminated by an
 * administrator or a shutdown (57P01–57P03), too many connections (53300), the database gone
 * (3D000), and the connection exceptions of class 08.
 */
const POSTGRES_UNAVAILABLE = /^(08...|57P0[1-3]|53300|3D000)$/
/** node-postgres's own messages when its connection ended or never came (they carry no code). */
const POSTGRES_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/
/** SQLite: the file is locked by another writer past the busy timeout, unreadable, or the disk is full. */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN)/

/**
 * Whether an error means the database could not be reached or could not confirm the operation
 * (rather than that the query itself was wrong): answered 503 `database_unavailable`
 * (docs/reference/error-codes.md), never 500. PostgreSQL's `database "…" is not currently accepting
 * connections` (55000) counts too: it is how a database closed for maintenance refuses.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  const text = typeof message === 'string' ? message : ''
  if (typeof code === 'string') {
    if (NETWORK_ERROR_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code) || SQLITE_UNAVAILABLE.test(code)) return true
    if (code === '55000' && text.includes('not currently accepting connections')) return true
  }
  if (POSTGRES_CONNECTION_MESSAGES.test(text)) return true
  // AggregateError (a host name with several addresses, each refused)
  const errors = (error as { errors?: unknown }).errors
  return Array.isArray(errors) && errors.length > 0 && errors.every(isDatabaseUnavailable)
}

/** How a column's values are carried between the two databases (see describeTables). */
export type PortableColumnKind = 'integer' | 'real' | 'boolean' | 'blob' | 'text'

export interface TableShape {
  name: string
  /** In the table's own column order. */
  columns: { name: string; kind: PortableColumnKind }[]
  primaryKey: string[]
  /** The other tables its foreign keys point at. */
  references: string[]
  /** The column numbered by a sequence (PostgreSQL serial) or AUTOINCREMENT (SQLite), if any. */
  identity: string | null
}

function sqliteColumnKind(declared: string): PortableColumnKind {
  // SQLite's own affinity rules (datatype3.html §3.1), in their order
  const type = declared.toUpperCase()
  if (type.includes('INT')) return 'integer'
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return 'text'
  if (type.includes('BLOB')) return 'blob'
  // no declared type: values keep whatever type they were stored with, here always text
  if (type === '') return 'text'
  if (type.includes('BOOL')) return 'boolean'
  return 'real'
}

function postgresColumnKind(dataType: string): PortableColumnKind {
  if (dataType === 'smallint' || dataType === 'integer' || dataType === 'bigint') return 'integer'
  if (dataType === 'real' || dataType === 'double precision') return 'real'
  if (dataType === 'boolean') return 'boolean'
  if (dataType === 'bytea') return 'blob'
  return 'text'
}

/**
 * The tables of the current database (PostgreSQL: the current schema only, as other schemas belong
 * to other companies or tests), with their columns, primary key, foreign keys and numbered column:
 * what a portable export needs to copy a database into one of either kind.
 */
export async function describeTables(db: Kysely<never>, dialect: DialectName): Promise<TableShape[]> {
  if (dialect === 'sqlite') {
    const { rows: tables } = await sql<{ name: string; sql: string }>`
      SELECT name, sql FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_'
      ORDER BY name`.execute(db)
    const shapes: TableShape[] = []
    for (const table of tables) {
      const { rows: columns } = await sql<{ name: string; type: string; pk: number }>`
        SELECT name, type, pk FROM pragma_table_info(${table.name}) ORDER BY cid`.execute(db)
      const { rows: keys } = await sql<{ table: string }>`
        SELECT DISTINCT "table" FROM pragma_foreign_key_list(${table.name})`.execute(db)
      const primaryKey = columns
        .filter((column) => column.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((column) => column.name)
      const only = primaryKey.length === 1 ? columns.find((column) => column.name === primaryKey[0]) : undefined
      shapes.push({
        name: table.name,
        columns: columns.map((column) => ({ name: column.name, kind: sqliteColumnKind(column.type) })),
        primaryKey,
        references: keys.map((key) => key.table).filter((name) => name !== table.name),
        // an INTEGER PRIMARY KEY is the rowid: an explicit value moves AUTOINCREMENT's counter itself
        identity: only && only.type.toUpperCase() === 'INTEGER' ? only.name : null,
      })
    }
    return shapes
  }
  const { rows: columns } = await sql<{ table_name: string; column_name: string; data_type: string; serial: boolean }>`
    SELECT c.table_name, c.column_name, c.data_type,
      (c.column_default LIKE 'nextval(%' OR c.is_identity = 'YES') AS serial
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name, c.ordinal_position`.execute(db)
  const { rows: constraints } = await sql<{ table_name: string; type: string; columns: string[]; referenced: string }>`
    SELECT r.relname AS table_name, k.contype AS type, f.relname AS referenced,
      array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY AS u(attnum, n)
            JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum ORDER BY u.n) AS columns
    FROM pg_catalog.pg_constraint k
    JOIN pg_catalog.pg_class r ON r.oid = k.conrelid
    LEFT JOIN pg_catalog.pg_class f ON f.oid = k.confrelid
    WHERE k.connamespace = current_schema()::regnamespace AND k.contype IN ('p', 'f')`.execute(db)
  const byName = new Map<string, TableShape>()
  for (const column of columns) {
    let shape = byName.get(column.table_name)
    if (!shape) {
      shape = { name: column.table_name, columns: [], primaryKey: [], references: [], identity: null }
      byName.set(column.table_name, shape)
    }
    shape.columns.push({ name: column.column_name, kind: postgresColumnKind(column.data_type) })
    if (column.serial) shape.identity = column.column_name
  }
  for (const constraint of constraints) {
    const shape = byName.get(constraint.table_name)
    if (!shape) continue
    if (constraint.type === 'p') shape.primaryKey = constraint.columns
    else if (constraint.referenced !== shape.name && !shape.references.includes(constraint.referenced))
      shape.references.push(constraint.referenced)
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/**
 * Runs `body` in one read transaction that sees one moment of the database throughout: PostgreSQL's
 * REPEATABLE READ (its default READ COMMITTED would let each statement see later commits); an
 * SQLite transaction reads one snapshot of the WAL from its first read on. On SQLite it runs on a
 * read-only connection of its own: a transaction of `db` would hold the writer, and the service's
 * writes would wait for the whole read.
 */
export async function readConsistently<DB, T>(
  db: Kysely<DB>,
  dialect: DialectName,
  body: (trx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  if (dialect === 'postgres')
    return db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        await sql`SET TRANSACTION READ ONLY`.execute(trx)
        return body(trx)
      })
  const file = sqliteFileBehind(db as unknown as Kysely<never>)
  if (file === undefined) return db.transaction().execute(body)
  const connection = new (loadSqliteDriver())(file, { readonly: true, fileMustExist: true })
  connection.pragma('busy_timeout = 5000')
  const own = new Kysely<DB>({ dialect: new SqliteDialect({ database: connection }) })
  try {
    return await own.transaction().execute(body)
  } finally {
    await own.destroy()
  }
}

/**
 * After rows were inserted with their own ids: PostgreSQL's sequence would hand out those ids again,
 * so it is moved past the largest. SQLite's AUTOINCREMENT counter follows explicit ids by itself.
 */
export async function advanceIdentityPastRows(
  db: Kysely<never>,
  dialect: DialectName,
  table: string,
  column: string,
): Promise<void> {
  if (dialect !== 'postgres') return
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`
  await sql
    .raw(
      `SELECT setval(pg_get_serial_sequence('${quote(table).replace(/'/g, "''")}', '${column.replace(/'/g, "''")}'), ` +
        `coalesce((SELECT max(${quote(column)}) FROM ${quote(table)}), 0) + 1, false)`,
    )
    .execute(db)
}

/**
 * Creates the PostgreSQL schema another company's database lives in (src/tenancy). SQLite keeps a
 * company in a file of its own, which opening creates.
 */
export async function createCompanySchema<DB>(db: Kysely<DB>, dialect: DialectName, schema: string): Promise<void> {
  if (dialect === 'postgres') await sql`create schema if not exists ${sql.id(schema)}`.execute(db)
}

/** Drops a company's PostgreSQL schema with everything in it; its SQLite file goes with its folder. */
export async function dropCompanySchema<DB>(db: Kysely<DB>, dialect: DialectName, schema: string): Promise<void> {
  if (dialect === 'postgres') await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db)
}
