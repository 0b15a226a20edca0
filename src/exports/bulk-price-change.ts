/*
 * A price change of many offers at once (an investment, or a selection): e.g. +3% from 1 January,
 * totals rounded to whole złoty. It goes through the one write path as a single import run: the
 * new prices are written as a file in the import's own columns (both identifiers, the total and
 * the price per m² with their valid-from date), previewed by the offer import (validator and
 * planner: nothing written, the job keeps the plan), and executed by it (the transactional writer:
 * price history records carrying the run, the run's audit entry). The preview answers each offer
 * before → after; an offer the import cannot address or without a price and area is listed as
 * skipped with why, never changed another way.
 */
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

import { withPricesInForce } from '../catalog/current-prices.js'
import { recordAudit } from '../host/audit/audit.js'
import type { Actor } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { isCalendarDate } from '../host/warsaw-day.js'
import { executeOfferImport } from '../imports/execution/execute-offer-import.js'
import { previewOfferImport } from '../imports/preview-offer-import.js'

export type Rounding = 'grosz' | 'zloty' | 'hundred'

export const ROUNDING_UNIT: Readonly<Record<Rounding, number>> = { grosz: 1, zloty: 100, hundred: 10_000 }

export const ROUNDING_RULES: Readonly<Record<Rounding, { pl: string; en: string }>> = {
  grosz: {
    pl: 'cena całkowita zaokrąglona do pełnego grosza (połówki w górę); cena za m² = cena całkowita ÷ powierzchnia, zaokrąglona do grosza',
    en: 'total rounded to the grosz (halves up); price per m² = total ÷ area, rounded to the grosz',
  },
  zloty: {
    pl: 'cena całkowita zaokrąglona do pełnego złotego (połówki w górę); cena za m² = cena całkowita ÷ powierzchnia, zaokrąglona do grosza',
    en: 'total rounded to the whole złoty (halves up); price per m² = total ÷ area, rounded to the grosz',
  },
  hundred: {
    pl: 'cena całkowita zaokrąglona do pełnych 100 zł (połówki w górę); cena za m² = cena całkowita ÷ powierzchnia, zaokrąglona do grosza',
    en: 'total rounded to whole 100 PLN (halves up); price per m² = total ÷ area, rounded to the grosz',
  },
}

export interface PriceChangeInput {
  offerIds?: number[] | undefined
  investment?: number | undefined
  /** e.g. "3", "-2.5", "+3,5": at most two decimals, between -50 and +100. */
  percent: string
  rounding: Rounding
  validFrom: string
  reason: string
}

export interface PriceChangeLine {
  offer_id: number
  designation: string
  investment_title: string
  source_investment_id: string
  source_property_id: string
  area: string
  before_total: string
  after_total: string
  before_m2: string | null
  after_m2: string
}

