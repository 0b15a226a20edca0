/*
 * The platform's page over REST (docs/operations/hosting-many-companies.md): the first company's
 * administrators manage the other companies — create, list with their health, change addresses,
 * suspend, resume, export, delete — and never see a company's data, users, passwords or secrets.
 * Registered in the first company's app only; the same service functions as `dg tenant`.
 */
import path from 'node:path'

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { errorResponses, noBody } from '../host/http/schemas.js'
import { exportTenant, platformOfApp } from './platform.js'
import {
  createTenant,
  deleteTenant,
  getTenant,
  listTenants,
  resumeTenant,
  suspendTenant,
  updateTenant,
} from './tenant-service.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const tags = ['platform']

const Slug = Type.String({ description: 'The company’s slug: its path /t/{slug}/ on the platform', maxLength: 60 })
const Hosts = Type.Array(Type.String({ maxLength: 260 }), {
  maxItems: 20,
  description: 'Host names the company also answers on (without scheme or path), e.g. ceny.firma.pl',
})
const SiteUrl = Type.Union([Type.String({ maxLength: 500 }), Type.Null()], {
  description: 'The company’s website, for its offers’ permalinks; null: its address on the platform',
})

const tenantFields = {
  slug: Type.String(),
  name: Type.String(),
  status: Type.String({ description: 'active or suspended' }),
  hosts: Type.Array(Type.String()),
  site_url: Type.Union([Type.String(), Type.Null()]),
  base_url: Type.String({ description: 'The company’s contract API base ({base_url})' }),
  panel_url: Type.String(),
  files_url: Type.String({ description: 'Where its official files (dataset.xml, day files) are served' }),
  created_at: Type.String(),
  suspended_at: Type.Union([Type.String(), Type.Null()]),
  exported_at: Type.Union([Type.String(), Type.Null()]),
}

export const TenantSchema = Type.Object(tenantFields, { $id: 'Tenant' })

const HealthSchema = Type.Object({
  offers_on_sale: Type.Integer(),
  users: Type.Integer(),
  last_publication: Type.Union([
    Type.Object({ day: Type.String(), status: Type.String(), finished_at: Type.Union([Type.String(), Type.Null()]) }),
    Type.Null(),
  ]),
  recent_alerts: Type.Integer({ description: 'Alerts raised in the last 7 days' }),
})

const CreatedSchema = Type.Object({
  ...tenantFields,
  admin: Type.Object(
    {
      login: Type.String(),
      password: Type.String({ description: 'The first administrator’s panel password; shown once' }),
      application_password: Type.String({ description: 'An application password of that administrator; shown once' }),
    },
    { description: 'Hand these to the company; the platform keeps no copy it could show again' },
  ),
})

// in a path the slug's own shape, so that nothing else (a NUL byte, which PostgreSQL refuses) reaches a
// query; a new slug in a body is checked by the service, which names the rule at its field
const SlugParams = Type.Object({
  slug: Type.String({
    description: 'The company’s slug: its path /t/{slug}/ on the platform',
    maxLength: 60,
    pattern: '^[a-z][a-z0-9-]{1,38}[a-z0-9]$',
  }),
})

