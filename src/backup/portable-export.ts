/*
 * The portable export of one company's whole data (`dg data export` / `dg data import`), which a
 * deployment of either database kind restores without pg_dump: SQLite → PostgreSQL and back.
 *
 * An export is a folder: `tables/<table>.jsonl` (one JSON object per row, every table of the schema
 * but Kysely's migration bookkeeping and the deployment's tenant registry), `files/` (every file of
 * the data folder but the database's own and the run markers, as in backup.ts) and `manifest.json`
 * with each table's row count and each file's SHA-256. Values are portable: integers and text as
 * they are, booleans as booleans, timestamps as ISO text, blobs as base64. It holds every secret of
 * the company (password hashes, the webhook secret, the key of application passwords), so the
 * folder is readable by its owner only.
 *
 * Like a backup it is written to `<DIR>.partial-…` and renamed when whole. All tables are read in
 * one read transaction (one moment of the database), and the database before the files: a
 * publication finishing meanwhile leaves files newer than the database, never a recorded
 * publication without its files.
 *
 * An import goes into a fresh, migrated database (the caller migrates it) and refuses, changing
 * nothing, a folder whose manifest or checksums do not hold, an export of a migration this service
 * does not know, and a target that holds any user, offer or append-only record. It writes every
 * table in one transaction, in the order the foreign keys require, then moves the files into the
 * data folder.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { createInterface } from 'node:readline'

import type { Kysely } from 'kysely'

import {
  advanceIdentityPastRows,
  type DialectCaps,
  type DialectName,
  describeTables,
  insertRows,
  type PortableColumnKind,
  readConsistently,
  type TableShape,
} from '../host/db/dialect.js'
import type { Database } from '../host/db/schema.js'
import { HostError } from '../host/errors.js'
import { serviceMarkers } from '../host/service-marker.js'
import { SERVICE_VERSION } from '../version.js'
import {
  type BackupFile,
  copyDataFiles,
  copyHashed,
  hashFile,
  inside,
  isEmptyOrMissing,
  listFiles,
  publicationComplete,
  SKIPPED_TOP_LEVEL,
} from './backup.js'
import {
  appliedMigrations,
  countRows,
  deleteAllRows,
  MIGRATION_TABLES,
  readTableBatch,
} from './portable-export-repository.js'

export const EXPORT_FORMAT = 'dg-offers-export'
const MANIFEST = 'manifest.json'
const TABLES_DIR = 'tables'
const FILES_DIR = 'files'
const READ_BATCH = 2000
const INSERT_BATCH = 500

/** The deployment's registry of its companies: it belongs to the deployment, not to one company. */
const DEPLOYMENT_TABLES = new Set(['tenants'])

/**
 * Tables whose rows the database refuses to update or delete (dialect.ts, makeAppendOnly): a
 * target must hold none of their rows, since they could not be replaced by the export's.
 */
export const APPEND_ONLY_TABLES = ['audit_log', 'price_history', 'status_history'] as const

/** A target holding a row of these is a company's database already, not a fresh one. */
const COMPANY_TABLES = ['users', 'offers'] as const

/**
 * Rows that triggers of other tables update (the catalog and credentials revisions): written last,
 * so that the triggers fired by the import's own inserts find them absent and leave the exported
 * values as they were.
 */
export const TRIGGER_MAINTAINED_TABLES = ['catalog_state', 'credentials_state'] as const

export interface PortableStore {
  db: Kysely<Database>
  caps: DialectCaps
  /** The company's data folder (DG_DATA_DIR): published files, reports, uploads. */
  dataDir: string
}

export interface ExportedColumn {
  name: string
  kind: PortableColumnKind
}

export interface ExportedTable {
  name: string
  rows: number
  sha256: string
  bytes: number
  columns: ExportedColumn[]
}

export interface ExportManifest {
  format: typeof EXPORT_FORMAT
  format_version: 1
  service_version: string
  created_at: string
  /** The database kind the export was read from (informative: it imports into either). */
  database: DialectName
  latest_migration: string
  tables: ExportedTable[]
  files: BackupFile[]
}

export interface ExportSummary {
  to: string
  database: DialectName
  latest_migration: string
  tables: number
  rows: number
  files: number
  bytes: number
  manifest: string
}

export interface ImportSummary {
  from: string
  data_dir: string
  database: DialectName
  latest_migration: string
  tables: number
  rows: number
  files: number
}

export interface ExportOptions {
  /** Top-level names of the data folder left out besides the database's own files (another company's folder). */
  skipTopLevel?: readonly string[]
}

