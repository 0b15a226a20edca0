/*
 * The WordPress plugin (integrations/wordpress/dg-ceny) in a real WordPress: Debian's `wordpress`
 * package in Polish, PHP-FPM, nginx and MariaDB (test/helpers/servers/wordpress-site.ts), the plugin
 * installed from the zip `npm run build:wordpress` makes. What a site owner and a visitor notice: the
 * plugins list describes it in Polish; the shortcode and the block print the component's element and
 * script, escaped, and nothing broken when something is missing; the block shows a sample in the
 * editor; the settings page keeps only a valid service address, for administrators only; and in
 * Chromium the page shows the table of an investment served by the service on another origin, and a
 * unit's price history behind a button in the text column.
 *
 * The service runs on SQLite only: the plugin touches none of its storage. .ci/run installs the
 * Debian packages; elsewhere the WordPress suite is skipped, visibly, when they are absent.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildWordPressZip } from '../../scripts/build-wordpress.mjs'
import { setUpDemo } from '../../src/demo/demo-setup.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { chromiumPresent, launchChromium } from '../helpers/panel-browser.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'
import { missingWordPressPackages, startWordPress, type WordPressSite } from '../helpers/servers/wordpress-site.js'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PLUGIN = path.join(ROOT, 'integrations', 'wordpress', 'dg-ceny')
const SERVICE = 'https://ceny.example.pl'
const missing = missingWordPressPackages()
const skipWordPress = missing.length > 0 && !process.env.CI

function pluginFiles(pattern: RegExp): string[] {
  return fs
    .readdirSync(PLUGIN, { recursive: true, encoding: 'utf8' })
    .filter((file) => pattern.test(file))
    .map((file) => path.join(PLUGIN, file))
}

describe.skipIf(!fs.existsSync('/usr/bin/php') && !process.env.CI)('the WordPress plugin’s files', () => {
  it('are valid PHP for php -l', async () => {
    const files = pluginFiles(/\.php$/)
    expect(files.length).toBeGreaterThanOrEqual(4)
    for (const file of files) {
      const { stdout } = await run('/usr/bin/php', ['-l', file])
      expect(stdout).toContain('No syntax errors')
    }
  })

  it('carry a GPL-compatible header and a WordPress readme with the same version', () => {
    const main = fs.readFileSync(path.join(PLUGIN, 'dg-ceny.php'), 'utf8')
    const readme = fs.readFileSync(path.join(PLUGIN, 'readme.txt'), 'utf8')
    expect(main).toMatch(/^ \* License:\s+GPL-2\.0-or-later$/m)
    expect(main).toMatch(/^ \* Text Domain:\s+dg-ceny$/m)
    const version = /^ \* Version:\s+(\S+)$/m.exec(main)?.[1]
    expect(version).toBeDefined()
    expect(readme).toMatch(new RegExp(`^Stable tag: ${version!.replace(/\./g, '\\.')}$`, 'm'))
    expect(readme).toMatch(/^License: GPLv2 or later$/m)
  })

  it('have a Polish translation for every string the PHP and the editor script translate', () => {
    const po = fs.readFileSync(path.join(PLUGIN, 'languages', 'dg-ceny-pl_PL.po'), 'utf8')
    const translated = new Set(
      [...po.matchAll(/^msgid "(.+)"\nmsgstr "(.+)"$/gm)].map((m) => m[1]!.replace(/\\"/g, '"').replace(/\\\\/g, '\\')),
    )
    const used = new Set<string>()
    for (const file of pluginFiles(/\.(php|js)$/)) {
      const source = fs.readFileSync(file, 'utf8')
      for (const m of source.matchAll(
        /\b(?:__|_e|esc_html__|esc_html_e|esc_attr__)\(\s*(['"])((?:\\.|(?!\1).)*)\1\s*,\s*'dg-ceny'/g,
      ))
        used.add(m[2]!.replace(/\\(['"\\])/g, '$1'))
    }
    expect(used.size).toBeGreaterThan(15)
    expect([...used].filter((text) => !translated.has(text))).toEqual([])
    const json = JSON.parse(
      fs.readFileSync(path.join(PLUGIN, 'languages', 'dg-ceny-pl_PL-dg-ceny-block-editor.json'), 'utf8'),
    )
    const editorStrings = [
      ...fs.readFileSync(path.join(PLUGIN, 'block', 'editor.js'), 'utf8').matchAll(/__\('((?:\\.|[^'])*)'/g),
    ]
    expect(editorStrings.length).toBeGreaterThan(5)
    for (const [, text] of editorStrings) expect(json.locale_data.messages[text!], text).toBeDefined()
  })
})

describe.skipIf(skipWordPress)(
  `the WordPress plugin in Debian’s WordPress${skipWordPress ? ` (skipped: Debian packages not installed here: ${missing.join(', ')}; .ci/run installs them)` : ''}`,
  () => {
    let site: WordPressSite
    let browser: Browser | undefined
    let zipDir: string | undefined

    /** A screenshot (of the page's first screen, or of one element) into DG_PANEL_SCREENSHOTS when set. */
    async function shot(tab: Page, name: string, element?: Locator): Promise<void> {
      const folder = process.env.DG_PANEL_SCREENSHOTS
      if (!folder) return
      fs.mkdirSync(folder, { recursive: true })
      await (element ?? tab).screenshot({ path: path.join(folder, `${name}.png`) })
    }

    /** Publishes a page with this content; its address. */
    async function page(title: string, content: string): Promise<string> {
      return site.php(
        `$id = wp_insert_post(['post_type' => 'page', 'post_status' => 'publish', 'post_title' => ${JSON.stringify(title)}, 'post_content' => ${phpString(content)}], true);
         if (is_wp_error($id)) { fwrite(STDERR, $id->get_error_message()); exit(1); }
         echo get_permalink($id);`,
      )
    }

    async function html(url: string): Promise<string> {
      const response = await fetch(url)
      expect(response.status).toBe(200)
      return response.text()
    }

    /** Logs in through the login form's request alone: the dashboard it leads to is not under test. */
    async function login(target: Page, login: string, password: string): Promise<void> {
      const response = await target.request.post(`${site.origin}/wp-login.php`, {
        form: { log: login, pwd: password },
        maxRedirects: 0,
      })
      expect(response.status()).toBe(302)
    }

    beforeAll(async () => {
      if (missing.length > 0) throw new Error(`Debian packages missing: ${missing.join(', ')} (.ci/run installs them)`)
      // installed as a site owner does: the zip uploaded in Plugins → Add New → Upload Plugin
      zipDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-wp-plugin-'))
      const zip = buildWordPressZip(path.join(zipDir, 'dg-ceny.zip'))
      ;[site, browser] = await Promise.all([
        startWordPress({ plugins: [zip], locale: 'pl_PL' }),
        chromiumPresent ? launchChromium('pl-PL') : undefined,
      ])
      await site.php(`update_option('dg_ceny_service_url', '${SERVICE}');`)
    })

    afterAll(async () => {
      await browser?.close()
      await site?.stop()
      if (zipDir) fs.rmSync(zipDir, { recursive: true, force: true })
    })

    it.skipIf(!chromiumPresent)(
      'is installed from its zip and described in Polish in the plugins list, with a link to its settings',
      async () => {
        // the zip's folder, unpacked by WordPress, not a link to the source folder
        const installed = JSON.parse(
          await site.php(
            `echo json_encode([is_link(WP_PLUGIN_DIR . '/dg-ceny'), is_file(WP_PLUGIN_DIR . '/dg-ceny/languages/dg-ceny-pl_PL.mo'), in_array('dg-ceny/dg-ceny.php', get_option('active_plugins'), true)]);`,
          ),
        )
        expect(installed).toEqual([false, true, true])
        const context = await browser!.newContext({ locale: 'pl-PL', viewport: { width: 1280, height: 800 } })
        const tab = await context.newPage()
        tab.setDefaultTimeout(10_000)
        try {
          await login(tab, site.admin.login, site.admin.password)
          await tab.goto(`${site.origin}/wp-admin/plugins.php`)
          const row = tab.locator('tr[data-plugin="dg-ceny/dg-ceny.php"]')
          expect(await row.locator('.plugin-title strong').textContent()).toBe('Ceny mieszkań – dane.gov.pl')
          const description = (await row.locator('.plugin-description').textContent())?.trim()
          expect(description).toBe(
            'Pokazuje na tej stronie ceny lokali w ofercie i historię ich zmian, publikowane w dane.gov.pl przez serwis cen: shortcode i blok. Przechowuje wyłącznie adres serwisu.',
          )
          expect(await row.locator('.row-actions a', { hasText: 'Ustawienia' }).getAttribute('href')).toContain(
            'options-general.php?page=dg-ceny',
          )
          await shot(tab, 'wordpress-plugins-list', row)
        } finally {
          await context.close()
        }
      },
    )

    it('prints the component’s element and one deferred script for the shortcode, with every attribute escaped', async () => {
      const url = await page(
        'Ceny',
        [
          '[dg_ceny inwestycja="3"]',
          '[dg_ceny inwestycja="3" widok="karta" lokal="A/1.01" jezyk="en"]',
          `[dg_ceny inwestycja="3" widok="historia" lokal='A/1.01" onclick="alert(1)']`,
        ].join('\n\n'),
      )
      const body = await html(url)
      // the table, wide where the theme allows it: its columns need more than a text column
      expect(body).toContain(
        `<div class="dg-ceny alignwide"><dg-offer-table investment="3" service="${SERVICE}/wp-json/dg/v2"></dg-offer-table></div>`,
      )
      // the other views in a block of their own too, which the theme lays out in its text column
      expect(body).toContain(
        `<div class="dg-ceny"><dg-offer-card investment="3" unit="A/1.01" service="${SERVICE}/wp-json/dg/v2" lang="en"></dg-offer-card></div>`,
      )
      expect(body).toContain(
        `<div class="dg-ceny"><dg-price-history investment="3" unit="A/1.01&quot; onclick=&quot;alert(1)" service="${SERVICE}/wp-json/dg/v2"></dg-price-history></div>`,
      )
      expect(body).not.toContain('onclick="alert')
      const scripts = [...body.matchAll(/<script\b[^>]*\bdg-prices\.js[^>]*>/g)].map((m) => m[0])
      expect(scripts).toHaveLength(1)
      expect(scripts[0]).toContain(`src='${SERVICE}/wp-json/dg/v2/embed/latest/dg-prices.js'`)
      expect(scripts[0]).toMatch(/\sdefer[\s>]/)
    })

    it('shows visitors nothing, and editors what is missing, for an incomplete shortcode', async () => {
      const url = await page('Bez numeru', 'Przed.\n\n[dg_ceny]\n\n[dg_ceny inwestycja="3" widok="karta"]\n\nPo.')
      const body = await html(url)
      expect(body).toContain('Przed.')
      expect(body).toContain('Po.')
      expect(body).not.toMatch(/<dg-|dg-prices\.js|dg-ceny-problem/)
      // an editor previewing the page is told, in the site's language, what to fix
      const asEditor = await site.php(
        `wp_set_current_user(1); echo do_shortcode('[dg_ceny] [dg_ceny inwestycja="3" widok="karta"]');`,
      )
      expect(asEditor).toContain('Ceny mieszkań: podaj numer inwestycji')
      expect(asEditor).toContain('Ceny mieszkań: ten widok wymaga lokalu')
    })

    it('renders the block on the server into the same element, in the block’s wrapper', async () => {
      const url = await page(
        'Blok',
        '<!-- wp:dg-ceny/ceny {"investment":3,"view":"historia","unit":"A/1.01","lang":"en"} /-->\n\n' +
          '<!-- wp:dg-ceny/ceny {"investment":3} /-->\n\n<!-- wp:dg-ceny/ceny {"investment":3,"align":"full"} /-->',
      )
      const body = await html(url)
      expect(body).toMatch(
        new RegExp(
          `<div class="wp-block-dg-ceny-ceny"><dg-price-history investment="3" unit="A/1.01" service="${SERVICE}/wp-json/dg/v2" lang="en"></dg-price-history></div>`.replace(
            /[.?/]/g,
            '\\$&',
          ),
        ),
      )
      // the table is wide unless the editor chose another alignment
      expect(body).toContain(
        `<div class="alignwide wp-block-dg-ceny-ceny"><dg-offer-table investment="3" service="${SERVICE}/wp-json/dg/v2"></dg-offer-table></div>`,
      )
      expect(body).toContain(
        `<div class="alignfull wp-block-dg-ceny-ceny"><dg-offer-table investment="3" service="${SERVICE}/wp-json/dg/v2"></dg-offer-table></div>`,
      )
      expect([...body.matchAll(/dg-prices\.js/g)]).toHaveLength(1)
      // the editor knows the block under its Polish title, with the script that edits it
      const registered = await site.php(
        `$type = WP_Block_Type_Registry::get_instance()->get_registered('dg-ceny/ceny'); echo json_encode([$type->title, $type->editor_script_handles ?? $type->editor_script]);`,
      )
      expect(JSON.parse(registered)).toEqual(['Ceny mieszkań', ['dg-ceny-block-editor']])
    })

    it('accepts as the service’s address https, or http for this machine only, and nothing that could carry a secret', async () => {
      const cases: Record<string, string | null> = {
        'https://ceny.example.pl': 'https://ceny.example.pl',
        ' https://ceny.example.pl/ ': 'https://ceny.example.pl',
        'HTTPS://Ceny.Example.PL:8443/dg/': 'https://ceny.example.pl:8443/dg',
        'https://ceny.example.pl/wp-json/dg/v2/': 'https://ceny.example.pl',
        'http://localhost:8080': 'http://localhost:8080',
        'http://127.0.0.1:8080/wp-json/dg/v2': 'http://127.0.0.1:8080',
        'http://ceny.example.pl': null,
        'https://uzytkownik:haslo@ceny.example.pl': null,
        'https://ceny.example.pl/?klucz=abc': null,
        'https://ceny.example.pl/#x': null,
        'https://ceny.example.pl/a b': null,
        'https://ceny.example.pl/"onmouseover=x': null,
        'javascript:alert(1)': null,
        'ftp://ceny.example.pl': null,
        'ceny.example.pl': null,
      }
      const answers = JSON.parse(
        await site.php(
          `echo json_encode(array_map('dg_ceny_normalize_service_url', json_decode(${phpString(JSON.stringify(Object.keys(cases)))})));`,
        ),
      )
      expect(Object.fromEntries(Object.keys(cases).map((input, index) => [input, answers[index]]))).toEqual(cases)
    })

    it.skipIf(!chromiumPresent)(
      'keeps only a valid service address on its settings page (administrators only, nonce), and offers the block in the editor',
      async () => {
        const context = await browser!.newContext({ locale: 'pl-PL' })
        const tab = await context.newPage()
        tab.setDefaultTimeout(10_000)
        try {
          await login(tab, site.admin.login, site.admin.password)
          await tab.goto(`${site.origin}/wp-admin/options-general.php?page=dg-ceny`)
          // under Settings (Ustawienia) in the menu
          const menu = tab.locator('#menu-settings a[href="options-general.php?page=dg-ceny"]')
          expect(await menu.textContent()).toBe('Ceny mieszkań')
          expect(await tab.locator('.wrap h1').textContent()).toBe('Ceny mieszkań')
          const field = tab.getByLabel('Adres serwisu cen')
          expect(await field.inputValue()).toBe(SERVICE)
          // this site's origin, to add to the investment's allowed origins in the service
          expect(await tab.locator('.wrap code').first().textContent()).toBe(site.origin)

          // plain http to another machine is refused, the address kept
          await field.fill('http://ceny.example.pl')
          await tab.click('#submit')
          const refusal = tab.locator('.notice-error, .error', { hasText: 'musi zaczynać się od https' })
          await refusal.first().waitFor()
          expect(await refusal.count()).toBe(1)
          expect(await site.php(`echo get_option('dg_ceny_service_url');`)).toBe(SERVICE)

          // the REST base pasted from the service's panel is reduced to the service's address
          await tab.getByLabel('Adres serwisu cen').fill('https://ceny2.example.pl:8443/wp-json/dg/v2/')
          await tab.click('#submit')
          await tab.locator('.notice-success, .updated').first().waitFor()
          expect(await site.php(`echo get_option('dg_ceny_service_url');`)).toBe('https://ceny2.example.pl:8443')

          // a form posted without the page's nonce changes nothing
          const forged = await tab.request.post(`${site.origin}/wp-admin/options.php`, {
            form: { option_page: 'dg_ceny', action: 'update', dg_ceny_service_url: 'https://evil.example' },
            maxRedirects: 0,
          })
          expect(forged.status()).toBeGreaterThanOrEqual(400)
          expect(await site.php(`echo get_option('dg_ceny_service_url');`)).toBe('https://ceny2.example.pl:8443')

          // the only thing the plugin stores is that address
          const options = await site.php(
            `global $wpdb; echo json_encode($wpdb->get_col("SELECT option_name FROM $wpdb->options WHERE option_name LIKE '%ceny%'"));`,
          )
          expect(JSON.parse(options)).toEqual(['dg_ceny_service_url'])

          // the block editor offers the block under its Polish title, and shows what it will embed
          await tab.goto(`${site.origin}/wp-admin/post-new.php?post_type=page`)
          await tab.waitForFunction("Boolean(window.wp?.blocks?.getBlockType('dg-ceny/ceny'))", undefined, {
            timeout: 20_000,
          })
          expect(await tab.evaluate("wp.blocks.getBlockType('dg-ceny/ceny').title")).toBe('Ceny mieszkań')
          expect(await tab.evaluate("wp.blocks.getBlockType('dg-ceny/ceny').description")).toBe(
            'Ceny lokali w ofercie i ich historia, z serwisu publikującego ceny w dane.gov.pl.',
          )
          // before a number is given, the block shows what it will look like, with sample prices said to be a sample
          await tab.evaluate(
            "wp.data.dispatch('core/block-editor').insertBlocks(wp.blocks.createBlock('dg-ceny/ceny'))",
          )
          const sample = tab.locator('.dg-ceny-editor').first()
          await sample.waitFor()
          expect(await sample.locator('.dg-ceny-editor-status').textContent()).toBe(
            'Podaj numer inwestycji w ustawieniach bloku.',
          )
          expect(await sample.locator('.dg-ceny-sample-label').textContent()).toBe(
            'Przykładowe ceny: na stronie pojawią się ceny inwestycji z serwisu cen.',
          )
          const headers = await sample.locator('.dg-ceny-sample-table th').allTextContents()
          expect(headers).toEqual(['Lokal', 'Pokoje', 'Powierzchnia', 'Cena za m²', 'Cena całkowita'])
          // the first row's cells, their spaces (non-breaking in Polish numbers) as plain ones
          const cells = (
            await sample.locator('.dg-ceny-sample-table tbody tr').first().locator('td').allTextContents()
          ).map((text) => text.replace(/\s/g, ' '))
          expect(cells).toEqual(['A/1.01', '2', '48,20 m²', '12 400,00 zł', '597 680,00 zł'])
          expect(await sample.locator('.dg-ceny-sample-table tbody tr').count()).toBe(3)
          await shot(tab, 'wordpress-block-editor-sample', sample)
          // the history view's sample: its button and the unit's prices
          await tab.evaluate(
            "wp.data.dispatch('core/block-editor').updateBlockAttributes(wp.data.select('core/block-editor').getBlocks()[0].clientId, { view: 'historia' })",
          )
          await sample.locator('.dg-ceny-sample-button', { hasText: 'Historia cen lokalu A/1.01' }).waitFor()
          const history = await sample.locator('.dg-ceny-sample-history li').allTextContents()
          expect(history.map((text) => text.replace(/\s/g, ' '))).toEqual([
            'od 2026-03-01: 11 800,00 zł za m²',
            'od 2026-06-01: 12 400,00 zł za m²',
          ])
          await shot(tab, 'wordpress-block-editor-history-sample', sample)
          await tab.evaluate("wp.data.dispatch('core/block-editor').resetBlocks([])")
          await tab.evaluate(
            "wp.data.dispatch('core/block-editor').insertBlocks(wp.blocks.createBlock('dg-ceny/ceny', { investment: 3 }))",
          )
          await tab.getByText('Inwestycja 3: Tabela lokali.').waitFor()

          // an editor, who may write pages, may not change it
          await site.php(
            `wp_insert_user(['user_login' => 'redaktor', 'user_pass' => 'haslo-redaktora-123', 'user_email' => 'redaktor@example.com', 'role' => 'editor']);`,
          )
          await context.clearCookies()
          await login(tab, 'redaktor', 'haslo-redaktora-123')
          const refused = await tab.goto(`${site.origin}/wp-admin/options-general.php?page=dg-ceny`)
          expect(refused?.status()).toBe(403)
          expect(await tab.getByLabel('Adres serwisu cen').count()).toBe(0)
        } finally {
          await context.close()
          await site.php(`update_option('dg_ceny_service_url', '${SERVICE}');`)
        }
      },
    )

    describe.skipIf(!chromiumPresent)('with the service on another origin, in Chromium', () => {
      let env: TestEnv
      let admin: TestUser
      let investmentId: number
      let pageUrl: string
      const problems: string[] = []

      const setPublicPrices = async (enabled: boolean) => {
        const response = await env.app.inject({
          method: 'PUT',
          url: `/wp-json/dg/v2/investments/${investmentId}/public-prices`,
          headers: { authorization: admin.authorization },
          payload: { enabled, allowed_origins: [site.origin] },
        })
        expect(response.statusCode, response.body).toBe(200)
      }

      async function open(width: number): Promise<Page> {
        const tab = await browser!.newPage({ viewport: { width, height: 900 }, locale: 'pl-PL' })
        tab.setDefaultTimeout(10_000)
        tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
        tab.on('console', (message) => {
          if (message.type() === 'error') problems.push(`console: ${message.text()}`)
        })
        await tab.goto(pageUrl)
        return tab
      }

      beforeAll(async () => {
        env = await startTestApp('sqlite')
        // the prices in force are today's in Warsaw: the service's clock is the real one here
        env.clock.set(new Date().toISOString())
        await setUpDemo(env.ctx)
        admin = await createTestUser(env.ctx, 'administrator')
        const investment = await env.ctx.db
          .selectFrom('investments')
          .select('id')
          .where('title', '=', 'Zielone Tarasy')
          .executeTakeFirstOrThrow()
        investmentId = investment.id
        await setPublicPrices(true)
        await env.app.listen({ port: 0, host: '127.0.0.1' })
        const address = env.app.server.address()
        if (!address || typeof address === 'string') throw new Error('not listening')
        await site.php(`update_option('dg_ceny_service_url', 'http://127.0.0.1:${address.port}');`)
        pageUrl = await page('Ceny mieszkań – Zielone Tarasy', `[dg_ceny inwestycja="${investmentId}"]`)
      })

      afterAll(async () => {
        await site?.php(`update_option('dg_ceny_service_url', '${SERVICE}');`)
        await env?.app.close()
        await env?.database.cleanup()
      })

      it('shows the investment’s units with their prices, and a unit’s price history in a dialog', async () => {
        const tab = await open(1280)
        const table = tab.getByRole('table').first()
        await table.waitFor()
        // the units on offer (available or reserved), never a sold one
        await tab
          .getByRole('row', { name: /A\/1\.01/ })
          .first()
          .waitFor()
        expect(await tab.getByRole('row', { name: /B\/4\.02/ }).count()).toBeGreaterThan(0)
        expect(await tab.getByRole('row', { name: /A\/0\.02/ }).count()).toBe(0)
        const row = tab.getByRole('row', { name: /A\/1\.01/ }).first()
        expect(await row.textContent()).toMatch(/21\s?400,00/)
        // the page itself never scrolls sideways
        expect(await tab.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280)

        await row.getByRole('button', { name: /histori/i }).click()
        const dialog = tab.getByRole('dialog')
        await dialog.waitFor()
        const history = (await dialog.textContent()) ?? ''
        // the price in force since 2026-06-01 and the one before it
        expect(history).toMatch(/21\s?400,00/)
        expect(history).toMatch(/20\s?800,00/)
        await shot(tab, 'wordpress-1280-history')
        await tab.keyboard.press('Escape')
        await dialog.waitFor({ state: 'hidden' })
        await tab.close()

        const narrow = await open(390)
        await narrow.getByText('A/1.01').first().waitFor()
        expect(await narrow.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
        await shot(narrow, 'wordpress-390-table')
        await narrow.close()
        expect(problems).toEqual([])
      })

      it('lays the price history’s button out in the text column, like the paragraphs around it', async () => {
        const url = await page(
          'Historia cen lokalu',
          `Ceny lokalu A/1.01 zmieniały się tak:\n\n[dg_ceny inwestycja="${investmentId}" widok="historia" lokal="A/1.01"]\n\nCeny obowiązują od dnia publikacji.`,
        )
        for (const width of [1280, 390]) {
          const tab = await browser!.newPage({ viewport: { width, height: 900 }, locale: 'pl-PL' })
          tab.setDefaultTimeout(10_000)
          await tab.goto(url)
          const button = tab.getByRole('button', { name: 'Historia cen lokalu A/1.01' })
          await button.waitFor()
          const text = tab.locator('.wp-block-post-content > p').first()
          expect(await text.textContent()).toContain('zmieniały się tak')
          const column = (await text.boundingBox())!
          const box = (await button.boundingBox())!
          // its left edge is the text's, and it ends within the text column
          expect(
            Math.abs(box.x - column.x),
            `button ${JSON.stringify(box)}, text ${JSON.stringify(column)}`,
          ).toBeLessThan(1)
          expect(box.x + box.width).toBeLessThanOrEqual(column.x + column.width + 0.5)
          await shot(tab, `wordpress-${width}-history-button`)
          await button.click()
          await tab.getByRole('dialog').waitFor()
          await tab.close()
        }
      })

      it('says the prices are not available, and the page stays whole, when the investment’s public prices are off', async () => {
        await setPublicPrices(false)
        try {
          const tab = await open(1280)
          await tab
            .getByText(/nie są (teraz )?dostępne/i)
            .first()
            .waitFor()
          expect(await tab.getByRole('row', { name: /A\/1\.01/ }).count()).toBe(0)
          expect(await tab.locator('h1').first().textContent()).toContain('Zielone Tarasy')
          await tab.close()
        } finally {
          await setPublicPrices(true)
        }
      })
    })

    it('raises no PHP notice, warning or error of its own', () => {
      const own = site
        .debugLog()
        .split('\n')
        .filter((line) => line.includes('dg-ceny'))
      expect(own).toEqual([])
    })
  },
)

/** A PHP single-quoted string literal. */
function phpString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}
