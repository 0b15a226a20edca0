/*
 * What `npm run demo` prepares: an administrator with a generated password, a catalog reader with
 * an application password, the webhook secret, a PRO licence and the demo catalog. The generated
 * passwords are kept in `demo-credentials.json` in the data folder (readable by its owner only),
 * so running the demo again prints the same working credentials; when they no longer work (someone
 * changed a password, a revoked one) new ones are made and the output says so.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import {
  createAppPassword,
  listAppPasswords,
  revokeAppPassword,
  verifyAppPassword,
} from '../host/auth/app-passwords.js'
import type { HostContext } from '../host/context.js'
import { checkLoginPassword, createUser, findUserByLoginOrEmail, setLoginPassword } from '../host/users/users.js'
import { ENTITLEMENTS, getLicenseState, setLicense } from '../licensing/license.js'
import { warsawDate } from '../host/warsaw-day.js'
import { ensureWebhookSecret } from '../webhook/webhook-secret.js'
import { seedDemoCatalog } from './demo-catalog.js'

export const DEMO_ADMIN_LOGIN = 'admin'
export const DEMO_READER_LOGIN = 'website'
const DEMO_APP_PASSWORD_NAME = 'demo website back end'

export const DEMO_CREDENTIALS_FILE = 'demo-credentials.json'

export interface DemoCredentials {
  /** `kept`: the credentials of the previous run still work and are shown again; `new`: made now. */
  credentials: 'kept' | 'new'
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

interface StoredCredentials {
  admin_password: string
  reader_password: string
  reader_uuid: string
}

async function readStoredCredentials(file: string): Promise<StoredCredentials | undefined> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<StoredCredentials>
    if (
      typeof parsed.admin_password === 'string' &&
      typeof parsed.reader_password === 'string' &&
      typeof parsed.reader_uuid === 'string'
    )
      return parsed as StoredCredentials
  } catch {
    // no file yet, or one we cannot read: new credentials are made
  }
  return undefined
}

async function stillWork(ctx: HostContext, stored: StoredCredentials): Promise<boolean> {
  const admin = await checkLoginPassword(ctx, DEMO_ADMIN_LOGIN, stored.admin_password)
  if (!admin || admin.role !== 'administrator') return false
  const reader = await verifyAppPassword(ctx, {
    name: DEMO_READER_LOGIN,
    password: stored.reader_password,
    ip: '127.0.0.1',
  })
  return reader.ok
}

export async function setUpDemo(ctx: HostContext): Promise<DemoCredentials> {
  const file = path.join(ctx.config.dataDir, DEMO_CREDENTIALS_FILE)
  const stored = await readStoredCredentials(file)
  let adminPassword: string
  let reader: { password: string; uuid: string }
  let credentials: DemoCredentials['credentials']
  if (stored && (await stillWork(ctx, stored))) {
    adminPassword = stored.admin_password
    reader = { password: stored.reader_password, uuid: stored.reader_uuid }
    credentials = 'kept'
  } else {
    adminPassword = await resetAdmin(ctx)
    reader = await resetReader(ctx)
    credentials = 'new'
    await fs.mkdir(ctx.config.dataDir, { recursive: true })
    const saved: StoredCredentials = {
      admin_password: adminPassword,
      reader_password: reader.password,
      reader_uuid: reader.uuid,
    }
    await fs.writeFile(file, `${JSON.stringify(saved, null, 1)}\n`, { mode: 0o600 })
    await fs.chmod(file, 0o600)
  }
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
    credentials,
    admin: { login: DEMO_ADMIN_LOGIN, password: adminPassword },
    reader: { login: DEMO_READER_LOGIN, application_password: reader.password, uuid: reader.uuid },
    webhook_secret: webhook.secret,
    license: { status: license.status, valid_until: license.valid_until },
    catalog,
  }
}
