/*
 * What `npm run demo` prepares: an administrator with a fresh generated password, a catalog
 * reader with a fresh application password, the webhook secret, a PRO licence and the demo
 * catalog. Running it again keeps the data and issues new credentials, so the operator always
 * sees working ones.
 */
import { createAppPassword, listAppPasswords, revokeAppPassword } from '../host/auth/app-passwords.js'
import type { HostContext } from '../host/context.js'
import { createUser, findUserByLoginOrEmail, setLoginPassword } from '../host/users/users.js'
import { ENTITLEMENTS, getLicenseState, setLicense, warsawDate } from '../licensing/license.js'
import { ensureWebhookSecret } from '../webhook/webhook-secret.js'
import { seedDemoCatalog } from './demo-catalog.js'

export const DEMO_ADMIN_LOGIN = 'admin'
export const DEMO_READER_LOGIN = 'website'
const DEMO_APP_PASSWORD_NAME = 'demo website back end'

export interface DemoCredentials {
  admin: { login: string; password: string }
  reader: { login: string; application_password: string; uuid: string }
  webhook_secret: string
  license: { status: string; valid_until: string | null }
  catalog: { created: boolean; developers: number; investments: number; offers: number }
}

async function resetAdmin(ctx: HostContext): Promise<string> {
  const actor = { type: 'cli' } as const
  const existing = await findUserByLoginOrEmail(ctx, DEMO_ADMIN_LOGIN)
  if (!existing) {
    const created = await createUser(ctx, {
      login: DEMO_ADMIN_LOGIN,
      email: 'admin@example.com',
      role: 'administrator',
      displayName: 'Demo administrator',
      actor,
    })
    return created.password ?? ''
  }
  return (await setLoginPassword(ctx, { login: DEMO_ADMIN_LOGIN, actor })).password ?? ''
}

async function resetReader(ctx: HostContext): Promise<{ password: string; uuid: string }> {
  const actor = { type: 'cli' } as const
  if (!(await findUserByLoginOrEmail(ctx, DEMO_READER_LOGIN))) {
    await createUser(ctx, {
      login: DEMO_READER_LOGIN,
      email: 'website@example.com',
      role: 'dg_catalog_reader',
      displayName: 'Company website',
      actor,
    })
  }
  for (const item of (await listAppPasswords(ctx, DEMO_READER_LOGIN)).items) {
    if (item.name === DEMO_APP_PASSWORD_NAME)
      await revokeAppPassword(ctx, { login: DEMO_READER_LOGIN, uuid: item.uuid, actor })
  }
  const created = await createAppPassword(ctx, { login: DEMO_READER_LOGIN, name: DEMO_APP_PASSWORD_NAME, actor })
  return { password: created.password, uuid: created.uuid }
}

export async function setUpDemo(ctx: HostContext): Promise<DemoCredentials> {
  const adminPassword = await resetAdmin(ctx)
  const reader = await resetReader(ctx)
  const webhook = await ensureWebhookSecret(ctx, { type: 'cli' })
  let license = await getLicenseState(ctx)
  if (license.status !== 'active') {
    const nextYear = new Date(ctx.now().getTime() + 365 * 24 * 3600 * 1000)
    license = await setLicense(ctx, {
      plan: 'pro',
      entitlements: [...ENTITLEMENTS],
      validUntil: warsawDate(nextYear),
      actor: { type: 'cli' },
    })
  }
  const catalog = await seedDemoCatalog(ctx)
  return {
    admin: { login: DEMO_ADMIN_LOGIN, password: adminPassword },
    reader: { login: DEMO_READER_LOGIN, application_password: reader.password, uuid: reader.uuid },
    webhook_secret: webhook.secret,
    license: { status: license.status, valid_until: license.valid_until },
    catalog,
  }
}
