/*
 * Published files on disk (DG_DATA_DIR/publication). Daily CSVs are stored once, named by their
 * MD5 (immutable); each publication writes a complete version folder (XML, .md5, manifest) and only
 * then switches the `current` pointer, by an fsynced rename. A failure before the switch leaves
 * the previous version served byte for byte; readers always see one whole version.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

export interface ManifestDay {
  date: string
  file_name: string
  md5: string
  rows: number
  bytes: number
}

export interface Manifest {
  version: string
  created_at: string
  xml_md5: string
  xml_bytes: number
  days: ManifestDay[]
}

export const XML_NAME = 'dataset.xml'

export class PublicationStore {
  constructor(readonly root: string) {}

  get filesDir(): string {
    return path.join(this.root, 'files')
  }

  versionDir(version: string): string {
    return path.join(this.root, 'versions', version)
  }

  newVersionId(now: Date): string {
    return `${now.toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomBytes(4).toString('hex')}`
  }

  async currentManifest(): Promise<Manifest | undefined> {
    let version: string
    try {
      version = (await fs.readFile(path.join(this.root, 'current'), 'utf8')).trim()
    } catch {
      return undefined
    }
    return JSON.parse(await fs.readFile(path.join(this.versionDir(version), 'manifest.json'), 'utf8')) as Manifest
  }

  csvPath(md5: string): string {
    return path.join(this.filesDir, `${md5}.csv`)
  }

  /** Writes a file and fsyncs it, so a crash cannot leave it empty under its final name. */
  async writeDurably(target: string, content: Buffer | string): Promise<void> {
    await fs.mkdir(path.dirname(target), { recursive: true })
    const temp = `${target}.${randomBytes(4).toString('hex')}.tmp`
    const handle = await fs.open(temp, 'w')
    try {
      await handle.writeFile(content)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await fs.rename(temp, target)
    await this.syncDir(path.dirname(target))
  }

  async syncDir(dir: string): Promise<void> {
    const handle = await fs.open(dir, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  }

  /** The one atomic step of a publication. */
  async switchTo(version: string): Promise<void> {
    await this.writeDurably(path.join(this.root, 'current'), `${version}\n`)
  }

  async discard(version: string): Promise<void> {
    await fs.rm(this.versionDir(version), { recursive: true, force: true })
  }
}
