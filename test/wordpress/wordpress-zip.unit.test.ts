/*
 * `npm run build:wordpress` (scripts/build-wordpress.mjs): the zip a site owner uploads in WordPress.
 * It holds the plugin's folder and nothing else, with the translations compiled from their .po, and
 * the same files always give the same bytes.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { unzipSync } from 'fflate'
import { afterAll, describe, expect, it } from 'vitest'

import { buildWordPressZip, compileTranslation, PLUGIN_DIR, readTranslations } from '../../scripts/build-wordpress.mjs'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-wp-zip-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('the WordPress plugin’s zip', () => {
  it('holds the plugin’s folder: its PHP, block, readme and Polish translations, and nothing else', () => {
    const zip = fs.readFileSync(buildWordPressZip(path.join(dir, 'dg-ceny.zip')))
    const files = unzipSync(new Uint8Array(zip))
    expect(Object.keys(files)).toEqual([
      'dg-ceny/block/block.json',
      'dg-ceny/block/editor.js',
      'dg-ceny/dg-ceny.php',
      'dg-ceny/includes/embed.php',
      'dg-ceny/includes/settings.php',
      'dg-ceny/languages/dg-ceny-pl_PL-dg-ceny-block-editor.json',
      'dg-ceny/languages/dg-ceny-pl_PL.mo',
      'dg-ceny/languages/dg-ceny-pl_PL.po',
      'dg-ceny/readme.txt',
      'dg-ceny/uninstall.php',
    ])
    for (const [name, content] of Object.entries(files))
      expect(
        Buffer.from(content).equals(fs.readFileSync(path.join(PLUGIN_DIR, name.slice('dg-ceny/'.length)))),
        name,
      ).toBe(true)
    // the plugins list shows the header's description in the site's language
    const mo = readTranslations(Buffer.from(files['dg-ceny/languages/dg-ceny-pl_PL.mo']!), 'mo')
    const description = /^ \* Description:\s+(.+)$/m.exec(
      fs.readFileSync(path.join(PLUGIN_DIR, 'dg-ceny.php'), 'utf8'),
    )?.[1]
    expect(mo['']![description!]?.msgstr[0]).toMatch(/^Pokazuje na tej stronie ceny lokali/)
    expect(mo['block title']!['Flat prices']?.msgstr[0]).toBe('Ceny mieszkań')
  })

  it('is the same, byte for byte, when built again and in another time zone', () => {
    const first = fs.readFileSync(buildWordPressZip(path.join(dir, 'first.zip')))
    const zone = process.env.TZ
    process.env.TZ = 'America/New_York'
    try {
      const second = fs.readFileSync(buildWordPressZip(path.join(dir, 'second.zip')))
      expect(second.equals(first)).toBe(true)
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
  })

  it('carries the .mo compiled from the .po, as kept in the folder', () => {
    const languages = path.join(PLUGIN_DIR, 'languages')
    const kept = fs.readFileSync(path.join(languages, 'dg-ceny-pl_PL.mo'))
    expect(compileTranslation(path.join(languages, 'dg-ceny-pl_PL.po')).equals(kept)).toBe(true)
  })

  it('has the editor script’s translations as the .po has them', () => {
    const languages = path.join(PLUGIN_DIR, 'languages')
    const po = readTranslations(fs.readFileSync(path.join(languages, 'dg-ceny-pl_PL.po')), 'po')
    const json = JSON.parse(fs.readFileSync(path.join(languages, 'dg-ceny-pl_PL-dg-ceny-block-editor.json'), 'utf8'))
    const messages = json.locale_data.messages as Record<string, string[]>
    for (const [text, translation] of Object.entries(messages))
      if (text !== '') expect(translation, text).toEqual(po['']![text]?.msgstr)
  })
})
