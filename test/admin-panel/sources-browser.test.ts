/*
 * Offer sources in the admin panel, driven in Debian's Chromium (playwright-core): a source added
 * with the form (its columns assigned with the import's fields from the file's header row read
 * once, the token header never shown again), a first run applied by hand, its schedule set with
 * the publication's day and time picker, a pasted text that is no certificate refused in Polish, a price
 * typo ×10 held with its guard and the offer's price before → after, rejected; half the rows
 * vanishing held by two guards and applied; each state saved as a screenshot when
 * DG_PANEL_SCREENSHOTS names a folder.
 *
 * SQLite only: the storage is covered on both databases by test/sources/sources.test.ts.
 */
import fs from 'node:fs'
import path from 'node:path'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestUser, grantProLicense } from '../helpers/factories.js'
import { handbookShot } from '../helpers/handbook-screenshots.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'
import {
  type SourceFileServer,
  SOURCE_HEADER,
  SOURCE_MAPPING,
  startSourceFileServer,
} from '../sources/source-file-server.js'
import { chromiumPresent, launchChromium, openPage } from '../helpers/panel-browser.js'

const SCREENSHOTS = process.env.DG_PANEL_SCREENSHOTS
const MAPPING = SOURCE_MAPPING
const HEADER = SOURCE_HEADER

function priceList(price: (i: number) => number, count = 10): string {
  const rows = Array.from(
    { length: count },
    (_, k) => `INV-A;${k + 1};A/${k + 1};mieszkanie;wolne;50,00;2;1;${price(k + 1)};2026-05-01;Poznań`,
  )
  return `${HEADER}\n${rows.join('\n')}\n`
}
const base = (i: number) => 500_000 + i * 1000

