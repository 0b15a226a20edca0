/*
 * The screenshots the documentation shows (docs/screenshots/<folder>/<name>.png) and what keeps them
 * current. A browser suite calls handbookShot(page, '<folder>/<name>') where the view is as the
 * documentation shows it:
 * - under `npm run docs:screenshots` (DG_DOCS_SCREENSHOTS names a folder for the fingerprints) it
 *   saves the PNG and the view's fingerprint; the script then writes docs/screenshots/<folder>/manifest.json;
 * - in every other run it recomputes the fingerprint and fails when it differs from the manifest's,
 *   or when the manifest has no such screenshot: the PNG no longer shows the panel as it is.
 * The fingerprint is the view's outline, not its pixels (fonts and anti-aliasing differ between
 * machines): the menu, headings, labels, buttons, tabs, table headers and form fields that are
 * visible, each with its words, figures left out (dates, counts and ports change from run to run).
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import type { Page } from 'playwright-core'

export const SCREENSHOTS_ROOT = path.resolve(import.meta.dirname, '../../docs/screenshots')
export const REGENERATE = 'npm run docs:screenshots'

export interface HandbookShot {
  /** `<folder>/<name>`, the PNG being docs/screenshots/<folder>/<name>.png. */
  file: string
  /** The panel's address (#/route/…) when the shot was taken. */
  view: string
  fingerprint: string
  outline: string[]
}

// a string, since the tests are compiled without the DOM's types
const OUTLINE_SCRIPT = `(() => {
  const selector = 'nav a, h1, h2, h3, h4, legend, label, button, th, summary, [role=tab], .tabs a, input, select, textarea'
  const words = (text) => (text || '').replace(/\\d+/g, '#').replace(/\\s+/g, ' ').trim().slice(0, 120)
  const lines = []
  for (const element of document.querySelectorAll(selector)) {
    if (element.closest('#toasts')) continue
    if (typeof element.checkVisibility === 'function' ? !element.checkVisibility() : element.offsetParent === null) continue
    const tag = element.tagName.toLowerCase()
    if (tag === 'input' || tag === 'select' || tag === 'textarea')
      lines.push(tag + ':' + (element.getAttribute('type') || '') + ':' + (element.id || element.getAttribute('name') || ''))
    else lines.push(tag + ':' + words(element.innerText))
  }
  return { view: location.hash.replace(/\\d+/g, '#'), outline: lines }
})()`

export async function viewOutline(page: Page): Promise<{ view: string; outline: string[] }> {
  return page.evaluate<{ view: string; outline: string[] }>(OUTLINE_SCRIPT)
}

export function fingerprintOf(outline: readonly string[]): string {
  return createHash('sha256').update(outline.join('\n')).digest('hex').slice(0, 16)
}

export function readManifest(folder: string): Record<string, Omit<HandbookShot, 'file'>> {
  const file = path.join(SCREENSHOTS_ROOT, folder, 'manifest.json')
  return fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { screenshots: Record<string, Omit<HandbookShot, 'file'>> })
        .screenshots
    : {}
}

/** Takes (docs:screenshots) or checks (every other run) the documentation's screenshot `<folder>/<name>`. */
export async function handbookShot(page: Page, file: string): Promise<void> {
  const [folder, name] = file.split('/') as [string, string]
  // no button still saying what it is doing ("Zapisywanie…"): the view as it rests
  await page.locator('[aria-busy=true]').first().waitFor({ state: 'detached' })
  // from the top (the sticky bar would be drawn where the page was scrolled to), without the toasts
  await page.evaluate("(() => { window.scrollTo(0, 0); document.getElementById('toasts')?.replaceChildren() })()")
  const { view, outline } = await viewOutline(page)
  const fingerprint = fingerprintOf(outline)
  const collect = process.env.DG_DOCS_SCREENSHOTS
  if (collect) {
    await page.screenshot({ path: path.join(SCREENSHOTS_ROOT, folder, `${name}.png`), fullPage: true })
    const shot: HandbookShot = { file, view, fingerprint, outline }
    fs.mkdirSync(collect, { recursive: true })
    fs.writeFileSync(path.join(collect, `${folder}--${name}.json`), JSON.stringify(shot))
    return
  }
  const recorded = readManifest(folder)[name]
  if (!recorded)
    throw new Error(
      `docs/screenshots/${file}.png is not in docs/screenshots/${folder}/manifest.json: run ${REGENERATE}`,
    )
  if (recorded.fingerprint !== fingerprint) {
    const before = new Set(recorded.outline)
    const now = new Set(outline)
    const gone = recorded.outline.filter((line) => !now.has(line)).slice(0, 8)
    const added = outline.filter((line) => !before.has(line)).slice(0, 8)
    throw new Error(
      `docs/screenshots/${file}.png shows the view as it was, not as it is: run ${REGENERATE}\n` +
        `  no longer shown: ${JSON.stringify(gone)}\n  shown now: ${JSON.stringify(added)}`,
    )
  }
}
