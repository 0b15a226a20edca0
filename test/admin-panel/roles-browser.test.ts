/*
 * The panel under the operator's and the auditor's roles, in Debian's Chromium: the navigation
 * offers only the sections the role may use, an address of another section says the role has no
 * access to it, and the users view shows an auditor the accounts without the forms that change
 * them. Set DG_PANEL_SCREENSHOTS=<folder> to keep screenshots.
 *
 * SQLite only: the route suite of the roles (test/host/http/openapi-roles.test.ts) covers both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestUser } from '../helpers/factories.js'
import { chromiumPresent, startPanel, type PanelSession } from '../helpers/panel-browser.js'

describe.skipIf(!chromiumPresent)('the panel by role in Chromium [sqlite]', () => {
  let panel: PanelSession

  beforeAll(async () => {
    panel = await startPanel({ lang: 'pl-PL', screenshotPrefix: 'roles' })
  }, 60_000)
  afterAll(async () => {
    await panel?.close()
  })

  async function logInAs(role: 'dg_operator' | 'dg_auditor') {
    const { page, origin, env } = panel
    const user = await createTestUser(env.ctx, role)
    await page.goto(`${origin}/dg-admin/#/status`)
    await page.locator('#login').waitFor()
    await page.fill('#login', user.login)
    await page.fill('#password', user.loginPassword)
    await page.click('button[type=submit]')
    await page.locator('#nav').waitFor({ state: 'visible' })
    return user
  }

  const navRoutes = async () => {
    const links = panel.page.locator('#nav a[data-route]')
    const routes: Array<string | null> = []
    for (let index = 0; index < (await links.count()); index++)
      routes.push(await links.nth(index).getAttribute('data-route'))
    return routes
  }

  async function logOut() {
    await panel.page.click('#logout')
    await panel.page.locator('#login').waitFor()
  }

  it('offers an operator the daily work and the catalog, not the administration', async () => {
    const { page } = panel
    await logInAs('dg_operator')
    await page.locator('.page[data-view="status"]').waitFor()
    const routes = await navRoutes()
    for (const route of ['status', 'publikacja', 'raport', 'oferty', 'import', 'zrodla', 'zmiana-cen', 'audyt'])
      expect(routes).toContain(route)
    for (const route of ['uzytkownicy', 'webhook', 'alerty', 'licencja']) expect(routes).not.toContain(route)
    await panel.shot('operator-dashboard')

    await page.goto(`${panel.origin}/dg-admin/#/uzytkownicy`)
    await expect.poll(() => page.textContent('.page')).toContain('Twoja rola nie ma dostępu do tej sekcji')
    expect(await page.locator('#users-table, table').count()).toBe(0)
    await panel.shot('operator-users-refused')
    await logOut()
    expect(panel.problems).toEqual([])
  })

  it('offers an auditor every section to read and the users without their forms', async () => {
    const { page } = panel
    await logInAs('dg_auditor')
    const routes = await navRoutes()
    for (const route of ['status', 'historia', 'oferty', 'zrodla', 'ustawienia', 'uzytkownicy', 'alerty', 'audyt'])
      expect(routes).toContain(route)
    for (const route of ['webhook', 'raport']) expect(routes).not.toContain(route)

    await panel.go('uzytkownicy')
    await page.locator('tr[data-login]').first().waitFor()
    expect(await page.locator('#new-user-role').count()).toBe(0)
    await panel.shot('auditor-users')
    await page.locator('tr[data-login] a').first().click()
    await page.locator('#user-facts').waitFor()
    expect(await page.locator('#role-form').count()).toBe(0)
    await panel.shot('auditor-user')
    await logOut()
    expect(panel.problems).toEqual([])
  })
})
