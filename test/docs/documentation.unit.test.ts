/*
 * The project's documentation says what holds, not how the project came to be: no talk of work
 * sessions, rounds of work, which machine measured what on which day, or issue numbers as history
 * (git keeps the history). Checked over the README, docs/ and the comments of the code. Also: every
 * link between the documentation's pages and every image they show points at a file that exists,
 * every page of docs/ is at most two links from the README, and nothing cites a document the
 * repository does not hold (a design document, or the API contract by section number).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')

const DIARY_PHRASES: readonly RegExp[] = [
  /\b(?:this|that|previous|next|earlier|later|second|third|fourth|fifth) (?:work )?session\b/i,
  /\bsessions? of \d{4}-\d{2}-\d{2}/i,
  /\brounds? of work\b/i,
  /\bmeasured\b[^.\n]{0,80}\bon \d{4}-\d{2}-\d{2}\b/i,
  /\bmeasured on this machine\b/i,
  /\bmachine\b[^.\n]{0,60}\b20\d\d-\d\d-\d\d\b/i,
  /\bon this machine\b[^.\n]{0,40}\b\d{4}-\d{2}-\d{2}\b/i,
  /\b(?:in|during) this (?:session|round|sprint)\b/i,
  /\bissues? #?\d+\b/i,
  /(?:^|[\s(])#\d{1,4}\b(?![0-9a-f])/,
  /\byesterday'?s? (?:run|commit|figures)\b/i,
]

function files(dir: string, pattern: RegExp): string[] {
  const absolute = path.join(root, dir)
  if (!existsSync(absolute)) return []
  return readdirSync(absolute, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
}

/** The comments of a source file: what a reader of the code reads as prose. */
function comments(source: string): string {
  return [...source.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`])\/\/[^\n]*/g)].map((m) => m[0]).join('\n')
}

/** The anchors GitHub gives a page's headings: lowercase, punctuation dropped, spaces as hyphens. */
function headingAnchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '')
  return new Set(
    [...text.matchAll(/^#+ (.+)$/gm)].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\- _]/gu, '')
        .replace(/ /g, '-'),
    ),
  )
}

const documents = [path.join(root, 'README.md'), ...files('docs', /\.md$/)]

/** The pages a page links to (existing Markdown files only; anchors dropped). */
function linkedPages(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '')
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.split('#')[0]!)
    .filter((target) => target !== '' && !/^[a-z]+:/.test(target))
    .map((target) => path.resolve(path.dirname(file), decodeURIComponent(target)))
    .filter((target) => target.endsWith('.md') && existsSync(target))
}

/**
 * A citation a reader of the repository cannot open: the design document, or a section of the API
 * contract ("contract 4.7", "contract 5.2.6", "contract section 7", "kontrakt 2.7"). The contract's
 * name as the API's version ("the public contract 2.1", "contract 2.1 API") is no citation.
 */
// the design document outside the repository, named in pieces so this file does not cite it either;
// a comment points to docs/architecture.md or a decision record in docs/decisions/ instead
const OUTSIDE_DESIGN_DOCUMENT = ['design', 'md'].join('.')
const UNOPENABLE_CITATION = new RegExp(
  `\\b${OUTSIDE_DESIGN_DOCUMENT.replace('.', '\\.')}\\b|\\bcontract(?: section)? \\d|\\bkontrakt \\d|\\bumow[ay] API \\d`,
  'i',
)
const CONTRACT_AS_VERSION = /\bpublic contract 2\.1\b(?!\.\d)|\bcontract 2\.1 API\b/gi

describe('the project documentation', () => {
  it('has no diary phrases in the README, docs/ or the comments of the code', () => {
    const found: string[] = []
    const texts: [string, string][] = [
      ...documents.map((file): [string, string] => [file, readFileSync(file, 'utf8')]),
      ...['src', 'bench', 'test', 'scripts']
        .flatMap((dir) => files(dir, /\.(ts|js|mjs)$/))
        .filter(
          (file) => !file.endsWith('documentation.unit.test.ts') && !file.includes(`${path.sep}fixtures${path.sep}`),
        )
        .map((file): [string, string] => [file, comments(readFileSync(file, 'utf8'))]),
    ]
    expect(texts.length).toBeGreaterThan(100)
    for (const [file, text] of texts) {
      text.split('\n').forEach((line, index) => {
        for (const phrase of DIARY_PHRASES) {
          if (phrase.test(line)) found.push(`${path.relative(root, file)}:${index + 1}: ${line.trim().slice(0, 120)}`)
        }
      })
    }
    expect(found).toEqual([])
  })

  it('catches the phrases it is meant to catch', () => {
    for (const line of [
      'Measured in this session on 2026-11-27.',
      'bench:mixed on 2026-11-28 (second session, another machine)',
      'the previous round of work',
      'fixed in issue 18',
      'see #18',
      'measured on this machine on 2026-11-25',
    ])
      expect(
        DIARY_PHRASES.some((phrase) => phrase.test(line)),
        line,
      ).toBe(true)
    for (const line of ['a login session lasts 12 hours', 'color: #fff', 'One session gives the same operations'])
      expect(
        DIARY_PHRASES.some((phrase) => phrase.test(line)),
        line,
      ).toBe(false)
  })

  it('reaches every page of docs/ from the README in at most two links', () => {
    const readme = path.join(root, 'README.md')
    const reached = new Set(linkedPages(readme))
    for (const page of [...reached]) for (const next of linkedPages(page)) reached.add(next)
    const unreached = files('docs', /\.md$/)
      .filter((page) => !reached.has(page))
      .map((page) => path.relative(root, page))
    expect(unreached, 'link each from the README or from a page the README links to').toEqual([])
  })

  it('cites no document the repository does not hold', () => {
    const found: string[] = []
    const texts = [
      ...documents,
      ...['src', 'bench', 'test', 'scripts', 'examples'].flatMap((dir) => files(dir, /\.(ts|js|mjs|md)$/)),
    ].filter(
      (file) => !file.endsWith('documentation.unit.test.ts') && !file.includes(`${path.sep}node_modules${path.sep}`),
    )
    expect(texts.length).toBeGreaterThan(100)
    for (const file of texts) {
      const relative = path.relative(root, file).split(path.sep).join('/')
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (UNOPENABLE_CITATION.test(line.replace(CONTRACT_AS_VERSION, '')))
            found.push(`${relative}:${index + 1}: ${line.trim().slice(0, 120)}`)
        })
    }
    expect(found, 'point to docs/decisions/, docs/integration/, docs/reference/ or say what is meant').toEqual([])
  })

  it('tells a citation of a contract section from the name of the API version', () => {
    for (const line of [
      '(contract 4.7.6)',
      'Contract 7: errors',
      'contract section 7',
      '(kontrakt 2.7)',
      `${OUTSIDE_DESIGN_DOCUMENT} §6`,
    ])
      expect(UNOPENABLE_CITATION.test(line.replace(CONTRACT_AS_VERSION, '')), line).toBe(true)
    for (const line of [
      'It implements the public contract 2.1 (REST namespace',
      'the contract 2.1 API',
      'legal contract id',
    ])
      expect(UNOPENABLE_CITATION.test(line.replace(CONTRACT_AS_VERSION, '')), line).toBe(false)
  })

  it('links only to pages and images that exist', () => {
    const broken: string[] = []
    for (const file of documents) {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '')
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!
        if (/^[a-z]+:/.test(target)) continue
        const [page, anchor] = target.split('#') as [string, string | undefined]
        const resolved = page === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(page))
        if (!existsSync(resolved)) broken.push(`${path.relative(root, file)} → ${target}`)
        else if (anchor && resolved.endsWith('.md') && !headingAnchors(resolved).has(anchor))
          broken.push(`${path.relative(root, file)} → ${target} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
  })

  it('shows only screenshots of a manifest, each taken anew by npm run docs:screenshots', () => {
    // a folder with a manifest.json is made by npm run docs:screenshots (test/helpers/handbook-screenshots.ts)
    const suites = files('test', /\.test\.ts$/)
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n')
    const manifests = new Map<string, Record<string, unknown>>()
    const manifestOf = (folder: string) => {
      const file = path.join(root, 'docs/screenshots', folder, 'manifest.json')
      if (!manifests.has(folder))
        manifests.set(
          folder,
          existsSync(file)
            ? (JSON.parse(readFileSync(file, 'utf8')) as { screenshots: Record<string, unknown> }).screenshots
            : {},
        )
      return manifests.get(folder)!
    }
    const unlisted: string[] = []
    let shownInHandbook = 0
    for (const file of documents) {
      const handbook = path.relative(root, file).startsWith(`docs${path.sep}operator${path.sep}`)
      for (const match of readFileSync(file, 'utf8').matchAll(/screenshots\/([a-z]+)\/([^/)\s]+)\.png/g)) {
        const [, folder, name] = match as unknown as [string, string, string]
        if (handbook) shownInHandbook++
        const listed = Object.hasOwn(manifestOf(folder), name)
        const managed = existsSync(path.join(root, 'docs/screenshots', folder, 'manifest.json'))
        if (!listed && (handbook || managed)) unlisted.push(`${path.relative(root, file)} → ${folder}/${name}.png`)
      }
    }
    expect(shownInHandbook).toBeGreaterThan(10)
    expect(unlisted, 'screenshots not in a manifest: run npm run docs:screenshots').toEqual([])
    const untaken: string[] = []
    for (const [folder, screenshots] of manifests)
      for (const name of Object.keys(screenshots)) {
        if (!new RegExp(`handbookShot\\([\\w.]+, '${folder}/${name}'\\)`).test(suites))
          untaken.push(`${folder}/${name}`)
        if (!existsSync(path.join(root, 'docs/screenshots', folder, `${name}.png`)))
          untaken.push(`${folder}/${name}.png`)
      }
    expect(untaken, 'in a manifest, but no browser suite takes it or its PNG is missing').toEqual([])
  })
})
