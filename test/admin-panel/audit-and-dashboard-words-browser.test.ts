/*
 * The event log and the dashboard in an operator's words, in Chromium: every event named in Polish
 * (no action code, no job's hex id in the table), an import named by its file, days as dd.mm.rrrr;
 * the schedule said in words ("codziennie o 00:30") with the cron pattern only under the technical
 * details. Screenshots in DG_PANEL_SCREENSHOTS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { chromiumPresent, type PanelSession, startPanel } from '../helpers/panel-browser.js'

describe.skipIf(!chromiumPresent)('the event log and the dashboard in words [sqlite]', () => {
  let panel: PanelSession

  beforeAll(async () => {
    panel = await startPanel({ screenshotPrefix: 'slowa', lang: 'pl-PL' })
    await panel.login()
    // an import of a named file, previewed and executed, as an operator does it
    const { env } = panel
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select('source_id')
      .where('source_id', 'is not', null)
      .orderBy('id')
      .executeTakeFirstOrThrow()
    const csv = `source_investment_id;source_property_id;price_total;price_total_from\r\n${investment.source_id};SLOWA-1;650000.00;2026-01-01\r\n`
    const form = multipart(
      {
        mode: 'patch',
        mapping: JSON.stringify({
          source_investment_id: 'source_investment_id',
          source_property_id: 'source_property_id',
          price_total: 'price_total',
          price_total_from: 'price_total_from',
        }),
      },
      { name: 'ceny.csv', content: Buffer.from(csv, 'utf8') },
    )
    const { authorization } = await createTestUser(env.ctx, 'administrator')
    await env.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/imports/offer',
      headers: { authorization, ...form.headers },
      payload: form.payload,
    })
  })
  afterAll(async () => {
    await panel?.close()
  })

  it('names every event of the log in Polish, an import by its file, without action codes or hex ids', async () => {
    const { page } = panel
    await panel.go('audyt')
    await page.locator('#audit-table tbody tr[data-action]').first().waitFor()
    const rows = await page.locator('#audit-table tbody tr[data-action]').evaluateAll((elements) =>
      elements.map((row) => {
        const cells = (row as unknown as { cells: ArrayLike<{ innerText: string }> }).cells
        return {
          action: (row as unknown as { dataset: Record<string, string> }).dataset.action ?? '',
          when: cells[0]?.innerText ?? '',
          event: cells[2]?.innerText ?? '',
          object: cells[3]?.innerText ?? '',
        }
      }),
    )
    expect(rows.length).toBeGreaterThan(3)
    for (const row of rows) {
      expect(row.event, row.action).not.toContain(row.action)
      expect(row.event, row.action).not.toMatch(/\b[a-z_]+\.[a-z_]+\b/)
      expect(row.object, row.action).not.toMatch(/[0-9a-f]{32}/)
      expect(row.when).toMatch(/^\d{2}\.\d{2}\.\d{4}/)
    }
    const preview = rows.find((row) => row.action === 'import.preview')
    expect(preview?.event).toBe('Podgląd importu ofert')
    expect(preview?.object).toBe('Import pliku ceny.csv')
    await panel.shot('dziennik-zdarzen')
    // the code and the id stay at hand in the details
    const first = page.locator('#audit-table tbody tr[data-action="import.preview"]').first()
    await first.locator('details.row-details > summary').click()
    expect(await first.textContent()).toContain('Kod zdarzenia')
    expect(await first.textContent()).toContain('import.preview')
    await panel.shot('dziennik-zdarzen-szczegoly')
  })

  it('says the schedule in words on the dashboard, and names the CRM’s deliveries in Polish', async () => {
    const { page } = panel
    await panel.go('status')
    await page.locator('#schedule-words').waitFor()
    expect(await page.textContent('#schedule-words')).toBe('codziennie o 00:30 (czas polski)')
    const text = (await page.textContent('#view')) ?? ''
    expect(text).not.toContain('Webhook z CRM')
    expect(text).toContain('Zmiany ofert przysłane z CRM')
    // the cron pattern is a technical detail, folded away
    expect(await page.locator('details.technical', { hasText: '30 0 * * *' }).count()).toBe(1)
    expect(await page.isVisible('text=30 0 * * *')).toBe(false)
    await panel.shot('pulpit')
  })
})