const refused = (code: string, message: string) => new HostError(code, 409, message)
const SAFE_NAME = /^[a-z_][a-z0-9_]*$/

/**
 * The order in which `tables` can be filled so that every foreign key finds its row: a table after
 * those it references (references outside `tables` are ignored), the trigger-maintained ones last,
 * otherwise by name. Deleting goes the other way round.
 */
export function insertionOrder(tables: readonly Pick<TableShape, 'name' | 'references'>[]): string[] {
  const names = new Set(tables.map((table) => table.name))
  const pending = new Map(
    tables.map((table) => [table.name, new Set(table.references.filter((name) => names.has(name)))]),
  )
  const last = new Set<string>(TRIGGER_MAINTAINED_TABLES)
  const order: string[] = []
  while (pending.size > 0) {
    const ready = [...pending]
      .filter(([, references]) => references.size === 0)
      .map(([name]) => name)
      .sort((a, b) => Number(last.has(a)) - Number(last.has(b)) || (a < b ? -1 : a > b ? 1 : 0))
    const next = ready[0]
    if (next === undefined)
      throw new Error(`the foreign keys of ${[...pending.keys()].join(', ')} form a cycle: no insertion order exists`)
    order.push(next)
    pending.delete(next)
    for (const references of pending.values()) references.delete(next)
  }
  return order
}

/** A database value as JSON that either database takes back (see the file's comment). */
export function portableValue(value: unknown, kind: PortableColumnKind): unknown {
  if (value === null || value === undefined) return null
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64')
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'bigint') return Number(value)
  if (kind === 'boolean') return typeof value === 'boolean' ? value : Number(value) !== 0
  if (kind === 'integer' && typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value)
  if (kind === 'real' && typeof value === 'string') return Number(value)
  return value
}

/** An exported value as the target column stores it. */
export function storedValue(
  value: unknown,
  from: PortableColumnKind,
  to: PortableColumnKind,
  dialect: DialectName,
): unknown {
  if (value === null || value === undefined) return null
  if (from === 'blob' && typeof value === 'string') return to === 'blob' ? Buffer.from(value, 'base64') : value
  switch (to) {
    case 'integer':
      if (typeof value === 'boolean') return value ? 1 : 0
      return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value
    case 'real':
      return typeof value === 'string' ? Number(value) : value
    case 'boolean': {
      const flag = typeof value === 'boolean' ? value : Number(value) !== 0
      return dialect === 'postgres' ? flag : flag ? 1 : 0
    }
    case 'blob':
      return value
    case 'text':
      if (typeof value === 'number' || typeof value === 'boolean') return String(value)
      return typeof value === 'string' ? value : JSON.stringify(value)
  }
}

const exportable = (name: string) => !MIGRATION_TABLES.has(name) && !DEPLOYMENT_TABLES.has(name)

/** Writes one table as JSON lines, read in batches in its primary key's order. */
async function writeTable(
  db: Kysely<never>,
  dialect: DialectName,
  table: TableShape,
  file: string,
): Promise<ExportedTable> {
  const hash = createHash('sha256')
  let bytes = 0
  let rows = 0
  const handle = await fs.open(file, 'wx', 0o600)
  try {
    let after: unknown[] | undefined
    for (;;) {
      const batch = await readTableBatch(db, dialect, table, { after, offset: rows }, READ_BATCH)
      if (batch.length === 0) break
      let text = ''
      for (const row of batch) {
        const line: Record<string, unknown> = {}
        for (const column of table.columns) line[column.name] = portableValue(row[column.name], column.kind)
        text += `${JSON.stringify(line)}\n`
      }
      const chunk = Buffer.from(text, 'utf8')
      hash.update(chunk)
      bytes += chunk.length
      await handle.write(chunk)
      rows += batch.length
      const last = batch[batch.length - 1]
      if (last) after = table.primaryKey.map((column) => last[column])
      if (batch.length < READ_BATCH) break
    }
    await handle.sync()
  } finally {
    await handle.close()
  }
  return { name: table.name, rows, sha256: hash.digest('hex'), bytes, columns: table.columns }
}

