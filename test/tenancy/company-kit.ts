/*
 * A company of a test platform seen from outside: where it answers (a `/t/{slug}` prefix or its own
 * host name), its administrator's credentials, and a catalog seeded through its REST API with
 * natural keys every company shares (the same developer name, investment, offer codes and source
 * ids) and values only this company has (its sentinels: a NIP, a price, a text marker), so a value
 * of one company found in another's answer, file or log line is a leak and not a coincidence.
 */
import type { FastifyInstance } from 'fastify'

import type { HostContext } from '../../src/host/context.js'
import { basicAuth } from '../helpers/factories.js'
import type { TestPlatform } from '../helpers/platform.js'

export const API = '/wp-json/dg/v2'
/** The day of the test clock (2026-11-20 in Warsaw): prices valid from earlier days are in force. */
export const PRICE_FROM = '2026-11-01'
export const PUBLICATION_DATE = '2026-11-20'

/** What only one company holds; none is a substring of another's. */
export interface Sentinels {
  nip: string
  /** The whole-zloty part of every price the company stores, e.g. 111111 → 111111.00. */
  price: string
  marker: string
}

export interface Company {
  slug: string
  /** '' for the first company, `/t/{slug}` for a company reached by its path. */
  prefix: string
  /** The Host header of a company reached by its own host name. */
  host?: string
  sentinels: Sentinels
  admin: { login: string; password: string; authorization: string }
  /** Filled by seedCompany. */
  users: { operator?: string; reader?: string }
  webhookSecret?: string
  investmentId?: number
  offerIds: number[]
  developerId?: number
}

/** A valid NIP (weights 6 5 7 2 3 4 5 6 7, check digit mod 11) from nine digits. */
export function nip(nine: string): string {
  const weights = [6, 5, 7, 2, 3, 4, 5, 6, 7]
  const sum = [...nine].reduce((total, digit, index) => total + Number(digit) * weights[index]!, 0)
  const check = sum % 11
  if (check === 10) throw new Error(`no NIP starts with ${nine}`)
  return `${nine}${check}`
}

export function sentinelsFor(index: number, slug: string): Sentinels {
  const digit = String(index + 1)
  // 9 digits whose check digit is not 10: the first few candidates are tried
  for (let tail = 0; tail < 10; tail++) {
    try {
      return {
        nip: nip(`52${digit}${digit}${digit}${digit}0${digit}${tail}`),
        price: digit.repeat(6),
        marker: `ZNACZNIK${slug.toUpperCase()}Q${digit}`,
      }
    } catch {
      // the next candidate
    }
  }
  throw new Error('no NIP')
}

export interface CallOptions {
  method?: string
  body?: unknown
  /** A raw body (string) with its content type. */
  raw?: { body: string; type: string }
  authorization?: string | null
  headers?: Record<string, string>
  /** A redirect is answered, not followed. */
  manual?: boolean
}

export interface Answer {
  status: number
  headers: Headers
  text: string
  json<T = unknown>(): T
}

/** Calls `path` (from the company's root, e.g. `/wp-json/dg/v2/catalog`) at `company`'s address. */
export async function call(
  platform: TestPlatform,
  company: Pick<Company, 'prefix' | 'host'>,
  path: string,
  options: CallOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.authorization) headers.authorization = options.authorization
  let body: string | undefined
  if (options.raw) {
    body = options.raw.body
    headers['content-type'] = options.raw.type
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] = 'application/json'
  }
  const response = await platform.fetch(`${company.prefix}${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(options.manual ? { redirect: 'manual' as const } : {}),
    ...(body === undefined ? {} : { body }),
    ...(company.host ? { host: company.host } : {}),
  })
  const text = await response.text()
  return {
    status: response.status,
    headers: response.headers,
    text,
    json<T>() {
      return JSON.parse(text) as T
    },
  }
}

/** A multipart form with a text file, as a string (platform.fetch writes string bodies). */
export function multipartText(
  fields: Record<string, string>,
  file: { name: string; content: string },
): { body: string; type: string } {
  const boundary = `----dgtenant${Math.random().toString(16).slice(2)}`
  let body = ''
  for (const [name, value] of Object.entries(fields))
    body += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
  body += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n${file.content}\r\n`
  body += `--${boundary}--\r\n`
  return { body, type: `multipart/form-data; boundary=${boundary}` }
}

export const IMPORT_MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  price_total: 'Cena',
  price_total_from: 'Cena od',
}

/** An import file of the shared investment: offer `code` with the company's price plus `cents`. */
export function importCsv(
  company: Company,
  rows: Array<{ source: string; code: string; cents: number }>,
  from = PRICE_FROM,
): string {
  const lines = rows.map(
    ({ source, code, cents }) =>
      `INV-WSPOLNE;${source};${code};mieszkanie;wolne;50,00;${company.sentinels.price},${String(cents).padStart(2, '0')};${from}`,
  )
  return `Inwestycja;ID lokalu;Numer;Rodzaj;Status;Powierzchnia;Cena;Cena od\n${lines.join('\n')}\n`
}

