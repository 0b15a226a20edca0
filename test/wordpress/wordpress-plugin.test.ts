/*
 * The WordPress plugin (integrations/wordpress/dg-ceny) in a real WordPress: Debian's `wordpress`
 * package in Polish, PHP-FPM, nginx and MariaDB (test/helpers/wordpress-site.ts). What a site owner
 * and a visitor notice: the shortcode and the block print the component's element and script,
 * escaped, and nothing broken when something is missing; the settings page keeps only a valid
 * service address, for administrators only; and in Chromium the page shows the table of an
 * investment served by the service on another origin, and a unit's price history.
 *
 * The service runs on SQLite only: the plugin touches none of its storage. .ci/run installs the
 * Debian packages; elsewhere the WordPress suite is skipped, visibly, when they are absent.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { chromiumPresent, launchChromium } from '../helpers/panel-browser.js'
import { missingWordPressPackages, startWordPress, type WordPressSite } from '../helpers/wordpress-site.js'

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

    async function login(target: Page, login: string, password: string): Promise<void> {
      await target.goto(`${site.origin}/wp-login.php`)
      await target.fill('#user_login', login)
      await target.fill('#user_pass', password)
      await target.click('#wp-submit')
      await target.waitForURL(/\/wp-admin\//)
    }

    beforeAll(async () => {
      if (missing.length > 0) throw new Error(`Debian packages missing: ${missing.join(', ')} (.ci/run installs them)`)
      site = await startWordPress({ plugins: [PLUGIN], locale: 'pl_PL' })
      await site.php(`update_option('dg_ceny_service_url', '${SERVICE}');`)
      if (chromiumPresent) browser = await launchChromium('pl-PL')
    })

    afterAll(async () => {
      await browser?.close()
      await site?.stop()
    })

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
      expect(body).toContain(`<dg-offer-table investment="3" service="${SERVICE}/wp-json/dg/v2"></dg-offer-table>`)
      expect(body).toContain(
        `<dg-offer-card investment="3" unit="A/1.01" service="${SERVICE}/wp-json/dg/v2" lang="en"></dg-offer-card>`,
      )
      expect(body).toContain(
        `<dg-price-history investment="3" unit="A/1.01&quot; onclick=&quot;alert(1)" service="${SERVICE}/wp-json/dg/v2"></dg-price-history>`,
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
        '<!-- wp:dg-ceny/ceny {"investment":3,"view":"historia","unit":"A/1.01","lang":"en"} /-->',
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
      expect(body).toContain('/embed/latest/dg-prices.js')
      // the editor knows the block under its Polish title, with the script that edits it
      const registered = await site.php(
        `$type = WP_Block_Type_Registry::get_instance()->get_registered('dg-ceny/ceny'); echo json_encode([$type->title, $type->editor_script_handles ?? $type->editor_script]);`,
      )
      expect(JSON.parse(registered)).toEqual(['Ceny mieszkań', ['dg-ceny-block-editor']])
    })

    it.skipIf(!chromiumPresent)(
      'keeps only a valid service address on its settings page (administrators only, nonce), and offers the block in the editor',
      async () => {
        const context = await browser!.newContext({ locale: 'pl-PL' })
        const tab = await context.newPage()
        tab.setDefaultTimeout(10_000)
        try {
          await login(tab, site.admin.login, site.admin.password)
          await tab.goto(`${site.origin}/wp-admin/options-general.php`)
          await tab
            .locator('#adminmenu a[href="options-general.php?page=dg-ceny"]', { hasText: 'Ceny mieszkań' })
            .click()
          expect(await tab.locator('.wrap h1').textContent()).toBe('Ceny mieszkań')
          const field = tab.getByLabel('Adres serwisu cen')
          expect(await field.inputValue()).toBe(SERVICE)
          // this site's origin, to add to the investment's allowed origins in the service
          expect(await tab.locator('.wrap code').first().textContent()).toBe(site.origin)

          // plain http to another machine is refused, the address kept
          await field.fill('http://ceny.example.pl')
          await tab.click('#submit')
          expect(await tab.locator('.notice-error, .error').first().textContent()).toContain(
            'musi zaczynać się od https',
          )
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
