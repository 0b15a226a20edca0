/*
 * `dg backup` and `dg restore` of the data folder (DG_DATA_DIR).
 *
 * A backup is a folder: `dg.sqlite` (an online copy made with SQLite's backup API while the service
 * runs), `files/` (every other file of the data folder: the published versions and day files, the
 * stored report files, uploads) and `manifest.json` with the SHA-256 and size of each. It is made
 * in a sibling folder `<DIR>.partial-…` and renamed to DIR only when complete, so a DIR that exists
 * is a whole backup. The database is copied before the files: a publication finishing meanwhile
 * can only leave files newer than the database (served again as they are), never a publication
 * the database records without its files.
 *
 * A restore refuses before it changes anything when a file is missing, added or differs from the
 * manifest, when the database copy fails `PRAGMA integrity_check`, or while a service holds the
 * data folder (its marker, see host/service-marker.ts). It builds the new data folder beside the
 * old one (`<data>.restore-…`), checks it, and only then swaps the folders by two renames; the old
 * folder is kept as `<data>.before-restore-<time>`.
 *
 * With PostgreSQL (DATABASE_URL) the database is not in the data folder: both commands handle the
 * files only, and the database is dumped and restored with pg_dump / pg_restore.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Writable } from 'node:stream'

import type { AppConfig } from '../config.js'
import { loadSqliteDriver } from '../host/db/dialect.js'
import { redactConnectionString } from '../host/db/database.js'
import { HostError } from '../host/errors.js'
import { SERVICE_MARKER_DIR, serviceMarkers } from '../host/service-marker.js'
import { SERVICE_VERSION } from '../version.js'

export const BACKUP_FORMAT = 'dg-offers-backup'
const MANIFEST = 'manifest.json'
const DATABASE_FILE = 'dg.sqlite'
const FILES_DIR = 'files'
/** The database's own files (copied through the backup API) and what a service leaves while it runs. */
export const SKIPPED_TOP_LEVEL = new Set([
  DATABASE_FILE,
  `${DATABASE_FILE}-wal`,
  `${DATABASE_FILE}-shm`,
  `${DATABASE_FILE}-journal`,
  SERVICE_MARKER_DIR,
  // the other companies' folders (src/tenancy), each backed up or exported on its own (--tenant),
  // and the platform's exports of them
  'tenants',
  'exports',
])

export interface BackupFile {
  /** Relative to the data folder, with `/` separators. */
  path: string
  sha256: string
  bytes: number
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT
  format_version: 1
  service_version: string
  created_at: string
  database:
    | { kind: 'sqlite'; file: typeof DATABASE_FILE; sha256: string; bytes: number }
    | { kind: 'postgresql'; included: false; location: string }
  files: BackupFile[]
}

export interface BackupSummary {
  to: string
  database: 'sqlite' | 'postgresql'
  files: number
  bytes: number
  manifest: string
}

export interface RestoreSummary {
  from: string
  data_dir: string
  database: 'sqlite' | 'postgresql'
  files: number
  /** Where the replaced data folder was kept, when there was one. */
  previous: string | null
}

const refused = (code: string, message: string) => new HostError(code, 409, message)

/** Copies `from` to `to` (created exclusively, fsynced) and returns the digest of the bytes written. */
export async function copyHashed(from: string, to: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256')
  let bytes = 0
  await fs.mkdir(path.dirname(to), { recursive: true })
  const handle = await fs.open(to, 'wx')
  try {
    await pipeline(
      createReadStream(from),
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          hash.update(chunk)
          bytes += chunk.length
          handle.write(chunk).then(() => done(), done)
        },
      }),
    )
    await handle.sync()
  } finally {
    await handle.close()
  }
  return { sha256: hash.digest('hex'), bytes }
}

export async function hashFile(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256')
  let bytes = 0
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer)
    bytes += (chunk as Buffer).length
  }
  return { sha256: hash.digest('hex'), bytes }
}

/** Regular files under `root`, relative, `/`-separated, sorted; `skip` decides on top-level names. */
export async function listFiles(root: string, skip: (topLevel: string) => boolean = () => false): Promise<string[]> {
  const out: string[] = []
  const walk = async (dir: string, relative: string): Promise<void> => {
    let entries
    try {
      entries = await fs.readdir(dir, { withFileTypes: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    for (const entry of entries) {
      const rel = relative ? `${relative}/${entry.name}` : entry.name
      if (!relative && skip(entry.name)) continue
      if (entry.name.startsWith('.readyz-probe-')) continue
      if (entry.isDirectory()) await walk(path.join(dir, entry.name), rel)
      else if (entry.isFile()) out.push(rel)
    }
  }
  await walk(root, '')
  return out.sort()
}

export async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await fs.readdir(dir)).length === 0
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true
    throw error
  }
}

export const inside = (child: string, parent: string) => {
  const relative = path.relative(parent, child)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}

