import fs from 'node:fs'
import path from 'node:path'

import { expect, it } from 'vitest'

import { ADMIN_PANEL_ASSETS_DIR, ADMIN_PANEL_CSP } from '../../src/admin-panel/admin-panel-routes.js'
import { describeEachDatabase } from '../helpers/test-app.js'

const PANEL = '/dg-admin'

describeEachDatabase('admin panel static files', (env) => {
  const get = (url: string, headers: Record<string, string> = {}) => env().app.inject({ method: 'GET', url, headers })

  it('serves the page at /dg-admin/ (redirecting /dg-admin) with a strict CSP and the REST base URL', async () => {
    const bare = await get(PANEL)
    expect(bare.statusCode).toBe(301)
    expect(bare.headers.location).toBe(`${PANEL}/`)

    const page = await get(`${PANEL}/`)
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.headers['content-security-policy']).toBe(ADMIN_PANEL_CSP)
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain('unsafe')
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    expect(page.headers['x-frame-options']).toBe('DENY')
    expect(page.headers['referrer-policy']).toBe('no-referrer')
    expect(page.body).toContain('<meta name="dg-rest-base" content="../wp-json/dg/v2" />')
    // nothing inline that the CSP would have to allow: every script has a src, no handlers, no style attributes
    expect(page.body.match(/<script\b[^>]*>/g)?.every((tag) => / src="[^"]+"/.test(tag))).toBe(true)
    expect(page.body).not.toMatch(/\son[a-z]+=/i)
    expect(page.body).not.toMatch(/\sstyle=/i)
    expect(page.body).not.toMatch(/<style/i)
  })

  it('serves every file the page and its modules load, with its content type, ETag and HEAD', async () => {
    const page = (await get(`${PANEL}/`)).body
    const referenced = new Set([...page.matchAll(/(?:src|href)="([a-z0-9-]+\.(?:js|css|svg))"/g)].map((m) => m[1]!))
    // follow the ES module graph from app.js, so a missing or misnamed module fails here (names are
    // relative to the panel's root: `views/view-audit.js`)
    const queue = [...referenced].filter((name) => name.endsWith('.js'))
    while (queue.length > 0) {
      const name = queue.pop()!
      const response = await get(`${PANEL}/${name}`)
      expect(response.statusCode, name).toBe(200)
      for (const match of response.body.matchAll(/from '(\.{1,2}\/[a-z0-9/-]+\.js)'/g)) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(name), match[1]!))
        expect(target.startsWith('..'), `${name} imports ${match[1]}`).toBe(false)
        if (!referenced.has(target)) {
          referenced.add(target)
          queue.push(target)
        }
      }
    }
    expect([...referenced]).toEqual(expect.arrayContaining(['app.js', 'panel.css', 'favicon.svg', 'api.js']))
    // every view on disk is reachable from app.js (a view left out of the navigation fails here)
    const views = fs
      .readdirSync(ADMIN_PANEL_ASSETS_DIR, { recursive: true, encoding: 'utf8' })
      .filter((name) => /(^|\/)view-[a-z0-9-]+\.js$/.test(name))
    expect(views.length).toBeGreaterThan(10)
    expect([...referenced].filter((name) => /(^|\/)view-/.test(name)).sort()).toEqual(views.sort())

    const types: Record<string, string> = {
      '.js': 'text/javascript; charset=utf-8',
      '.css': 'text/css; charset=utf-8',
      '.svg': 'image/svg+xml',
    }
    for (const name of referenced) {
      const response = await get(`${PANEL}/${name}`)
      expect(response.headers['content-type'], name).toBe(types[path.extname(name)])
      expect(response.headers['content-security-policy'], name).toBe(ADMIN_PANEL_CSP)
      expect(response.rawPayload.equals(fs.readFileSync(path.join(ADMIN_PANEL_ASSETS_DIR, name))), name).toBe(true)
      const etag = String(response.headers.etag)
      expect((await get(`${PANEL}/${name}`, { 'if-none-match': etag })).statusCode, name).toBe(304)
      const head = await env().app.inject({ method: 'HEAD', url: `${PANEL}/${name}` })
      expect(head.statusCode, name).toBe(200)
      expect(head.headers['content-type'], name).toBe(types[path.extname(name)])
      expect(head.body).toBe('')
    }
  })

  it('serves the chart library from its npm package under fixed names', async () => {
    const script = await get(`${PANEL}/uplot.js`)
    expect(script.statusCode).toBe(200)
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(script.headers['content-security-policy']).toBe(ADMIN_PANEL_CSP)
    expect(script.body).toContain('uPlot')
    const style = await get(`${PANEL}/uplot.css`)
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8')
    expect(style.body).toContain('.uplot')
  })

  it('answers 404 for unknown files and never reaches outside the asset folder', async () => {
    const secretLooking = fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')
    const attempts = [
      `${PANEL}/nope.js`,
      `${PANEL}/index.htm`,
      `${PANEL}/admin-panel-routes.ts`,
      `${PANEL}/..%2Fadmin-panel-routes.ts`,
      `${PANEL}/..%2F..%2F..%2Fpackage.json`,
      `${PANEL}/%2e%2e%2f%2e%2e%2f%2e%2e%2fpackage.json`,
      `${PANEL}/..%5C..%5C..%5Cpackage.json`,
      `${PANEL}/.%2Fapp.js`,
      `${PANEL}/app.js%00.css`,
      `${PANEL}/assets/app.js`,
      `${PANEL}/../../package.json`,
      `${PANEL}/..`,
      `${PANEL}/views/..%2Fapp.js`,
      `${PANEL}/..%2Fviews/view-audit.js`,
      `${PANEL}/views/view-audit.js/x`,
      `${PANEL}/editor/view-audit.js`,
      `${PANEL}/views/editor/view-offers.js`,
    ]
    for (const url of attempts) {
      const response = await get(url)
      expect(response.statusCode, url).toBe(404)
      expect(response.headers['content-type'], url).toMatch(/^application\/json/)
      expect(response.body, url).not.toContain(secretLooking.slice(0, 40))
      expect(response.body, url).not.toContain('import ')
    }
    expect((await get(`${PANEL}/nope.js`)).json().code).toBe('dg_file_not_found')
  })
})

describeEachDatabase(
  'admin panel under another REST prefix',
  (env) => {
    it('points the panel at the configured REST base URL', async () => {
      const page = await env().app.inject({ method: 'GET', url: `${PANEL}/` })
      expect(page.body).toContain('<meta name="dg-rest-base" content="../api/dg/v2" />')
      expect((await env().app.inject({ method: 'GET', url: '/api/dg/v2/session' })).statusCode).toBe(401)
    })
  },
  { env: { DG_REST_PREFIX: '/api' } },
)
