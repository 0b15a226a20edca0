/*
 * The operator's handbook (docs/operator/*.md, Polish) rendered once at start into HTML pages in
 * the panel's look, with the documentation pages it links to (docs/reference/import-format.md, …)
 * and the screenshots its pages show. Every file is read into a fixed table keyed by its URL, so
 * no path from a request ever reaches the file system.
 *
 * Markdown is rendered by markdown-it with raw HTML off: whatever a document holds comes out as
 * text, and the pages carry no script or inline style (the panel's Content-Security-Policy holds).
 * Relative links are resolved against the documents' own folders and rewritten to the served
 * pages; a link to a document that is not served (it is for developers, or missing from the
 * installation) stays as plain text instead of leading to a 404.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import markdownIt, { type MarkdownIt, type Token } from 'markdown-it'

import { relativeUrl, renderLayout, type TocEntry } from './handbook-layout.js'
import { type HandbookSection, HandbookSearch } from './handbook-search.js'

/** The documentation folder (docs/), resolved like the panel's assets: the same from src/ and dist/. */
export const DOCS_DIR = fileURLToPath(new URL('../../../docs/', import.meta.url))

/** The handbook's pages in the order of its table of contents (docs/operator/README.md first). */
export const HANDBOOK_PAGES = [
  'README.md',
  'pierwszy-dzien.md',
  'codzienna-praca.md',
  'import.md',
  'publikacja.md',
  'alerty.md',
  'prawo.md',
  'kontrola.md',
  'strona-www.md',
  'zrodla.md',
  'konto.md',
  'platforma.md',
] as const

/** Where the search page is served, relative to the handbook's folder. */
export const SEARCH_URL = 'szukaj'

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
}
const HTML = 'text/html; charset=utf-8'

export interface HandbookFile {
  body: Buffer
  contentType: string
  etag: string
}

export interface Handbook {
  /** Pages and images by their URL relative to the handbook's folder (`index.html`, `screenshots/admin/x.png`). */
  files: ReadonlyMap<string, HandbookFile>
  /** The search page for a query (its content depends on the query, so it is made per request). */
  searchPage(query: string): string
  /** The page answered with a 404 at `url`, with the handbook's table of contents. */
  notFoundPage(url: string): string
}

export function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
}

function fileOf(body: Buffer | string, contentType: string): HandbookFile {
  const buffer = typeof body === 'string' ? Buffer.from(body) : body
  return { body: buffer, contentType, etag: etagOf(buffer) }
}

/**
 * The URL a document (by its path under docs/) is served at: the handbook's pages at the top
 * (README as index.html), other documents under docs/, images under their own folders.
 */
function servedUrlOf(docPath: string): string {
  if (docPath === 'operator/README.md') return 'index.html'
  if (docPath.startsWith('operator/') && docPath.endsWith('.md') && !docPath.slice(9).includes('/'))
    return docPath.slice(9, -3) + '.html'
  if (docPath.endsWith('.md')) return `docs/${docPath.slice(0, -3)}.html`
  return docPath
}

