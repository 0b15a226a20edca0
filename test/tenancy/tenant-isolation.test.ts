/*
 * Companies on one platform never see one another. Four companies (the first, two reached by their
 * /t/{slug} path, one by its own host name) hold the same natural keys (developer name, investment,
 * offer codes, source ids, and ids: each one's first offer is 1) and values only each one has (its
 * sentinels: NIP, price, text marker). Random sequences of operations, by random users of random
 * companies at random companies' addresses, go through the whole surface a client reaches: catalog,
 * editor, two-step import, signed webhook, publication and legacy generate, the published files,
 * export, public prices, panel session, metrics. After every step no answer, published file, log
 * line, alert or outbox e-mail of one company holds another's sentinel, and every request with one
 * company's credentials at another's address is refused (401/403) without that company's data.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

import fc from 'fast-check'
import pino from 'pino'
import { afterAll, beforeAll, expect, it } from 'vitest'

import type { HostContext } from '../../src/host/context.js'
import { configuredServiceBase } from '../../src/host/http/service-origin.js'
import { ENTITLEMENTS, setLicense } from '../../src/licensing/license.js'
import { sign } from '../../src/webhook/verify-signature.js'
import { createTestUser } from '../helpers/factories.js'
import { authorization, startPlatform, type TestPlatform } from '../helpers/platform.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import {
  API,
  type Answer,
  call,
  type Company,
  companyContext,
  IMPORT_MAPPING,
  importCsv,
  multipartText,
  PUBLICATION_DATE,
  seedCompany,
  sentinelsFor,
} from './company-kit.js'

const METRICS_TOKEN = 'metrics-token-of-the-platform-0123456789abcdef'
const GAMMA_HOST = 'ceny.gamma.example'
/** Writes take the next day: the publication closes the days up to the one it published. */
const WRITE_FROM = '2026-11-21'

/** Every log line of the platform: the first company's and, with `tenant`, the others'. */
const logLines: string[] = []
const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) })

type Role = 'admin' | 'operator' | 'reader'
const OPERATIONS = [
  'catalog list',
  'catalog detail',
  'discovery',
  'editor create offer',
  'editor update offer',
  'editor update investment',
  'import',
  'webhook',
  'publication',
  'legacy generate',
  'published files',
  'export',
  'public prices',
  'session',
  'metrics',
  'password reset',
  'alert',
] as const
type Operation = (typeof OPERATIONS)[number]

interface Step {
  operation: Operation
  /** Whose credentials (or webhook secret, or session). */
  actor: number
  /** Whose address. */
  target: number
  role: Role
  /** Makes written values differ from step to step. */
  cents: number
}

