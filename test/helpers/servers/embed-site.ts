/*
 * A developer's static website on another origin than the service, for the website component's
 * browser suite: a second HTTP server on 127.0.0.1 answering its pages with a strict
 * Content-Security-Policy that allows scripts and requests to the service's origin only, styles
 * from its own origin only (no 'unsafe-inline'), and requires Trusted Types.
 */
import http from 'node:http'

export interface EmbedSite {
  origin: string
  /** The policy every page is answered with. */
  policy: string
  close(): Promise<void>
}

/** The page's own style sheet: what a host page sets on the component (a custom property and a part). */
export const SITE_CSS = `body { font-family: sans-serif; margin: 1rem 1.5rem; color: #1f2937; }
dg-offer-table, dg-offer-card, dg-price-history { --dg-accent: #0f766e; }
dg-offer-table::part(caption) { color: #0f766e; }
`

export async function startEmbedSite(serviceOrigin: string, pages: Record<string, string>): Promise<EmbedSite> {
  const policy = [
    "default-src 'none'",
    `script-src ${serviceOrigin}`,
    `connect-src ${serviceOrigin}`,
    "style-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "require-trusted-types-for 'script'",
  ].join('; ')
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/'
    if (path === '/site.css') {
      response.writeHead(200, { 'Content-Type': 'text/css; charset=utf-8' })
      return response.end(SITE_CSS)
    }
    const page = pages[path]
    if (page === undefined) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
      return response.end('not found')
    }
    response.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': policy,
      'Cache-Control': 'no-store',
    })
    response.end(page)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('not listening')
  return {
    origin: `http://127.0.0.1:${address.port}`,
    policy,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A page of the site embedding the component as the snippet says, plus what else the page holds. */
export function embedPage(options: { scriptUrl: string; lang?: 'pl' | 'en'; body: string }): string {
  const lang = options.lang ?? 'pl'
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${lang === 'en' ? 'Prices' : 'Ceny'}: Osiedle Nad Wartą</title>
<link rel="stylesheet" href="/site.css">
</head>
<body>
<main>
<h1>Osiedle Nad Wartą</h1>
<script src="${options.scriptUrl}" defer></script>
${options.body}
</main>
</body>
</html>`
}
