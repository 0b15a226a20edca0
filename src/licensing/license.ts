/*
 * Licence and entitlements (docs/decisions/licence.md). Feature code calls `requires(ctx, feature)`;
 * it never tests the plan name. Without an active licence the service is in continuity mode:
 * the daily official publication keeps running (the legal duty does not pause), while PRO
 * features answer 403 `pro_feature_required`.
 */
import { isCalendarDate, warsawDate } from '../host/warsaw-day.js'
import type { Actor } from '../host/audit/audit.js'
import { recordAudit } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { HostError, proFeatureRequired } from '../host/errors.js'
import { getOption, setOption } from '../host/options/options.js'

export const ENTITLEMENTS = ['api_webhooks', 'bulk_import', 'publishing_gov'] as const
export type Entitlement = (typeof ENTITLEMENTS)[number]

export const PLANS = ['free', 'pro'] as const
export type Plan = (typeof PLANS)[number]

const LICENSE_OPTION = 'dg_license'

interface StoredLicense {
  plan: Plan
  entitlements: Entitlement[]
  /** Last day (Europe/Warsaw) the licence is valid, inclusive; null = no end date. */
  valid_until: string | null
  suspended: boolean
  updated_at: string
}

export type LicenseStatus = 'active' | 'expired' | 'suspended' | 'inactive'

export interface LicenseState {
  plan: Plan | null
  status: LicenseStatus
  entitlements: Entitlement[]
  valid_until: string | null
  continuity_mode: boolean
  updated_at: string | null
}

export async function getLicenseState(ctx: Pick<HostContext, 'db' | 'now'>): Promise<LicenseState> {
  return licenseStateOf(await getOption<StoredLicense>(ctx, LICENSE_OPTION), ctx.now())
}

function licenseStateOf(stored: StoredLicense | undefined, now: Date): LicenseState {
  if (!stored) {
    return {
      plan: null,
      status: 'inactive',
      entitlements: [],
      valid_until: null,
      continuity_mode: true,
      updated_at: null,
    }
  }
  let status: LicenseStatus = 'active'
  if (stored.plan !== 'pro') status = 'inactive'
  else if (stored.suspended) status = 'suspended'
  else if (stored.valid_until !== null && stored.valid_until < warsawDate(now)) status = 'expired'
  return {
    plan: stored.plan,
    status,
    entitlements: [...stored.entitlements],
    valid_until: stored.valid_until,
    continuity_mode: status !== 'active',
    updated_at: stored.updated_at,
  }
}

function assertEntitled(state: LicenseState, feature: Entitlement): void {
  if (state.status !== 'active' || !state.entitlements.includes(feature)) throw proFeatureRequired(feature)
}

/** Throws 403 `pro_feature_required` unless the licence is active and grants the entitlement. */
export async function requires(ctx: Pick<HostContext, 'db' | 'now'>, feature: Entitlement): Promise<void> {
  assertEntitled(await getLicenseState(ctx), feature)
}

const storedAtRevision = new WeakMap<object, { revision: number; stored: StoredLicense | undefined }>()

/**
 * `requires` for a caller that has just read the catalog revision (the catalog, on every
 * request): every write to the options table bumps that revision in the same transaction
 * (migration 0002), so the stored licence is read again only after a write, on any instance.
 * Its expiry is still judged against today's date on each call.
 */
export async function requiresAtCatalogRevision(
  ctx: Pick<HostContext, 'db' | 'now'>,
  feature: Entitlement,
  revision: number,
): Promise<void> {
  let known = storedAtRevision.get(ctx.db)
  if (known?.revision !== revision) {
    known = { revision, stored: await getOption<StoredLicense>(ctx, LICENSE_OPTION) }
    storedAtRevision.set(ctx.db, known)
  }
  assertEntitled(licenseStateOf(known.stored, ctx.now()), feature)
}

export interface SetLicenseArgs {
  plan: string
  entitlements: string[]
  validUntil?: string | null | undefined
  suspended?: boolean
  actor: Actor
}

export async function setLicense(ctx: HostContext, args: SetLicenseArgs): Promise<LicenseState> {
  if (!(PLANS as readonly string[]).includes(args.plan)) {
    throw new HostError('invalid_license_plan', 400, `Unknown plan "${args.plan}"; use one of: ${PLANS.join(', ')}.`)
  }
  const unknown = args.entitlements.filter((entitlement) => !(ENTITLEMENTS as readonly string[]).includes(entitlement))
  if (unknown.length > 0) {
    throw new HostError(
      'invalid_license_entitlement',
      400,
      `Unknown entitlement(s): ${unknown.join(', ')}; known: ${ENTITLEMENTS.join(', ')}.`,
    )
  }
  const validUntil = args.validUntil ?? null
  if (validUntil !== null && !isCalendarDate(validUntil)) {
    throw new HostError('invalid_license_date', 400, `valid-until must be a real date YYYY-MM-DD, got "${validUntil}".`)
  }
  const stored: StoredLicense = {
    plan: args.plan as Plan,
    entitlements: [...new Set(args.entitlements as Entitlement[])].sort(),
    valid_until: validUntil,
    suspended: args.suspended ?? false,
    updated_at: ctx.now().toISOString(),
  }
  await ctx.db.transaction().execute(async (trx) => {
    await setOption(ctx, LICENSE_OPTION, stored, { autoload: true, db: trx })
    await recordAudit(
      ctx,
      {
        actor: args.actor,
        action: 'license.set',
        objectType: 'license',
        outcome: 'success',
        details: { plan: stored.plan, entitlements: stored.entitlements, valid_until: stored.valid_until },
      },
      trx,
    )
  })
  return getLicenseState(ctx)
}
