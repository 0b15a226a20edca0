// `npm run build:wordpress`: the WordPress plugin's zip, dist/wordpress/dg-ceny.zip, to upload in
// WordPress (Plugins → Add New → Upload Plugin), with the translations compiled from their .po
// (languages/*.po → .mo, also written into the folder, so that a copied folder is translated too).
// The zip is reproducible: the same files give the same bytes on any machine and in any time zone
// (files in path order, one fixed date, fixed compression), so a zip can be checked against a rebuild.
import fs from 'node:fs'
import path from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'

import { zipSync } from 'fflate'
import gettextParser from 'gettext-parser'

const ROOT = path.resolve(import.meta.dirname, '..')
export const PLUGIN_DIR = path.join(ROOT, 'integrations', 'wordpress', 'dg-ceny')
export const DEFAULT_ZIP = path.join(ROOT, 'dist', 'wordpress', 'dg-ceny.zip')

/**
 * A .po or .mo file's messages, by context ('' for none) and message.
 * @param {Buffer} content
 * @param {'po' | 'mo'} format
 * @returns {Record<string, Record<string, { msgstr: string[] }>>}
 */
export function readTranslations(content, format) {
  return gettextParser[format].parse(content).translations
}

/**
 * The .mo for a .po: what WordPress's load_plugin_textdomain reads.
 * @param {string} poFile
 * @returns {Buffer}
 */
export function compileTranslation(poFile) {
  const catalog = gettextParser.po.parse(fs.readFileSync(poFile))
  // the file's own creation date would make every build differ
  delete catalog.headers['POT-Creation-Date']
  delete catalog.headers['PO-Revision-Date']
  return gettextParser.mo.compile(catalog)
}

/**
 * The plugin's files, relative to its folder with forward slashes, in byte order; no hidden files.
 * @returns {string[]}
 */
export function pluginFiles() {
  return fs
    .readdirSync(PLUGIN_DIR, { recursive: true, encoding: 'utf8' })
    .map((file) => file.split(path.sep).join('/'))
    .filter((file) => !file.split('/').some((part) => part.startsWith('.')))
    .filter((file) => fs.statSync(path.join(PLUGIN_DIR, file)).isFile())
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

/**
 * Compiles each languages/*.po into its .mo beside it, where it changed (for a copied folder).
 * @returns {string[]} the .mo files written
 */
export function writeTranslations() {
  const languages = path.join(PLUGIN_DIR, 'languages')
  const written = []
  for (const po of fs.readdirSync(languages).filter((file) => file.endsWith('.po'))) {
    const moFile = path.join(languages, po.replace(/\.po$/, '.mo'))
    const mo = compileTranslation(path.join(languages, po))
    if (!fs.existsSync(moFile) || !fs.readFileSync(moFile).equals(mo)) {
      fs.writeFileSync(moFile, mo)
      written.push(moFile)
    }
  }
  return written
}

/**
 * The plugin's zip, its .mo files compiled from their .po; the zip's path.
 * @param {string} [zipFile]
 * @returns {string}
 */
export function buildWordPressZip(zipFile = DEFAULT_ZIP) {
  // DOS dates are local times without a zone: a date made of local fields (1 January 2026, 00:00) is
  // stored as those fields in whatever time zone the zip is made
  const date = new Date(2026, 0, 1, 0, 0, 0)
  /** @type {Record<string, [Uint8Array, { mtime: Date }]>} */
  const entries = {}
  for (const file of pluginFiles()) {
    const source = path.join(PLUGIN_DIR, file)
    const po = source.replace(/\.mo$/, '.po')
    const content = file.endsWith('.mo') && fs.existsSync(po) ? compileTranslation(po) : fs.readFileSync(source)
    entries[`dg-ceny/${file}`] = [new Uint8Array(content), { mtime: date }]
  }
  const zip = zipSync(entries, { level: 9, mtime: date })
  fs.mkdirSync(path.dirname(zipFile), { recursive: true })
  fs.writeFileSync(zipFile, zip)
  return zipFile
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const moFile of writeTranslations()) process.stdout.write(`${path.relative(process.cwd(), moFile)}: compiled\n`)
  const zipFile = buildWordPressZip(process.argv[2] ? path.resolve(process.argv[2]) : DEFAULT_ZIP)
  process.stdout.write(`${path.relative(process.cwd(), zipFile)}: ${fs.statSync(zipFile).size} bytes\n`)
}