describe.skipIf(!chromiumPresent)('offer sources in Chromium [sqlite]', () => {
  let env: TestEnv
  let browser: Browser
  let page: Page
  let origin: string
  let server: SourceFileServer
  const problems: string[] = []
  let shots = 0

  const shot = async (name: string) => {
    if (!SCREENSHOTS) return
    fs.mkdirSync(SCREENSHOTS, { recursive: true })
    await page.evaluate("(() => { window.scrollTo(0, 0); document.getElementById('toasts')?.replaceChildren() })()")
    shots++
    await page.screenshot({
      path: path.join(SCREENSHOTS, `zrodla-${String(shots).padStart(2, '0')}-${name}.png`),
      fullPage: true,
    })
  }
  const priceOf = async (id: string) =>
    Number(
      (
        await env.ctx.db
          .selectFrom('offers')
          .select('price_total_cents')
          .where('source_property_id', '=', id)
          .executeTakeFirstOrThrow()
      ).price_total_cents,
    )
  const activeOffers = async () =>
    Number(
      (
        await env.ctx.db
          .selectFrom('offers')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('status', '!=', 'archived')
          .executeTakeFirstOrThrow()
      ).n,
    )
  const runNow = async () => {
    await page.click('#sources-table button[data-source]')
  }
  const openSources = async () => {
    await page.goto(`${origin}/dg-admin/#/zrodla`)
    await page.locator('.page[data-view=zrodla] #add-source').waitFor()
  }

  beforeAll(async () => {
    env = await startTestApp('sqlite')
    env.clock.set(new Date().toISOString())
    await grantProLicense(env.ctx)
    const admin = await createTestUser(env.ctx, 'administrator', 'operator')
    server = await startSourceFileServer()
    server.content = priceList(base)
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

  it('adds a source with the form; the token is not shown again', async () => {
    await page.click('#nav a[data-route=zrodla]')
    await page.locator('#add-source').waitFor()
    expect(await page.textContent('.page')).toContain('Nie dodano jeszcze żadnego źródła.')
    await page.fill('#add-source [name=name]', 'Cennik — arkusz Google')
    await page.fill('#add-source [name=url]', `${server.origin}/prices.csv`)
    await page.fill('#add-source [name=headers]', 'Authorization: Bearer sekret-panelu-42')
    await page.selectOption('#add-source [name=mode]', 'snapshot')
    await page.fill('#add-source [name=private_hosts]', `127.0.0.1:${server.port}`)
    // the required fields are said before anything is sent
    await page.click('#add-source button[type=submit]')
    expect(await page.textContent('#add-source')).toContain('Przypisz kolumny wymaganych pól: Identyfikator inwestycji')
    // the file is fetched once; its columns are listed and matched to the import's fields by name
    const requestsBefore = server.requests.length
    await page.click('#add-source-read-headers')
    await page.locator('#add-source-file-columns').waitFor()
    expect(server.requests.length).toBe(requestsBefore + 1)
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer sekret-panelu-42')
    expect(await page.textContent('#add-source-file-columns')).toContain('ID lokalu')
    expect(await page.textContent('#add-source-header-preview')).toContain('Dopasowano automatycznie: 11')
    for (const [field, header] of Object.entries(MAPPING))
      expect(await page.inputValue(`#add-source-map-${field}`)).toBe(header)
    // an assignment to a column the file lacks is marked beside its field, as in the import
    await page.fill('#add-source-map-prop_no', 'Nr')
    expect(await page.textContent('#add-source-mapping')).toContain('brak takiej kolumny w pliku')
    await page.fill('#add-source-map-prop_no', 'Numer')
    expect(await page.isVisible('#add-source-schedule-time')).toBe(false)
    await shot('formularz')
    await page.click('#add-source button[type=submit]')
    await page.locator('#sources-table').waitFor()
    const table = await page.textContent('#sources-table')
    expect(table).toContain('Cennik — arkusz Google')
    expect(table).toContain('nagłówki: Authorization')
    expect(table).toContain('codziennie, 30 min przed publikacją')
    expect(await page.content()).not.toContain('sekret-panelu-42')
    const stored = await env.ctx.db.selectFrom('sources').select(['mapping', 'schedule']).executeTakeFirstOrThrow()
    expect(JSON.parse(stored.mapping)).toEqual(MAPPING)
    expect(stored.schedule).toBeNull()
  })

  it('runs the source by hand: the first file is applied', async () => {
    await runNow()
    await expect.poll(() => page.textContent('#runs-table'), { timeout: 15_000 }).toContain('zastosowano')
    expect(await activeOffers()).toBe(10)
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer sekret-panelu-42')
    await shot('lista-po-pierwszym-przebiegu')
    await handbookShot(page, 'sources/lista-po-pierwszym-przebiegu')
  })

  it('holds a price typo ×10, shows the offer before → after and the guard, and rejects it', async () => {
    const before = await priceOf('4')
    server.content = priceList((i) => base(i) * (i === 4 ? 10 : 1))
    await runNow()
    await page.locator('#run-guards').waitFor()
    expect(await page.textContent('h1')).toContain('wstrzymano')
    expect(await page.textContent('#run-guards')).toContain('Zmiana ceny lokalu')
    const flagged = await page.textContent('#flagged-offers')
    expect(flagged).toContain('INV-A / 4')
    expect(flagged).toContain('5\u00a0040\u00a0000')
    expect(await page.textContent('#plan-changes')).toContain('Cena całkowita')
    expect(await page.textContent('#plan-kept')).toContain('Plan jest dostępny do')
    await shot('przebieg-wstrzymany-cena')
    await handbookShot(page, 'sources/przebieg-wstrzymany-cena')
    await page.click('#reject-run')
    await page.click('#confirm-ok')
    await expect.poll(() => page.textContent('h1')).toContain('odrzucono')
    expect(await priceOf('4')).toBe(before)
    expect(await page.locator('#apply-run').count()).toBe(0)
    await shot('przebieg-odrzucony')
  })

  it('holds half the rows vanishing and applies it on the operator’s word', async () => {
    server.content = priceList(base, 5)
    await openSources()
    await runNow()
    await page.locator('#run-guards').waitFor()
    const guards = await page.textContent('#run-guards')
    expect(guards).toContain('Archiwizacja lub wycofanie ofert')
    expect(guards).toContain('Plik się skurczył')
    expect(await activeOffers()).toBe(10)
    await shot('przebieg-wstrzymany-polowa-wierszy')
    const runPage = page.url()
    await page.click('#nav a[data-route=status]')
    await page.locator('#sources-notice').waitFor()
    expect(await page.textContent('#sources-notice')).toContain('Przebiegi czekające na decyzję: 1.')
    await shot('pulpit-z-wstrzymanym-przebiegiem')
    await page.goto(runPage)
    await page.locator('#apply-run').waitFor()
    await page.click('#apply-run')
    await page.click('#confirm-ok')
    await expect.poll(() => page.textContent('h1')).toContain('zastosowano')
    expect(await page.textContent('.page')).toContain('operator')
    expect(await activeOffers()).toBe(5)
    await shot('przebieg-zastosowany')
    await openSources()
    expect(await page.locator('#held-runs').count()).toBe(0)
    await shot('lista-po-decyzjach')
  })

  it('edits the source without showing its token, and keeps the token unless replaced', async () => {
    await openSources()
    await page.click('#sources-table a[data-edit-source]')
    await page.locator('#edit-source').waitFor()
    expect(await page.inputValue('#edit-source [name=url]')).toBe(`${server.origin}/prices.csv`)
    expect(await page.inputValue('#edit-source [name=headers]')).toBe('')
    expect(await page.textContent('#edit-source')).toContain('Zapisane: Authorization')
    expect(await page.content()).not.toContain('sekret-panelu-42')
    await page.fill('#edit-source [name=max_price_change_pct]', '15')
    await page.fill('#edit-source [name=stale_after_days]', '5')
    expect(await page.inputValue('#edit-source-map-price_total')).toBe('Cena')
    // the publication's picker: a time of day and the days of the week
    await page.check('#edit-source-schedule-own')
    await page.fill('#edit-source-schedule-time', '06:00')
    await page.uncheck('#edit-source-schedule-day-0')
    expect(await page.textContent('#edit-source-schedule-effect')).toContain('O 06:00 czasu polskiego w dni')
    expect(await page.locator('#edit-source-schedule-daily-duty .alert').count()).toBe(0)
    await page.selectOption('#edit-source [name=mode]', 'patch')
    await shot('edycja-zrodla')
    await handbookShot(page, 'sources/edycja-zrodla')
    await page.click('#edit-source button[type=submit]')
    await expect.poll(() => page.textContent('#edit-source')).toContain('Zapisane: Authorization')
    const storedSchedule = async () =>
      (await env.ctx.db.selectFrom('sources').select('schedule').executeTakeFirstOrThrow()).schedule
    await expect.poll(storedSchedule).toBe('0 6 * * 1,2,3,4,5,6')
    const stored = await env.ctx.db.selectFrom('sources').selectAll().executeTakeFirstOrThrow()
    expect(JSON.parse(stored.guards as string)).toMatchObject({ max_price_change_pct: 15 })
    expect(stored).toMatchObject({ stale_after_days: 5, schedule: '0 6 * * 1,2,3,4,5,6', mode: 'patch' })
    expect(JSON.parse(stored.mapping as string)).toEqual(MAPPING)
    // a pasted text that is no certificate is refused in Polish, and nothing is changed
    await page.fill('#edit-source [name=ca_certificate]', 'to nie jest certyfikat')
    await page.click('#edit-source button[type=submit]')
    await page.locator('#edit-source-issues').waitFor()
    expect(await page.textContent('#edit-source-issues')).toContain(
      'Zaufany certyfikat serwera: Wklejony tekst nie zawiera certyfikatu',
    )
    await shot('certyfikat-odrzucony')
    await page.fill('#edit-source [name=ca_certificate]', '')
    await openSources()
    expect(await page.textContent('#sources-table')).toContain('o 06:00 (pn, wt, śr, czw, pt, sob)')
    // the token is still sent: an empty header box kept it
    server.content = priceList((i) => base(i) + 1000, 5)
    await openSources()
    await runNow()
    await expect.poll(() => page.textContent('#runs-table')).toContain('zastosowano')
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer sekret-panelu-42')
    // a new token replaces the stored one, and is not shown either
    await page.click('#sources-table a[data-edit-source]')
    await page.fill('#edit-source [name=headers]', 'Authorization: Bearer nowy-token-7')
    await page.click('#edit-source button[type=submit]')
    await expect.poll(() => page.inputValue('#edit-source [name=headers]')).toBe('')
    expect(await page.content()).not.toContain('nowy-token-7')
    server.content = priceList((i) => base(i) + 2000, 5)
    await openSources()
    await runNow()
    await expect.poll(() => server.requests.at(-1)?.headers.authorization).toBe('Bearer nowy-token-7')
  })

  it('deletes the source after a Polish confirmation; its runs stay in the history', async () => {
    await openSources()
    const runsBefore = Number(
      (
        await env.ctx.db
          .selectFrom('source_runs')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
    await page.click('#sources-table a[data-edit-source]')
    await page.click('#delete-source')
    await page.locator('#confirm-ok').waitFor()
    const dialog = await page.textContent('#confirm-dialog')
    expect(dialog).toContain('Usunąć źródło „Cennik — arkusz Google”?')
    expect(dialog).toContain('przebiegi zostają w historii')
    await shot('usuwanie-zrodla')
    await page.click('#confirm-ok')
    await page.locator('.page[data-view=zrodla] #add-source').waitFor()
    expect(await page.textContent('.page')).toContain('Nie dodano jeszcze żadnego źródła.')
    expect(await page.locator('#runs-table tbody tr').count()).toBe(runsBefore)
    expect(await activeOffers()).toBe(5)
  })

  it('raised no error in the page', () => {
    expect(problems).toEqual([])
  })
})