export async function exportData(
  store: PortableStore,
  outDir: string,
  options: ExportOptions = {},
): Promise<ExportSummary> {
  const target = path.resolve(outDir)
  const dataDir = path.resolve(store.dataDir)
  const dialect = store.caps.name
  if (inside(target, dataDir))
    throw refused('export_target_invalid', `The export folder must be outside the data folder ${dataDir}.`)
  if (!(await isEmptyOrMissing(target)))
    throw refused('export_target_exists', `${target} exists and is not empty; choose a new folder.`)
  const staging = `${target}.partial-${randomBytes(4).toString('hex')}`
  await fs.mkdir(path.dirname(staging), { recursive: true })
  // the export holds password hashes and secrets: its folder is its owner's only
  await fs.mkdir(staging, { mode: 0o700 })
  try {
    await fs.mkdir(path.join(staging, TABLES_DIR))
    const db = store.db as unknown as Kysely<never>
    const { tables, latestMigration } = await readConsistently(db, dialect, async (trx) => {
      const applied = await appliedMigrations(trx)
      const latest = applied?.[applied.length - 1]
      if (latest === undefined)
        throw refused(
          'export_source_not_migrated',
          'The database has no migrations applied: there is nothing to export.',
        )
      const written: ExportedTable[] = []
      for (const table of await describeTables(trx, dialect)) {
        if (!exportable(table.name)) continue
        written.push(await writeTable(trx, dialect, table, path.join(staging, TABLES_DIR, `${table.name}.jsonl`)))
      }
      return { tables: written, latestMigration: latest }
    })

    const skipped = (options.skipTopLevel ?? []).map((name) => path.join(dataDir, name))
    let files: BackupFile[] = []
    for (let attempt = 1; ; attempt++) {
      files = await copyDataFiles(dataDir, staging, [target, staging, ...skipped])
      if (await publicationComplete(staging, files)) break
      // a publication switched versions and removed the old one while it was being copied
      await fs.rm(path.join(staging, FILES_DIR), { recursive: true, force: true })
      if (attempt === 3) throw refused('export_failed', 'The published files kept changing while they were copied.')
    }

    const manifest: ExportManifest = {
      format: EXPORT_FORMAT,
      format_version: 1,
      service_version: SERVICE_VERSION,
      created_at: new Date().toISOString(),
      database: dialect,
      latest_migration: latestMigration,
      tables,
      files,
    }
    await fs.writeFile(path.join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, {
      flag: 'wx',
      mode: 0o600,
    })
    await fs.rm(target, { recursive: true, force: true })
    await fs.rename(staging, target)
    return {
      to: target,
      database: dialect,
      latest_migration: latestMigration,
      tables: tables.length,
      rows: tables.reduce((sum, table) => sum + table.rows, 0),
      files: files.length,
      bytes: files.reduce((sum, file) => sum + file.bytes, 0) + tables.reduce((sum, table) => sum + table.bytes, 0),
      manifest: path.join(target, MANIFEST),
    }
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true })
    throw error
  }
}

const KINDS = new Set<PortableColumnKind>(['integer', 'real', 'boolean', 'blob', 'text'])

async function readExportManifest(source: string): Promise<ExportManifest> {
  let manifest: ExportManifest
  try {
    manifest = JSON.parse(await fs.readFile(path.join(source, MANIFEST), 'utf8')) as ExportManifest
  } catch {
    throw refused('export_invalid', `${source} has no readable ${MANIFEST}: not a dg data export.`)
  }
  if (
    typeof manifest !== 'object' ||
    manifest === null ||
    manifest.format !== EXPORT_FORMAT ||
    manifest.format_version !== 1 ||
    typeof manifest.latest_migration !== 'string' ||
    !Array.isArray(manifest.tables) ||
    !Array.isArray(manifest.files)
  )
    throw refused('export_invalid', `${source}/${MANIFEST} is not a dg data export manifest of format version 1.`)
  const seen = new Set<string>()
  for (const table of manifest.tables) {
    if (
      typeof table?.name !== 'string' ||
      !SAFE_NAME.test(table.name) ||
      seen.has(table.name) ||
      !Number.isInteger(table.rows) ||
      !Array.isArray(table.columns) ||
      table.columns.some((column) => typeof column?.name !== 'string' || !KINDS.has(column.kind))
    )
      throw refused('export_invalid', `The manifest describes a table wrongly: ${JSON.stringify(table?.name)}`)
    seen.add(table.name)
  }
  for (const file of manifest.files) {
    // a manifest must not lead an import out of the data folder
    if (
      typeof file?.path !== 'string' ||
      file.path.split('/').some((part) => part === '' || part === '.' || part === '..') ||
      path.isAbsolute(file.path) ||
      SKIPPED_TOP_LEVEL.has(file.path.split('/')[0] as string)
    )
      throw refused('export_invalid', `The manifest lists an unsafe path: ${JSON.stringify(file?.path)}`)
  }
  return manifest
}

