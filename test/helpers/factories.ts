import { createAppPassword } from '../../src/host/auth/app-passwords.js'
import type { RoleName } from '../../src/host/auth/capabilities.js'
import type { HostContext } from '../../src/host/context.js'
import { createUser } from '../../src/host/users/users.js'
import { setLicense } from '../../src/licensing/license.js'

let sequence = 0
const LOGIN_PREFIXES: Record<RoleName, string> = {
  administrator: 'admin',
  dg_operator: 'operator',
  dg_auditor: 'auditor',
  dg_catalog_reader: 'reader',
}

export interface TestUser {
  id: number
  login: string
  email: string
  appPassword: string
  appPasswordUuid: string
  /** Value of an Authorization header with the application password. */
  authorization: string
}

export function basicAuth(name: string, password: string): string {
  return `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`
}

export async function createTestUser(
  ctx: HostContext,
  role: RoleName,
  login?: string,
): Promise<TestUser & { loginPassword: string }> {
  sequence++
  const name = login ?? `${LOGIN_PREFIXES[role]}${sequence}`
  const loginPassword = `login-password-${sequence}-xyz`
  const { user } = await createUser(ctx, {
    login: name,
    email: `${name}@example.test`,
    role,
    password: loginPassword,
    actor: { type: 'system' },
  })
  const created = await createAppPassword(ctx, { login: name, name: 'tests', actor: { type: 'system' } })
  return {
    id: user.id,
    login: user.login,
    email: user.email,
    appPassword: created.password,
    appPasswordUuid: created.uuid,
    authorization: basicAuth(user.login, created.password),
    loginPassword,
  }
}

export async function grantProLicense(
  ctx: HostContext,
  entitlements: string[] = ['api_webhooks', 'bulk_import', 'publishing_gov'],
): Promise<void> {
  await setLicense(ctx, { plan: 'pro', entitlements, validUntil: null, actor: { type: 'system' } })
}
