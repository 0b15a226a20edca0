/*
 * A user's scope in the panel, in Debian's Chromium: an administrator chooses an operator's
 * investments from the list on its page, and the operator then sees only those investments, and
 * neither the publication (a dataset is published per developer entity) nor the sources.
 * Set DG_PANEL_SCREENSHOTS=<folder> to keep screenshots.
 *
 * SQLite only: the suites of the scope (test/host/auth/user-scopes.test.ts,
 * test/host/http/openapi-scopes.test.ts) cover both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestUser, type TestUser } from '../helpers/factories.js'
import { chromiumPresent, startPanel, type PanelSession } from '../helpers/panel-browser.js'

describe.skipIf(!chromiumPresent)('a user’s scope in the panel in Chromium [sqlite]', () => {
  let panel: PanelSession
  let admin: TestUser & { loginPassword: string }
  let operator: TestUser & { loginPassword: string }

  beforeAll(async () => {
    panel = await startPanel({ lang: 'pl-PL', screenshotPrefix: 'user-scope' })
    admin = await createTestUser(panel.env.ctx, 'administrator')
    operator = await createTestUser(panel.env.ctx, 'dg_operator')
  }, 60_000)
  afterAll(async () => {
    await panel?.close()
  })

  async function logIn(user: TestUser & { loginPassword: string }) {
    const { page, origin } = panel
    await page.goto(`${origin}/dg-admin/#/status`)
    await page.locator('#login').waitFor()
    await page.fill('#login', user.login)
    await page.fill('#password', user.loginPassword)
    await page.click('button[type=submit]')
    await page.locator('#nav').waitFor({ state: 'visible' })
  }

  it('an administrator limits an operator to one investment, which is then all the operator sees', async () => {
    const { page, env } = panel
    const investments = await env.ctx.db.selectFrom('investments').select(['id', 'title']).orderBy('id').execute()
    expect(investments.length).toBeGreaterThan(1)
    const chosen = investments[0] as { id: number; title: string }

    await logIn(admin)
    await page.goto(`${panel.origin}/dg-admin/#/uzytkownicy/${operator.id}`)
    await page.locator('#scope-form').waitFor()
    expect(await page.textContent('#user-scope')).toContain('Cały katalog')
    await page.uncheck('#scope-whole')
    await page.check(`input[data-kind="investment"][value="${chosen.id}"]`)
    await panel.shot('scope-form')
    await page.click('#save-scope')
    await expect.poll(() => page.textContent('#user-scope')).toContain(chosen.title)
    const stored = await env.ctx.db.selectFrom('user_scopes').selectAll().where('user_id', '=', operator.id).execute()
    expect(stored).toEqual([{ user_id: operator.id, kind: 'investment', target_id: chosen.id }])
    await panel.go('uzytkownicy')
    await expect.poll(() => page.textContent(`tr[data-login="${operator.login}"] .user-scope`)).toBe('inwestycje: 1')
    await page.click('#logout')
    await page.locator('#login').waitFor()

    await logIn(operator)
    const links = page.locator('#nav a[data-route]')
    const routes: Array<string | null> = []
    for (let index = 0; index < (await links.count()); index++)
      routes.push(await links.nth(index).getAttribute('data-route'))
    expect(routes).toContain('inwestycje')
    for (const route of ['publikacja', 'raport', 'zrodla']) expect(routes).not.toContain(route)
    await panel.go('inwestycje')
    await page.locator('a.investment-link').first().waitFor()
    const shown = await page.locator('a.investment-link').evaluateAll((links) => links.map((link) => link.textContent))
    expect(shown).toEqual([chosen.title])
    await panel.shot('operator-investments')
    await page.goto(`${panel.origin}/dg-admin/#/publikacja`)
    await expect.poll(() => page.textContent('.page')).toContain('Zakres Twojego konta nie obejmuje tej sekcji')
    expect(panel.problems).toEqual([])
  })
})