/** GitHub's anchor for a heading, so the documents' `page.md#anchor` links land on their section. */
export function slugOf(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The words of an inline run (a paragraph, a heading, a table cell) without their markup. */
function plainText(children: readonly Token[]): string {
  return children
    .map((child) =>
      child.type === 'text' || child.type === 'code_inline'
        ? child.content
        : child.type === 'softbreak' || child.type === 'hardbreak'
          ? ' '
          : '',
    )
    .join('')
}

function headingText(inline: Token | undefined): string {
  return plainText(inline?.children ?? [])
}

/** A link's target split into the document under docs/ it names and its anchor, or none (external, outside docs/). */
function resolveTarget(fromDoc: string, href: string): { docPath: string; hash: string } | undefined {
  if (!href || href.startsWith('#') || href.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined
  const hashAt = href.indexOf('#')
  const target = hashAt === -1 ? href : href.slice(0, hashAt)
  const hash = hashAt === -1 ? '' : href.slice(hashAt)
  let docPath: string
  try {
    docPath = path.posix.normalize(path.posix.join(path.posix.dirname(fromDoc), decodeURIComponent(target)))
  } catch {
    return undefined
  }
  if (docPath.startsWith('../') || docPath === '..') return undefined
  if (target.endsWith('/')) docPath = path.posix.join(docPath, 'README.md')
  return { docPath, hash }
}

function readDoc(docPath: string): Buffer | undefined {
  try {
    return fs.readFileSync(path.join(DOCS_DIR, ...docPath.split('/')))
  } catch {
    return undefined
  }
}

/** The width and height of a PNG (from its header), so the page keeps its layout while images load. */
function pngSize(body: Buffer): { width: number; height: number } | undefined {
  if (body.length < 24 || body.toString('latin1', 12, 16) !== 'IHDR') return undefined
  return { width: body.readUInt32BE(16), height: body.readUInt32BE(20) }
}

interface ParsedDoc {
  docPath: string
  url: string
  tokens: Token[]
  title: string
}

export function loadHandbook(): Handbook {
  const md = markdownIt({ html: false, linkify: false, typographer: false })
  md.renderer.rules.table_open = () => '<div class="handbook-table"><table class="table">\n'
  md.renderer.rules.table_close = () => '</table></div>\n'

  const parse = (docPath: string, source: Buffer): ParsedDoc => {
    // a note for editors on a line of its own (`<!-- Generated by … -->`) is no text for readers
    const tokens = md.parse(source.toString('utf8').replace(/^<!--[^\n]*-->[ \t]*$/gm, ''), {})
    const h1 = tokens.findIndex((token) => token.type === 'heading_open' && token.tag === 'h1')
    const title = h1 === -1 ? path.posix.basename(docPath, '.md') : headingText(tokens[h1 + 1])
    return { docPath, url: servedUrlOf(docPath), tokens, title }
  }
  const inlineChildren = (tokens: Token[]) =>
    tokens.flatMap((token) => (token.type === 'inline' && token.children ? token.children : []))

  // the handbook's pages, then the documents they link to (one step: those are for reference)
  const docs = new Map<string, ParsedDoc>()
  for (const name of HANDBOOK_PAGES) {
    const source = readDoc(`operator/${name}`)
    if (source) docs.set(`operator/${name}`, parse(`operator/${name}`, source))
  }
  const handbookDocs = [...docs.values()]
  for (const doc of handbookDocs)
    for (const child of inlineChildren(doc.tokens)) {
      if (child.type !== 'link_open') continue
      const target = resolveTarget(doc.docPath, String(child.attrGet('href') ?? ''))
      if (!target?.docPath.endsWith('.md') || docs.has(target.docPath)) continue
      const source = readDoc(target.docPath)
      if (source) docs.set(target.docPath, parse(target.docPath, source))
    }

  const files = new Map<string, HandbookFile>()
  for (const doc of docs.values())
    for (const child of inlineChildren(doc.tokens)) {
      if (child.type !== 'image') continue
      const target = resolveTarget(doc.docPath, String(child.attrGet('src') ?? ''))
      const contentType = target && IMAGE_TYPES[path.posix.extname(target.docPath).toLowerCase()]
      if (!target || !contentType || files.has(target.docPath)) continue
      const body = readDoc(target.docPath)
      if (body) files.set(servedUrlOf(target.docPath), fileOf(body, contentType))
    }

  const toc: TocEntry[] = handbookDocs.map((doc) => ({ url: doc.url, title: doc.title }))
  const sections: HandbookSection[] = []
  for (const doc of docs.values()) {
    const content = renderDoc(md, doc, docs, files, doc.docPath.startsWith('operator/') ? sections : undefined)
    const lang = doc.docPath.startsWith('operator/') ? 'pl' : 'en'
    files.set(doc.url, fileOf(renderLayout({ url: doc.url, title: doc.title, content, toc, lang }), HTML))
  }
  const search = new HandbookSearch(sections)
  const notFound =
    '<h1>Nie ma takiej strony podręcznika</h1>\n<p>Tej strony nie ma w tej instalacji. Wybierz stronę ze spisu albo poszukaj słowa w podręczniku.</p>'
  return {
    files,
    searchPage: (query) =>
      renderLayout({
        url: SEARCH_URL,
        title: 'Wyszukiwanie',
        content: search.renderResults(query, SEARCH_URL),
        toc,
        query,
      }),
    notFoundPage: (url) => renderLayout({ url, title: 'Nie ma takiej strony', content: notFound, toc }),
  }
}

/**
 * One document as HTML: headings get GitHub's anchors, links and images point at the served
 * files, and a handbook page adds its sections' text to `sections` for the search.
 */
function renderDoc(
  md: MarkdownIt,
  doc: ParsedDoc,
  docs: ReadonlyMap<string, ParsedDoc>,
  files: ReadonlyMap<string, HandbookFile>,
  sections: HandbookSection[] | undefined,
): string {
  const slugs = new Map<string, number>()
  let section: HandbookSection = { url: doc.url, pageTitle: doc.title, heading: doc.title, text: '' }
  const addText = (text: string) => {
    if (text) section.text += (section.text ? ' ' : '') + text
  }
  const { tokens } = doc
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (token.type === 'heading_open') {
      const text = headingText(tokens[i + 1])
      const base = slugOf(text)
      const seen = slugs.get(base) ?? 0
      slugs.set(base, seen + 1)
      const id = seen ? `${base}-${seen}` : base
      token.attrSet('id', id)
      if (sections && section.text) sections.push(section)
      section = {
        url: token.tag === 'h1' ? doc.url : `${doc.url}#${id}`,
        pageTitle: doc.title,
        heading: text,
        text: '',
      }
      rewriteLinks(doc, tokens[i + 1]?.children ?? [], docs, files)
      i++ // the heading's text is the section's heading, not its body
      continue
    }
    if (token.type === 'fence' || token.type === 'code_block') addText(token.content.trim())
    if (token.type !== 'inline' || !token.children) continue
    addText(plainText(token.children))
    rewriteLinks(doc, token.children, docs, files)
  }
  if (sections && (section.text || section.heading)) sections.push(section)
  return md.renderer.render(tokens, md.options, {})
}

function rewriteLinks(
  doc: ParsedDoc,
  children: Token[],
  docs: ReadonlyMap<string, ParsedDoc>,
  files: ReadonlyMap<string, HandbookFile>,
): void {
  const unlinked: boolean[] = []
  for (const child of children) {
    if (child.type === 'link_open') {
      const href = String(child.attrGet('href') ?? '')
      const target = resolveTarget(doc.docPath, href)
      const served =
        target && (docs.get(target.docPath)?.url ?? (files.has(target.docPath) ? target.docPath : undefined))
      if (target && served) child.attrSet('href', relativeUrl(doc.url, served) + target.hash)
      else if (target) {
        // a document for developers, not served beside the panel: its name stays readable
        child.tag = 'span'
        child.attrs = [
          ['class', 'handbook-unserved'],
          ['title', `W dokumentacji usługi: docs/${target.docPath}`],
        ]
      } else if (/^https?:/i.test(href)) child.attrSet('rel', 'noopener noreferrer')
      unlinked.push(Boolean(target && !served))
    } else if (child.type === 'link_close') {
      if (unlinked.pop()) child.tag = 'span'
    } else if (child.type === 'image') {
      const target = resolveTarget(doc.docPath, String(child.attrGet('src') ?? ''))
      if (!target) continue
      const url = servedUrlOf(target.docPath)
      const image = files.get(url)
      if (!image) {
        // an image missing from the installation: its description instead of a broken picture
        child.type = 'text'
        child.content = `[${child.content}]`
        continue
      }
      child.attrSet('src', relativeUrl(doc.url, url))
      child.attrSet('loading', 'lazy')
      const size = image.contentType === 'image/png' ? pngSize(image.body) : undefined
      if (size) {
        child.attrSet('width', String(size.width))
        child.attrSet('height', String(size.height))
      }
    }
  }
}
