/*
 * The OpenAPI document against the service itself (see test/helpers/openapi-responses.ts): the
 * administration's operations, called for real — the session, users and the audit log, the editor
 * and its media, scheduled sources, alerts, the licence, exports and the bulk price change.
 */
import sharp from 'sharp'
import { beforeAll, expect, it } from 'vitest'

import { settledPasswordResetRequests } from '../../../src/password-reset/password-reset.js'
import type { TestUser } from '../../helpers/factories.js'
import { multipart } from '../../helpers/multipart.js'
import {
  ADMINISTRATION_OPERATION,
  contractOperations,
  documentedCalls,
  type OpenApiDocument,
  V2,
} from '../../helpers/openapi-responses.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

describeEachDatabase('OpenAPI document against real responses: administration', (getEnv) => {
  const checked = documentedCalls(getEnv)
  const { call, asAdmin, called } = checked
  let env: TestEnv
  let document: OpenApiDocument
  let admin: TestUser
  let reader: string
  let adminLogin: { login: string; password: string }
  beforeAll(() => {
    ;({ env, document, admin, reader, adminLogin } = checked)
  })

  it('liveness, the admin-panel session and the status', async () => {
    expect((await call('get', '/healthz')).statusCode).toBe(200)
    expect((await call('get', `${V2}/session`)).statusCode).toBe(401)
    expect(
      (await call('post', `${V2}/session`, { payload: { login: adminLogin.login, password: 'wrong-password' } }))
        .statusCode,
    ).toBe(401)
    expect((await call('post', `${V2}/session`, { payload: { login: '' } })).statusCode).toBe(400)
    const login = await call('post', `${V2}/session`, { payload: adminLogin })
    expect(login.statusCode).toBe(200)
    const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ')
    const session = await call('get', `${V2}/session`, { headers: { cookie } })
    expect(session.statusCode).toBe(200)
    expect((await call('delete', `${V2}/session`, { headers: { cookie } })).statusCode).toBe(401)
    const nonce = (session.json() as { nonce: string }).nonce
    const own = `${V2}/session/password`
    const asSession = { cookie, 'x-wp-nonce': nonce }
    expect((await call('put', own, { payload: { current_password: 'x', password: 'y' } })).statusCode).toBe(401)
    expect(
      (await call('put', own, { headers: asSession, payload: { current_password: 'wrong-one', password: 'y' } }))
        .statusCode,
    ).toBe(403)
    expect(
      (
        await call('put', own, {
          headers: asSession,
          payload: { current_password: adminLogin.password, password: 'y' },
        })
      ).statusCode,
    ).toBe(400)
    const changed = await call('put', own, {
      headers: asSession,
      payload: { current_password: adminLogin.password, password: adminLogin.password },
    })
    expect(changed.statusCode).toBe(200)
    // password reset by e-mail: offered in a trial without SMTP (the e-mail goes to the outbox); a
    // link's token that is no link is refused
    const reset = `${V2}/session/password-reset`
    expect((await call('get', reset)).json()).toMatchObject({ available: true })
    expect((await call('post', reset, { payload: { login: adminLogin.login } })).statusCode).toBe(202)
    await settledPasswordResetRequests(env.ctx)
    expect(
      (await call('post', `${reset}/confirm`, { payload: { token: 'x'.repeat(43), password: 'dlugie-haslo-2026' } }))
        .statusCode,
    ).toBe(400)
    // login CSRF: another site's page, or a form body, is refused before anything is checked
    expect(
      (await call('post', `${V2}/session`, { headers: { origin: 'https://evil.example' }, payload: adminLogin }))
        .statusCode,
    ).toBe(403)
    expect(
      (
        await call('post', `${V2}/session`, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `login=${adminLogin.login}&password=x`,
        })
      ).statusCode,
    ).toBe(415)
    expect((await call('delete', `${V2}/session`, { headers: { cookie, 'x-wp-nonce': nonce } })).statusCode).toBe(204)

    expect((await call('get', `${V2}/status`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/status`)).statusCode).toBe(401)
    expect((await call('get', `${V2}/status`, { headers: { authorization: reader } })).statusCode).toBe(403)
  })

  it('the catalog editor: investments, offers, components, price history, versions and refusals', async () => {
    expect((await call('get', `${V2}/custom-fields`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/custom-fields`, { headers: { authorization: reader } })).statusCode).toBe(403)
    const created = await call('post', `${V2}/investments`, {
      headers: asAdmin(),
      payload: { title: 'Inwestycja OpenAPI', location: { city: 'Poznań', postal_code: '61-001' } },
    })
    expect(created.statusCode).toBe(201)
    const investment = created.json() as { id: number; version: string }
    expect((await call('post', `${V2}/investments`, { headers: asAdmin(), payload: { title: '' } })).statusCode).toBe(
      422,
    )
    expect(
      (await call('get', `${V2}/investments`, { query: { search: 'OpenAPI' }, headers: asAdmin() })).statusCode,
    ).toBe(200)
    const one = (id: number) => ({ params: { id }, headers: asAdmin() })
    expect((await call('get', `${V2}/investments/{id}`, one(investment.id))).statusCode).toBe(200)
    expect((await call('get', `${V2}/investments/{id}`, one(999_999))).statusCode).toBe(404)
    const changed = await call('patch', `${V2}/investments/{id}`, {
      params: { id: investment.id },
      headers: asAdmin({ 'if-match': investment.version }),
      payload: { excerpt: 'Zmieniona' },
    })
    expect(changed.statusCode).toBe(200)
    const stale = { params: { id: investment.id }, headers: asAdmin({ 'if-match': investment.version }) }
    expect((await call('patch', `${V2}/investments/{id}`, { ...stale, payload: { excerpt: 'x' } })).statusCode).toBe(
      409,
    )
    expect(
      (await call('patch', `${V2}/investments/{id}`, { ...one(investment.id), payload: { excerpt: 'x' } })).statusCode,
    ).toBe(428)

    const flat = await call('post', `${V2}/offers`, {
      headers: asAdmin(),
      payload: {
        investment_id: investment.id,
        prop_no: 'OA/1',
        prop_type: 'mieszkanie',
        price_total: '400000.00',
        price_total_from: '2026-11-01',
        components: [{ kind: 'parking_space', designation: 'MP-1', price: '30000.00' }],
      },
    })
    expect(flat.statusCode).toBe(201)
    const offer = flat.json() as { id: number; version: string; components: Array<{ id: number }> }
    expect(
      (
        await call('post', `${V2}/offers`, {
          headers: asAdmin(),
          payload: { investment_id: investment.id, prop_no: 'x' },
        })
      ).statusCode,
    ).toBe(422)
    expect(
      (await call('get', `${V2}/offers`, { query: { without_type: 'false' }, headers: asAdmin() })).statusCode,
    ).toBe(200)
    expect((await call('get', `${V2}/offers`, { query: { per_page: '500' }, headers: asAdmin() })).statusCode).toBe(400)
    expect((await call('get', `${V2}/offers/{id}`, one(offer.id))).statusCode).toBe(200)
    expect((await call('get', `${V2}/offers/{id}`, one(999_999))).statusCode).toBe(404)
    expect((await call('get', `${V2}/offers/{id}/price-history`, one(offer.id))).statusCode).toBe(200)
    expect((await call('get', `${V2}/offers/{id}/price-history`, one(999_999))).statusCode).toBe(404)

    const versioned = (version: string) => ({ params: { id: offer.id }, headers: asAdmin({ 'if-match': version }) })
    const repriced = await call('patch', `${V2}/offers/{id}`, {
      ...versioned(offer.version),
      payload: { price_total: '410000.00', reason: 'Cennik' },
    })
    expect(repriced.statusCode).toBe(200)
    let version = (repriced.json() as { version: string }).version
    expect(
      (await call('patch', `${V2}/offers/{id}`, { ...versioned(offer.version), payload: { prop_rooms: 2 } }))
        .statusCode,
    ).toBe(409)
    expect(
      (await call('patch', `${V2}/offers/{id}`, { ...one(offer.id), payload: { prop_rooms: 2 } })).statusCode,
    ).toBe(428)
    expect(
      (await call('patch', `${V2}/offers/{id}`, { ...versioned(version), payload: { prop_rooms: 'many' } })).statusCode,
    ).toBe(422)

    const component = { params: { id: offer.id, component_id: offer.components[0]?.id ?? 0 } }
    const added = await call('post', `${V2}/offers/{id}/components`, {
      ...versioned(version),
      payload: { kind: 'storage_room', designation: 'KL-1', price: '9000.00' },
    })
    expect(added.statusCode).toBe(201)
    version = (added.json() as { version: string }).version
    expect(
      (await call('post', `${V2}/offers/{id}/components`, { ...versioned(version), payload: { price: 'x' } }))
        .statusCode,
    ).toBe(422)
    const updated = await call('patch', `${V2}/offers/{id}/components/{component_id}`, {
      ...component,
      headers: asAdmin({ 'if-match': version }),
      payload: { price: '31000.00' },
    })
    expect(updated.statusCode).toBe(200)
    version = (updated.json() as { version: string }).version
    const removed = await call('delete', `${V2}/offers/{id}/components/{component_id}`, {
      ...component,
      headers: asAdmin({ 'if-match': version }),
    })
    expect(removed.statusCode).toBe(200)
    version = (removed.json() as { version: string }).version
    expect(
      (
        await call('delete', `${V2}/offers/{id}/components/{component_id}`, {
          ...component,
          headers: asAdmin({ 'if-match': version }),
        })
      ).statusCode,
    ).toBe(422)

    const archived = await call('post', `${V2}/offers/{id}/archive`, { ...versioned(version), payload: {} })
    expect(archived.statusCode).toBe(200)
    const restored = await call('post', `${V2}/offers/{id}/restore`, {
      ...versioned((archived.json() as { version: string }).version),
      payload: {},
    })
    expect(restored.statusCode).toBe(200)
    expect((await call('post', `${V2}/offers/{id}/archive`, { ...versioned(version), payload: {} })).statusCode).toBe(
      409,
    )

    const investmentNow = (await call('get', `${V2}/investments/{id}`, one(investment.id))).json() as {
      version: string
    }
    const withOffers = { params: { id: investment.id }, headers: asAdmin({ 'if-match': investmentNow.version }) }
    expect((await call('delete', `${V2}/investments/{id}`, withOffers)).statusCode).toBe(409)
    const empty = (
      await call('post', `${V2}/investments`, { headers: asAdmin(), payload: { title: 'Pusta inwestycja' } })
    ).json() as { id: number; version: string }
    expect(
      (
        await call('delete', `${V2}/investments/{id}`, {
          params: { id: empty.id },
          headers: asAdmin({ 'if-match': empty.version }),
        })
      ).statusCode,
    ).toBe(204)
  })

  it('users, application passwords and the audit log, with their refusals', async () => {
    const readerAuth = { headers: { authorization: reader } }
    expect((await call('get', `${V2}/users`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/users`, readerAuth)).statusCode).toBe(403)
    const created = await call('post', `${V2}/users`, {
      headers: asAdmin(),
      payload: { login: 'openapi.user', email: 'openapi.user@example.test', role: 'dg_catalog_reader' },
    })
    expect(created.statusCode).toBe(201)
    const userId = (created.json() as { user: { id: number } }).user.id
    expect(
      (await call('post', `${V2}/users`, { headers: asAdmin(), payload: { login: '!', email: 'x', role: 'x' } }))
        .statusCode,
    ).toBe(422)
    expect((await call('post', `${V2}/users`, { headers: asAdmin(), payload: { login: 'x' } })).statusCode).toBe(400)
    const one = { params: { id: userId }, headers: asAdmin() }
    expect((await call('get', `${V2}/users/{id}`, one)).statusCode).toBe(200)
    expect((await call('get', `${V2}/users/{id}`, { ...one, params: { id: 999999 } })).statusCode).toBe(404)
    expect((await call('patch', `${V2}/users/{id}`, { ...one, payload: { disabled: true } })).statusCode).toBe(200)
    expect((await call('patch', `${V2}/users/{id}`, { ...one, payload: { role: 'root' } })).statusCode).toBe(422)
    expect(
      (
        await call('patch', `${V2}/users/{id}`, {
          params: { id: admin.id },
          headers: asAdmin(),
          payload: { disabled: true },
        })
      ).statusCode,
    ).toBe(409)
    const setPassword = `${V2}/users/{id}/password`
    expect((await call('put', setPassword, { ...one, payload: {} })).statusCode).toBe(200)
    expect((await call('put', setPassword, { ...one, payload: { password: 'short' } })).statusCode).toBe(400)
    expect((await call('put', setPassword, { ...one, params: { id: 999999 }, payload: {} })).statusCode).toBe(404)
    expect((await call('put', setPassword, { params: { id: userId }, payload: {} })).statusCode).toBe(401)
    expect((await call('put', setPassword, { ...readerAuth, params: { id: userId }, payload: {} })).statusCode).toBe(
      403,
    )
    const passwords = `${V2}/users/{id}/application-passwords`
    const issued = await call('post', passwords, { ...one, payload: { name: 'openapi' } })
    expect(issued.statusCode).toBe(201)
    expect((await call('post', passwords, { ...one, payload: { name: 'openapi' } })).statusCode).toBe(422)
    expect((await call('get', passwords, one)).statusCode).toBe(200)
    const uuid = (issued.json() as { uuid: string }).uuid
    const revoke = `${V2}/users/{id}/application-passwords/{uuid}`
    expect((await call('delete', revoke, { params: { id: userId, uuid }, headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('delete', revoke, { params: { id: userId, uuid }, headers: asAdmin() })).statusCode).toBe(404)

    expect((await call('get', `${V2}/audit`, { headers: asAdmin(), query: { per_page: '5' } })).statusCode).toBe(200)
    expect((await call('get', `${V2}/audit`, { headers: asAdmin(), query: { channel: 'x' } })).statusCode).toBe(400)
    expect((await call('get', `${V2}/audit`, readerAuth)).statusCode).toBe(403)
    expect((await call('get', `${V2}/audit/actions`, { headers: asAdmin() })).statusCode).toBe(200)

    // sign-in protection: the sixth wrong password in a row is slowed down
    for (let i = 0; i < 6; i++)
      await env.app.inject({
        method: 'POST',
        url: `${V2}/session`,
        payload: { login: 'openapi.user', password: `wrong-${i}` },
      })
    const slowed = await call('post', `${V2}/session`, { payload: { login: 'openapi.user', password: 'whatever' } })
    expect(slowed.statusCode).toBe(429)
  })

  it('the editor’s media: uploads, refusals, list, read, change, removal and the served file', async () => {
    const offerId = (await env.ctx.db.selectFrom('offers').select('id').executeTakeFirstOrThrow()).id
    const investmentId = (await env.ctx.db.selectFrom('investments').select('id').executeTakeFirstOrThrow()).id
    const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#000' } })
      .png()
      .toBuffer()
    const upload = (template: string, id: number, name: string, content: Buffer, type: string) => {
      const body = multipart({ title: name }, { name, content, type })
      return call('post', template, { params: { id }, payload: body.payload, headers: asAdmin(body.headers) })
    }
    const image = await upload(`${V2}/offers/{id}/media`, offerId, 'plan.png', png, 'image/png')
    expect(image.statusCode).toBe(201)
    expect(
      (await upload(`${V2}/offers/{id}/media`, offerId, 'x.png', Buffer.from('not an image'), 'image/png')).statusCode,
    ).toBe(415)
    expect((await upload(`${V2}/offers/{id}/media`, 999_999, 'plan.png', png, 'image/png')).statusCode).toBe(404)
    const pdf = await upload(
      `${V2}/investments/{id}/media`,
      investmentId,
      'prospekt.pdf',
      Buffer.from('%PDF-1.4\n%%EOF\n'),
      'application/pdf',
    )
    expect(pdf.statusCode).toBe(201)
    expect(
      (
        await upload(
          `${V2}/investments/{id}/media`,
          investmentId,
          'x.jpg',
          Buffer.from([0xff, 0xd8, 0xff, 1]),
          'image/jpeg',
        )
      ).statusCode,
    ).toBe(422)
    for (const [template, id] of [
      [`${V2}/offers/{id}/media`, offerId],
      [`${V2}/investments/{id}/media`, investmentId],
    ] as const) {
      expect((await call('get', template, { params: { id }, headers: asAdmin() })).statusCode).toBe(200)
      expect((await call('get', template, { params: { id: 999_999 }, headers: asAdmin() })).statusCode).toBe(404)
    }
    const media = image.json() as { id: number; url: string; preview_url: string }
    const one = (id: number) => ({ params: { id }, headers: asAdmin() })
    expect((await call('get', `${V2}/media/{id}`, one(media.id))).statusCode).toBe(200)
    expect((await call('get', `${V2}/media/{id}`, one(999_999))).statusCode).toBe(404)
    expect((await call('patch', `${V2}/media/{id}`, { ...one(media.id), payload: { alt: 'Rzut' } })).statusCode).toBe(
      200,
    )
    expect(
      (await call('patch', `${V2}/media/{id}`, { ...one(media.id), payload: { title: 'x'.repeat(300) } })).statusCode,
    ).toBe(422)
    const file = new URL(media.url).pathname.replace('/dg-media/', '')
    const served = await call('get', '/dg-media/{file}', { params: { file } })
    expect(served.statusCode).toBe(200)
    expect(
      (await call('get', '/dg-media/{file}', { params: { file }, headers: { 'if-none-match': `"${file}"` } }))
        .statusCode,
    ).toBe(304)
    expect((await call('get', '/dg-media/{file}', { params: { file: 'nothing.jpg' } })).statusCode).toBe(404)
    const pdfFile = new URL((pdf.json() as { url: string }).url).pathname.replace('/dg-media/', '')
    expect((await call('get', '/dg-media/{file}', { params: { file: pdfFile } })).statusCode).toBe(200)

    const offer = (await call('get', `${V2}/offers/{id}`, one(offerId))).json() as { version: string }
    const placed = await call('patch', `${V2}/offers/{id}`, {
      params: { id: offerId },
      headers: asAdmin({ 'if-match': offer.version }),
      payload: { gallery: [media.id] },
    })
    expect(placed.statusCode).toBe(200)
    expect((await call('delete', `${V2}/media/{id}`, one(media.id))).statusCode).toBe(409)
    expect((await call('delete', `${V2}/media/{id}`, one((pdf.json() as { id: number }).id))).statusCode).toBe(204)
    expect((await call('delete', `${V2}/media/{id}`, one(999_999))).statusCode).toBe(404)
  })

  it('scheduled sources: add, list, show, change, run (an unreachable source), runs, a run, refused decisions, removal', async () => {
    const payload = {
      name: 'Źródło',
      url: 'https://127.0.0.1:1/prices.csv',
      headers: { Authorization: 'Bearer x' },
      mapping: { source_investment_id: 'Inwestycja', source_property_id: 'ID lokalu' },
      private_hosts: ['127.0.0.1:1'],
    }
    const created = await call('post', `${V2}/sources`, { headers: asAdmin(), payload })
    expect(created.statusCode).toBe(201)
    expect(
      (await call('post', `${V2}/sources`, { headers: asAdmin(), payload: { ...payload, url: 'ftp://x' } })).statusCode,
    ).toBe(400)
    const one = { params: { id: (created.json() as { id: number }).id }, headers: asAdmin() }
    expect((await call('get', `${V2}/sources`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/sources/{id}`, one)).statusCode).toBe(200)
    expect((await call('get', `${V2}/sources/{id}`, { ...one, params: { id: 999_999 } })).statusCode).toBe(404)
    expect((await call('patch', `${V2}/sources/{id}`, { ...one, payload: { stale_after_days: 5 } })).statusCode).toBe(
      200,
    )
    const ran = await call('post', `${V2}/sources/{id}/run`, one)
    expect(ran.statusCode).toBe(200)
    expect(
      (await call('get', `${V2}/source-runs`, { headers: asAdmin(), query: { outcome: 'failed' } })).statusCode,
    ).toBe(200)
    const run = { params: { id: (ran.json() as { id: number }).id }, headers: asAdmin() }
    expect((await call('get', `${V2}/source-runs/{id}`, run)).statusCode).toBe(200)
    expect((await call('post', `${V2}/source-runs/{id}/apply`, run)).statusCode).toBe(409)
    expect((await call('post', `${V2}/source-runs/{id}/reject`, { ...run, params: { id: 999_999 } })).statusCode).toBe(
      404,
    )
    // the header row of the saved (unreachable) source: the fetch's failure, named
    const preview = await call('post', `${V2}/sources/preview-headers`, {
      headers: asAdmin(),
      payload: { source_id: one.params.id },
    })
    expect(preview.statusCode).toBe(422)
    expect((preview.json() as { error: string }).error).toBe('source_preview_failed')
    expect(
      (await call('post', `${V2}/sources/preview-headers`, { headers: asAdmin(), payload: { url: 'ftp://x' } }))
        .statusCode,
    ).toBe(400)
    expect((await call('delete', `${V2}/sources/{id}`, one)).statusCode).toBe(200)
  })

  it('the operator’s settings: alert channels, a test alert and the licence', async () => {
    const readerAuth = { headers: { authorization: reader } }
    const alerts = `${V2}/alerts/settings`
    expect((await call('get', alerts, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', alerts, readerAuth)).statusCode).toBe(403)
    expect((await call('post', `${V2}/alerts/test`, { headers: asAdmin(), payload: {} })).statusCode).toBe(400)
    expect((await call('put', alerts, { headers: asAdmin(), payload: { webhook: { url: 'x' } } })).statusCode).toBe(422)
    expect((await call('put', alerts, { headers: asAdmin(), payload: { other: 1 } })).statusCode).toBe(400)
    const saved = await call('put', alerts, {
      headers: asAdmin(),
      payload: { webhook: { url: 'http://127.0.0.1:9/hook', secret: 's'.repeat(40) } },
    })
    expect(saved.statusCode).toBe(200)
    const test = await call('post', `${V2}/alerts/test`, { headers: asAdmin(), payload: {} })
    expect(test.statusCode).toBe(200)
    expect(test.json()).toMatchObject({ state: 'failed' })
    // e-mail and the panel's address: a trial keeps the test e-mail in the outbox
    const mail = `${V2}/mail/settings`
    expect((await call('get', mail, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', mail, readerAuth)).statusCode).toBe(403)
    expect((await call('put', mail, { headers: asAdmin(), payload: { panel_url: 'ftp://x' } })).statusCode).toBe(422)
    expect((await call('put', mail, { headers: asAdmin(), payload: { other: 1 } })).statusCode).toBe(400)
    expect(
      (await call('put', mail, { headers: asAdmin(), payload: { panel_url: 'https://ceny.example.pl' } })).statusCode,
    ).toBe(200)
    expect((await call('post', `${V2}/mail/test`, { headers: asAdmin(), payload: { to: 'x' } })).statusCode).toBe(400)
    const mailed = await call('post', `${V2}/mail/test`, { headers: asAdmin(), payload: { to: 'ops@example.pl' } })
    expect(mailed.json()).toMatchObject({ sent: true, via: 'outbox' })
    expect((await call('get', `${V2}/mail/outbox`, { headers: asAdmin() })).json()).toMatchObject({ active: true })
    expect((await call('get', `${V2}/mail/outbox`, readerAuth)).statusCode).toBe(403)
    expect((await call('get', `${V2}/license`, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', `${V2}/license`, readerAuth)).statusCode).toBe(403)
    expect(
      (await call('put', `${V2}/license`, { headers: asAdmin(), payload: { plan: 'gold', entitlements: [] } }))
        .statusCode,
    ).toBe(400)
    const installed = await call('put', `${V2}/license`, {
      headers: asAdmin(),
      payload: { plan: 'pro', entitlements: ['api_webhooks', 'bulk_import', 'publishing_gov'], valid_until: null },
    })
    expect(installed.statusCode).toBe(200)
    for (const format of ['csv', 'xlsx']) {
      expect((await call('get', `${V2}/offers/export`, { headers: asAdmin(), query: { format } })).statusCode).toBe(200)
      expect((await call('get', `${V2}/imports/template`, { headers: asAdmin(), query: { format } })).statusCode).toBe(
        200,
      )
    }
    expect(
      (await call('get', `${V2}/offers/export`, { headers: asAdmin(), query: { format: 'pdf' } })).statusCode,
    ).toBe(400)
    expect((await call('get', `${V2}/imports/template`, readerAuth)).statusCode).toBe(403)
    const investment = await env.ctx.db.selectFrom('investments').select('id').orderBy('id').executeTakeFirstOrThrow()
    const change = {
      investment: investment.id,
      percent: '2',
      rounding: 'zloty',
      valid_from: '2027-01-01',
      reason: 'test',
    }
    expect(
      (
        await call('post', `${V2}/offers/price-change/preview`, {
          headers: asAdmin(),
          payload: { ...change, percent: 'x' },
        })
      ).statusCode,
    ).toBe(422)
    const planned = await call('post', `${V2}/offers/price-change/preview`, { headers: asAdmin(), payload: change })
    expect(planned.statusCode).toBe(200)
    const done = await call('post', `${V2}/offers/price-change/execute`, {
      headers: asAdmin({ 'idempotency-key': 'openapi-price-change-1' }),
      payload: { job_id: (planned.json() as { job_id: string }).job_id, reason: 'test' },
    })
    expect(done.statusCode).toBe(200)
    expect(
      (
        await call('post', `${V2}/offers/price-change/execute`, {
          headers: asAdmin({ 'idempotency-key': 'openapi-price-change-2' }),
          payload: { job_id: 'f'.repeat(32), reason: 'test' },
        })
      ).statusCode,
    ).toBe(404)
  })

  it('the platform: a company created, read, changed, suspended, resumed, exported and deleted, with refusals', async () => {
    const tenants = `${V2}/platform/tenants`
    const readerAuth = { headers: { authorization: reader } }
    expect((await call('get', tenants, { headers: asAdmin() })).statusCode).toBe(200)
    expect((await call('get', tenants, readerAuth)).statusCode).toBe(403)
    expect((await call('post', tenants, { headers: asAdmin(), payload: { slug: 'X!', name: 'x' } })).statusCode).toBe(
      422,
    )
    expect((await call('post', tenants, { headers: asAdmin(), payload: { slug: 'openapi-co' } })).statusCode).toBe(400)
    const created = await call('post', tenants, {
      headers: asAdmin(),
      payload: { slug: 'openapi-co', name: 'OpenAPI Sp. z o.o.', hosts: ['ceny.openapi.example'] },
    })
    expect(created.statusCode).toBe(201)
    expect((created.json() as { admin: { login: string } }).admin.login).toBe('admin')
    expect(
      (await call('post', tenants, { headers: asAdmin(), payload: { slug: 'openapi-co', name: 'x' } })).statusCode,
    ).toBe(409)
    const one = `${tenants}/{slug}`
    const slug = (value = 'openapi-co') => ({ slug: value })
    expect((await call('get', one, { params: slug(), headers: asAdmin() })).json()).toMatchObject({
      health: { users: 1 },
    })
    expect((await call('get', one, { params: slug('nobody-here'), headers: asAdmin() })).statusCode).toBe(404)
    expect(
      (await call('patch', one, { params: slug(), headers: asAdmin(), payload: { hosts: ['not a host'] } })).statusCode,
    ).toBe(422)
    expect(
      (
        await call('patch', one, {
          params: slug(),
          headers: asAdmin(),
          payload: { name: 'OpenAPI SA', site_url: 'https://openapi.example/' },
        })
      ).json(),
    ).toMatchObject({
      name: 'OpenAPI SA',
      site_url: 'https://openapi.example',
    })
    expect((await call('post', `${one}/suspend`, { params: slug(), headers: asAdmin() })).json()).toMatchObject({
      status: 'suspended',
    })
    expect((await call('post', `${one}/resume`, { params: slug(), headers: asAdmin() })).json()).toMatchObject({
      status: 'active',
    })
    expect(
      (await call('delete', one, { params: slug(), headers: asAdmin(), query: { confirm: 'openapi-co' } })).statusCode,
    ).toBe(409)
    expect((await call('post', `${one}/export`, { params: slug(), headers: asAdmin() })).statusCode).toBe(200)
    expect(
      (await call('delete', one, { params: slug(), headers: asAdmin(), query: { confirm: 'other' } })).statusCode,
    ).toBe(422)
    expect(
      (await call('delete', one, { params: slug(), headers: asAdmin(), query: { confirm: 'openapi-co' } })).statusCode,
    ).toBe(204)
    expect((await call('get', tenants, { headers: asAdmin() })).json()).toEqual([])
  })

  it('calls every operation of the administration', () => {
    const administration = contractOperations(document).operations.filter((operation) =>
      ADMINISTRATION_OPERATION.test(operation),
    )
    expect(administration.length).toBeGreaterThan(25)
    expect(administration.filter((operation) => !called.has(operation))).toEqual([])
  })
})
