/*
 * Every view of the panel, in Polish and in English, at 1280 and at 390 px width, in Chromium
 * without Polish locale data (--lang=en-US, an en-US context). The views are read from the panel's
 * own navigation and from the links each view offers to its details (settings tabs, an offer's and
 * an investment's edit view, a user, a source run), so a new view is walked without touching this
 * file; the import preview and an unknown address are added. The demo catalog fills them, with a
 * day published twice (two versions of one day), a failed attempt after it and an offer without a
 * type, so the dashboard shows its warnings. The walk fails on:
 * - an English word in the Polish panel (words the panel writes only in its English texts, plus
 *   common English words; proper names and technical terms are allowed below);
 * - an untranslated code: a snake_case identifier, "undefined", "null", "NaN", "[object Object]"
 *   outside <code> (codes for support are shown in <code>);
 * - a clipped label: an element hiding overflow or ending in an ellipsis whose text is wider than
 *   it, a select too narrow for its chosen option, text cut off at the viewport's edge;
 * - a horizontal scrollbar on the page at 390 px.
 * Screenshots go to DG_PANEL_SCREENSHOTS, or test-output/panel-walk/ (not committed).
 *
 * SQLite only: the walk reads the demo catalog and writes nothing through the panel beyond an
 * import preview (covered on both databases by the import suites).
 */
import fs from 'node:fs'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { warsawDate } from '../../src/host/warsaw-day.js'
import { publish } from '../../src/publication/publishing/publish.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createSource } from '../../src/sources/source-service.js'
import { runSource } from '../../src/sources/source-runs.js'
import { chromiumPresent, type PanelSession, startPanel } from '../helpers/panel-browser.js'
import {
  SOURCE_HEADER,
  SOURCE_MAPPING,
  type SourceFileServer,
  startSourceFileServer,
} from '../sources/source-file-server.js'

const ASSETS = path.join(import.meta.dirname, '../../src/admin-panel/assets')
const OUTPUT = process.env.DG_PANEL_SCREENSHOTS ?? path.join(import.meta.dirname, '../../test-output/panel-walk')
const WIDTHS = [1280, 390]

/** Proper names and technical terms a Polish text may hold as they are. */
const ALLOWED = new Set(
  (
    'xml csv xlsx url api dane gov pl e mail cron smtp regon nip pro json md5 xsd http https www id ' +
    'webhook webhooka webhooku webhookiem webhooki crm cms wordpress otoraport pdf docx png utf windows ' +
    'dg admin login status import eksport panel plan demo online offline ok email start sms tls ssl ' +
    'token hmac sha ip dns ms s kb mb gb html css js ui rest cli lp m2 test uwaga rezerwacja pomorskie kujawsko ' +
    'warmińsko mazurskie zachodniopomorskie angielsku polsku company website'
  ).split(' '),
)

/** Common English words besides those the panel's English texts hold. */
const ENGLISH = (
  'the and of to is are was were be been in on at for with without from by not no yes this that these ' +
  'those it its an or but if then than when which who what where why how all any each every some more ' +
  'less file files offer offers price prices date day days save cancel delete edit error errors failed ' +
  'published available reserved sold unavailable draft private publish settings preview schedule licence ' +
  'license upload download show hide next previous back close open run runs running scheduler harvester ' +
  'generate legacy unknown none true false yes new old'
).split(' ')

