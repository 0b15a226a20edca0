/*
 * The service the endpoint suites attack, one per database: its log captured at level trace, the
 * demo data, an administrator of its own, a signed-in session, the OpenAPI document and ids that
 * exist. Every credential it hands out is collected, and each suite ends by searching its log for
 * them (logHoldsNoSecret).
 */
import { afterAll, beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { getWebhookSecret } from '../../src/webhook/webhook-secret.js'
import type { TestDialect } from '../helpers/databases.js'
import { basicAuth, createTestUser } from '../helpers/factories.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'
import {
  type CapturedLog,
  captureLog,
  type DocumentedOperation,
  documentedOperations,
  type OpenApiDocument,
  printCasesTried,
  secretsInLog,
} from './fuzz-harness.js'

export const V2 = '/wp-json/dg/v2'
export const METRICS_TOKEN = 'fuzz-metrics-token-0123456789abcdef0123'

type Json = Record<string, unknown>

/** What a suite gets; everything but `log`, `secrets`, `ids` and `login` is set in its beforeAll. */
export interface FuzzedApp {
  env: TestEnv
  log: CapturedLog
  document: OpenApiDocument
  operations: DocumentedOperation[]
  /** Values that must never reach the log. */
  secrets: Set<string>
  admin: { authorization: string; login: string; appPassword: string; loginPassword: string }
  reader: string
  session: { cookie: string; nonce: string } | undefined
  ids: { investment: string; property: string; job: string; developer: string }
  /** Signs the demo administrator in; the cookie and nonce join the secrets. */
  login: () => Promise<{ cookie: string; nonce: string }>
}

/** Starts the app before the suite (`suite` names it in the cases printed after it) and closes it after. */
export function startFuzzedApp(dialect: TestDialect, suite: string): FuzzedApp {
  let adminLogin: { login: string; password: string }
  const fuzzed = {
    log: captureLog(),
    secrets: new Set<string>(),
    session: undefined,
    ids: { investment: '1', property: '1', job: '0'.repeat(32), developer: '1' },
    login,
  } as Omit<FuzzedApp, 'env' | 'document' | 'operations' | 'admin' | 'reader'> as FuzzedApp
  const { secrets, ids } = fuzzed

  async function login(): Promise<{ cookie: string; nonce: string }> {
    const response = await fuzzed.env.app.inject({ method: 'POST', url: `${V2}/session`, payload: adminLogin })
    expect(response.statusCode).toBe(200)
    const token = response.cookies.find((c) => c.name === 'dg_session')?.value ?? ''
    const nonce = (response.json() as { nonce: string }).nonce
    secrets.add(token)
    secrets.add(nonce)
    return { cookie: `dg_session=${token}`, nonce }
  }

  beforeAll(async () => {
    const env = await startTestApp(dialect, {
      logger: fuzzed.log.logger,
      env: {
        DG_METRICS_TOKEN: METRICS_TOKEN,
        DG_TRUSTED_PROXIES: 'loopback',
        // a closed local port: a preflight with verify_portal fails fast instead of going online
        DG_PORTAL_API_URL: 'http://127.0.0.1:9',
        // the limit is fuzzed as a status (429 counted apart), not waited out
        DG_CATALOG_RATE_LIMIT: '1000000',
      },
    })
    fuzzed.env = env
    const demo = await setUpDemo(env.ctx)
    adminLogin = { login: demo.admin.login, password: demo.admin.password }
    fuzzed.reader = basicAuth(demo.reader.login, demo.reader.application_password)
    const created = await createTestUser(env.ctx, 'administrator')
    fuzzed.admin = created
    for (const value of [
      demo.admin.password,
      demo.reader.application_password,
      demo.reader.application_password.replaceAll(' ', ''),
      demo.webhook_secret,
      created.appPassword,
      created.appPassword.replaceAll(' ', ''),
      created.loginPassword,
      created.authorization,
      fuzzed.reader,
      env.ctx.authKey,
      METRICS_TOKEN,
    ])
      secrets.add(value)
    fuzzed.session = await login()

    const response = await env.app.inject({ method: 'GET', url: `${V2}/openapi.json` })
    fuzzed.document = response.json()
    fuzzed.operations = documentedOperations(fuzzed.document)
    const investment = await env.ctx.db.selectFrom('investments').select('id').orderBy('id').executeTakeFirst()
    const property = await env.ctx.db.selectFrom('offers').select('id').orderBy('id').executeTakeFirst()
    const developer = await env.ctx.db.selectFrom('developers').select('id').orderBy('id').executeTakeFirst()
    ids.investment = String(investment?.id ?? 1)
    ids.property = String(property?.id ?? 1)
    ids.developer = String(developer?.id ?? 1)
    // a real job id, so that the job and execution routes get past "not found" sometimes
    const job = await env.app.inject({
      method: 'POST',
      url: `${V2}/imports/offer`,
      headers: {
        authorization: created.authorization,
        'content-type': 'multipart/form-data; boundary=fuzzb',
      },
      payload:
        '--fuzzb\r\nContent-Disposition: form-data; name="mode"\r\n\r\npatch\r\n' +
        '--fuzzb\r\nContent-Disposition: form-data; name="mapping"\r\n\r\n{"source_investment_id":"I","source_property_id":"P","price_total":"C"}\r\n' +
        '--fuzzb\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\nI;P;C\nFZ;1;500000\n\r\n--fuzzb--\r\n',
    })
    ids.job = (job.json() as { id?: string }).id ?? ids.job
  })

  afterAll(async () => {
    printCasesTried(`${suite} [${dialect}]`)
    await fuzzed.env.app.close()
    await fuzzed.env.database.cleanup()
  })

  return fuzzed
}

/**
 * The last test of a suite: its requests left no secret in the log and Object.prototype as it was.
 * `minimumLines`: fewer mean the log was not captured (the suite's requests write more).
 */
export function logHoldsNoSecret(fuzzed: FuzzedApp, suite: string, dialect: TestDialect, minimumLines: number): void {
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort().join()
  it('the captured log holds no secret, signature, password or Authorization header; Object.prototype is untouched', async () => {
    const { env, log, secrets } = fuzzed
    const current = await getWebhookSecret(env.ctx)
    if (current) secrets.add(current.secret)
    const lines = log.lines()
    expect(lines.length).toBeGreaterThan(minimumLines)
    const leaks = secretsInLog(lines, secrets)
    if (leaks.length && process.env.DG_FUZZ_DUMP_LOG)
      (await import('node:fs')).writeFileSync(process.env.DG_FUZZ_DUMP_LOG, lines.join('\n'))
    expect(leaks).toEqual([])
    expect(Object.getOwnPropertyNames(Object.prototype).sort().join()).toBe(prototypeKeys)
    expect(({} as Json).polluted).toBeUndefined()
    expect(({} as Json).isAdmin).toBeUndefined()
    process.stdout.write(`\nfuzz ${suite} [${dialect}]: ${lines.length} log lines searched for secrets\n`)
  })
}