/** Every problem of the export folder against its manifest: missing, changed or unlisted files. */
async function verifyExport(source: string, manifest: ExportManifest): Promise<string[]> {
  const problems: string[] = []
  const expected = new Map<string, { sha256: string; bytes: number }>()
  for (const table of manifest.tables) expected.set(`${TABLES_DIR}/${table.name}.jsonl`, table)
  for (const file of manifest.files) expected.set(`${FILES_DIR}/${file.path}`, file)
  const present = new Set(await listFiles(source, (name) => name === MANIFEST))
  for (const [relative, digest] of expected) {
    if (!present.has(relative)) {
      problems.push(`missing: ${relative}`)
      continue
    }
    const actual = await hashFile(path.join(source, relative))
    if (actual.sha256 !== digest.sha256 || actual.bytes !== digest.bytes) problems.push(`changed: ${relative}`)
  }
  for (const relative of present) if (!expected.has(relative)) problems.push(`not in the manifest: ${relative}`)
  return problems
}

const listed = (problems: string[]) =>
  `${problems.slice(0, 10).join('; ')}${problems.length > 10 ? `; and ${problems.length - 10} more` : ''}`

/** Reads a table's JSON lines in batches, checking its digest and row count before the caller commits. */
async function insertTable(
  db: Kysely<never>,
  dialect: DialectName,
  file: string,
  exported: ExportedTable,
  target: TableShape,
): Promise<void> {
  const kinds = new Map(target.columns.map((column) => [column.name, column.kind]))
  const names = exported.columns.map((column) => column.name)
  const hash = createHash('sha256')
  const stream = createReadStream(file)
  stream.on('data', (chunk) => hash.update(chunk as Buffer))
  const lines = createInterface({ input: stream, crlfDelay: Infinity })
  let rows = 0
  let batch: Record<string, unknown>[] = []
  const flush = async () => {
    if (batch.length === 0) return
    await insertRows(db, dialect, target.name, batch)
    batch = []
  }
  for await (const line of lines) {
    if (line === '') continue
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      throw refused('export_corrupt', `${exported.name}.jsonl line ${rows + 1} is not JSON.`)
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw refused('export_corrupt', `${exported.name}.jsonl line ${rows + 1} is not a row.`)
    const values = parsed as Record<string, unknown>
    const row: Record<string, unknown> = {}
    for (const column of exported.columns)
      row[column.name] = storedValue(values[column.name], column.kind, kinds.get(column.name) ?? 'text', dialect)
    if (Object.keys(values).some((name) => !names.includes(name)))
      throw refused(
        'export_corrupt',
        `${exported.name}.jsonl line ${rows + 1} has a column the manifest does not list.`,
      )
    batch.push(row)
    rows++
    if (batch.length >= INSERT_BATCH) await flush()
  }
  await flush()
  if (hash.digest('hex') !== exported.sha256)
    throw refused('export_corrupt', `changed while importing: ${TABLES_DIR}/${exported.name}.jsonl`)
  if (rows !== exported.rows)
    throw refused('export_corrupt', `${exported.name}.jsonl holds ${rows} rows; the manifest says ${exported.rows}.`)
  if (target.identity && rows > 0) await advanceIdentityPastRows(db, dialect, target.name, target.identity)
}

/**
 * Moves the staged files into the data folder, one by one (its own folders may exist, empty); a
 * data folder that is a mount point of its own gets them copied. Returns what it placed, so that a
 * failure can take them out again.
 */
async function moveFilesInto(
  staging: string,
  dataDir: string,
  files: readonly BackupFile[],
  placed: string[],
): Promise<void> {
  for (const file of files) {
    const from = path.join(staging, file.path)
    const to = path.join(dataDir, file.path)
    await fs.mkdir(path.dirname(to), { recursive: true })
    try {
      await fs.rename(from, to)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
      await fs.copyFile(from, to, fs.constants.COPYFILE_EXCL)
    }
    placed.push(to)
  }
}