const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`

function percentHundredths(text: string): number {
  const match = /^([+-]?)(\d{1,3})(?:[.,](\d{1,2}))?$/.exec(text.trim())
  if (!match)
    throw invalid(
      'percent',
      'Podaj zmianę w procentach, np. 3 albo -2,5.',
      'Give the change in percent, e.g. 3 or -2.5.',
    )
  const value = (Number(match[2]) * 100 + Number((match[3] ?? '').padEnd(2, '0'))) * (match[1] === '-' ? -1 : 1)
  if (value === 0 || value < -5000 || value > 10_000)
    throw invalid(
      'percent',
      'Zmiana musi być różna od zera, od -50% do +100%.',
      'The change must be non-zero, from -50% to +100%.',
    )
  return value
}

function invalid(field: string, pl: string, en: string): PluginError {
  return new PluginError('invalid_price_change', 422, {
    issues: [{ field, code: 'invalid_price_change', message_pl: pl, message_en: en }],
  })
}

/** Area text ("54.3", "54.30") in hundredths of a m². */
function areaHundredths(area: string): number {
  const [whole = '0', fraction = ''] = area.split('.')
  return Number(whole) * 100 + Number((fraction + '00').slice(0, 2))
}

export async function planPriceChange(ctx: HostContext, input: PriceChangeInput) {
  const hundredths = percentHundredths(input.percent)
  if (!isCalendarDate(input.validFrom))
    throw invalid(
      'valid_from',
      'Podaj datę, od której obowiązują nowe ceny.',
      'Give the date the new prices apply from.',
    )
  if (!input.reason.trim())
    throw invalid(
      'reason',
      'Podaj powód zmiany cen (trafi do historii i dziennika zdarzeń).',
      'Give the reason for the change (it goes to the history and the audit log).',
    )
  if ((input.offerIds?.length ?? 0) === 0 && input.investment === undefined)
    throw invalid('offer_ids', 'Wybierz inwestycję albo oferty.', 'Choose an investment or offers.')
  let q = ctx.db
    .selectFrom('offers as o')
    .innerJoin('investments as i', 'i.id', 'o.investment_id')
    .select([
      'o.id',
      'o.code',
      'o.offer_kind',
      'o.status',
      'o.area',
      'o.price_total_cents',
      'o.price_total_from',
      'o.price_m2_cents',
      'o.price_m2_from',
      'o.source_property_id',
      'i.source_id',
      'i.title',
    ])
    .where('o.status', '!=', 'archived')
  if (input.investment !== undefined) q = q.where('o.investment_id', '=', input.investment)
  if (input.offerIds?.length) q = q.where('o.id', 'in', input.offerIds)
  // the change applies to the prices in force on its date, not to a price announced for a later day
  const { offers } = await withPricesInForce(
    ctx.db,
    await q.orderBy('i.title').orderBy('o.code').orderBy('o.id').execute(),
    [],
    input.validFrom,
  )
  const unit = ROUNDING_UNIT[input.rounding]
  const lines: PriceChangeLine[] = []
  const skipped: Array<{ offer_id: number; designation: string; reason: string }> = []
  for (const o of offers) {
    const skip = (reason: string) => skipped.push({ offer_id: o.id, designation: o.code, reason })
    if (o.offer_kind !== 'property') {
      skip('standalone_part')
      continue
    }
    if (!o.source_property_id || !o.source_id) {
      skip('no_import_identifier')
      continue
    }
    if (o.price_total_cents === null || o.area === null || areaHundredths(o.area) === 0) {
      skip('no_price_or_area')
      continue
    }
    const total = Math.round((o.price_total_cents * (10_000 + hundredths)) / 10_000 / unit) * unit
    const m2 = Math.round((total * 100) / areaHundredths(o.area))
    lines.push({
      offer_id: o.id,
      designation: o.code,
      investment_title: o.title,
      source_investment_id: o.source_id,
      source_property_id: o.source_property_id,
      area: o.area,
      before_total: money(o.price_total_cents),
      after_total: money(total),
      before_m2: o.price_m2_cents === null ? null : money(o.price_m2_cents),
      after_m2: money(m2),
    })
  }
  return { lines, skipped, hundredths }
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
    throw invalid(
      'offer_ids',
      'Żadnej z wybranych ofert nie można zmienić (brak ceny, powierzchni lub identyfikatorów importu).',
      'None of the chosen offers can be changed (no price, area or import identifiers).',
    )
  const header = 'source_investment_id;source_property_id;price_m2;price_m2_from;price_total;price_total_from'
  const quote = (v: string) => (/[";\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)
  const csv = [
    header,
    ...lines.map((l) =>
      [l.source_investment_id, l.source_property_id, l.after_m2, input.validFrom, l.after_total, input.validFrom]
        .map(quote)
        .join(';'),
    ),
  ].join('\r\n')
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dg-price-change-'))
  const file = path.join(dir, 'zmiana-cen.csv')
  try {
    await fs.writeFile(file, `${csv}\r\n`)
    const mapping = Object.fromEntries(header.split(';').map((c) => [c, c]))
    const sign = input.percent.trim().startsWith('-') ? '' : '+'
    const outcome = await previewOfferImport(ctx, {
      actor,
      operator,
      filePath: file,
      fileName: `zmiana-cen_${sign}${input.percent.trim().replace(',', '.')}%_od_${input.validFrom}.csv`,
      mode: 'patch',
      mapping,
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
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true })
  }
}

/** Executes a previewed change through the import's writer, and audits it with its reason. */
export async function executePriceChange(
  ctx: HostContext,
  args: { jobId: string; idempotencyKey: string | undefined; reason: string; actor: Actor },
) {
  const job = await ctx.db
    .selectFrom('import_jobs')
    .select(['file_name'])
    .where('id', '=', args.jobId)
    .executeTakeFirst()
  if (!job || !job.file_name.startsWith('zmiana-cen_'))
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
        file: job.file_name,
        reason: args.reason.slice(0, 500),
        run_id: outcome.result.run_id,
        updated: outcome.result.updated,
      },
    })
  return outcome
}