export async function platformRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  fastify.addSchema(TenantSchema)
  const admin = { preHandler: [requireCapability('manage_options')] }

  app.get(
    '/platform/tenants',
    {
      ...admin,
      schema: {
        operationId: 'listTenants',
        tags,
        summary: 'The companies this deployment serves besides its own; manage_options of the first company',
        security,
        response: { 200: Type.Array(Type.Ref('Tenant')), ...errorResponses(401, 403) },
      },
    },
    async () => listTenants(platformOfApp(app)),
  )

  app.post(
    '/platform/tenants',
    {
      ...admin,
      schema: {
        operationId: 'createTenant',
        tags,
        summary: 'Create a company: its own database, addresses, first administrator; manage_options',
        description:
          'The same as `dg tenant create`. 409 `tenant_exists`, `tenant_host_taken`; 422 `invalid_tenant_slug`, `invalid_tenant_name`, `invalid_tenant_host`, `invalid_site_url`. The administrator’s passwords are in this answer only.',
        security,
        body: Type.Object(
          {
            slug: Slug,
            name: Type.String({ maxLength: 200 }),
            hosts: Type.Optional(Hosts),
            site_url: Type.Optional(SiteUrl),
            admin_email: Type.Optional(Type.String({ format: 'email', maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: CreatedSchema, ...errorResponses(400, 401, 403, 409, 422) },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      const { slug, name, hosts, site_url: siteUrl, admin_email: adminEmail } = request.body
      const created = await createTenant(
        platformOfApp(app),
        {
          slug,
          name,
          ...(hosts ? { hosts } : {}),
          ...(siteUrl === undefined ? {} : { siteUrl }),
          ...(adminEmail ? { adminEmail } : {}),
        },
        actorOf(principal),
      )
      reply.header('Cache-Control', 'no-store')
      return reply.code(201).send(created)
    },
  )

  app.get(
    '/platform/tenants/:slug',
    {
      ...admin,
      schema: {
        operationId: 'getTenant',
        tags,
        summary: 'One company with its health (counts and dates, never its data); manage_options',
        security,
        params: SlugParams,
        response: {
          200: Type.Object({ ...tenantFields, health: HealthSchema }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => getTenant(platformOfApp(app), request.params.slug),
  )

  app.patch(
    '/platform/tenants/:slug',
    {
      ...admin,
      schema: {
        operationId: 'updateTenant',
        tags,
        summary: 'Rename a company, change its host names or website; its /t/{slug}/ path never changes',
        security,
        params: SlugParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ maxLength: 200 })),
            hosts: Type.Optional(Hosts),
            site_url: Type.Optional(SiteUrl),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref('Tenant'), ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const { name, hosts, site_url: siteUrl } = request.body
      return updateTenant(
        platformOfApp(app),
        request.params.slug,
        {
          ...(name === undefined ? {} : { name }),
          ...(hosts ? { hosts } : {}),
          ...(siteUrl === undefined ? {} : { siteUrl }),
        },
        actorOf(principal),
      )
    },
  )

  for (const [action, run] of [
    ['suspend', suspendTenant],
    ['resume', resumeTenant],
  ] as const) {
    app.post(
      `/platform/tenants/:slug/${action}`,
      {
        ...admin,
        schema: {
          operationId: `${action}Tenant`,
          tags,
          summary:
            action === 'suspend'
              ? 'Suspend a company: its API and panel answer 403 tenant_suspended, its schedules stop, its published files stay served'
              : 'Resume a suspended company',
          security,
          params: SlugParams,
          response: { 200: Type.Ref('Tenant'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const principal = await requirePrincipal(request)
        return run(platformOfApp(app), request.params.slug, actorOf(principal))
      },
    )
  }

  app.post(
    '/platform/tenants/:slug/export',
    {
      ...admin,
      schema: {
        operationId: 'exportTenant',
        tags,
        summary: 'Export everything of a company into a folder on the server, restorable into another deployment',
        description:
          'Written under the platform’s data folder, in exports/; the same as `dg tenant export`. Deleting a company requires an export.',
        security,
        params: SlugParams,
        response: {
          200: Type.Object({ folder: Type.String({ description: 'The export’s folder on the server' }) }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const platform = platformOfApp(app)
      const stamp = platform.ctx.now().toISOString().replace(/[:.]/g, '-')
      const folder = path.join(platform.ctx.config.dataDir, 'exports', `${request.params.slug}-${stamp}`)
      await exportTenant(platform, request.params.slug, folder, actorOf(principal))
      return { folder }
    },
  )

  app.delete(
    '/platform/tenants/:slug',
    {
      ...admin,
      schema: {
        operationId: 'deleteTenant',
        tags,
        summary: 'Delete a company with all its data and files, after an export; confirm=<slug>',
        description:
          '422 `tenant_delete_unconfirmed` without confirm equal to the slug; 409 `tenant_not_exported` before an export.',
        security,
        params: SlugParams,
        querystring: Type.Object({ confirm: Type.Optional(Type.String({ maxLength: 60 })) }),
        response: { 204: noBody(), ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      await deleteTenant(platformOfApp(app), request.params.slug, request.query.confirm ?? '', actorOf(principal))
      return reply.code(204).send()
    },
  )
}
