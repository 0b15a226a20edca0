/*
 * Export and bulk price change in the panel, in Chromium without Polish locale data: the offers of
 * one investment downloaded as XLSX and CSV (the CSV previewed by the import as unchanged), the
 * import template downloaded, and a +3% change of the investment from 01.01 rounded to whole złoty
 * (its units on sale only, by default) shown before → after per offer, then saved as one import run. Screenshots in DG_PANEL_SCREENSHOTS.
 *
 * SQLite only: the routes' storage is covered on both databases by test/operator/export-and-price-change.test.ts.
 */
import fs from 'node:fs'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { handbookShot } from '../helpers/handbook-screenshots.js'
import { chromiumPresent, type PanelSession, startPanel } from '../helpers/panel-browser.js'

describe.skipIf(!chromiumPresent)('export and price change in the panel [sqlite]', () => {
  let panel: PanelSession

  beforeAll(async () => {
    panel = await startPanel({ screenshotPrefix: 'ceny' })
    await panel.login()
  })
  afterAll(async () => {
    await panel?.close()
  })

  it('downloads the offers of an investment and the import template', async () => {
    const { page, env } = panel
    await panel.go('zmiana-cen')
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select(['id', 'title'])
      .orderBy('id')
      .executeTakeFirstOrThrow()
    await page.selectOption('#pc-investment', String(investment.id))
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')])
    expect(csv.suggestedFilename()).toBe('oferty.csv')
    const text = fs.readFileSync((await csv.path())!, 'utf8').replace(/^\uFEFF/, '')
    const rows = text.trim().split('\r\n')
    const expected = await env.ctx.db
      .selectFrom('offers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('investment_id', '=', investment.id)
      .where('offer_kind', '=', 'property')
      .executeTakeFirstOrThrow()
    expect(rows.length - 1).toBe(Number(expected.n))
    // Polish headers and statuses for people; the technical names when asked for
    expect(rows[0]).toMatch(/^Identyfikator inwestycji;Identyfikator oferty;/)
    await page.check('#export-technical-names')
    const [technical] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')])
    expect(fs.readFileSync((await technical.path())!, 'utf8').replace(/^\uFEFF/, '')).toMatch(
      /^source_investment_id;source_property_id;/,
    )
    await page.uncheck('#export-technical-names')
    const [xlsx] = await Promise.all([page.waitForEvent('download'), page.click('#export-xlsx')])
    expect(xlsx.suggestedFilename()).toBe('oferty.xlsx')
    const [template] = await Promise.all([page.waitForEvent('download'), page.click('#template-xlsx')])
    expect(template.suggestedFilename()).toBe('szablon-importu.xlsx')
    await panel.shot('eksport')
  })

  it('shows a +3% change before → after per offer with the rounding rule, then saves it as one import run', async () => {
    const { page, env } = panel
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select(['id', 'title'])
      .orderBy('id')
      .executeTakeFirstOrThrow()
    await page.selectOption('#pc-investment', String(investment.id))
    await page.fill('#pc-percent', '3')
    await page.fill('#pc-valid-from', '01.01.2027')
    await page.fill('#pc-reason', 'Waloryzacja cen od nowego roku')
    // by default only the units on sale: never a sold flat
    expect(await page.isChecked('#pc-status-available')).toBe(true)
    for (const other of ['reserved', 'sold', 'unavailable'])
      expect(await page.isChecked(`#pc-status-${other}`)).toBe(false)
    await page.click('#pc-preview')
    await page.locator('#pc-lines tbody tr').first().waitFor()
    const listed = await page
      .locator('#pc-lines tbody tr')
      .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-offer'))))
    const statuses = await env.ctx.db.selectFrom('offers').select('status').where('id', 'in', listed).execute()
    expect(new Set(statuses.map((o) => o.status))).toEqual(new Set(['available']))
    expect(await page.textContent('#pc-rule')).toContain('pełnego złotego')
    expect(await page.textContent('#pc-rule')).toContain('01.01.2027')
    const first = page.locator('#pc-lines tbody tr').first()
    const offerId = Number(await first.getAttribute('data-offer'))
    const before = await env.ctx.db
      .selectFrom('offers')
      .select(['price_total_cents', 'code'])
      .where('id', '=', offerId)
      .executeTakeFirstOrThrow()
    const expectedCents = Math.round((before.price_total_cents! * 1.03) / 100) * 100
    const zl = (cents: number) => `${String(cents / 100).replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0')},00\u00a0zł`
    expect(await first.textContent()).toContain(zl(expectedCents))
    expect(await first.textContent()).toContain(investment.title)
    await panel.shot('zmiana-cen-podglad')
    await handbookShot(panel.page, 'admin/pl-zmiana-cen-podglad')
    await page.click('#pc-execute')
    await page.click('#confirm-ok')
    await expect.poll(() => page.textContent('.page')).toContain('Zapisano nowe ceny')
    const after = await env.ctx.db
      .selectFrom('offers')
      .select(['price_total_cents', 'price_total_from'])
      .where('id', '=', offerId)
      .executeTakeFirstOrThrow()
    expect(after).toEqual({ price_total_cents: expectedCents, price_total_from: '2027-01-01' })
    expect(
      await env.ctx.db.selectFrom('audit_log').select('id').where('action', '=', 'offers.price_change').execute(),
    ).toHaveLength(1)
    await panel.shot('zmiana-cen-zapisana')
    expect(panel.problems).toEqual([])
  })
})
