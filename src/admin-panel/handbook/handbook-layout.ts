/*
 * The frame of every served handbook page: the panel's top bar and stylesheet, a search box, the
 * list of the handbook's pages and the page itself. Plain HTML with no script and no inline style,
 * so it passes the panel's Content-Security-Policy; every URL in it is relative, so the handbook
 * follows the panel wherever a proxy mounts it.
 */
import path from 'node:path'

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}

/** A URL (relative to the handbook's folder) as seen from the page at `from` (also relative to it). */
export function relativeUrl(from: string, to: string): string {
  // two folders deep, as under /dg-admin/podrecznik/, so `../panel.css` can climb out of it
  const fromDir = path.posix.dirname(`/~panel/~handbook/${from}`)
  const relative = path.posix.relative(fromDir, `/~panel/~handbook/${to}`)
  if (to.endsWith('/') || to === '') return relative ? `${relative}/` : './'
  return relative
}

const HANDBOOK_TITLE = 'Podręcznik operatora'

export interface TocEntry {
  url: string
  title: string
}

export interface LayoutInput {
  /** Where the page is served, relative to the handbook's folder (`alerty.html`, `docs/reference/cli.html`). */
  url: string
  title: string
  /** The page's content, already rendered and escaped. */
  content: string
  toc: readonly TocEntry[]
  /** The search box's text, on the results page. */
  query?: string
  /** The content's language: the handbook is Polish, the documents it links to for reference English. */
  lang?: 'pl' | 'en'
}

export function renderLayout({ url, title, content, toc, query, lang = 'pl' }: LayoutInput): string {
  const to = (target: string) => escapeHtml(relativeUrl(url, target))
  const items = toc
    .map(
      (entry) =>
        `<li><a href="${to(entry.url)}"${entry.url === url ? ' aria-current="page"' : ''}>${escapeHtml(entry.title)}</a></li>`,
    )
    .join('\n')
  return `<!doctype html>
<html lang="pl">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>${title === HANDBOOK_TITLE ? '' : `${escapeHtml(title)} — `}${HANDBOOK_TITLE}</title>
    <link rel="icon" href="${to('../favicon.svg')}" type="image/svg+xml" />
    <link rel="stylesheet" href="${to('../panel.css')}" />
    <link rel="stylesheet" href="${to('../handbook/handbook.css')}" />
  </head>
  <body class="handbook">
    <header class="topbar">
      <a class="brand" href="${to('index.html')}">
        <img src="${to('../favicon.svg')}" alt="" width="28" height="28" />
        <span>Ceny ofertowe <small>podręcznik operatora</small></span>
      </a>
      <form class="handbook-search" role="search" action="${to('szukaj')}" method="get">
        <label class="visually-hidden" for="handbook-query">Szukaj w podręczniku</label>
        <input id="handbook-query" type="search" name="q" maxlength="200" value="${escapeHtml(query ?? '')}" placeholder="Szukaj w podręczniku" />
        <button class="button" type="submit">Szukaj</button>
      </form>
      <a class="handbook-panel-link" href="${to('../')}">Panel operatora</a>
    </header>
    <div class="handbook-layout">
      <nav class="handbook-toc" aria-label="Strony podręcznika">
        <ol>
${items}
        </ol>
      </nav>
      <main class="handbook-page"${lang === 'pl' ? '' : ` lang="${lang}"`}>
${content}
      </main>
    </div>
  </body>
</html>
`
}
