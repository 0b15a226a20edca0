/*
 * A prepared publication written into a new version folder of the store, proven by the bytes read
 * back, before the one pointer switch serves it: a day file already stored under its MD5 is
 * reused only when intact.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import type { HostContext } from '../../host/context.js'
import { md5Hex } from '../daily-file/harvester-xml.js'
import { issue, PublicationFailed } from '../publication-issue.js'
import { type Manifest, MD5_NAME, type PublicationStore, XML_NAME } from '../publication-store.js'
import type { PreparedPublication } from './prepare-publication.js'

/** Where the day's file is written inside the new version folder, until its bytes are proven and it moves to files/. */
export function stagedCsvPath(store: PublicationStore, version: string): string {
  return path.join(store.versionDir(version), 'day.csv.part')
}

export async function writeVersion(
  ctx: HostContext,
  store: PublicationStore,
  prepared: PreparedPublication,
  version: string,
): Promise<Manifest> {
  const dir = store.versionDir(version)
  const staged = stagedCsvPath(store, version)
  const verificationFailed = () =>
    new PublicationFailed([
      issue(
        'write_verification_failed',
        'Zapisane pliki różnią się od przygotowanych.',
        'The files on disk differ from the prepared ones.',
      ),
    ])
  // proven on the bytes actually on disk, not on what we meant to write
  const written = await store.digestFile(staged)
  if (written.md5 !== prepared.csv.md5 || written.bytes !== prepared.csv.bytes) throw verificationFailed()
  const csvPath = store.csvPath(prepared.csv.md5)
  // a stored day file is reused only when its bytes are intact; a damaged one is replaced
  const stored = await store.digestFile(csvPath).catch(() => undefined)
  if (stored?.md5 === prepared.csv.md5) await fs.rm(staged)
  else await store.moveDurably(staged, csvPath)

  await store.writeNew(path.join(dir, XML_NAME), prepared.xml)
  await store.writeNew(path.join(dir, MD5_NAME), prepared.xmlMd5)
  const manifest: Manifest = {
    version,
    created_at: ctx.now().toISOString(),
    xml_md5: prepared.xmlMd5,
    xml_bytes: prepared.xml.length,
    days: prepared.manifestDays,
  }
  await store.writeNew(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1))
  await store.syncDir(dir)
  const [xmlBack, md5Back] = await Promise.all([
    fs.readFile(path.join(dir, XML_NAME)),
    fs.readFile(path.join(dir, MD5_NAME), 'utf8'),
  ])
  if (md5Hex(xmlBack) !== prepared.xmlMd5 || md5Back !== prepared.xmlMd5) throw verificationFailed()
  return manifest
}
