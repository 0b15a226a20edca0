/*
 * What the import suites share: writing a test file into the data directory under a name not used
 * before, previewing it as the CLI does, and writing a plan as a test's seeded catalog.
 */
import fs from 'node:fs'
import path from 'node:path'

import { recordAudit } from '../../src/host/audit/audit.js'
import type { HostContext } from '../../src/host/context.js'
import { previewOfferImport, type PreviewArgs } from '../../src/imports/preview-offer-import.js'
import type { OfferPlan } from '../../src/offers/offer-planner.js'
import { applyOfferPlan } from '../../src/offers/offer-writer.js'
import type { TestEnv } from './test-app.js'

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

/** Writes a plan in one transaction, as a run audited `test.seed`: the catalog a suite starts from. */
export async function seedCatalog(env: TestEnv, plan: OfferPlan, today: string): Promise<void> {
  await env.ctx.db.transaction().execute(async (trx) => {
    await applyOfferPlan(trx, plan, {
      now: env.clock.now(),
      today,
      recordRun: (counts) =>
        recordAudit(
          env.ctx,
          { actor: { type: 'system' }, action: 'test.seed', outcome: 'success', details: { ...counts } },
          trx,
        ),
    })
  })
}
