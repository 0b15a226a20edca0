/*
 * Refusals of anonymous requests are audited per client address, cause and window, with a count,
 * so that no anonymous caller grows the audit log without bound; a success keeps its own entry.
 */
import { beforeAll, expect, it } from 'vitest'

import { ANONYMOUS_REFUSALS } from '../../../src/host/audit/audit.js'
import { createTestUser, type TestUser } from '../../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

const BASE = '/wp-json/dg/v2'

interface Entry {
  action: string
  occurred_at: string
  outcome: string
  details: {
    reason?: string
    count?: number
    ip?: string
    address?: string
    window_from?: string
    window_until?: string
  }
}

describeEachDatabase('anonymous refusals in the audit log', (getEnv) => {
  let env: TestEnv
  let admin: TestUser & { loginPassword: string }

  const signIn = (login: string, password: string, ip: string) =>
    env.app.inject({ method: 'POST', url: `${BASE}/session`, payload: { login, password }, remoteAddress: ip })
  const logins = async (): Promise<Entry[]> => {
    const page = await env.app.inject({
      url: `${BASE}/audit`,
      query: { action: 'session.login', per_page: '100' },
      headers: { authorization: admin.authorization },
    })
    expect(page.statusCode, page.body).toBe(200)
    return page.json().items as Entry[]
  }
  const refusedFrom = (entries: Entry[], ip: string) =>
    entries.filter((e) => e.outcome === 'refused' && e.details.ip === ip)
  const total = (entries: Entry[]) => entries.reduce((sum, e) => sum + (e.details.count ?? 0), 0)

  beforeAll(async () => {
    env = getEnv()
    admin = await createTestUser(env.ctx, 'administrator')
    env.clock.set('2026-11-20T10:00:00Z')
  })

  it('writes 60 refused sign-ins from one address as one entry per cause, then one count per cause when the window ends', async () => {
    const ip = '198.51.100.31'
    const statuses: number[] = []
    for (let i = 0; i < 60; i++) {
      statuses.push((await signIn('nobody-here', `guess-${i}`, ip)).statusCode)
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(5)
    expect(statuses.filter((s) => s === 429)).toHaveLength(55)

    // at once: the window's first refusal of each cause, with its details
    const during = refusedFrom(await logins(), ip)
    expect(during.map((e) => [e.details.reason, e.details.count]).sort()).toEqual([
      ['throttled', 1],
      ['wrong_password', 1],
    ])
    expect(during[0]!.details.window_from).toBe('2026-11-20T10:00:00.000Z')
    expect(during[0]!.details.window_until).toBe('2026-11-20T10:15:00.000Z')

    // after the window: the rest of each cause as one entry, the counts add up to the requests
    env.clock.set('2026-11-20T10:15:00Z')
    const after = refusedFrom(await logins(), ip)
    expect(after).toHaveLength(4)
    expect(total(after.filter((e) => e.details.reason === 'wrong_password'))).toBe(5)
    expect(total(after.filter((e) => e.details.reason === 'throttled'))).toBe(55)
    expect(total(after)).toBe(60)
    // read again: nothing more is written
    expect(refusedFrom(await logins(), ip)).toHaveLength(4)
  })

  it('keeps a successful sign-in as its own entry, and counts another address apart', async () => {
    env.clock.set('2026-11-20T11:00:00Z')
    expect((await signIn(admin.login, admin.loginPassword, '198.51.100.40')).statusCode).toBe(200)
    expect((await signIn(admin.login, admin.loginPassword, '198.51.100.40')).statusCode).toBe(200)
    expect((await signIn('someone-else', 'wrong', '198.51.100.41')).statusCode).toBe(401)
    const entries = await logins()
    const successes = entries.filter(
      (e) => e.outcome === 'success' && e.details.ip === '198.51.100.40' && e.occurred_at >= '2026-11-20T11:00',
    )
    expect(successes).toHaveLength(2)
    expect(refusedFrom(entries, '198.51.100.41').map((e) => e.details.count)).toEqual([1])
  })

  it(`gives at most ${ANONYMOUS_REFUSALS.addressesPerWindow} addresses a count of their own per window; the rest share one`, async () => {
    env.clock.set('2026-11-20T12:00:00Z')
    const addresses = ANONYMOUS_REFUSALS.addressesPerWindow + 10
    for (let i = 0; i < addresses; i++)
      expect((await signIn(`spread-${i}`, 'wrong', `203.0.113.${i + 1}`)).statusCode).toBe(401)
    env.clock.set('2026-11-20T12:15:00Z')
    const window = (await logins()).filter(
      (e) => e.outcome === 'refused' && e.details.window_from === '2026-11-20T12:00:00.000Z',
    )
    expect(window).toHaveLength(ANONYMOUS_REFUSALS.addressesPerWindow + 2)
    const shared = window.filter((e) => e.details.address === ANONYMOUS_REFUSALS.otherAddresses)
    expect(shared.map((e) => e.details.count).sort()).toEqual([1, 9])
    expect(total(window)).toBe(addresses)
  })
})