/** Copies the data folder's files (not the database) into `staging/files`, skipping files that vanish. */
export async function copyDataFiles(dataDir: string, staging: string, exclude: string[]): Promise<BackupFile[]> {
  const files = await listFiles(
    dataDir,
    (name) => SKIPPED_TOP_LEVEL.has(name) || exclude.some((excluded) => path.join(dataDir, name) === excluded),
  )
  const copied: BackupFile[] = []
  for (const relative of files) {
    try {
      const digest = await copyHashed(path.join(dataDir, relative), path.join(staging, FILES_DIR, relative))
      copied.push({ path: relative, ...digest })
    } catch (error) {
      // an upload or a discarded publication folder removed while the backup ran
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      await fs.rm(path.join(staging, FILES_DIR, relative), { force: true })
    }
  }
  return copied
}

/** The published version that the copied `current` pointer names must be in the copy, whole. */
export async function publicationComplete(staging: string, files: BackupFile[]): Promise<boolean> {
  const pointer = files.find((file) => file.path === 'publication/current')
  if (!pointer) return true
  const version = (await fs.readFile(path.join(staging, FILES_DIR, pointer.path), 'utf8')).trim()
  if (version === '') return true
  return files.some((file) => file.path === `publication/versions/${version}/manifest.json`)
}

async function sqliteIntegrityProblem(file: string): Promise<string | undefined> {
  const Driver = loadSqliteDriver()
  let database
  try {
    database = new Driver(file, { fileMustExist: true })
    const rows = database.pragma('integrity_check') as Array<{ integrity_check: string }>
    const messages = rows.map((row) => row.integrity_check)
    return messages.length === 1 && messages[0] === 'ok' ? undefined : messages.slice(0, 5).join('; ')
  } catch (error) {
    return (error as Error).message
  } finally {
    database?.close()
  }
}

export async function backupDataDir(config: AppConfig, to: string): Promise<BackupSummary> {
  const target = path.resolve(to)
  const dataDir = config.dataDir
  if (inside(target, dataDir))
    throw refused('backup_target_invalid', `The backup folder must be outside the data folder ${dataDir}.`)
  if (!(await isEmptyOrMissing(target)))
    throw refused('backup_target_exists', `${target} exists and is not empty; choose a new folder.`)
  const staging = `${target}.partial-${randomBytes(4).toString('hex')}`
  await fs.mkdir(staging, { recursive: true })
  try {
    let database: BackupManifest['database']
    if (config.databaseUrl) {
      database = { kind: 'postgresql', included: false, location: redactConnectionString(config.databaseUrl) }
    } else {
      const source = path.join(dataDir, DATABASE_FILE)
      try {
        await fs.access(source)
      } catch {
        throw refused('backup_no_database', `There is no database at ${source}.`)
      }
      const Driver = loadSqliteDriver()
      const live = new Driver(source, { fileMustExist: true })
      try {
        live.pragma('busy_timeout = 5000')
        // all pages in one step after the first: a step that has to start again because the service
        // wrote meanwhile would otherwise repeat without end under a steady load
        await live.backup(path.join(staging, DATABASE_FILE), { progress: ({ totalPages }) => totalPages + 100 })
      } finally {
        live.close()
      }
      const problem = await sqliteIntegrityProblem(path.join(staging, DATABASE_FILE))
      if (problem) throw refused('backup_failed', `The copied database fails its integrity check: ${problem}`)
      database = { kind: 'sqlite', file: DATABASE_FILE, ...(await hashFile(path.join(staging, DATABASE_FILE))) }
    }

    let files: BackupFile[] = []
    for (let attempt = 1; ; attempt++) {
      files = await copyDataFiles(dataDir, staging, [target, staging])
      if (await publicationComplete(staging, files)) break
      // a publication switched versions and removed the old one while it was being copied
      await fs.rm(path.join(staging, FILES_DIR), { recursive: true, force: true })
      if (attempt === 3) throw refused('backup_failed', 'The published files kept changing while they were copied.')
    }

    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      format_version: 1,
      service_version: SERVICE_VERSION,
      created_at: new Date().toISOString(),
      database,
      files,
    }
    await fs.writeFile(path.join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' })
    await fs.rm(target, { recursive: true, force: true })
    await fs.rename(staging, target)
    return {
      to: target,
      database: database.kind,
      files: files.length,
      bytes: files.reduce((sum, file) => sum + file.bytes, database.kind === 'sqlite' ? database.bytes : 0),
      manifest: path.join(target, MANIFEST),
    }
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true })
    throw error
  }
}

async function readManifest(source: string): Promise<BackupManifest> {
  let manifest: BackupManifest
  try {
    manifest = JSON.parse(await fs.readFile(path.join(source, MANIFEST), 'utf8')) as BackupManifest
  } catch {
    throw refused('backup_invalid', `${source} has no readable ${MANIFEST}: not a dg backup.`)
  }
  if (manifest.format !== BACKUP_FORMAT || manifest.format_version !== 1 || !Array.isArray(manifest.files))
    throw refused('backup_invalid', `${source}/${MANIFEST} is not a dg backup manifest of format version 1.`)
  for (const file of manifest.files) {
    // a manifest must not lead a restore out of the data folder
    if (
      typeof file.path !== 'string' ||
      file.path.split('/').some((part) => part === '' || part === '.' || part === '..') ||
      path.isAbsolute(file.path)
    )
      throw refused('backup_invalid', `The manifest lists an unsafe path: ${JSON.stringify(file.path)}`)
  }
  return manifest
}

