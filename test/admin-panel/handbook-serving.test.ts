import { expect, it } from 'vitest'

import { ADMIN_PANEL_CSP } from '../../src/admin-panel/admin-panel-routes.js'
import { HANDBOOK_PAGES } from '../../src/admin-panel/handbook/handbook-pages.js'
import { describeEachDatabase } from '../helpers/test-app.js'

const HANDBOOK = '/dg-admin/podrecznik'
const ORIGIN = 'http://dg.test'

function decodeEntities(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
}

/** Every href and src of a page, resolved against its URL. */
function referencesOf(html: string, pageUrl: string): URL[] {
  return [...html.matchAll(/\s(?:href|src|action)="([^"]*)"/g)].map(
    (match) => new URL(decodeEntities(match[1]!), pageUrl),
  )
}

describeEachDatabase('operator handbook served as HTML', (env) => {
  const get = (url: string, headers: Record<string, string> = {}) => env().app.inject({ method: 'GET', url, headers })

  it('serves the handbook’s index and pages as HTML in the panel’s look, under the panel’s CSP', async () => {
    const bare = await get(HANDBOOK)
    expect(bare.statusCode).toBe(301)
    expect(bare.headers.location).toBe(`${HANDBOOK}/`)

    const index = await get(`${HANDBOOK}/`)
    expect(index.statusCode).toBe(200)
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(index.headers['content-security-policy']).toBe(ADMIN_PANEL_CSP)
    expect(index.headers.etag).toBeTruthy()
    expect(index.body).toContain('<link rel="stylesheet" href="../panel.css" />')
    expect(index.body).toContain('<h1 id="podręcznik-operatora">')

    const page = await get(`${HANDBOOK}/import.html`)
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.body).toContain('<h1 id="import-z-excela">Import z Excela</h1>')
    expect(page.body).toContain('<h2 id="1-wybór-pliku-i-przypisanie-kolumn">')
    expect(page.body).toContain('<strong>Szablon importu</strong>')
    expect(page.body).toMatch(/<table class="table">[\s\S]*<th>Pole<\/th>/)
    expect(page.body).toMatch(
      /<img src="screenshots\/admin\/pl-20-import-ofert\.png" alt="Import ofert" loading="lazy" width="\d+" height="\d+"/,
    )
    expect(page.body).toContain('href="codzienna-praca.html#wiele-cen-naraz-eksport-i-zmiana-cen"')
    expect(page.body).toContain('href="docs/reference/import-format.html"')
    expect(page.body).toContain('<a href="import.html" aria-current="page">Import z Excela</a>')
    // no Markdown left over, and nothing the CSP would have to allow
    expect(page.body).not.toMatch(/\*\*|!\[|\]\(/)
    for (const html of [index.body, page.body]) {
      expect(html).not.toMatch(/<script/i)
      expect(html).not.toMatch(/\son[a-z]+=/i)
      expect(html).not.toMatch(/\sstyle=/i)
      expect(html).not.toMatch(/<style/i)
    }

    const again = await get(`${HANDBOOK}/import.html`, { 'if-none-match': String(page.headers.etag) })
    expect(again.statusCode).toBe(304)
  })

  it('sends the .md names of the panel’s help links on to the pages', async () => {
    for (const name of HANDBOOK_PAGES) {
      const answer = await get(`${HANDBOOK}/${name}`)
      expect([name, answer.statusCode]).toEqual([name, 301])
      const target = new URL(String(answer.headers.location), `${ORIGIN}${HANDBOOK}/${name}`)
      expect((await get(target.pathname)).statusCode).toBe(200)
    }
    expect((await get(`${HANDBOOK}/alerty.md`)).headers.location).toBe('alerty.html')
  })

  it('serves the import format reference and the screenshots with their content types', async () => {
    const reference = await get(`${HANDBOOK}/docs/reference/import-format.html`)
    expect(reference.statusCode).toBe(200)
    expect(reference.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(reference.body).toMatch(/<h1 id="[^"]+">/)
    expect(reference.body).toContain('href="../../index.html"')
    // the generated page's note for editors is not shown as text
    expect(reference.body).not.toContain('&lt;!--')

    const image = await get(`${HANDBOOK}/screenshots/admin/pl-20-import-ofert.png`)
    expect(image.statusCode).toBe(200)
    expect(image.headers['content-type']).toBe('image/png')
    expect(image.rawPayload.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  })

  it('resolves every link and image of every page it serves, anchors included', async () => {
    const seen = new Map<string, string>()
    const queue = [`${ORIGIN}${HANDBOOK}/`, ...HANDBOOK_PAGES.map((name) => `${ORIGIN}${HANDBOOK}/${name}`)]
    const anchors: { from: string; url: URL }[] = []
    while (queue.length) {
      const url = new URL(queue.shift()!)
      url.hash = ''
      if (seen.has(url.href)) continue
      let answer = await get(url.pathname + url.search)
      if (answer.statusCode === 301) {
        const target = new URL(String(answer.headers.location), url)
        answer = await get(target.pathname + target.search)
      }
      expect([url.pathname, answer.statusCode]).toEqual([url.pathname, 200])
      seen.set(url.href, answer.body)
      if (!String(answer.headers['content-type']).startsWith('text/html')) continue
      for (const target of referencesOf(answer.body, url.href)) {
        if (target.origin !== ORIGIN) continue
        // the panel's own files (stylesheets, the panel itself) are the panel's suite's
        if (!target.pathname.startsWith(`${HANDBOOK}/`)) {
          expect([url.pathname, target.pathname, (await get(target.pathname)).statusCode]).toEqual([
            url.pathname,
            target.pathname,
            200,
          ])
          continue
        }
        if (target.hash) anchors.push({ from: url.pathname, url: target })
        queue.push(target.href)
      }
    }
    const pages = [...seen.keys()].filter((url) => url.endsWith('.html') || url.endsWith('/'))
    expect(pages.length).toBeGreaterThanOrEqual(HANDBOOK_PAGES.length + 2)
    expect([...seen.keys()].filter((url) => url.endsWith('.png')).length).toBeGreaterThan(10)
    for (const { from, url } of anchors) {
      const page = new URL(url)
      page.hash = ''
      const id = decodeURIComponent(url.hash.slice(1))
      expect([from, url.pathname, seen.get(page.href)?.includes(` id="${id}"`)]).toEqual([from, url.pathname, true])
    }
    expect(anchors.map(({ url }) => decodeURIComponent(url.hash))).toEqual(
      expect.arrayContaining(['#gdy-źródło-nie-działa', '#4-licencja']),
    )
  })

  it('searches every handbook page’s text, without regard to case or Polish diacritics', async () => {
    const search = async (q: string) => {
      const answer = await get(`${HANDBOOK}/szukaj?q=${encodeURIComponent(q)}`)
      expect(answer.statusCode).toBe(200)
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(answer.headers['content-security-policy']).toBe(ADMIN_PANEL_CSP)
      return answer.body
    }
    const noDiacritics = await search('zrodlo nie dziala')
    expect(noDiacritics).toContain('href="zrodla.html#gdy-źródło-nie-działa"')
    expect(noDiacritics).toMatch(/<mark>(źródło|Źródło)<\/mark>/)

    const licence = await search('LICENCJA')
    expect(licence).toContain('href="pierwszy-dzien.html#4-licencja"')
    expect(licence).toContain('href="prawo.html')

    expect(await search('zapowiedziana')).toContain('href="codzienna-praca.html#cena-zapowiedziana"')
    expect(await search('słowoktóregoniema')).toContain('Nic nie znaleziono')
    expect(await search('')).toContain('Wpisz słowo')

    const hostile = await search('<script>alert(1)</script>')
    expect(hostile).not.toContain('<script>')
    expect(hostile).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"')

    expect((await get(`${HANDBOOK}/szukaj?q=${'a'.repeat(201)}`)).statusCode).toBe(400)
  })

  it('answers an unknown address with an HTML 404 that never reaches outside the handbook', async () => {
    const attempts = [
      `${HANDBOOK}/nie-ma.html`,
      `${HANDBOOK}/nie-ma.md`,
      `${HANDBOOK}/alerty.md/x`,
      `${HANDBOOK}/..%2F..%2F..%2Fpackage.json`,
      `${HANDBOOK}/docs/..%2F..%2Fpackage.json`,
      `${HANDBOOK}/screenshots/admin/manifest.json`,
      `${HANDBOOK}/docs/architecture.html`,
      `${HANDBOOK}/docs/operator/alerty.md`,
    ]
    for (const url of attempts) {
      const answer = await get(url)
      expect([url, answer.statusCode]).toEqual([url, 404])
      expect(answer.headers['content-type'], url).toBe('text/html; charset=utf-8')
      expect(answer.body, url).toContain('Nie ma takiej strony podręcznika')
      expect(answer.body, url).not.toContain('"name": "dg-offers"')
    }
  })
})
