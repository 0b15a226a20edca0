/*
 * `npm run docs:screenshots`: takes anew every screenshot the documentation shows from the panel.
 * It runs the browser suites that call handbookShot (test/helpers/handbook-screenshots.ts) in
 * Chromium against the demo catalog, with DG_DOCS_SCREENSHOTS set, so each suite saves its PNGs in
 * docs/screenshots/<folder>/ and the views' fingerprints; then it writes each folder's
 * manifest.json, removes the PNGs of those folders that no suite takes any more, and fails when a
 * page of the documentation shows a screenshot that none took. Nothing is written when a suite fails.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import type { HandbookShot } from '../test/helpers/handbook-screenshots.js'

const root = path.resolve(import.meta.dirname, '..')
const say = (line: string) => process.stdout.write(`${line}\n`)
const complain = (line: string) => process.stderr.write(`${line}\n`)
const screenshots = path.join(root, 'docs/screenshots')

function filesUnder(dir: string, pattern: RegExp): string[] {
  return fs
    .readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
}

const suites = filesUnder('test', /\.test\.ts$/).filter((file) =>
  fs.readFileSync(path.join(root, file), 'utf8').includes('handbookShot('),
)
const collected = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-docs-screenshots-'))
say(`Taking the documentation's screenshots: ${suites.join(', ')}`)
const run = spawnSync('npx', ['vitest', 'run', ...suites], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, DG_DOCS_SCREENSHOTS: collected, DG_TEST_DATABASE_URL: 'none' },
})
if (run.status !== 0) {
  complain('A browser suite failed: no manifest was written (the PNGs it saved may be mixed; git restore them).')
  process.exit(1)
}

const shots = fs
  .readdirSync(collected)
  .map((name) => JSON.parse(fs.readFileSync(path.join(collected, name), 'utf8')) as HandbookShot)
fs.rmSync(collected, { recursive: true, force: true })
if (shots.length === 0) {
  complain('No screenshot was taken: is /usr/bin/chromium installed?')
  process.exit(1)
}

const folders = new Map<string, HandbookShot[]>()
for (const shot of shots) {
  const folder = shot.file.split('/')[0]!
  folders.set(folder, [...(folders.get(folder) ?? []), shot])
}
const shown = [path.join(root, 'README.md'), ...filesUnder('docs', /\.md$/).map((file) => path.join(root, file))]
  .flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/screenshots\/([a-z]+)\/([^/)\s]+)\.png/g)])
  .map((match) => `${match[1]}/${match[2]}`)
  .filter((file) => folders.has(file.split('/')[0]!))
const untaken = [...new Set(shown)].filter((file) => !shots.some((shot) => shot.file === file))
if (untaken.length > 0) {
  complain(`The documentation shows screenshots no suite takes: ${untaken.join(', ')}; no manifest was written.`)
  process.exit(1)
}

for (const [folder, taken] of folders) {
  taken.sort((a, b) => a.file.localeCompare(b.file))
  const names = new Set(taken.map((shot) => path.basename(shot.file)))
  const manifest = {
    about: `The views these screenshots show, as fingerprints of their outline; the browser suites compare them with the panel (test/helpers/handbook-screenshots.ts). Made by npm run docs:screenshots: do not edit.`,
    screenshots: Object.fromEntries(
      taken.map(({ file, view, fingerprint, outline }) => [path.basename(file), { view, fingerprint, outline }]),
    ),
  }
  fs.writeFileSync(path.join(screenshots, folder, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  for (const png of fs.readdirSync(path.join(screenshots, folder)).filter((name) => name.endsWith('.png')))
    if (!names.has(png.replace(/\.png$/, ''))) fs.rmSync(path.join(screenshots, folder, png))
  say(`docs/screenshots/${folder}/: ${taken.length} screenshots`)
}