describeEachDatabase(
  'companies on one platform never see one another',
  (getEnv) => {
    let env: TestEnv
    let platform: TestPlatform
    const companies: Company[] = []
    /** Cookies of a panel session per company, and the known-browser cookie that spares the throttle. */
    const browsers = new Map<string, string>()
    let sequence = 0
    let logsChecked = 0
    /** Alerts each company's notification webhook delivered, by the slug in the address it was given. */
    const alertsReceived: Array<{ slug: string; body: string }> = []
    let alertsChecked = 0
    const alertReceiver = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        alertsReceived.push({
          slug: (req.url ?? '').replace(/^\/alerts\//, ''),
          body: Buffer.concat(chunks).toString(),
        })
        res.writeHead(204).end()
      })
    })

    const credentials = (company: Company, role: Role) =>
      role === 'admin' ? company.admin.authorization : company.users[role]!

    /** The sentinels of every company but `own` found in `text`. */
    function foreignSentinels(text: string, own: Company | undefined): string[] {
      const found: string[] = []
      const lower = text.toLowerCase()
      for (const company of companies) {
        if (company === own) continue
        // e-mail addresses may come back lower-cased
        for (const value of Object.values(company.sentinels))
          if (lower.includes(value.toLowerCase())) found.push(`${company.slug}:${value}`)
      }
      return found
    }

    function answerText(answer: Answer): string {
      return `${answer.text}\n${JSON.stringify(Object.fromEntries(answer.headers.entries()))}`
    }

    /** An answer at `target`'s address: none of another company's values in it. */
    function expectOwnOnly(answer: Answer, target: Company, what: string): void {
      expect(foreignSentinels(answerText(answer), target), `${what} at ${target.slug}`).toEqual([])
    }

    /** A request with `actor`'s credentials at `target`'s address: refused, and nothing of anyone's. */
    function expectRefused(answer: Answer, actor: Company, target: Company, what: string): void {
      expect([401, 403], `${what}: ${actor.slug}'s credentials at ${target.slug}: ${answer.text}`).toContain(
        answer.status,
      )
      expect(foreignSentinels(answerText(answer), undefined), `${what} at ${target.slug}`).toEqual([])
    }

    /**
     * Own credentials at the own address authenticate: an administrator is served, another role
     * may be refused the capability (403, never 401), and a catalog reader never writes.
     */
    function expectAccepted(answer: Answer, role: Role, what: string, writes = false): void {
      const allowed = role === 'admin' ? [200, 201, 202] : writes && role === 'reader' ? [403] : [200, 201, 202, 403]
      expect(allowed, `${what} as ${role}: ${answer.status} ${answer.text.slice(0, 400)}`).toContain(answer.status)
    }

    function companyContexts(): Array<[Company, HostContext]> {
      return companies.map((company) => [company, companyContext(platform, company, env.ctx)])
    }

    /** Log lines, alerts and outbox e-mails written so far hold only their own company's values. */
    async function expectQuietNeighbours(): Promise<void> {
      const lines = logLines.slice(logsChecked)
      logsChecked = logLines.length
      for (const line of lines) {
        const entry = JSON.parse(line) as { tenant?: string }
        const owner = companies.find((company) => company.slug === (entry.tenant ?? 'main'))
        expect(owner, line).toBeDefined()
        expect(foreignSentinels(line, owner), line).toEqual([])
      }
      for (const delivered of alertsReceived.slice(alertsChecked)) {
        const owner = companies.find((company) => company.slug === delivered.slug)!
        expect(foreignSentinels(delivered.body, owner), delivered.body).toEqual([])
      }
      alertsChecked = alertsReceived.length
      for (const [company, ctx] of companyContexts()) {
        const alerts = await ctx.db.selectFrom('alerts').selectAll().execute()
        const mail = await ctx.db.selectFrom('mail_outbox').selectAll().execute()
        expect(
          foreignSentinels(JSON.stringify([alerts, mail]), company),
          `alerts and e-mails of ${company.slug}`,
        ).toEqual([])
      }
    }

    /**
     * Each company's sign-in throttle counts the other companies' credentials as failed sign-ins
     * (in its own table: that much is right) and, all requests coming from 127.0.0.1 on a clock that
     * does not move, would soon slow down every client of the test: the counts start over each step.
     */
    async function forgetSignInFailures(): Promise<void> {
      for (const [, ctx] of companyContexts()) await ctx.db.deleteFrom('login_throttle').execute()
    }

    function rootOf(company: Company): string {
      return company.host ? `http://${company.host}` : `${platform.origin}${company.prefix}`
    }

    async function outbox(company: Company) {
      const ctx = companyContext(platform, company, env.ctx)
      return ctx.db.selectFrom('mail_outbox').select(['recipients', 'body']).orderBy('id').execute()
    }

    async function publishedFiles(target: Company): Promise<Answer[]> {
      const xml = await call(platform, target, '/dane-gov/dataset.xml')
      const answers = [xml]
      if (xml.status !== 200) return answers
      for (const [, url] of xml.text.matchAll(/<url>([^<]+\/dane-gov\/[^<]+)<\/url>/g)) {
        const path = new URL(url!).pathname
        const file = await call(platform, target, target.host ? path : path.slice(target.prefix.length))
        expect(file.status, url).toBe(200)
        answers.push(file)
      }
      return answers
    }

    async function run(step: Step): Promise<void> {
      const actor = companies[step.actor]!
      const target = companies[step.target]!
      const own = actor === target
      const auth = credentials(actor, step.role)
      const what = `${step.operation} by ${actor.slug} ${step.role}`
      const at = (path: string, options: Parameters<typeof call>[3] = {}) => call(platform, target, path, options)
      const check = (answer: Answer, writes = false) => {
        expectOwnOnly(answer, target, what)
        if (own) expectAccepted(answer, step.role, what, writes)
        else expectRefused(answer, actor, target, what)
        return answer
      }
      const n = ++sequence
      const price = `${actor.sentinels.price}.${String(step.cents).padStart(2, '0')}`
      switch (step.operation) {
        case 'catalog list': {
          const answer = check(await at(`${API}/catalog/properties?per_page=100`, { authorization: auth }))
          if (own && answer.status === 200) expect(answer.text).toContain(target.sentinels.price)
          return
        }
        case 'catalog detail': {
          // ids collide on purpose: offer 1 is each company's own first offer
          const answer = check(await at(`${API}/catalog/properties/1`, { authorization: auth }))
          if (own && answer.status === 200)
            expect(answer.json<{ offer: { code: string; title: string } }>().offer, what).toMatchObject({
              code: 'A/1',
              title: expect.stringContaining(target.sentinels.marker) as unknown,
            })
          return
        }
        case 'discovery': {
          check(await at(`${API}/catalog`, { authorization: auth }))
          // the target's marker in an address: its request log line must name the target
          check(await at(`${API}/catalog/investments?search=${target.sentinels.marker}`, { authorization: auth }))
          return
        }
        case 'editor create offer': {
          check(
            await at(`${API}/offers`, {
              authorization: auth,
              body: {
                investment_id: target.investmentId,
                source_property_id: `E-${n}`,
                prop_no: `E/${n}`,
                prop_type: 'mieszkanie',
                property_status: 'available',
                prop_area: '40.00',
                price_total: price,
                price_total_from: WRITE_FROM,
                title: `Mieszkanie E/${n} ${actor.sentinels.marker}`,
                host_status: 'publish',
              },
            }),
            true,
          )
          return
        }
        case 'editor update offer': {
          const read = await at(`${API}/offers/1`, { authorization: auth })
          expectOwnOnly(read, target, what)
          if (!own) expectRefused(read, actor, target, what)
          else if (step.role === 'reader') expect(read.status).toBe(403)
          else expect(read.status, read.text).toBe(200)
          check(
            await at(`${API}/offers/1`, {
              method: 'PATCH',
              authorization: auth,
              headers: { 'if-match': read.headers.get('etag') ?? '"0"' },
              body: { price_total: price, price_total_from: WRITE_FROM, reason: `zmiana ${actor.sentinels.marker}` },
            }),
            true,
          )
          return
        }
        case 'editor update investment': {
          check(
            await at(`${API}/investments/${target.investmentId}`, {
              method: 'PATCH',
              authorization: auth,
              headers: { 'if-match': '*' },
              body: { excerpt: `Opis ${actor.sentinels.marker} ${n}` },
            }),
            true,
          )
          return
        }
        case 'import': {
          const file = importCsv(
            actor,
            [
              { source: 'P-2', code: 'A/2', cents: step.cents },
              { source: `I-${n}`, code: `I/${n}`, cents: step.cents },
            ],
            WRITE_FROM,
          )
          const preview = check(
            await at(`${API}/imports/offer`, {
              authorization: auth,
              raw: multipartText(
                { mode: 'patch', mapping: JSON.stringify(IMPORT_MAPPING) },
                { name: 'oferty.csv', content: file },
              ),
            }),
            true,
          )
          const jobId = preview.status === 200 ? preview.json<{ id: string }>().id : '0'.repeat(32)
          check(
            await at(`${API}/imports/offer`, {
              authorization: auth,
              headers: { 'idempotency-key': `isolation-${n}` },
              raw: { body: `job_id=${jobId}&confirm_archiving=false`, type: 'application/x-www-form-urlencoded' },
            }),
            true,
          )
          return
        }
        case 'webhook': {
          const body = JSON.stringify({
            source_investment_id: 'INV-WSPOLNE',
            source_property_id: 'P-2',
            price_total: price,
            price_total_from: WRITE_FROM,
          })
          const timestamp = String(Math.floor(env.clock.now().getTime() / 1000))
          const key = `evt-isolation-${n}`
          const nonce = `nonce-isolation-${n}`
          const answer = await at(`${API}/webhooks/properties`, {
            headers: {
              'x-dg-timestamp': timestamp,
              'x-dg-nonce': nonce,
              'idempotency-key': key,
              // signed with the actor's secret: at another company the same body must be refused
              'x-dg-signature': sign(
                actor.webhookSecret!,
                { timestamp, nonce, idempotencyKey: key },
                Buffer.from(body),
              ),
            },
            raw: { body, type: 'application/json' },
          })
          expectOwnOnly(answer, target, what)
          if (own) expect(answer.status, answer.text).toBe(202)
          else {
            expect(answer.status, answer.text).toBe(401)
            expect(answer.json<{ error: string }>().error).toBe('invalid_signature')
          }
          return
        }
        case 'publication': {
          const answer = check(
            await at(`${API}/publications`, { authorization: auth, body: { date: PUBLICATION_DATE } }),
            true,
          )
          if (own && answer.status === 200)
            for (const file of await publishedFiles(target)) expectOwnOnly(file, target, what)
          return
        }
        case 'legacy generate': {
          const answer = await at(`/wp-json/dg/v1/generate?date=${PUBLICATION_DATE}`, {
            headers: { 'x-dg-webhook-key': actor.webhookSecret! },
          })
          expectOwnOnly(answer, target, what)
          if (own) expect(answer.status, answer.text).toBe(200)
          else {
            expect(answer.status, answer.text).toBe(401)
            expect(foreignSentinels(answer.text, undefined)).toEqual([])
          }
          return
        }
        case 'published files': {
          for (const file of await publishedFiles(target)) expectOwnOnly(file, target, what)
          return
        }
        case 'export': {
          const answer = await at(`${API}/offers/export?format=csv`, { authorization: auth })
          expectOwnOnly(answer, target, what)
          if (!own) expectRefused(answer, actor, target, what)
          else if (step.role !== 'reader') {
            expect(answer.status, answer.text).toBe(200)
            expect(answer.text).toContain(target.sentinels.price)
          }
          return
        }
        case 'public prices': {
          // no credentials: the company's own published prices and nobody else's
          const answer = await at(`${API}/public/investments/${target.investmentId}/prices`)
          expect(answer.status, answer.text).toBe(200)
          expect(answer.text).toContain(target.sentinels.price)
          expectOwnOnly(answer, target, what)
          return
        }
        case 'session': {
          // the actor's administrator signs in at the target's address: only at its own company
          const login = await at(`${API}/session`, {
            headers: { cookie: browsers.get(target.slug) ?? '' },
            body: { login: actor.admin.login, password: actor.admin.password },
          })
          expectOwnOnly(login, target, what)
          if (!own) {
            // the sign-in throttle may answer first (429): refused all the same
            expect([401, 403, 429], login.text).toContain(login.status)
            expect(login.headers.get('set-cookie') ?? '', login.text).not.toContain('dg_session=')
            return
          }
          expect(login.status, login.text).toBe(200)
          const cookie = (login.headers.get('set-cookie') ?? '')
            .split(/,(?=\s*[a-z_]+=)/)
            .map((part) => part.split(';')[0]!.trim())
            .join('; ')
          const nonce = login.json<{ nonce: string }>().nonce
          // the panel sign-in opens the own company's API and no other's
          for (const other of companies) {
            const answer = await call(platform, other, `${API}/users`, {
              headers: { cookie, 'x-wp-nonce': nonce },
            })
            expectOwnOnly(answer, other, `${what}: session of ${target.slug} at ${other.slug}`)
            if (other === target) expect(answer.status, answer.text).toBe(200)
            else expect(answer.status, `session of ${target.slug} at ${other.slug}`).toBe(401)
          }
          return
        }
        case 'password reset': {
          // anonymous: the e-mail goes to the target's own operator, its link to the target's panel
          const before = await outbox(target)
          const answer = await at(`${API}/session/password-reset`, { body: { login: 'operator' } })
          expect(answer.status, answer.text).toBe(202)
          expectOwnOnly(answer, target, what)
          let sent = await outbox(target)
          for (let wait = 0; wait < 50 && sent.length === before.length; wait++) {
            await new Promise((resolve) => setTimeout(resolve, 20))
            sent = await outbox(target)
          }
          const mail = sent.at(-1)!
          expect(sent.length, 'a reset e-mail').toBe(before.length + 1)
          expect(mail.recipients.toLowerCase()).toContain(target.sentinels.marker.toLowerCase())
          const link = /https?:\/\/\S+nowe-haslo\S+/.exec(mail.body)?.[0]
          expect(link, mail.body).toBeDefined()
          // the first company's panel address is its configured one (the test's server listens elsewhere)
          const panel =
            target === companies[0] ? `${configuredServiceBase(env.config)}/dg-admin/` : `${rootOf(target)}/dg-admin/`
          expect(link!.startsWith(panel), link).toBe(true)
          return
        }
        case 'alert': {
          const answer = check(await at(`${API}/alerts/test`, { method: 'POST', authorization: auth }), true)
          if (own && answer.status === 200) {
            expect(answer.json<{ cause: string; state: string }>(), answer.text).toMatchObject({
              cause: 'test',
              state: 'delivered',
            })
            expect(alertsReceived.at(-1)?.slug).toBe(target.slug)
          }
          return
        }
        case 'metrics': {
          const scraped = await at('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
          expect(scraped.status, scraped.text).toBe(200)
          expectOwnOnly(scraped, target, what)
          const asUser = await at('/metrics', { authorization: auth })
          expectOwnOnly(asUser, target, what)
          if (!own) expectRefused(asUser, actor, target, what)
          else expect(asUser.status).toBe(step.role === 'admin' ? 200 : 403)
          return
        }
      }
    }

    beforeAll(async () => {
      env = getEnv()
      logLines.length = 0
      await setLicense(env.ctx, { plan: 'pro', entitlements: [...ENTITLEMENTS], actor: { type: 'cli' } })
      platform = await startPlatform(env)
      const admin = await createTestUser(env.ctx, 'administrator')
      companies.push({
        slug: 'main',
        prefix: '',
        sentinels: sentinelsFor(0, 'main'),
        admin: { login: admin.login, password: admin.loginPassword, authorization: admin.authorization },
        users: {},
        offerIds: [],
      })
      for (const [index, slug, host] of [
        [1, 'alfa', undefined],
        [2, 'beta', undefined],
        [3, 'gamma', GAMMA_HOST],
      ] as const) {
        const created = await platform.createTenant(slug, `Spółka ${slug}`, host ? { hosts: [host] } : {})
        companies.push({
          slug,
          prefix: host ? '' : `/t/${slug}`,
          ...(host ? { host } : {}),
          sentinels: sentinelsFor(index, slug),
          admin: {
            login: created.admin.login,
            password: created.admin.password,
            authorization: authorization(created),
          },
          users: {},
          offerIds: [],
        })
      }
      await new Promise<void>((resolve) => alertReceiver.listen(0, '127.0.0.1', resolve))
      const alertsAt = `http://127.0.0.1:${(alertReceiver.address() as AddressInfo).port}/alerts`
      for (const company of companies) {
        await seedCompany(platform, company, { alertWebhook: `${alertsAt}/${company.slug}` })
        expect(company.offerIds[0], `${company.slug}'s first offer`).toBe(1)
        const prices = await call(platform, company, `${API}/investments/${company.investmentId}/public-prices`, {
          method: 'PUT',
          authorization: company.admin.authorization,
          body: { enabled: true },
        })
        expect(prices.status, prices.text).toBe(200)
        // a first sign-in: its known-browser cookie keeps later sign-ins clear of the throttle
        const login = await call(platform, company, `${API}/session`, {
          body: { login: company.admin.login, password: company.admin.password },
        })
        expect(login.status, login.text).toBe(200)
        const known = (login.headers.get('set-cookie') ?? '').match(/(dg_known_browser[^=]*=[^;]+)/)
        if (known) browsers.set(company.slug, known[1]!)
      }
      const settings = await call(platform, companies[0]!, `${API}/publication/settings`, {
        method: 'PUT',
        authorization: companies[0]!.admin.authorization,
        body: { public_base_url: `${platform.origin}/dane-gov` },
      })
      expect(settings.status, settings.text).toBe(200)
      await expectQuietNeighbours()
    }, 120_000)
    afterAll(async () => {
      await platform?.close()
      await new Promise((resolve) => alertReceiver.close(resolve))
    })

    it('answers offer 1 at each company’s address with that company’s own offer', async () => {
      for (const company of companies) {
        const answer = await call(platform, company, `${API}/catalog/properties/1`, {
          authorization: company.users.reader!,
        })
        expect(answer.status, answer.text).toBe(200)
        const { offer } = answer.json<{ offer: { id: number; code: string; title: string } }>()
        expect(offer).toMatchObject({ id: 1, code: 'A/1' })
        expect(offer.title).toContain(company.sentinels.marker)
        expectOwnOnly(answer, company, 'offer 1')
      }
    })

    it('runs every operation as each company’s administrator at its own address and at the next company’s', async () => {
      for (const operation of OPERATIONS)
        for (const actor of companies.keys())
          for (const target of [actor, (actor + 1) % companies.length]) {
            await run({ operation, actor, target, role: 'admin', cents: actor * 10 + target })
            await expectQuietNeighbours()
            await forgetSignInFailures()
          }
    }, 120_000)

    it('reaches no other company by an address that climbs out of a prefix or into one', async () => {
      const port = Number(new URL(platform.origin).port)
      // sent as written: fetch() would resolve the dot segments before sending
      const raw = (path: string, auth: string) =>
        new Promise<{ status: number; text: string }>((resolve, reject) => {
          const request = http.request({ host: '127.0.0.1', port, path, headers: { authorization: auth } }, (res) => {
            let text = ''
            res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
          })
          request.on('error', reject)
          request.end()
        })
      const paths = (slug: string) => [
        `/t/${slug}/../wp-json/dg/v2/users`,
        `/t/${slug}/../../wp-json/dg/v2/users`,
        `/t/${slug}/%2e%2e/wp-json/dg/v2/users`,
        `/t/${slug}/wp-json/dg/v2/../../../wp-json/dg/v2/users`,
        `/wp-json/../t/${slug}/wp-json/dg/v2/users`,
        `/x/../t/${slug}/wp-json/dg/v2/users`,
        `/t/${slug}%2f..%2f..%2fwp-json/dg/v2/users`,
      ]
      for (const actor of companies)
        for (const target of ['alfa', 'beta'])
          for (const path of paths(target)) {
            const answer = await raw(path, actor.admin.authorization)
            expect(foreignSentinels(answer.text, actor), `${actor.slug} at ${path}`).toEqual([])
            expect(answer.status, `${actor.slug} at ${path}: ${answer.text.slice(0, 200)}`).not.toBe(200)
          }
    })

    it('keeps every answer, file, log line, alert and e-mail to its own company under random operations', async () => {
      const index = fc.integer({ min: 0, max: 3 })
      const step = fc.record({
        operation: fc.constantFrom(...OPERATIONS),
        actor: index,
        target: index,
        role: fc.constantFrom<Role>('admin', 'operator', 'reader'),
        cents: fc.integer({ min: 0, max: 99 }),
      })
      // crossed steps are the point: half of them aim at another company's address
      const crossed = fc.tuple(step, fc.boolean()).map(([s, cross]) => (cross ? s : { ...s, target: s.actor }))
      await fc.assert(
        fc.asyncProperty(fc.array(crossed, { minLength: 12, maxLength: 24 }), async (steps) => {
          for (const s of steps) {
            await run(s)
            await expectQuietNeighbours()
            await forgetSignInFailures()
          }
        }),
        { numRuns: 5, endOnFailure: true },
      )
      // the sequences went through each company's log
      const tenants = new Set(logLines.map((line) => (JSON.parse(line) as { tenant?: string }).tenant ?? 'main'))
      expect([...tenants].sort()).toEqual(['alfa', 'beta', 'gamma', 'main'])
    }, 240_000)

    it('publishes each company’s own files, then finds no other company’s value in any of them', async () => {
      for (const company of companies) {
        const published = await call(platform, company, `${API}/publications`, {
          authorization: company.admin.authorization,
          body: { date: PUBLICATION_DATE },
        })
        expect(published.status, published.text).toBe(200)
        const files = await publishedFiles(company)
        expect(files.length).toBeGreaterThan(1)
        expect(files.map((file) => file.text).join('\n')).toContain(company.sentinels.nip)
        for (const file of files) expectOwnOnly(file, company, 'published file')
      }
      await expectQuietNeighbours()
    })
  },
  { logger, env: { DG_METRICS_TOKEN: METRICS_TOKEN } },
)
