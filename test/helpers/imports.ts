/*
 * What the import suites share: writing a test file into the data directory under a name not used
 * before, and previewing it as the CLI does.
 */
import fs from 'node:fs'
import path from 'node:path'

import type { HostContext } from '../../src/host/context.js'
import { previewOfferImport, type PreviewArgs } from '../../src/imports/offer-import-service.js'

let sequence = 0

/** Writes `content` to a new file `<prefix>-<n>.csv` in `dir` and returns its path. */
export function writeImportFile(dir: string, prefix: string, content: string): string {
  sequence++
  const target = path.join(dir, `${prefix}-${sequence}.csv`)
  fs.writeFileSync(target, content)
  return target
}

/** Previews the file as `dg import` does (operator `test`, patch mode unless `extra` says otherwise). */
export function previewImportFile(
  ctx: HostContext,
  target: string,
  mapping: Record<string, string>,
  extra: Partial<PreviewArgs> = {},
) {
  return previewOfferImport(ctx, {
    actor: { type: 'cli' },
    operator: { userId: null, name: 'test' },
    filePath: target,
    fileName: path.basename(target),
    mode: 'patch',
    mapping,
    ...extra,
  })
}
