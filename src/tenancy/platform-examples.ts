/*
 * Descriptions and examples of the platform's operations on companies, for the OpenAPI document
 * (see src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

const tenant = {
  slug: 'osiedle-zielone',
  name: 'Osiedle Zielone Sp. z o.o.',
  status: 'active',
  hosts: ['ceny.osiedle-zielone.pl'],
  site_url: 'https://osiedle-zielone.pl',
  base_url: 'https://ceny.osiedle-zielone.pl/wp-json/dg/v2',
  panel_url: 'https://ceny.osiedle-zielone.pl/dg-admin/',
  files_url: 'https://ceny.osiedle-zielone.pl/dane-gov/',
  created_at: '2026-11-20T10:00:00.000Z',
  suspended_at: null,
  exported_at: null,
}

export const PLATFORM_EXAMPLES: OperationDocsByRoute = {
  'GET /wp-json/dg/v2/platform/tenants': {
    description:
      'The companies this deployment serves besides its own, with their addresses: each one’s contract API (`base_url`), panel and official files. Only on the first company’s address, for its administrators (the platform’s administrators); a company’s data, users and secrets are never listed.',
    response: { status: 200, body: [tenant] },
  },
  'POST /wp-json/dg/v2/platform/tenants': {
    description:
      'Creates a company: its own database, data folder and addresses (`/t/{slug}/` on the platform, and its host names), its first administrator (login `admin`) with a panel password and an application password returned in this answer only, the platform’s licence and the public address of its official files. The same as `dg tenant create`. 409 `tenant_exists`, `tenant_host_taken`; 422 `invalid_tenant_slug`, `invalid_tenant_name`, `invalid_tenant_host`, `invalid_site_url`.',
    request: {
      slug: 'osiedle-zielone',
      name: 'Osiedle Zielone Sp. z o.o.',
      hosts: ['ceny.osiedle-zielone.pl'],
      site_url: 'https://osiedle-zielone.pl',
      admin_email: 'it@osiedle-zielone.pl',
    },
    response: {
      status: 201,
      body: {
        ...tenant,
        admin: { login: 'admin', password: 'k3RbT9mQx2LwZp7vHs4a', application_password: 'Ab12Cd34Ef56Gh78Ij90Kl12' },
      },
    },
  },
  'GET /wp-json/dg/v2/platform/tenants/{slug}': {
    description:
      'One company with its health: offers on sale, users, the last publication and the alerts of the last 7 days — counts and dates only. 404 `tenant_not_found`.',
    parameters: { slug: 'osiedle-zielone' },
    response: {
      status: 200,
      body: {
        ...tenant,
        health: {
          offers_on_sale: 42,
          users: 3,
          last_publication: { day: '2026-11-20', status: 'published', finished_at: '2026-11-19T23:30:04.000Z' },
          recent_alerts: 0,
        },
      },
    },
  },
  'PATCH /wp-json/dg/v2/platform/tenants/{slug}': {
    description:
      'Renames a company or replaces its host names or website. Its `/t/{slug}/` addresses never change, so the files it has published keep their URLs; add a host name rather than replace one that the portal already harvests. 409 `tenant_host_taken`; 422 `invalid_tenant_host`, `invalid_site_url`.',
    parameters: { slug: 'osiedle-zielone' },
    request: { hosts: ['ceny.osiedle-zielone.pl', 'ceny.zielone.pl'] },
    response: { status: 200, body: { ...tenant, hosts: ['ceny.osiedle-zielone.pl', 'ceny.zielone.pl'] } },
  },
  'POST /wp-json/dg/v2/platform/tenants/{slug}/suspend': {
    description:
      'Suspends a company: its API and panel answer 403 `tenant_suspended`, its daily publication and maintenance stop; its published files stay served. Audited as `tenant.suspend`.',
    parameters: { slug: 'osiedle-zielone' },
    response: { status: 200, body: { ...tenant, status: 'suspended', suspended_at: '2026-11-20T10:05:00.000Z' } },
  },
  'POST /wp-json/dg/v2/platform/tenants/{slug}/resume': {
    description: 'Resumes a suspended company: its API, panel and schedules work again. Audited as `tenant.resume`.',
    parameters: { slug: 'osiedle-zielone' },
    response: { status: 200, body: tenant },
  },
  'POST /wp-json/dg/v2/platform/tenants/{slug}/export': {
    description:
      'Exports everything of the company (every table and every file of its data folder, with checksums) into a new folder under the platform’s data folder (`exports/`), restorable into another deployment with `dg tenant import` or `dg data import`. It holds password hashes and secrets: keep it like a backup.',
    parameters: { slug: 'osiedle-zielone' },
    response: { status: 200, body: { folder: '/var/lib/dg-offers/exports/osiedle-zielone-2026-11-20T10-10-00-000Z' } },
  },
  'DELETE /wp-json/dg/v2/platform/tenants/{slug}': {
    description:
      'Deletes a company with its database, data folder and published files, after an export and with `confirm` repeating the slug. 409 `tenant_not_exported`; 422 `tenant_delete_unconfirmed`.',
    parameters: { slug: 'osiedle-zielone', confirm: 'osiedle-zielone' },
  },
}