function expectStatus(answer: Answer, status: number, what: string): void {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${answer.text.slice(0, 600)}`)
}

export const SHARED_DEVELOPER_NAME = 'Wspólny Deweloper Sp. z o.o.'
export const SHARED_INVESTMENT_TITLE = 'Osiedle Wspólne'

/**
 * The same catalog in every company, through its own API: one developer entity, one investment
 * (identical name and source id), two offers A/1 and A/2 (identical codes and source ids), an
 * operator and a catalog reader with application passwords, and a webhook secret.
 */
export async function seedCompany(
  platform: TestPlatform,
  company: Company,
  /** Where the company's alerts are sent (its notification webhook). */
  options: { alertWebhook?: string } = {},
): Promise<void> {
  const auth = company.admin.authorization
  const { nip: companyNip, marker, price } = company.sentinels
  const developer = await call(platform, company, `${API}/developers`, {
    authorization: auth,
    body: {
      name: SHARED_DEVELOPER_NAME,
      legal_form: 'spółka z ograniczoną odpowiedzialnością',
      krs: '0000123456',
      nip: companyNip,
      regon: '146789017',
      phone: '221234567',
      email: 'sprzedaz@wspolny.example.pl',
      website: 'https://wspolny.example.pl',
      seat_voivodeship: 'mazowieckie',
      seat_powiat: 'Warszawa',
      seat_gmina: 'Warszawa',
      seat_city: 'Warszawa',
      seat_street: 'Marszałkowska',
      seat_building_no: '100',
      seat_postal_code: '00-026',
      sales_voivodeship: 'mazowieckie',
      sales_powiat: 'Warszawa',
      sales_gmina: 'Warszawa',
      sales_city: 'Warszawa',
      sales_street: 'Lipowa',
      sales_building_no: '12',
      sales_postal_code: '02-495',
      contact_method: `Telefonicznie ${marker}`,
      dataset_url: 'https://wspolny.example.pl/ceny',
    },
  })
  expectStatus(developer, 201, 'developer')
  company.developerId = developer.json<{ id: number }>().id
  const investment = await call(platform, company, `${API}/investments`, {
    authorization: auth,
    body: {
      title: SHARED_INVESTMENT_TITLE,
      source_id: 'INV-WSPOLNE',
      developer_id: company.developerId,
      excerpt: `Opis ${marker}`,
      host_status: 'publish',
      location: {
        voivodeship: 'mazowieckie',
        powiat: 'Warszawa',
        gmina: 'Warszawa',
        city: 'Warszawa',
        street: 'Lipowa',
        building_no: '12',
        postal_code: '02-495',
      },
    },
  })
  expectStatus(investment, 201, 'investment')
  company.investmentId = investment.json<{ id: number }>().id
  company.offerIds = []
  for (const [index, code] of ['A/1', 'A/2'].entries()) {
    const offer = await call(platform, company, `${API}/offers`, {
      authorization: auth,
      body: {
        investment_id: company.investmentId,
        source_property_id: `P-${index + 1}`,
        prop_no: code,
        prop_type: 'mieszkanie',
        property_status: 'available',
        prop_area: '50.00',
        price_total: `${price}.0${index}`,
        price_total_from: PRICE_FROM,
        title: `Mieszkanie ${code} ${marker}`,
        host_status: 'publish',
      },
    })
    expectStatus(offer, 201, `offer ${code}`)
    company.offerIds.push(offer.json<{ id: number }>().id)
  }
  if (options.alertWebhook) {
    const alerts = await call(platform, company, `${API}/alerts/settings`, {
      method: 'PUT',
      authorization: auth,
      body: { webhook: { url: options.alertWebhook, secret: `alert-signing-secret-of-${marker}-0123456789` } },
    })
    expectStatus(alerts, 200, 'alert settings')
  }
  const secret = await call(platform, company, `${API}/webhook-secret/rotate`, { authorization: auth, method: 'POST' })
  expectStatus(secret, 200, 'webhook secret')
  company.webhookSecret = secret.json<{ secret: string }>().secret
  for (const [role, login] of [
    ['dg_operator', 'operator'],
    ['dg_catalog_reader', 'reader'],
  ] as const) {
    const user = await call(platform, company, `${API}/users`, {
      authorization: auth,
      body: {
        login,
        email: `${login}.${marker}@wspolny.example.pl`,
        role,
        password: `${login}-password-${marker}-long`,
      },
    })
    expectStatus(user, 201, `user ${login}`)
    const id = user.json<{ user: { id: number } }>().user.id
    const password = await call(platform, company, `${API}/users/${id}/application-passwords`, {
      authorization: auth,
      body: { name: 'tests' },
    })
    expectStatus(password, 201, `application password ${login}`)
    company.users[role === 'dg_operator' ? 'operator' : 'reader'] = basicAuth(
      login,
      password.json<{ password: string }>().password,
    )
  }
}

/** A running company's app, to read tables no endpoint lists (alerts). */
export function companyContext(platform: TestPlatform, company: Company, first: HostContext): HostContext {
  if (company.prefix === '' && company.host === undefined) return first
  const running = (platform.dispatcher as unknown as { running: Map<string, { app: FastifyInstance }> }).running
  const tenant = running.get(company.slug)
  if (!tenant) throw new Error(`${company.slug} is not running`)
  return tenant.app.ctx
}