/** Words the panel writes in its English texts (the second argument of tr) and never in Polish. */
function englishOnlyWords(): Set<string> {
  const polish = new Set<string>()
  const english = new Set<string>(ENGLISH)
  const words = (text: string) => text.toLowerCase().match(/\p{L}+/gu) ?? []
  const files = fs.readdirSync(ASSETS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))
  const pair = /tr\(\s*(['`])((?:\\.|(?!\1)[^\\])*)\1\s*,\s*(['`])((?:\\.|(?!\3)[^\\])*)\3/gs
  const array = /\[\s*(['`])((?:\\.|(?!\1)[^\\])*)\1\s*,\s*(['`])((?:\\.|(?!\3)[^\\])*)\3\s*(?:,[^\]]*)?\]/gs
  for (const file of files) {
    const source = fs.readFileSync(path.join(ASSETS, file), 'utf8')
    for (const pattern of [pair, array])
      for (const match of source.matchAll(pattern)) {
        for (const word of words(match[2]!)) polish.add(word)
        for (const word of words(match[4]!)) english.add(word)
      }
  }
  const html = fs.readFileSync(path.join(ASSETS, 'index.html'), 'utf8')
  for (const match of html.matchAll(/data-en="([^"]*)"[^>]*>([^<]*)</g)) {
    for (const word of words(match[1]!)) english.add(word)
    for (const word of words(match[2]!)) polish.add(word)
  }
  // a Polish word quoted in an English text ("uwaga", a voivodeship) is not English
  const polishLetters = /[ąćęłńóśźż]/
  return new Set(
    [...english].filter(
      (word) => !polish.has(word) && !ALLOWED.has(word) && word.length > 1 && !polishLetters.test(word),
    ),
  )
}

/** Runs in the page: what the walk fails on, as lines. */
const CHECK = String.raw`(({ english, lang }) => {
  const found = []
  const englishWords = new Set(english)
  const width = document.documentElement.clientWidth
  const visible = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e)
      if (style.display === 'none' || style.visibility === 'hidden') return false
      if (e.tagName === 'DETAILS' && !e.open && e !== el) {
        // only the summary of a closed details is shown
        if (!el.closest('summary') || el.closest('details') !== e) return false
      }
    }
    const rect = el.getBoundingClientRect()
    return rect.width > 0 && rect.height > 0
  }
  const skipped = (el) => el.closest('code, pre, kbd, samp, .mono, script, style, [data-walk-skip], .toast, svg')
  const describe = (el) => {
    const id = el.id ? '#' + el.id : ''
    const cls = el.classList.length ? '.' + [...el.classList].join('.') : ''
    return el.tagName.toLowerCase() + id + cls
  }
  const scrolledInside = (el) => {
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      const style = getComputedStyle(e)
      if (/(auto|scroll)/.test(style.overflowX) && e.scrollWidth > e.clientWidth) return true
    }
    return false
  }
  // texts: the text nodes, the placeholders, the titles shown on hover, the options
  const texts = []
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement
    if (!el || !node.textContent.trim() || skipped(el) || el.closest('option')) continue
    if (!visible(el)) continue
    texts.push([el, node.textContent])
  }
  for (const el of document.querySelectorAll('[placeholder], [title], [aria-label]')) {
    if (skipped(el) || !visible(el)) continue
    for (const attribute of ['placeholder', 'title', 'aria-label'])
      if (el.getAttribute(attribute)) texts.push([el, el.getAttribute(attribute)])
  }
  for (const el of document.querySelectorAll('select')) {
    if (skipped(el) || !visible(el)) continue
    for (const option of el.options) texts.push([el, option.textContent])
  }
  for (const [el, text] of texts) {
    const where = describe(el)
    const codes = text.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g)
    if (codes) found.push('code ' + codes.join(', ') + ' in ' + where + ': ' + text.trim().slice(0, 140))
    if (/\b(undefined|NaN|\[object Object\])\b/.test(text) || /(^|[\s(:])null([\s),.]|$)/.test(text))
      found.push('raw value in ' + where + ': ' + text.trim().slice(0, 140))
    // "ofert(y)", "błąd(ów)", "offer(s)": a count without its plural form
    if (/\p{L}\((ów|y|e|i|a|s|es)\)/u.test(text))
      found.push('plural left open in ' + where + ': ' + text.trim().slice(0, 140))
    if (lang === 'pl') {
      if (el.closest('[lang]:not(html)') && el.closest('[lang]:not(html)').lang !== 'pl') continue
      // addresses, e-mails and file names are data, not words
      const words = text
        .replace(/\b[\w.+-]+@[\w.-]+\b/g, ' ')
        .replace(/(https?:\/\/|\/)\S*/g, ' ')
        .replace(/\b[\w-]+\.(csv|xml|xlsx|md5|md|json|docx|png)\b/gi, ' ')
        .match(/\p{L}+/gu) ?? []
      const bad = [...new Set(words.filter((w) => englishWords.has(w.toLowerCase())))]
      if (bad.length) found.push('English ' + bad.join(', ') + ' in ' + where + ': ' + text.trim().slice(0, 140))
    }
  }
  // clipped labels
  for (const el of document.querySelectorAll('body *')) {
    if (skipped(el) || !visible(el) || ['INPUT', 'TEXTAREA', 'SELECT', 'IMG', 'CANVAS'].includes(el.tagName)) continue
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())
    if (!own) continue
    const style = getComputedStyle(el)
    const hides = /(hidden|clip)/.test(style.overflowX) || style.textOverflow === 'ellipsis'
    if (hides && el.scrollWidth > el.clientWidth + 1)
      found.push('clipped ' + describe(el) + ': ' + el.textContent.trim().slice(0, 80))
    const rect = el.getBoundingClientRect()
    if ((rect.right > width + 1 || rect.left < -1) && !scrolledInside(el))
      found.push('cut at the viewport edge ' + describe(el) + ': ' + el.textContent.trim().slice(0, 80))
  }
  const canvas = document.createElement('canvas').getContext('2d')
  for (const el of document.querySelectorAll('select')) {
    if (skipped(el) || !visible(el) || el.selectedIndex < 0 || el.multiple) continue
    const style = getComputedStyle(el)
    canvas.font = style.font
    const text = el.options[el.selectedIndex].textContent
    const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 4
    if (canvas.measureText(text).width > room) found.push('clipped select ' + describe(el) + ': ' + text)
  }
  for (const el of document.querySelectorAll('input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=file])')) {
    if (skipped(el) || !visible(el) || !el.value) continue
    const style = getComputedStyle(el)
    canvas.font = style.font
    if (el.type !== 'password' && canvas.measureText(el.value).width > el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) + 1 && el.value.length < 40)
      found.push('clipped input ' + describe(el) + ': ' + el.value)
  }
  // the browser's own file button speaks the browser's language ("Choose File")
  for (const el of document.querySelectorAll('input[type=file]')) {
    const rect = el.getBoundingClientRect()
    if (visible(el) && rect.width > 2 && rect.height > 2) found.push('the browser’s own file button ' + describe(el))
  }
  for (const el of document.querySelectorAll('input[type=date], input[type=datetime-local], input[type=month]')) {
    if (visible(el)) found.push('date input in the browser’s locale ' + describe(el))
  }
  // a table cut inside its card on a wide screen (on a phone a table may scroll sideways)
  if (width >= 1000)
    for (const el of document.querySelectorAll('.table-wrap')) {
      if (visible(el) && el.scrollWidth > el.clientWidth + 1)
        found.push('table wider than its card ' + describe(el) + ' (' + el.scrollWidth + ' > ' + el.clientWidth + ')')
    }
  if (width < 500 && document.documentElement.scrollWidth > width + 1)
    found.push('horizontal scrollbar: the page is ' + document.documentElement.scrollWidth + ' px wide')
  return found
})`

interface Stop {
  /** The address after #/ . */
  route: string
  /** For the screenshot's name. */
  name: string
  /** Drawn after arriving (the import preview). */
  prepare?: (panel: PanelSession) => Promise<void>
}

describe.skipIf(!chromiumPresent)('every view of the panel in both languages and both widths [sqlite]', () => {
  let panel: PanelSession
  const english = [...englishOnlyWords()]
  const findings = new Map<string, string[]>()
  let exportFile = ''
  let sourceServer: SourceFileServer | undefined

  /** A source with a run applied and a run held (a price ×10): its page and the run's page are walked too. */
  async function addHeldSource(): Promise<void> {
    const { ctx } = panel.env
    sourceServer = await startSourceFileServer()
    const list = (factor: number) =>
      `${SOURCE_HEADER}\n${[1, 2, 3, 4]
        .map(
          (i) =>
            `ARKUSZ;${i};S/${i};mieszkanie;wolne;50,00;2;1;${(500_000 + i * 1000) * (i === 2 ? factor : 1)};2026-05-01;Poznań`,
        )
        .join('\n')}\n`
    sourceServer.content = list(1)
    const source = await createSource(
      ctx,
      { type: 'cli' },
      {
        name: 'Cennik z arkusza',
        url: `${sourceServer.origin}/prices.csv`,
        mapping: SOURCE_MAPPING,
        private_hosts: [`127.0.0.1:${sourceServer.port}`],
      },
    )
    await runSource(ctx, source.id, 'manual', { type: 'cli' })
    sourceServer.content = list(10)
    const held = await runSource(ctx, source.id, 'manual', { type: 'cli' })
    expect(held.busy === false && held.run.outcome).toBe('held')
  }

  beforeAll(async () => {
    panel = await startPanel({ screenshotPrefix: 'walk' })
    const { ctx } = panel.env
    const today = warsawDate(panel.env.clock.now())
    // two versions of one day, then a failed attempt: the dashboard's warnings and the history
    await updatePublicationSettings(ctx, { public_base_url: `${panel.origin}/dane-gov` }, { type: 'cli' })
    await publish(ctx, { date: today, trigger: 'schedule', actor: { type: 'scheduler' } })
    await publish(ctx, { date: today, trigger: 'cli', actor: { type: 'cli' } })
    await updatePublicationSettings(ctx, { public_base_url: null }, { type: 'cli' })
    await publish(ctx, { date: today, trigger: 'schedule', actor: { type: 'scheduler' } }).catch(() => undefined)
    // an offer without a type (left out of the official file)
    const offer = await ctx.db
      .selectFrom('offers')
      .select('id')
      .where('offer_kind', '=', 'property')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    await ctx.db.updateTable('offers').set({ property_type: '' }).where('id', '=', offer.id).execute()
    await addHeldSource()
    await panel.login()
    // the import's own columns, for the import preview
    await panel.go('zmiana-cen')
    const [download] = await Promise.all([panel.page.waitForEvent('download'), panel.page.click('#export-csv')])
    fs.rmSync(OUTPUT, { recursive: true, force: true })
    fs.mkdirSync(OUTPUT, { recursive: true })
    exportFile = path.join(OUTPUT, 'oferty.csv')
    await download.saveAs(exportFile)
  }, 120_000)

  afterAll(async () => {
    await panel?.close()
    await sourceServer?.close()
  })

  /** The navigation's routes, then the details each view links to. */
  async function stops(): Promise<Stop[]> {
    const { page } = panel
    await panel.go('status')
    const routes = await page.$$eval('#nav a[data-route]', (links) => links.map((a) => a.getAttribute('data-route')!))
    expect(routes.length).toBeGreaterThan(10)
    const list: Stop[] = []
    for (const route of routes) {
      list.push({ route, name: route })
      await panel.go(route)
      // settle the view's own loading (a table drawn after its answer) before reading its links
      await page.waitForLoadState('networkidle')
      await page.locator('.page .loading, .page [aria-busy=true]').first().waitFor({ state: 'detached' })
      await page.waitForTimeout(300)
      const details = await page.$$eval(`.page a[href^="#/${route}/"]`, (links) =>
        links.map((a) => a.getAttribute('href')!.slice(2)),
      )
      const seen = new Set<string>()
      for (const detail of details) {
        // one of each kind: #/oferty/12 and #/oferty/nowa, #/ustawienia/<each tab>
        const kind = detail
          .split('?')[0]!
          .split('/')
          .map((part: string) => (/^\d+$/.test(part) ? 'N' : part))
          .join('/')
        if (seen.has(kind)) continue
        seen.add(kind)
        list.push({ route: detail, name: kind.replaceAll('/', '-') })
      }
      if (route === 'import')
        list.push({
          route,
          name: 'import-podglad',
          prepare: async ({ page }) => {
            await page.setInputFiles('#import-file', exportFile)
            await page.click('#run-preview')
            await page.locator('#import-preview, .import-preview, [data-preview]').first().waitFor()
          },
        })
    }
    // the trial's outbox is reached from the mail settings, not from the menu
    list.push({ route: 'skrzynka-nadawcza', name: 'skrzynka-nadawcza' })
    list.push({ route: 'nie-ma-takiej-strony', name: 'nieznany-adres' })
    return list
  }

  it('links every view to its page of the operator’s handbook, which the service serves', async () => {
    const { page } = panel
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.evaluate("localStorage.setItem('dg-panel-language', 'pl')")
    await panel.go('status')
    const routes = await page.$$eval('#nav a[data-route]', (links) => links.map((a) => a.getAttribute('data-route')!))
    const handbook = fs.readdirSync(path.join(import.meta.dirname, '../../docs/operator'))
    for (const route of routes) {
      await panel.go(route)
      const link = page.locator('.page-header .help-link')
      await link.waitFor()
      const file = await link.getAttribute('data-help')
      // a page of its own, not the handbook's table of contents
      expect([route, file]).toEqual([route, expect.not.stringMatching(/^README\.md$/)])
      expect(handbook).toContain(file)
      const answer = await page.request.get(new URL((await link.getAttribute('href'))!, page.url()).toString())
      expect([route, answer.status()]).toEqual([route, 200])
    }
  })

  it('links each kind of the dashboard’s warnings to where it is fixed', async () => {
    const { page, env } = panel
    await page.evaluate("localStorage.setItem('dg-panel-language', 'pl')")
    await panel.go('status')
    // the warnings the demo day shows: the failed attempt (public address), the offer without a type
    // the dashboard draws its cards as their answers come (the sources' notice among them)
    const shownLinks = () =>
      page.$$eval('#today .fix-link, .card .alert a[href^="#/"], #alerts .fix-link', (links) =>
        links.map((a) => a.getAttribute('href')!),
      )
    await expect
      .poll(shownLinks, { timeout: 15_000 })
      .toEqual(expect.arrayContaining(['#/ustawienia/publikacja', '#/oferty?without_type=true']))
    const offer = await env.ctx.db
      .selectFrom('offers')
      .select(['id', 'source_property_id'])
      .where('offer_kind', '=', 'property')
      .orderBy('id')
      .executeTakeFirstOrThrow()
    const developer = await env.ctx.db.selectFrom('developers').select('id').orderBy('id').executeTakeFirstOrThrow()
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select(['id', 'title'])
      .orderBy('id')
      .executeTakeFirstOrThrow()
    // one issue or alert of each kind the service reports, as the dashboard receives it
    const kinds = {
      offer_price_missing: { code: 'offer_price_missing', details: { offers: [{ id: offer.id, code: 'A1' }] } },
      offer_price_m2_missing: { code: 'offer_price_m2_missing', details: { offers: [{ id: offer.id, code: 'A1' }] } },
      offer_type_missing: { code: 'offer_type_missing', details: { offers: [{ id: offer.id, code: 'A1' }] } },
      price_combined_missing: { code: 'price_combined_missing', details: { offers: [{ id: offer.id, code: 'A1' }] } },
      dataset_url_missing: { code: 'dataset_url_missing', details: { developer_id: developer.id } },
      developer_missing: { code: 'developer_missing' },
      public_base_url_missing: { code: 'public_base_url_missing' },
      investment_location_missing: {
        code: 'investment_location_missing',
        details: { investments: [{ id: investment.id, title: investment.title }] },
      },
      license_not_active: { code: 'license_not_active' },
      publication_days_missed: { code: 'publication_days_missed' },
      delivery_unreachable: { code: 'delivery_unreachable' },
      'alert publication_failed': { cause: 'publication_failed' },
      'alert missed_days': { cause: 'missed_days' },
      'alert delivery_failed': { cause: 'delivery_failed' },
      'alert row_drop': { cause: 'row_drop' },
      'alert license_continuity': { cause: 'license_continuity' },
      'alert publication_gaps': { cause: 'publication_gaps' },
      'alert source_held': { cause: 'source_held' },
      'alert source_failed': { cause: 'source_failed' },
      'alert source_stale': { cause: 'source_stale' },
      'alert publication_audit': { cause: 'publication_audit' },
    }
    const targets = await page.evaluate<Record<string, { href: string }[]>>(`(async (kinds) => {
      const { issueFixLinks, alertFixLinks } = await import('./operator/fix-links.js')
      return Object.fromEntries(Object.entries(kinds).map(([kind, item]) =>
        [kind, item.cause ? alertFixLinks(item) : issueFixLinks(item)]))
    })(${JSON.stringify(kinds)})`)
    const expected: Record<string, string> = {
      offer_price_missing: `oferty/${offer.id}`,
      dataset_url_missing: `ustawienia/deweloper?deweloper=${developer.id}`,
      license_not_active: 'licencja',
      'alert publication_failed': 'publikacja',
      'alert license_continuity': 'licencja',
      public_base_url_missing: 'ustawienia/publikacja',
    }
    for (const [kind, links] of Object.entries(targets)) {
      expect(links.length, kind).toBeGreaterThan(0)
      if (expected[kind]) expect(links[0]!.href, kind).toBe(`#/${expected[kind]}`)
      for (const { href } of links) {
        await page.goto(`${panel.origin}/dg-admin/${href}`)
        await page.reload()
        const view = page.locator('.page[data-view]')
        await view.waitFor()
        await page.waitForLoadState('networkidle')
        expect([kind, await view.getAttribute('data-view')]).toEqual([kind, href.slice(2).split(/[/?]/)[0]])
        expect([kind, await page.locator('.alert-error').count()]).toEqual([kind, 0])
      }
    }
    // the offer's link opens that offer's edit view
    await page.goto(`${panel.origin}/dg-admin/#/oferty/${offer.id}`)
    await page.reload()
    await page.locator('#offer-heading').waitFor()
    await page.screenshot({ path: path.join(OUTPUT, 'fix-link-offer.png') })
  }, 90_000)

  it('takes dates as dd.mm.rrrr in a browser without Polish locale data, and refuses a day that does not exist', async () => {
    const { page } = panel
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.evaluate("localStorage.setItem('dg-panel-language', 'pl')")
    await panel.go('historia')
    const today = warsawDate(panel.env.clock.now())
    const polish = today.split('-').reverse().join('.')
    expect(await page.getAttribute('#history-from', 'placeholder')).toBe('dd.mm.rrrr')
    await page.fill('#history-from', polish)
    await page.fill('#history-to', polish)
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.url().includes('/publications?')),
      page.click('#history-filters button[type=submit]'),
    ])
    expect(new URL(request.url()).searchParams.get('from')).toBe(today)
    await expect.poll(() => page.locator('#history-table tbody tr').count()).toBe(3)
    await page.fill('#history-to', '31.02.2026')
    expect(
      await page.$eval('#history-to', (input) => (input as unknown as { validationMessage: string }).validationMessage),
    ).toContain('dd.mm.rrrr')
    await page.screenshot({ path: path.join(OUTPUT, 'daty-historia-pl.png') })
    // the offer editor's date too: a text field in Polish order
    const offer = await panel.env.ctx.db.selectFrom('offers').select('id').orderBy('id').executeTakeFirstOrThrow()
    await page.goto(`${panel.origin}/dg-admin/#/oferty/${offer.id}`)
    await page.locator('#price-from').waitFor()
    expect(await page.inputValue('#price-from')).toBe(polish)
    expect(await page.getAttribute('#price-from', 'type')).toBe('text')
  })

  it('shows no English word in Polish, no raw code, no clipped label and no horizontal scrollbar', async () => {
    const { page } = panel
    const walk = await stops()
    const names = walk.map((stop) => stop.name)
    // the edit views the issue names are among the stops
    expect(names).toEqual(
      expect.arrayContaining([
        'oferty-N',
        'inwestycje-N',
        'uzytkownicy-N',
        'ustawienia-deweloper',
        'import-podglad',
        'historia',
        'nieznany-adres',
      ]),
    )
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 })
      for (const lang of ['pl', 'en']) {
        await page.evaluate(`localStorage.setItem('dg-panel-language', '${lang}')`)
        for (const stop of walk) {
          await page.goto(`${panel.origin}/dg-admin/#/${stop.route}`)
          await page.reload()
          await page.locator('.page[data-view]').waitFor()
          await page.waitForLoadState('networkidle')
          await stop.prepare?.(panel)
          await page.waitForTimeout(150)
          const found = await page.evaluate<string[]>(`${CHECK}(${JSON.stringify({ english, lang })})`)
          const key = `${stop.name} ${lang} ${width}`
          if (found.length > 0) findings.set(key, found)
          await page.evaluate(
            "(() => { window.scrollTo(0, 0); document.getElementById('toasts')?.replaceChildren() })()",
          )
          await page.screenshot({ path: path.join(OUTPUT, `${stop.name}-${lang}-${width}.png`), fullPage: true })
        }
      }
    }
    const report = [...findings].map(([key, found]) => `${key}:\n  ${[...new Set(found)].join('\n  ')}`).join('\n')
    if (report) fs.writeFileSync(path.join(OUTPUT, 'findings.txt'), report)
    expect(report).toBe('')
    expect(panel.problems).toEqual([])
  }, 600_000)
})
