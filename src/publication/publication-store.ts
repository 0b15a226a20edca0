/*
 * Published files on disk (DG_DATA_DIR/publication). Daily CSVs are stored once, named by their
 * MD5 (immutable); each publication writes a complete version folder (XML, .md5, manifest) and only
 * then switches the `current` pointer, by an fsynced rename. A failure before the switch leaves
 * the previous version served byte for byte; readers always see one whole version.
 */
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

import type { HostContext } from '../host/context.js'

/**
 * One resource of the XML: a day's file. `url` and `ext_ident` are recorded when the resource is
 * first published and never change (instruction 1.0.6: a resource's URL and extIdent are not
 * modified); manifests written before they were recorded lack them (see recordedResources).
 * `revision` > 1 is a same-day republication whose bytes differ: a resource of its own.
 */
export interface ManifestDay {
  date: string
  file_name: string
  md5: string
  rows: number
  bytes: number
  url?: string
  ext_ident?: string
  revision?: number
  /**
   * The resource's title and description as first published, and when: they never change
   * (renaming the developer does not rewrite past resources, and a day file's Last-Modified stays
   * the time it was published). Absent in manifests written before they were recorded.
   */
  title_pl?: string
  title_en?: string
  description_pl?: string
  description_en?: string
  published_at?: string
}

export interface Manifest {
  version: string
  created_at: string
  xml_md5: string
  xml_bytes: number
  days: ManifestDay[]
}

export const XML_NAME = 'dataset.xml'
/** The XML's MD5 beside it, as the portal reads it. */
export const MD5_NAME = 'dataset.md5'
/** Where the publishing developer's dataset is served; another entity's under PUBLIC_PATH/d{id}. */
export const PUBLIC_PATH = '/dane-gov'

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

  /** The version the `current` pointer names, if any. */
  async currentVersion(): Promise<string | undefined> {
    try {
      return (await fs.readFile(path.join(this.root, 'current'), 'utf8')).trim() || undefined
    } catch {
      return undefined
    }
  }

  /** Serves no version at all (undoes the first switch of a store). */
  async clearCurrent(): Promise<void> {
    await fs.rm(path.join(this.root, 'current'), { force: true })
    await this.syncDir(this.root)
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

  /**
   * Creates the folder of a version not yet served; its files are written under their final names
   * (nothing reads the folder before the pointer switch), and the new entry in versions/ is made
   * durable before anything can point at it.
   */
  async createVersionDir(version: string): Promise<string> {
    const dir = this.versionDir(version)
    await fs.mkdir(dir, { recursive: true })
    await this.syncDir(path.dirname(dir))
    return dir
  }

  /** Writes and fsyncs a file of a version folder that nothing serves yet; syncDir() the folder after. */
  async writeNew(target: string, content: Buffer | string): Promise<void> {
    const handle = await fs.open(target, 'wx')
    try {
      await handle.writeFile(content)
      await handle.sync()
    } finally {
      await handle.close()
    }
  }

  /** Moves a written and fsynced file to its final name in another folder of the store, durably. */
  async moveDurably(from: string, target: string): Promise<void> {
    await fs.mkdir(path.dirname(target), { recursive: true })
    await fs.rename(from, target)
    await this.syncDir(path.dirname(target))
  }

  /** MD5 and length of a file as read back from the file system, read in 1 MiB pieces. */
  async digestFile(file: string): Promise<{ md5: string; bytes: number }> {
    const handle = await fs.open(file, 'r')
    try {
      const hash = createHash('md5')
      const buffer = Buffer.allocUnsafe(1 << 20)
      let bytes = 0
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
        if (bytesRead === 0) break
        hash.update(buffer.subarray(0, bytesRead))
        bytes += bytesRead
      }
      return { md5: hash.digest('hex'), bytes }
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

/** The publishing developer's store, at the original paths. */
export function publicationStore(ctx: HostContext): PublicationStore {
  return new PublicationStore(path.join(ctx.config.dataDir, 'publication'))
}
