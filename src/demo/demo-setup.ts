/*
 * What `npm run demo` prepares: an administrator with a generated password, a catalog reader with
 * an application password, the webhook secret, a PRO licence and the demo catalog. It never
 * replaces a credential that exists: the website's back end and the operator keep working after a
 * re-run, whatever was changed since. The passwords it generates are kept in
 * `demo-credentials.json` in the data folder (readable by its owner only) so that a re-run can show
 * them again while they still work; one changed or revoked since is left alone and not printed.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import { createAppPassword, listAppPasswords, verifyAppPassword } from '../host/auth/app-passwords.js'
import type { HostContext } from '../host/context.js'
import { checkLoginPassword, createUser, findUserByLoginOrEmail } from '../host/users/users.js'
import { ENTITLEMENTS, getLicenseState, setLicense } from '../licensing/license.js'
import { warsawDate } from '../host/warsaw-day.js'
import { ensureWebhookSecret } from '../webhook/webhook-secret.js'
import { seedDemoCatalog } from './demo-catalog.js'

export const DEMO_ADMIN_LOGIN = 'admin'
export const DEMO_READER_LOGIN = 'website'
const DEMO_APP_PASSWORD_NAME = 'strona internetowa (demo)'
// the name the demo gave it before; a data folder made then keeps its password
const EARLIER_APP_PASSWORD_NAMES = new Set([DEMO_APP_PASSWORD_NAME, 'demo website back end'])

export const DEMO_CREDENTIALS_FILE = 'demo-credentials.json'

/**
 * `created`: made by this run; `kept`: made by an earlier run and still working (shown again);
 * `unchanged`: it exists but is not one the demo can show (changed or made by someone else): it is
 * left as it is and not printed.
 */
export type DemoCredentialState = 'created' | 'kept' | 'unchanged'

export interface DemoCredentials {
  admin: { login: string; password: string | null; state: DemoCredentialState }
  reader: { login: string; application_password: string | null; uuid: string | null; state: DemoCredentialState }
  webhook_secret: string
  license: { status: string; valid_until: string | null }
  catalog: { created: boolean; developers: number; investments: number; offers: number }
}

interface StoredCredentials {
  admin_password?: string
  reader_password?: string
  reader_uuid?: string
}

async function readStoredCredentials(file: string): Promise<StoredCredentials> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined)
    return {
      admin_password: text(parsed.admin_password),
      reader_password: text(parsed.reader_password),
      reader_uuid: text(parsed.reader_uuid),
    }
  } catch {
    // no file yet, or one we cannot read: nothing to show again
    return {}
  }
}

async function writeStoredCredentials(file: string, stored: StoredCredentials): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true })
  await fs.writeFile(file, `${JSON.stringify(stored, null, 1)}\n`, { mode: 0o600 })
  await fs.chmod(file, 0o600)
}

/** Creates the administrator when there is none; an existing one keeps its password. */
async function ensureAdmin(ctx: HostContext, stored: StoredCredentials): Promise<DemoCredentials['admin']> {
  const login = DEMO_ADMIN_LOGIN
  if (!(await findUserByLoginOrEmail(ctx, login))) {
    const created = await createUser(ctx, {
      login,
      email: 'admin@example.com',
      role: 'administrator',
      displayName: 'Demo administrator',
      actor: { type: 'cli' },
    })
    return { login, password: created.password ?? '', state: 'created' }
  }
  if (stored.admin_password !== undefined) {
    const admin = await checkLoginPassword(ctx, login, stored.admin_password)
    if (admin?.role === 'administrator') return { login, password: stored.admin_password, state: 'kept' }
  }
  return { login, password: null, state: 'unchanged' }
}

/**
 * Creates the reader and its application password when they are missing; a password of that name
 * that exists is never revoked (the website's back end may be using it).
 */
async function ensureReader(ctx: HostContext, stored: StoredCredentials): Promise<DemoCredentials['reader']> {
  const login = DEMO_READER_LOGIN
  const actor = { type: 'cli' } as const
  if (!(await findUserByLoginOrEmail(ctx, login))) {
    await createUser(ctx, {
      login,
      email: 'website@example.com',
      role: 'dg_catalog_reader',
      displayName: 'Company website',
      actor,
    })
  }
  const existing = (await listAppPasswords(ctx, login)).items.filter((i) => EARLIER_APP_PASSWORD_NAMES.has(i.name))
  if (existing.length === 0) {
    const created = await createAppPassword(ctx, { login, name: DEMO_APP_PASSWORD_NAME, actor })
    return { login, application_password: created.password, uuid: created.uuid, state: 'created' }
  }
  const storedOne = existing.find((i) => i.uuid === stored.reader_uuid)
  if (storedOne && stored.reader_password !== undefined) {
    const check = await verifyAppPassword(ctx, { name: login, password: stored.reader_password, ip: '127.0.0.1' })
    if (check.ok) return { login, application_password: stored.reader_password, uuid: storedOne.uuid, state: 'kept' }
  }
  return { login, application_password: null, uuid: existing[0]?.uuid ?? null, state: 'unchanged' }
}

/** The demo with every credential known: made now, or by an earlier run and still working. */
export interface KnownDemoCredentials extends DemoCredentials {
  admin: { login: string; password: string; state: DemoCredentialState }
  reader: { login: string; application_password: string; uuid: string; state: DemoCredentialState }
}

/**
 * Prepares the demo where a suite or a benchmark needs its passwords (a data folder of its own):
 * refuses, rather than replaces, a credential that exists and is not the demo's own.
 */
export async function setUpDemo(ctx: HostContext): Promise<KnownDemoCredentials> {
  const demo = await prepareDemo(ctx)
  const { admin, reader } = demo
  if (admin.password === null || reader.application_password === null || reader.uuid === null)
    throw new Error(
      'The demo users exist with credentials the demo did not make (or that were changed since): they are left as they are.',
    )
  return {
    ...demo,
    admin: { ...admin, password: admin.password },
    reader: { ...reader, application_password: reader.application_password, uuid: reader.uuid },
  }
}

/** Prepares the demo (`npm run demo`, `dg demo seed`): creates what is missing, replaces nothing. */
export async function prepareDemo(ctx: HostContext): Promise<DemoCredentials> {
  const file = path.join(ctx.config.dataDir, DEMO_CREDENTIALS_FILE)
  const stored = await readStoredCredentials(file)
  const admin = await ensureAdmin(ctx, stored)
  const reader = await ensureReader(ctx, stored)
  if (admin.state === 'created' || reader.state === 'created') {
    await writeStoredCredentials(file, {
      ...stored,
      ...(admin.state === 'created' && admin.password !== null ? { admin_password: admin.password } : {}),
      ...(reader.state === 'created' && reader.application_password !== null && reader.uuid !== null
        ? { reader_password: reader.application_password, reader_uuid: reader.uuid }
        : {}),
    })
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
    admin,
    reader,
    webhook_secret: webhook.secret,
    license: { status: license.status, valid_until: license.valid_until },
    catalog,
  }
}
