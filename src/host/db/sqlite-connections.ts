/*
 * Two connections to the embedded SQLite file: one writer and one reader. Kysely's own SQLite
 * driver has a single connection behind a mutex, so a catalog read waits for the whole of any
 * transaction in progress, however long (an import's commit takes seconds). In WAL mode a reader
 * sees the last committed state while a writer works, so every SELECT that runs outside a
 * transaction goes to the reader and never waits; writes and transactions take the writer in turn,
 * as before. A transaction reads on the writer: its reads must see its own uncommitted writes.
 *
 * `holdWriter` keeps the writer for work done by another connection of the same file (an import
 * executed on a worker thread): the service's own writes then wait their turn asynchronously
 * instead of spinning in SQLite's synchronous busy handler, which would stop the event loop.
 */
import type SqliteDatabase from 'better-sqlite3'
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SelectQueryNode,
  SqliteDialect,
  type TransactionSettings,
} from 'kysely'

/** The part of a better-sqlite3 database the driver uses (a statement cache wraps `prepare`). */
export interface SqliteHandle {
  prepare(text: string): SqliteDatabase.Statement
  close(): void
}

class Mutex {
  #tail: Promise<void> = Promise.resolve()

  /** Resolves once the caller holds the mutex, with the function that releases it. */
  async lock(): Promise<() => void> {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const previous = this.#tail
    this.#tail = previous.then(() => held)
    await previous
    return release
  }
}

type RowBuilder = (values: unknown[]) => Record<string, unknown>

/*
 * Rows are read as arrays and built by one object literal per statement, compiled from its column
 * names: better-sqlite3 sets each column of each row object through V8's API, which cost as much
 * as reading the rows (a page of 50 offers of 27 columns: 1 ms, half of it the objects). The names
 * enter the code as JSON string literals; `__proto__` as a computed key, so that it stays an own
 * property instead of setting the prototype.
 */
const rowBuilders = new WeakMap<SqliteDatabase.Statement, { width: number; build: RowBuilder }>()

function rowBuilderOf(statement: SqliteDatabase.Statement): { width: number; build: RowBuilder } {
  let builder = rowBuilders.get(statement)
  if (!builder) {
    const names = statement.columns().map((column) => column.name)
    const keys = names.map((name) => (name === '__proto__' ? `["__proto__"]` : JSON.stringify(name)))
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- code of JSON string literals only
    const build = new Function('v', `return {${keys.map((key, i) => `${key}: v[${i}]`).join(', ')}}`) as RowBuilder
    builder = { width: names.length, build }
    rowBuilders.set(statement, builder)
  }
  return builder
}

function run(database: SqliteHandle, query: CompiledQuery): QueryResult<unknown> {
  const statement = database.prepare(query.sql)
  if (statement.reader) {
    const values = statement.raw(true).all(query.parameters as unknown[]) as unknown[][]
    let builder = rowBuilderOf(statement)
    // SQLite prepares a statement again after a schema change (`select *` of a table that gained
    // a column): its columns are read again. Only the width is compared (reading the names costs
    // more than the rows): a column renamed in a running process would keep its old name here,
    // and no migration renames one
    if (values.length > 0 && values[0]?.length !== builder.width) {
      rowBuilders.delete(statement)
      builder = rowBuilderOf(statement)
    }
    const rows: Array<Record<string, unknown>> = []
    for (const row of values) rows.push(builder.build(row))
    return { rows }
  }
  const { changes, lastInsertRowid } = statement.run(query.parameters as unknown[])
  return {
    numAffectedRows: BigInt(changes),
    insertId: BigInt(lastInsertRowid),
    rows: [],
  }
}

/** One user of the driver: reads go to the reader until it begins a transaction. */
class RoutedConnection implements DatabaseConnection {
  releaseWriter: (() => void) | undefined

  constructor(private readonly driver: ReadWriteSqliteDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.releaseWriter) return run(this.driver.writer, query) as QueryResult<R>
    if (SelectQueryNode.is(query.query)) return run(this.driver.reader, query) as QueryResult<R>
    const release = await this.driver.writerMutex.lock()
    try {
      return run(this.driver.writer, query) as QueryResult<R>
    } finally {
      release()
    }
  }

  /**
   * Rows are read at once: the connections' cached statements are shared, and one left iterating
   * across awaits would be busy for the next query of the same text. Nothing here streams today.
   */
  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams only SELECT queries')
    yield await this.executeQuery<R>(query)
  }
}

class ReadWriteSqliteDriver implements Driver {
  readonly writerMutex = new Mutex()

  constructor(
    readonly writer: SqliteHandle,
    readonly reader: SqliteHandle,
    private readonly close: () => void,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this)
  }

  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    const routed = connection as RoutedConnection
    routed.releaseWriter = await this.writerMutex.lock()
    try {
      run(this.writer, CompiledQuery.raw('begin'))
    } catch (error) {
      this.#release(routed)
      throw error
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    run(this.writer, CompiledQuery.raw('commit'))
    this.#release(connection as RoutedConnection)
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      run(this.writer, CompiledQuery.raw('rollback'))
    } finally {
      this.#release(connection as RoutedConnection)
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    void compile
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${name.replace(/"/g, '""')}"`))
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string) {
    await connection.executeQuery(CompiledQuery.raw(`rollback to "${name.replace(/"/g, '""')}"`))
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string) {
    await connection.executeQuery(CompiledQuery.raw(`release "${name.replace(/"/g, '""')}"`))
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // a transaction that neither committed nor rolled back (it cannot happen through Kysely)
    this.#release(connection as RoutedConnection)
  }

  async destroy(): Promise<void> {
    this.close()
  }

  #release(connection: RoutedConnection): void {
    const release = connection.releaseWriter
    connection.releaseWriter = undefined
    release?.()
  }
}

const registered = new WeakMap<object, { mutex: Mutex; file: string }>()

/** SQLite over a writer and a reader connection of one file (see the top of this file). */
export class ReadWriteSqliteDialect extends SqliteDialect {
  readonly #driver: ReadWriteSqliteDriver

  constructor(
    readonly file: string,
    writer: SqliteHandle,
    reader: SqliteHandle,
    close: () => void,
  ) {
    super({ database: writer })
    this.#driver = new ReadWriteSqliteDriver(writer, reader, close)
  }

  override createDriver(): Driver {
    return this.#driver
  }

  /** Called by openDatabase, so that holdWriter and sqliteFileBehind know a Kysely instance. */
  register(db: Kysely<never>): void {
    registered.set(db, { mutex: this.#driver.writerMutex, file: this.file })
  }
}

/**
 * Runs `work` while this process keeps its writer idle, for work that writes the same file through
 * another connection. Other databases (PostgreSQL, an in-memory SQLite) simply run it.
 */
export async function holdWriter<T>(db: Kysely<never>, work: () => Promise<T>): Promise<T> {
  const mutex = registered.get(db)?.mutex
  if (!mutex) return work()
  const release = await mutex.lock()
  try {
    return await work()
  } finally {
    release()
  }
}

/** The file of a file-backed SQLite database, which another connection can open; else undefined. */
export function sqliteFileBehind(db: Kysely<never>): string | undefined {
  return registered.get(db)?.file
}
