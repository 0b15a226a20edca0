/*
 * The admin panel in Debian's Chromium (playwright-core, never a downloaded browser) against the
 * service listening on 127.0.0.1 with the demo catalog, for the operator's-everyday suites. By
 * default the browser has no Polish locale data (--lang=en-US, locale en-US), as a new operator's
 * might: the panel must not depend on it. Screenshots go to DG_PANEL_SCREENSHOTS when set.
 */
import fs from 'node:fs'
import path from 'node:path'

import { type Browser, chromium, type Page } from 'playwright-core'

import { type KnownDemoCredentials, setUpDemo } from '../../src/demo/demo-setup.js'
import type { TestDialect } from './databases.js'
import { startTestApp, type TestEnv } from './test-app.js'

export const CHROMIUM = '/usr/bin/chromium'
export const chromiumPresent = fs.existsSync(CHROMIUM) || Boolean(process.env.CI)

/**
 * Debian's Chromium, headless, with `lang` as its only language (date inputs follow the browser's
 * language, not the page's); `null` leaves the language to the environment.
 */
export async function launchChromium(lang: string | null = 'en-US'): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(lang ? [`--lang=${lang}`] : []),
    ],
    ...(lang ? { env: { ...process.env, LANG: `${lang.replace('-', '_')}.UTF-8`, LANGUAGE: lang.slice(0, 2) } } : {}),
  })
}

/**
 * A page that collects its script errors in `problems`. A refused API call (401/404/409/422/429)
 * is logged by Chromium as "Failed to load resource"; that is expected and not collected.
 */
export async function openPage(
  browser: Browser,
  problems: string[],
  options: { locale?: string; width?: number; timeout?: number } = {},
): Promise<Page> {
  const page = await browser.newPage({
    viewport: { width: options.width ?? 1280, height: 900 },
    locale: options.locale ?? 'pl-PL',
  })
  page.setDefaultTimeout(options.timeout ?? 10_000)
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      problems.push(`console: ${message.text()}`)
  })
  return page
}

export interface PanelSession {
  env: TestEnv
  browser: Browser
  page: Page
  origin: string
  demo: KnownDemoCredentials
  problems: string[]
  shot(name: string): Promise<void>
  go(route: string): Promise<void>
  login(): Promise<void>
  close(): Promise<void>
}

export async function startPanel(
  options: {
    dialect?: TestDialect
    env?: Record<string, string>
    lang?: string
    width?: number
    screenshotPrefix?: string
  } = {},
): Promise<PanelSession> {
  const env = await startTestApp(options.dialect ?? 'sqlite', { env: options.env ?? {} })
  // the browser keeps the session cookie until its Expires, which the server computes from its clock
  env.clock.set(new Date().toISOString())
  const demo = await setUpDemo(env.ctx)
  await env.app.listen({ port: 0, host: '127.0.0.1' })
  const address = env.app.server.address()
  if (!address || typeof address === 'string') throw new Error('not listening')
  const origin = `http://127.0.0.1:${address.port}`
  const lang = options.lang ?? 'en-US'
  const browser = await launchChromium(lang)
  const problems: string[] = []
  const page = await openPage(browser, problems, { locale: lang, ...(options.width ? { width: options.width } : {}) })
  const folder = process.env.DG_PANEL_SCREENSHOTS
  let shots = 0
  const session: PanelSession = {
    env,
    browser,
    page,
    origin,
    demo,
    problems,
    async shot(name) {
      if (!folder) return
      fs.mkdirSync(folder, { recursive: true })
      const language = await page.evaluate<string>(
        "(() => { window.scrollTo(0, 0); document.getElementById('toasts')?.replaceChildren(); return document.documentElement.lang })()",
      )
      shots++
      await page.screenshot({
        path: path.join(
          folder,
          `${options.screenshotPrefix ?? 'panel'}-${language}-${String(shots).padStart(2, '0')}-${name}.png`,
        ),
        fullPage: true,
      })
    },
    async go(route) {
      await page.goto(`${origin}/dg-admin/#/${route}`)
      await page.locator(`.page[data-view="${route}"]`).waitFor()
    },
    async login() {
      await page.goto(`${origin}/dg-admin/`)
      await page.locator('#login').waitFor()
      await page.fill('#login', demo.admin.login)
      await page.fill('#password', demo.admin.password)
      await page.click('button[type=submit]')
      await page.locator('#nav').waitFor({ state: 'visible' })
    },
    async close() {
      await browser.close()
      await env.app.close()
      await env.database.cleanup()
    },
  }
  return session
}
