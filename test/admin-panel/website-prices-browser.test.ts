/*
 * "Ceny na stronie WWW" in the admin panel, in Debian's Chromium: an investment's public prices
 * turned on with the switch (the public endpoint answers at once), a website's address refused
 * with a path and added without, the snippet copied to the clipboard, and the live preview —
 * the component's table when the service serves its script, else a plain "unavailable" notice,
 * never a broken page. Screenshots in DG_PANEL_SCREENSHOTS.
 *
 * SQLite only: the settings' storage is covered on both databases by
 * test/public-prices/public-prices-api.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { chromiumPresent, type PanelSession, startPanel } from '../helpers/panel-browser.js'

const API = '/wp-json/dg/v2'
const SITE = 'https://www.nad-warta.pl'

describe.skipIf(!chromiumPresent)('prices on the website, in the panel [sqlite]', () => {
  let panel: PanelSession
  let investmentId: number

  const settings = async () =>
    panel.env.ctx.db
      .selectFrom('public_prices_settings')
      .select(['enabled', 'allowed_origins'])
      .where('investment_id', '=', investmentId)
      .executeTakeFirst()

  beforeAll(async () => {
    panel = await startPanel({ screenshotPrefix: 'ceny-na-stronie' })
    const investment = await panel.env.ctx.db
      .selectFrom('investments')
      .select('id')
      .where('host_status', '=', 'publish')
      .where('visibility', '=', 'public')
      .orderBy('id')
      .executeTakeFirstOrThrow()
    investmentId = investment.id
    await panel.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: panel.origin })
    await panel.login()
  })

  afterAll(async () => {
    await panel?.close()
  })

  it('is reached from the navigation and the investment, and starts off', async () => {
    const { page } = panel
    await panel.go('ceny-na-stronie')
    await page.locator(`#website-prices-investments a[data-id="${investmentId}"]`).click()
    await page.locator('#website-prices-heading').waitFor()
    expect(await page.locator('#public-prices-enabled').isChecked()).toBe(false)
    expect(await page.locator('#public-prices-state').textContent()).toBe('wyłączone')
    expect(await page.locator('#public-prices-licence').textContent()).toContain('nie wymaga licencji PRO')
    expect(await page.locator('#public-prices-snippet').textContent()).toBe(
      `<script src="${panel.origin}${API}/embed/2.1.0/dg-prices.js" defer></script>\n` +
        `<dg-offer-table investment="${investmentId}"></dg-offer-table>`,
    )
    const publicAnswer = await panel.env.app.inject({ url: `${API}/public/investments/${investmentId}/prices` })
    expect(publicAnswer.statusCode).toBe(404)
    await panel.shot('wylaczone')
  })

  it('turns the public prices on with the switch: the endpoint answers at once', async () => {
    const { page } = panel
    await page.locator('#public-prices-enabled').check()
    await page.locator('#public-prices-state .badge', { hasText: 'włączone' }).waitFor()
    expect(await settings()).toMatchObject({ enabled: 1 })
    const status = await page.evaluate<number, string>(
      async (url) => (await fetch(url)).status,
      `${API}/public/investments/${investmentId}/prices`,
    )
    expect(status).toBe(200)
  })

  it('refuses a website address with a path, adds one without, and lets the site read the prices', async () => {
    const { page } = panel
    await page.fill('#public-prices-origin', `${SITE}/ceny`)
    await page.click('#public-prices-add-origin')
    const error = page.locator('#public-prices-origin-error')
    await error.waitFor()
    expect(await error.textContent()).toContain('bez ścieżki')
    expect(await page.locator('#public-prices-origin').getAttribute('aria-invalid')).toBe('true')
    expect(JSON.parse((await settings())?.allowed_origins ?? '[]')).toEqual([])
    await panel.shot('zly-adres')

    await page.fill('#public-prices-origin', SITE)
    await page.click('#public-prices-add-origin')
    await page.locator(`#public-prices-origins code`, { hasText: SITE }).waitFor()
    expect(await error.isHidden()).toBe(true)
    expect(await page.locator('#public-prices-origin').inputValue()).toBe('')
    expect(JSON.parse((await settings())?.allowed_origins ?? '[]')).toEqual([SITE])
    const fromSite = await panel.env.app.inject({
      url: `${API}/public/investments/${investmentId}/prices`,
      headers: { origin: SITE },
    })
    expect(fromSite.headers['access-control-allow-origin']).toBe(SITE)
  })

  it('copies the snippet to the clipboard', async () => {
    const { page } = panel
    await page.click('#public-prices-copy')
    await page.locator('.toast', { hasText: 'Skopiowano' }).waitFor()
    const copied = await page.evaluate<string>('navigator.clipboard.readText()')
    expect(copied).toBe(await page.locator('#public-prices-snippet').textContent())
    expect(copied).toContain(`<dg-offer-table investment="${investmentId}"></dg-offer-table>`)
  })

  it('previews the component, or says plainly that it is unavailable', async () => {
    const { page } = panel
    const script = await panel.env.app.inject({ url: `${API}/embed/2.1.0/dg-prices.js` })
    const preview = page.locator('#public-prices-preview')
    if (script.statusCode === 200) {
      await preview.locator('dg-offer-table').waitFor()
      // the component draws the investment's units in its (open) shadow root once the data arrives
      const rows = preview.locator('dg-offer-table table.offers tbody tr')
      await rows.first().waitFor()
      const units = await panel.env.app.inject({ url: `${API}/public/investments/${investmentId}/prices` })
      expect(await rows.count()).toBe((units.json() as { units: unknown[] }).units.length)
      expect(await preview.locator('#public-prices-preview-unavailable').count()).toBe(0)
    } else {
      await preview.locator('#public-prices-preview-unavailable').waitFor()
      expect(await preview.textContent()).toContain('Komponent jest niedostępny')
    }
    await panel.shot('wlaczone-podglad')
    expect(panel.problems).toEqual([])
  })

  it('removes the website again', async () => {
    const { page } = panel
    await page.locator(`#public-prices-origins button[data-origin="${SITE}"]`).click()
    await page.locator('#public-prices-origins li.muted').waitFor()
    expect(JSON.parse((await settings())?.allowed_origins ?? '[]')).toEqual([])
  })
})