/** Every problem of the backup folder against its manifest: missing, changed or unlisted files. */
async function verifyBackup(source: string, manifest: BackupManifest): Promise<string[]> {
  const problems: string[] = []
  const expected = new Map<string, { sha256: string; bytes: number }>()
  for (const file of manifest.files) expected.set(`${FILES_DIR}/${file.path}`, file)
  if (manifest.database.kind === 'sqlite') expected.set(DATABASE_FILE, manifest.database)
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

export async function restoreDataDir(
  config: AppConfig,
  from: string,
  options: { replace?: boolean } = {},
): Promise<RestoreSummary> {
  const source = path.resolve(from)
  const dataDir = config.dataDir
  const manifest = await readManifest(source)
  if (manifest.database.kind === 'sqlite' && config.databaseUrl)
    throw refused(
      'backup_database_mismatch',
      'This backup holds an SQLite database, but DATABASE_URL is set: unset it to restore the embedded database.',
    )
  if (manifest.database.kind === 'postgresql' && !config.databaseUrl)
    throw refused(
      'backup_database_mismatch',
      'This backup was made with PostgreSQL and holds no database: set DATABASE_URL and restore the database with pg_restore.',
    )

  const problems = await verifyBackup(source, manifest)
  if (problems.length > 0)
    throw refused(
      'backup_corrupt',
      `The backup does not match its manifest; nothing was restored. ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? `; and ${problems.length - 10} more` : ''}`,
    )

  // a company of a platform (src/tenancy) is served by the process that marks the platform's folder
  const markedDir = config.tenant === undefined ? dataDir : path.resolve(dataDir, '..', '..')
  const live = (await serviceMarkers(markedDir)).filter((marker) => marker.alive)
  if (live.length > 0)
    throw refused(
      'service_running',
      `A service holds ${dataDir} (${live.map((m) => `pid ${m.pid} on ${m.host}`).join(', ')}); stop it first. ` +
        `If it is surely stopped, remove ${live.map((m) => m.file).join(', ')}.`,
    )
  if (!(await isEmptyOrMissing(dataDir)) && !options.replace)
    throw refused(
      'data_dir_not_empty',
      `${dataDir} is not empty; run again with --replace to restore over it (it is kept beside as a copy).`,
    )

  await fs.mkdir(path.dirname(dataDir), { recursive: true })
  const staging = `${dataDir}.restore-${randomBytes(4).toString('hex')}`
  await fs.mkdir(staging)
  try {
    // copied and checked again: the folder could change between the verification and the copy
    for (const file of manifest.files) {
      const copied = await copyHashed(path.join(source, FILES_DIR, file.path), path.join(staging, file.path))
      if (copied.sha256 !== file.sha256) throw refused('backup_corrupt', `changed while restoring: ${file.path}`)
    }
    if (manifest.database.kind === 'sqlite') {
      const target = path.join(staging, DATABASE_FILE)
      const copied = await copyHashed(path.join(source, DATABASE_FILE), target)
      if (copied.sha256 !== manifest.database.sha256)
        throw refused('backup_corrupt', `changed while restoring: ${DATABASE_FILE}`)
      const problem = await sqliteIntegrityProblem(target)
      if (problem)
        throw refused('backup_corrupt', `The database of the backup fails PRAGMA integrity_check: ${problem}`)
    }
    let previous: string | null = null
    try {
      await fs.access(dataDir)
      previous = `${dataDir}.before-restore-${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}`
    } catch {
      previous = null
    }
    if (previous) await fs.rename(dataDir, previous)
    try {
      await fs.rename(staging, dataDir)
    } catch (error) {
      if (previous) await fs.rename(previous, dataDir)
      throw error
    }
    // the other companies' folders and their exports are not the first company's: they stay
    if (previous)
      for (const kept of ['tenants', 'exports'])
        await fs.rename(path.join(previous, kept), path.join(dataDir, kept)).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error
        })
    if (previous && (await isEmptyOrMissing(previous))) {
      await fs.rm(previous, { recursive: true, force: true })
      previous = null
    }
    return { from: source, data_dir: dataDir, database: manifest.database.kind, files: manifest.files.length, previous }
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true })
    throw error
  }
}

/** What an operator runs for the PostgreSQL database itself (the commands handle only the files). */
export function postgresPractice(config: Pick<AppConfig, 'databaseUrl'>): string {
  const location = config.databaseUrl ? redactConnectionString(config.databaseUrl) : 'postgres://…'
  return [
    `The database (${location}) is not in the data folder: back it up with PostgreSQL's own tools, e.g.`,
    '  pg_dump --format=custom --file=dg-offers.pgdump "$DATABASE_URL"',
    'and restore it into an empty database with',
    '  pg_restore --no-owner --dbname="$DATABASE_URL" dg-offers.pgdump',
    '(or continuous archiving / point-in-time recovery for a server that needs it).',
  ].join('\n')
}
