/*
 * The licence in the panel (manage_options; not licence-gated, or a lapsed licence could never be
 * replaced there):
 *   GET {base_url}/license   the licence, its status and what each entitlement unlocks now
 *   PUT {base_url}/license   installs one, as `dg license set` does (audited as license.set)
 * `functions` says, per function the licence governs, whether it may run now and which
 * entitlement it needs, so the panel can say why beside any action it refuses.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { DateString, errorResponses, stringEnum } from '../host/http/schemas.js'
import { ENTITLEMENTS, type Entitlement, getLicenseState, type LicenseState, PLANS, setLicense } from './license.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]

/** The functions a licence governs and the entitlement each needs (docs/decisions/licence.md). */
export const LICENSED_FUNCTIONS: Readonly<Record<string, Entitlement>> = {
  publication: 'api_webhooks',
  status: 'api_webhooks',
  catalog: 'api_webhooks',
  webhook: 'api_webhooks',
  legacy_generate: 'api_webhooks',
  report_import: 'api_webhooks',
  offer_import: 'bulk_import',
  preflight: 'publishing_gov',
}

function licenseView(state: LicenseState) {
  const active = state.status === 'active'
  return {
    ...state,
    functions: Object.entries(LICENSED_FUNCTIONS).map(([name, entitlement]) => ({
      function: name,
      entitlement,
      allowed: active && state.entitlements.includes(entitlement),
    })),
  }
}

const LicenseSchema = Type.Object({
  plan: Type.Union([stringEnum(PLANS), Type.Null()]),
  status: stringEnum(['active', 'expired', 'suspended', 'inactive']),
  entitlements: Type.Array(stringEnum(ENTITLEMENTS)),
  valid_until: Type.Union([Type.String(), Type.Null()], { description: 'Last valid day (Europe/Warsaw), inclusive' }),
  continuity_mode: Type.Boolean({
    description:
      'True when the licence is not active: the daily scheduled publication goes on, licensed functions answer 403',
  }),
  updated_at: Type.Union([Type.String(), Type.Null()]),
  functions: Type.Array(
    Type.Object({
      function: Type.String({
        description: 'publication, status, catalog, webhook, legacy_generate, report_import, offer_import or preflight',
      }),
      entitlement: stringEnum(ENTITLEMENTS),
      allowed: Type.Boolean({ description: 'Whether the licence lets it run now' }),
    }),
  ),
})

const LicenseBody = Type.Object(
  {
    plan: stringEnum(PLANS),
    entitlements: Type.Array(stringEnum(ENTITLEMENTS), { maxItems: ENTITLEMENTS.length }),
    valid_until: Type.Optional(Type.Union([DateString, Type.Null()])),
  },
  { additionalProperties: false },
)

export async function licenseRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/license',
    {
      preHandler: [requireCapability('dg_read_all')],
      schema: {
        operationId: 'getLicense',
        tags: ['licence'],
        summary: 'The licence, its status and which licensed functions may run now',
        security,
        response: { 200: LicenseSchema, ...errorResponses(401, 403) },
      },
    },
    async () => licenseView(await getLicenseState(app.ctx)),
  )

  app.put(
    '/license',
    {
      preHandler: [requireCapability('manage_options')],
      schema: {
        operationId: 'setLicense',
        tags: ['licence'],
        summary: 'Install the licence (plan, entitlements, last valid day); applies at once on every instance',
        security,
        body: LicenseBody,
        response: { 200: LicenseSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const body = request.body
      return licenseView(
        await setLicense(app.ctx, {
          plan: body.plan,
          entitlements: body.entitlements,
          validUntil: body.valid_until ?? null,
          actor: actorOf(principal),
        }),
      )
    },
  )
}
