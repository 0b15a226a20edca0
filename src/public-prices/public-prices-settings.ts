/*
 * An investment's public-price settings: off by default; on, its prices are answered without
 * credentials, and the listed website origins may read them from a browser (CORS). Stored in the
 * database and read by every public request, so a change holds at once on every instance.
 */
import type { Actor } from '../host/audit/audit.js'
import { recordAudit } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { HostError } from '../host/errors.js'
import { SERVICE_VERSION } from '../version.js'
import {
  lockInvestmentRow,
  selectInvestmentTitle,
  selectPublicPricesSettings,
  upsertPublicPricesSettings,
} from './public-prices-repository.js'
import { allowedOriginsOf } from './public-prices-service.js'

export const ALLOWED_ORIGINS_MAX = 20
const ORIGIN_MAX_LENGTH = 253 + 'https://'.length + ':65535'.length
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]'])

export interface PublicPricesSettingsView {
  investment_id: number
  enabled: boolean
  allowed_origins: string[]
  endpoint_url: string
  script_url: string
  snippet: string
}

function invalidOrigin(index: number, origin: unknown, reason: string): HostError {
  return new HostError(
    'public_prices_origin_invalid',
    422,
    `allowed_origins[${index}] is not an exact website origin (https://host[:port], or http://localhost[:port]): ${reason}`,
    { index, origin: typeof origin === 'string' ? origin.slice(0, 300) : null, reason },
  )
}

/**
 * The origin a browser sends for a page at `text`, lower-cased, or the reason it is not one: a
 * scheme and host (and port) only, https unless the host is the developer's own machine.
 */
export function normalizeOrigin(text: unknown, index: number): string {
  if (typeof text !== 'string') throw invalidOrigin(index, text, 'not a string')
  const trimmed = text.trim()
  if (trimmed === '' || trimmed.length > ORIGIN_MAX_LENGTH) throw invalidOrigin(index, text, 'empty or too long')
  if (trimmed.includes('*')) throw invalidOrigin(index, text, 'wildcards are not allowed')
  let url: URL
  try {
    url = new URL(trimmed)
  } catch {
    throw invalidOrigin(index, text, 'not an address')
  }
  if (url.username !== '' || url.password !== '') throw invalidOrigin(index, text, 'a user name or password')
  if (url.search !== '' || url.hash !== '' || trimmed.endsWith('?') || trimmed.endsWith('#'))
    throw invalidOrigin(index, text, 'a query or fragment')
  // one trailing slash is what a copied address ends with; any other path is not an origin
  if (url.pathname !== '/' || /^[a-z]+:\/\/[^/]+\/./i.test(trimmed)) throw invalidOrigin(index, text, 'a path')
  if (url.protocol === 'http:') {
    if (!LOOPBACK_HOSTS.has(url.hostname)) throw invalidOrigin(index, text, 'http is allowed for localhost only')
  } else if (url.protocol !== 'https:') throw invalidOrigin(index, text, 'the scheme must be https')
  if (url.hostname === '' || (!url.hostname.includes('.') && !LOOPBACK_HOSTS.has(url.hostname)))
    throw invalidOrigin(index, text, 'the host must be a full domain name')
  return url.origin
}

export function normalizeOrigins(origins: readonly unknown[]): string[] {
  if (origins.length > ALLOWED_ORIGINS_MAX)
    throw new HostError(
      'public_prices_too_many_origins',
      422,
      `At most ${ALLOWED_ORIGINS_MAX} origins may read an investment's public prices.`,
      { max: ALLOWED_ORIGINS_MAX },
    )
  const out: string[] = []
  origins.forEach((origin, index) => {
    const normalized = normalizeOrigin(origin, index)
    if (!out.includes(normalized)) out.push(normalized)
  })
  return out
}

/** Where the endpoint and the component's script are, for a service reached at `serviceBase`. */
export function publicAddresses(serviceBase: string, investmentId: number) {
  const endpointUrl = `${serviceBase}/public/investments/${investmentId}/prices`
  const scriptUrl = `${serviceBase}/embed/${SERVICE_VERSION}/dg-prices.js`
  return {
    endpoint_url: endpointUrl,
    script_url: scriptUrl,
    snippet: `<script src="${scriptUrl}" defer></script>\n<dg-offer-table investment="${investmentId}"></dg-offer-table>`,
  }
}

async function requireInvestment(ctx: HostContext, investmentId: number) {
  const investment = await selectInvestmentTitle(ctx.db, investmentId)
  if (!investment) throw new HostError('investment_not_found', 404, `There is no investment ${investmentId}.`)
  return investment
}

export async function getPublicPricesSettings(
  ctx: HostContext,
  investmentId: number,
  serviceBase: string,
): Promise<PublicPricesSettingsView> {
  await requireInvestment(ctx, investmentId)
  const row = await selectPublicPricesSettings(ctx.db, investmentId)
  return {
    investment_id: investmentId,
    enabled: row?.enabled === 1,
    allowed_origins: row ? allowedOriginsOf(row) : [],
    ...publicAddresses(serviceBase, investmentId),
  }
}

/** Changes what is sent (`enabled`, `allowed_origins`), audited; refused whole (422) when an origin is not one. */
export async function updatePublicPricesSettings(
  ctx: HostContext,
  actor: Actor,
  investmentId: number,
  change: { enabled?: boolean | undefined; allowed_origins?: readonly unknown[] | undefined },
  serviceBase: string,
): Promise<PublicPricesSettingsView> {
  const origins = change.allowed_origins === undefined ? undefined : normalizeOrigins(change.allowed_origins)
  await requireInvestment(ctx, investmentId)
  return ctx.db.transaction().execute(async (trx) => {
    // read in the transaction, after the lock: the change builds on, and audits, what it replaces
    await lockInvestmentRow(trx, ctx.caps, investmentId)
    const row = await selectPublicPricesSettings(trx, investmentId)
    const before = {
      investment_id: investmentId,
      enabled: row?.enabled === 1,
      allowed_origins: row ? allowedOriginsOf(row) : [],
      ...publicAddresses(serviceBase, investmentId),
    }
    const after = {
      enabled: change.enabled ?? before.enabled,
      allowed_origins: origins ?? before.allowed_origins,
    }
    await upsertPublicPricesSettings(trx, {
      investment_id: investmentId,
      enabled: after.enabled ? 1 : 0,
      allowed_origins: JSON.stringify(after.allowed_origins),
      updated_at: ctx.now().toISOString(),
    })
    await recordAudit(
      ctx,
      {
        actor,
        action: 'public_prices.update',
        objectType: 'investment',
        objectId: investmentId,
        outcome: 'success',
        details: {
          before: { enabled: before.enabled, allowed_origins: before.allowed_origins },
          after,
        },
      },
      trx,
    )
    return { ...before, ...after }
  })
}