export async function importData(store: PortableStore, fromDir: string): Promise<ImportSummary> {
  const source = path.resolve(fromDir)
  const dataDir = path.resolve(store.dataDir)
  const dialect = store.caps.name
  const db = store.db as unknown as Kysely<never>

  const manifest = await readExportManifest(source)
  const problems = await verifyExport(source, manifest)
  if (problems.length > 0)
    throw refused('export_corrupt', `The export does not match its manifest; nothing was imported. ${listed(problems)}`)

  const applied = await appliedMigrations(db)
  if (applied === undefined || applied.length === 0)
    throw refused(
      'import_target_not_migrated',
      'The target database has no migrations applied: migrate it first (dg migrate), then import.',
    )
  if (!applied.includes(manifest.latest_migration))
    throw refused(
      'export_newer_than_service',
      `The export was made after migration ${manifest.latest_migration}, which this service does not know ` +
        `(its latest is ${applied[applied.length - 1]}): upgrade this deployment first.`,
    )

  const shapes = new Map((await describeTables(db, dialect)).map((shape) => [shape.name, shape]))
  const mismatches: string[] = []
  for (const table of manifest.tables) {
    const shape = shapes.get(table.name)
    if (!shape || !exportable(table.name)) {
      mismatches.push(`no table ${table.name}`)
      continue
    }
    for (const column of table.columns)
      if (!shape.columns.some((known) => known.name === column.name))
        mismatches.push(`no column ${table.name}.${column.name}`)
  }
  if (mismatches.length > 0)
    throw refused('export_schema_mismatch', `The export does not fit this database's schema: ${listed(mismatches)}`)

  const occupied: string[] = []
  for (const table of [...COMPANY_TABLES, ...APPEND_ONLY_TABLES])
    if (shapes.has(table) && (await countRows(db, table)) > 0) occupied.push(table)
  if (occupied.length > 0)
    throw refused(
      'import_target_not_empty',
      `The target database already holds a company's data (rows in ${occupied.join(', ')}): ` +
        'import into a fresh, migrated database only.',
    )
  const present = await listFiles(dataDir, (name) => SKIPPED_TOP_LEVEL.has(name))
  if (present.length > 0)
    throw refused(
      'import_target_not_empty',
      `The data folder ${dataDir} already holds files (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}): ` +
        'import into an empty data folder only.',
    )
  const live = (await serviceMarkers(dataDir)).filter((marker) => marker.alive && marker.pid !== process.pid)
  if (live.length > 0)
    throw refused(
      'service_running',
      `A service holds ${dataDir} (${live.map((m) => `pid ${m.pid} on ${m.host}`).join(', ')}); stop it first.`,
    )

  // the files are copied and checked beside the data folder first, and moved in as the last step
  // of the database's transaction: a refused row leaves no file, a failed move no row
  await fs.mkdir(path.dirname(dataDir), { recursive: true })
  const staging = `${dataDir}.import-${randomBytes(4).toString('hex')}`
  await fs.mkdir(staging, { mode: 0o700 })
  const placed: string[] = []
  try {
    for (const file of manifest.files) {
      const copied = await copyHashed(path.join(source, FILES_DIR, file.path), path.join(staging, file.path))
      if (copied.sha256 !== file.sha256) throw refused('export_corrupt', `changed while importing: ${file.path}`)
    }
    const exported = new Map(manifest.tables.map((table) => [table.name, table]))
    const order = insertionOrder([...shapes.values()].filter((shape) => exported.has(shape.name)))
    await store.db.transaction().execute(async (transaction) => {
      const trx = transaction as unknown as Kysely<never>
      // what the fresh database's migrations and first start wrote (the revisions' rows, the key
      // of application passwords) gives way to the export's rows
      for (const name of [...order].reverse()) {
        if ((APPEND_ONLY_TABLES as readonly string[]).includes(name)) continue
        if ((await countRows(trx, name)) > 0) await deleteAllRows(trx, name)
      }
      for (const name of order) {
        const table = exported.get(name)
        const shape = shapes.get(name)
        if (!table || !shape) continue
        try {
          await insertTable(trx, dialect, path.join(source, TABLES_DIR, `${name}.jsonl`), table, shape)
        } catch (error) {
          if (error instanceof HostError) throw error
          // a constraint of this schema that the export's rows do not meet (e.g. a column an older
          // release left empty): the whole import rolls back
          throw refused(
            'import_rows_refused',
            `The rows of ${name} could not be written (${(error as Error).message}); nothing was imported.`,
          )
        }
      }
      await fs.mkdir(dataDir, { recursive: true })
      await moveFilesInto(staging, dataDir, manifest.files, placed)
    })
  } catch (error) {
    // the data folder held no file before (checked above): what is there now came from this import
    for (const file of placed) await fs.rm(file, { force: true })
    throw error
  } finally {
    await fs.rm(staging, { recursive: true, force: true })
  }
  return {
    from: source,
    data_dir: dataDir,
    database: dialect,
    latest_migration: manifest.latest_migration,
    tables: manifest.tables.length,
    rows: manifest.tables.reduce((sum, table) => sum + table.rows, 0),
    files: manifest.files.length,
  }
}
