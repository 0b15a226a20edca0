/*
 * A source's page in the admin panel, driven in Debian's Chromium (playwright-core): moving the
 * address to another server says, in Polish and until the operator leaves the page, that the
 * saved token was removed; a private address literal is refused at the address field with the
 * Polish reason and the allowance to add, nothing saved.
 *
 * SQLite only: the storage is covered on both databases by source-headers-origin.test.ts and
 * source-address-entry.test.ts.
 */

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createSource } from '../../src/sources/source-service.js'
import { createTestUser, grantProLicense } from '../helpers/factories.js'
import { chromiumPresent, launchChromium, openPage } from '../helpers/panel-browser.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'
import { type SourceFileServer, SOURCE_MAPPING, startSourceFileServer } from './source-file-server.js'

describe.skipIf(!chromiumPresent)('a source page on its address [sqlite]', () => {
  let env: TestEnv
  let browser: Browser
  let page: Page
  let origin: string
  let server: SourceFileServer
  let sourceId: number
  const problems: string[] = []

  const stored = () => env.ctx.db.selectFrom('sources').selectAll().where('id', '=', sourceId).executeTakeFirstOrThrow()
  const openSource = async () => {
    await page.goto(`${origin}/dg-admin/#/zrodla/zrodlo/${sourceId}`)
    await page.locator('#edit-source').waitFor()
  }

  beforeAll(async () => {
    env = await startTestApp('sqlite')
    env.clock.set(new Date().toISOString())
    await grantProLicense(env.ctx)
    const admin = await createTestUser(env.ctx, 'administrator', 'operator')
    server = await startSourceFileServer()
    sourceId = (
      await createSource(
        env.ctx,
        { type: 'cli' },
        {
          name: 'Cennik z CRM',
          url: `${server.origin}/prices.csv`,
          headers: { Authorization: 'Bearer sekret-crm-9' },
          mapping: SOURCE_MAPPING,
          private_hosts: [`127.0.0.1:${server.port}`, `localhost:${server.port}`],
        },
      )
    ).id
    await env.app.listen({ port: 0, host: '127.0.0.1' })
    const address = env.app.server.address()
    if (!address || typeof address === 'string') throw new Error('not listening')
    origin = `http://127.0.0.1:${address.port}`
    browser = await launchChromium('pl-PL')
    page = await openPage(browser, problems, { timeout: 15_000 })
    await page.goto(`${origin}/dg-admin/`)
    await page.fill('#login', 'operator')
    await page.fill('#password', admin.loginPassword)
    await page.click('button[type=submit]')
    await page.locator('#nav a[data-route=zrodla]').waitFor()
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await env?.app.close()
    await env?.database.cleanup()
  })

  it('refuses a private address literal at the address field, in Polish, saving nothing', async () => {
    await openSource()
    await page.fill('#edit-source [name=url]', 'https://[::ffff:127.0.0.1]/ceny.csv')
    await page.click('#edit-source button[type=submit]')
    await expect
      .poll(() => page.textContent('#edit-source'))
      .toContain(
        'Adres pliku: [::ffff:7f00:1] (prowadzi do 127.0.0.1) to adres pętli zwrotnej (ten sam serwer). Źródło pobiera się tylko z adresów publicznych.',
      )
    expect((await stored()).url).toBe(`${server.origin}/prices.csv`)
  })

  it('says the saved token was removed when the address moves to another server', async () => {
    await openSource()
    expect(await page.textContent('#edit-source')).toContain('Adres na innym serwerze (inny protokół, host lub port)')
    await page.fill('#edit-source [name=url]', `https://localhost:${server.port}/prices.csv`)
    await page.click('#edit-source button[type=submit]')
    await page.locator('#source-warnings').waitFor()
    expect(await page.textContent('#source-warnings')).toContain(
      `Adres źródła przeniesiono na inny serwer (${server.origin} → https://localhost:${server.port}), więc zapisane nagłówki (Authorization) usunięto`,
    )
    expect(await page.inputValue('#edit-source [name=url]')).toBe(`https://localhost:${server.port}/prices.csv`)
    expect(await page.textContent('#edit-source')).not.toContain('Zapisane: Authorization')
    expect(JSON.parse((await stored()).headers)).toEqual({})
  })

  it('raised no error in the page', () => {
    expect(problems).toEqual([])
  })
})
