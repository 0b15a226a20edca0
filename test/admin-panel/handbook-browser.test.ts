/*
 * The operator's handbook in Chromium, as an operator reaches it: "Pomoc" in a view of the panel
 * opens the view's page of the handbook beside the panel, rendered in the panel's look with its
 * screenshots loaded, under the panel's Content-Security-Policy (a refused style or image would
 * show up as a console error), and its search box finds a page by a word typed without Polish
 * diacritics. Screenshots in DG_PANEL_SCREENSHOTS.
 *
 * SQLite only: the handbook reads no database; test/admin-panel/handbook-serving.test.ts covers its
 * answers on both.
 */
import fs from 'node:fs'
import path from 'node:path'

import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { chromiumPresent, type PanelSession, startPanel } from '../helpers/panel-browser.js'

async function shot(page: Page, name: string): Promise<void> {
  const folder = process.env.DG_PANEL_SCREENSHOTS
  if (!folder) return
  fs.mkdirSync(folder, { recursive: true })
  await page.screenshot({ path: path.join(folder, `podrecznik-${name}.png`) })
}

describe.skipIf(!chromiumPresent)('operator handbook in Chromium [sqlite]', () => {
  let panel: PanelSession

  beforeAll(async () => {
    panel = await startPanel({ lang: 'pl-PL' })
    await panel.login()
  })
  afterAll(async () => {
    await panel?.close()
  })

  it('opens the view’s handbook page from "Pomoc", in the panel’s look, with its screenshots', async () => {
    const { page, problems } = panel
    await panel.go('import')
    const [handbook] = await Promise.all([page.waitForEvent('popup'), page.click('.page-header .help-link')])
    handbook.on('console', (message) => {
      if (message.type() === 'error') problems.push(`handbook console: ${message.text()}`)
    })
    await handbook.setViewportSize({ width: 1280, height: 900 })
    await handbook.locator('h1#import-z-excela').waitFor()
    expect(new URL(handbook.url()).pathname).toBe('/dg-admin/podrecznik/import.html')
    expect(await handbook.title()).toBe('Import z Excela — Podręcznik operatora')

    // the panel's stylesheet and the handbook's own are applied (the CSP let them in)
    const look = await handbook.evaluate(`(() => {
      const style = (selector) => getComputedStyle(document.querySelector(selector))
      return {
        topbar: style('.topbar').borderBottomStyle,
        toc: style('.handbook-toc').position,
        current: document.querySelector('.handbook-toc [aria-current="page"]')?.textContent,
        tableCells: document.querySelectorAll('.handbook-page table td').length,
      }
    })()`)
    expect(look).toEqual({ topbar: 'solid', toc: 'sticky', current: 'Import z Excela', tableCells: 10 })

    const image = handbook.locator('.handbook-page img').first()
    await image.scrollIntoViewIfNeeded()
    await expect
      .poll(
        () =>
          handbook.evaluate(
            "(() => { const img = document.querySelector('.handbook-page img'); return img.complete ? img.naturalWidth : 0 })()",
          ),
        { timeout: 10_000 },
      )
      .toBeGreaterThan(100)
    await handbook.evaluate('window.scrollTo(0, 0)')
    await shot(handbook, 'import')

    // the link to the import format reference opens its page, served beside the handbook
    await handbook.click('a[href="docs/reference/import-format.html"]')
    await handbook.locator('.handbook-page h1').waitFor()
    expect(new URL(handbook.url()).pathname).toBe('/dg-admin/podrecznik/docs/reference/import-format.html')
    expect(await handbook.locator('.handbook-page table').count()).toBeGreaterThan(0)
    await handbook.close()
    expect(problems).toEqual([])
  })

  it('finds a page by a word typed without Polish letters and opens its section', async () => {
    const { page, origin, problems } = panel
    await page.goto(`${origin}/dg-admin/podrecznik/`)
    await page.locator('h1#podręcznik-operatora').waitFor()
    await page.fill('#handbook-query', 'zrodlo nie dziala')
    await page.press('#handbook-query', 'Enter')
    const first = page.locator('.handbook-results li a').first()
    await first.waitFor()
    expect(await first.textContent()).toContain('Gdy źródło nie działa')
    expect(await page.locator('.handbook-results mark').first().textContent()).toBe('źródło')
    await shot(page, 'szukaj')
    await first.click()
    await page.waitForURL(/\/dg-admin\/podrecznik\/zrodla\.html#/)
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe('#gdy-źródło-nie-działa')
    await expect.poll(() => page.locator('h2#gdy-źródło-nie-działa').isVisible()).toBe(true)
    expect(problems).toEqual([])
  })
})
