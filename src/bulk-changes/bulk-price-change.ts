/*
 * A price change of many offers at once (an investment, or a selection): e.g. +3% from 1 January,
 * totals rounded to whole złoty. It is a write of the one write path (docs/decisions/one-write-path.md)
 * in two steps, as an import run: the preview validates each offer's new total and price per m²
 * with their valid-from date by the shared validator, plans them against the catalog (patch mode:
 * nothing written, the job keeps the plan) and answers each offer before → after; the execution
 * commits that plan through the import's transactional writer (price history records carrying the
 * run and the operator's reason, the run's audit entry), then records `offers.price_change`. An
 * offer the change cannot address, or without a price and area, is listed as skipped with why,
 * never changed another way.
 */
import { createHash } from 'node:crypto'

import { type Actor, recordAudit } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { executeOfferImport } from '../imports/execution/execute-offer-import.js'
import { previewValidatedRows } from '../imports/preview-offer-import.js'
import { VALIDATED_BATCH_ROWS, type ValidationEvent } from '../imports/reading/validate-offer-file.js'
import type { PlanInput } from '../offers/offer-planner.js'
import { createOfferRowsValidator, type RowError } from '../offers/validation/validate-offer-row.js'
import { findJobName } from './bulk-changes-repository.js'
import {
  invalidPriceChange,
  type PriceChangeInput,
  priceChangeStatuses,
  PRICE_CHANGE_STATUSES,
  type PriceChangeLine,
  planPriceChange,
  ROUNDING_RULES,
} from './price-change-lines.js'

export type { PriceChangeInput, Rounding } from './price-change-lines.js'

/**
 * How the run of a bulk price change is named (its job, and the `file` of its audit entries):
 * `zmiana-cen_+3%_od_2027-01-01.csv`. The sources' guards know the panel's price changes by it.
 */
export const PRICE_CHANGE_NAME_PREFIX = 'zmiana-cen_'

/** The canonical fields a price change sends for each offer, in this order. */
const CHANGED_FIELDS = [
  'source_investment_id',
  'source_property_id',
  'price_m2',
  'price_m2_from',
  'price_total',
  'price_total_from',
] as const

function changedValues(line: PriceChangeLine, validFrom: string): string[] {
  return [line.source_investment_id, line.source_property_id, line.after_m2, validFrom, line.after_total, validFrom]
}

/**
 * Each offer's new prices checked by the shared validator, in the batches a file's rows come in,
 * numbered as the rows of the import file they stand for (under its header row), so that an error
 * names the row such a file would have.
 */
function* validatedChange(
  lines: readonly PriceChangeLine[],
  validFrom: string,
  maxErrors: number,
): Generator<Extract<ValidationEvent, { kind: 'batch' }>> {
  const validate = createOfferRowsValidator('patch')
  let errorsHandedOver = 0
  for (let first = 0; first < lines.length; first += VALIDATED_BATCH_ROWS) {
    const inputs: PlanInput[] = []
    const errors: RowError[] = []
    let errorsTotal = 0
    const rows = Math.min(lines.length, first + VALIDATED_BATCH_ROWS)
    for (let i = first; i < rows; i++) {
      const row = i + 2
      const values = changedValues(lines[i] as PriceChangeLine, validFrom)
      const result = validate(Object.fromEntries(CHANGED_FIELDS.map((field, f) => [field, values[f]])), row)
      if (result.errors.length === 0) inputs.push({ row, values: result.values })
      errorsTotal += result.errors.length
      for (const error of result.errors) if (errorsHandedOver++ < maxErrors) errors.push(error)
    }
    yield { kind: 'batch', rows, inputs, errors, errorsTotal }
  }
}

/** The digest the job keeps of the change: that of the change as a CSV file in the import's columns. */
function changeDigest(lines: readonly PriceChangeLine[], validFrom: string): string {
  const quote = (v: string) => (/[";\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)
  const hash = createHash('sha256').update(`${CHANGED_FIELDS.join(';')}\r\n`)
  for (const line of lines) hash.update(`${changedValues(line, validFrom).map(quote).join(';')}\r\n`)
  return hash.digest('hex')
}

/** Previews the change as an import run (nothing written to offers); the job id executes it. */
export async function previewPriceChange(
  ctx: HostContext,
  input: PriceChangeInput,
  actor: Actor,
  operator: { userId: number | null; name: string },
) {
  const { lines, skipped } = await planPriceChange(ctx, input)
  if (lines.length === 0)
    throw invalidPriceChange(
      'offer_ids',
      'Żadnej z wybranych ofert nie można zmienić (brak ofert o wybranych statusach, ceny, powierzchni lub identyfikatorów importu).',
      'None of the chosen offers can be changed (no offers with the chosen statuses, no price, area or import identifiers).',
    )
  const sign = input.percent.trim().startsWith('-') ? '' : '+'
  const outcome = await previewValidatedRows(ctx, {
    actor,
    operator,
    fileName: `${PRICE_CHANGE_NAME_PREFIX}${sign}${input.percent.trim().replace(',', '.')}%_od_${input.validFrom}.csv`,
    fileFormat: 'csv',
    sha256: changeDigest(lines, input.validFrom),
    mode: 'patch',
    mapping: Object.fromEntries(CHANGED_FIELDS.map((field) => [field, field])),
    batches: validatedChange(lines, input.validFrom, ctx.config.importMaxErrors),
  })
  return {
    job_id: outcome.id,
    valid: outcome.preview.valid,
    errors: outcome.preview.errors,
    counts: outcome.preview.counts,
    lines,
    skipped,
    valid_from: input.validFrom,
    reason: input.reason.trim(),
    rounding: input.rounding,
    rounding_rule: ROUNDING_RULES[input.rounding],
    percent: input.percent.trim(),
    statuses: [...(priceChangeStatuses(input) ?? PRICE_CHANGE_STATUSES)],
  }
}

/** Executes a previewed change through the import's writer, and audits it with its reason. */
export async function executePriceChange(
  ctx: HostContext,
  args: { jobId: string; idempotencyKey: string | undefined; reason: string; actor: Actor },
) {
  const name = await findJobName(ctx.db, args.jobId)
  if (name === undefined || !name.startsWith(PRICE_CHANGE_NAME_PREFIX))
    throw new PluginError('price_change_not_found', 404, { message: 'No previewed price change has this id.' })
  const outcome = await executeOfferImport(ctx, {
    actor: args.actor,
    jobId: args.jobId,
    idempotencyKey: args.idempotencyKey,
    confirmArchiving: false,
    note: { reason: args.reason.trim().slice(0, 500), correction: false },
  })
  if (!outcome.replayed)
    await recordAudit(ctx, {
      actor: args.actor,
      action: 'offers.price_change',
      objectType: 'import_job',
      objectId: args.jobId,
      outcome: 'success',
      details: {
        file: name,
        reason: args.reason.slice(0, 500),
        run_id: outcome.result.run_id,
        updated: outcome.result.updated,
      },
    })
  return outcome
}
