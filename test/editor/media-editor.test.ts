/*
 * Media in the editor as an operator uses it: photos and PDFs uploaded to an offer or investment,
 * judged by their content, placed in the gallery and as the main image, and then shown by the
 * catalog and served with safe headers; a file that is not what it claims is refused and leaves
 * nothing behind.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import sharp from 'sharp'
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
type Json = Record<string, unknown>
const MAX_BYTES = 300_000

const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
)

describeEachDatabase(
  'media editor',
  (getEnv) => {
    let env: TestEnv
    let admin: TestUser
    let reader: TestUser
    let photo: Buffer
    let plan: Buffer
    let offer: Json
    let other: Json

    const call = (
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      url: string,
      payload?: unknown,
      headers: Record<string, string> = {},
    ) =>
      env.app.inject({
        method,
        url: `${API}${url}`,
        ...(payload === undefined ? {} : { payload: payload as Json }),
        headers: { authorization: admin.authorization, ...headers },
      })
    const upload = (
      owner: string,
      name: string,
      content: Buffer,
      type: string,
      fields: Record<string, string> = {},
    ) => {
      const body = multipart(fields, { name, content, type })
      return env.app.inject({
        method: 'POST',
        url: `${API}/${owner}/media`,
        payload: body.payload,
        // a Host header of the caller's choosing never reaches a stored address
        headers: { ...body.headers, authorization: admin.authorization, host: 'attacker.example' },
      })
    }
    const catalog = (url: string) =>
      env.app.inject({ method: 'GET', url: `${API}/catalog${url}`, headers: { authorization: reader.authorization } })
    const mediaFiles = async () => (await fs.readdir(path.join(env.config.dataDir, 'media')).catch(() => [])).sort()
    const served = (url: string) => env.app.inject({ method: 'GET', url: new URL(url).pathname })

    beforeAll(async () => {
      env = getEnv()
      await setUpDemo(env.ctx)
      admin = await createTestUser(env.ctx, 'administrator')
      reader = await createTestUser(env.ctx, 'dg_catalog_reader')
      // a photograph with the camera's metadata, which must not reach the public file
      photo = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#3a7' } })
        .withExif({ IFD0: { Copyright: 'Fotograf', Artist: 'Jan Kowalski' } })
        .jpeg()
        .toBuffer()
      expect((await sharp(photo).metadata()).exif).toBeInstanceOf(Buffer)
      plan = await sharp({ create: { width: 300, height: 200, channels: 4, background: '#fff' } })
        .png()
        .toBuffer()
      const offers = (await call('GET', '/offers?host_status=publish&status=available&per_page=2')).json() as Json[]
      offer = offers[0] as Json
      other = offers[1] as Json
    })

    it('uploads an image by its content, without its metadata, with a preview; serves it with safe headers', async () => {
      const uploaded = await upload(`offers/${offer.id as number}`, 'salon.jpg', photo, 'image/jpeg', {
        title: 'Salon',
        alt: 'Salon z oknem na park',
      })
      expect(uploaded.statusCode, uploaded.body).toBe(201)
      const media = uploaded.json()
      expect(media).toMatchObject({
        kind: 'image',
        title: 'Salon',
        alt: 'Salon z oknem na park',
        mime_type: 'image/jpeg',
        offer_id: offer.id,
        uploaded: true,
      })
      expect(media.url).toMatch(/^https:\/\/oferty\.example\/dg-media\/[0-9a-f]{24}\.jpg$/)
      expect(media.preview_url).toMatch(/^https:\/\/oferty\.example\/dg-media\/[0-9a-f]{24}-preview\.webp$/)

      const file = await served(media.url as string)
      expect(file.statusCode).toBe(200)
      expect(file.headers['content-type']).toBe('image/jpeg')
      expect(file.headers['x-content-type-options']).toBe('nosniff')
      expect(file.headers['content-security-policy']).toContain('sandbox')
      const meta = await sharp(file.rawPayload).metadata()
      expect([meta.format, meta.width, meta.height, meta.exif]).toEqual(['jpeg', 1200, 800, undefined])
      const preview = await sharp((await served(media.preview_url as string)).rawPayload).metadata()
      expect([preview.format, preview.width, preview.height]).toEqual(['webp', 480, 320])
      expect((await env.app.inject({ method: 'GET', url: '/dg-media/..%2F..%2Fdg.sqlite' })).statusCode).toBe(404)
    })

    it('places images in the gallery and as the main image: the catalog shows them, in order', async () => {
      const first = (await upload(`offers/${offer.id as number}`, 'a.png', plan, 'image/png')).json()
      const second = (await upload(`offers/${offer.id as number}`, 'b.jpg', photo, 'image/jpeg')).json()
      const current = (await call('GET', `/offers/${offer.id as number}`)).json()
      const placed = await call(
        'PATCH',
        `/offers/${offer.id as number}`,
        { gallery: [second.id, first.id], thumbnail_id: first.id },
        { 'if-match': current.version },
      )
      expect(placed.statusCode, placed.body).toBe(200)
      expect(placed.json()).toMatchObject({ gallery: [second.id, first.id], thumbnail_id: first.id })

      const detail = (await catalog(`/properties/${offer.id as number}`)).json()
      expect(detail.offer).toMatchObject({ image: first.url, gallery: [second.id, first.id] })
      expect(detail.media.gallery.map((m: Json) => m.url)).toEqual([second.url, first.url])
      expect(detail.media.thumbnail).toMatchObject({ id: first.id, url: first.url })
      const listed = (await call('GET', `/offers/${offer.id as number}/media`)).json() as Json[]
      expect(listed.map((m) => m.id)).toEqual(expect.arrayContaining([first.id, second.id]))

      // an image of another offer is not this offer's to show
      const foreign = (await upload(`offers/${other.id as number}`, 'c.png', plan, 'image/png')).json()
      const refused = await call(
        'PATCH',
        `/offers/${offer.id as number}`,
        { gallery: [foreign.id] },
        { 'if-match': placed.json().version },
      )
      expect(refused.statusCode).toBe(422)
      expect(refused.json().issues).toEqual([expect.objectContaining({ field: 'gallery', code: 'not_own_image' })])

      // in use: refused; out of the gallery: removed with its files
      const inUse = await call('DELETE', `/media/${first.id as number}`)
      expect(inUse.statusCode).toBe(409)
      expect(inUse.json()).toMatchObject({ error: 'media_in_use' })
      const out = await call(
        'PATCH',
        `/offers/${offer.id as number}`,
        { gallery: [second.id], thumbnail_id: second.id },
        { 'if-match': placed.json().version },
      )
      expect(out.statusCode).toBe(200)
      expect((await call('DELETE', `/media/${first.id as number}`)).statusCode).toBe(204)
      expect((await served(first.url as string)).statusCode).toBe(404)
      expect((await call('GET', `/media/${first.id as number}`)).statusCode).toBe(404)
    })

    it('uploads a PDF document of an investment: listed in the catalog, served as a download', async () => {
      const investment = ((await call('GET', '/investments?host_status=publish')).json() as Json[])[0] as Json
      const uploaded = await upload(`investments/${investment.id as number}`, 'prospekt.pdf', PDF, 'application/pdf', {
        title: 'Prospekt informacyjny',
      })
      expect(uploaded.statusCode, uploaded.body).toBe(201)
      const pdf = uploaded.json()
      expect(pdf).toMatchObject({ kind: 'document', mime_type: 'application/pdf', preview_url: null })
      const detail = (await catalog(`/investments/${investment.id as number}`)).json()
      expect(detail.documents).toContainEqual(
        expect.objectContaining({ id: pdf.id, url: pdf.url, title: 'Prospekt informacyjny' }),
      )
      const file = await served(pdf.url as string)
      expect(file.headers['content-type']).toBe('application/pdf')
      expect(file.headers['content-disposition']).toBe(
        `attachment; filename="Prospekt informacyjny.pdf"; filename*=UTF-8''Prospekt%20informacyjny.pdf`,
      )
      expect(file.rawPayload.equals(PDF)).toBe(true)
      const renamed = await call('PATCH', `/media/${pdf.id as number}`, { title: 'Prospekt 2026', position: 0 })
      expect(renamed.statusCode).toBe(200)
      expect(renamed.json().title).toBe('Prospekt 2026')
    })

    it('an empty investment deleted takes its uploads with it', async () => {
      const created = (await call('POST', '/investments', { title: 'Na chwilę' })).json()
      const pdf = (await upload(`investments/${created.id as number}`, 'p.pdf', PDF, 'application/pdf')).json()
      expect((await served(pdf.url as string)).statusCode).toBe(200)
      const deleted = await call('DELETE', `/investments/${created.id as number}`, undefined, {
        'if-match': (await call('GET', `/investments/${created.id as number}`)).json().version,
      })
      expect(deleted.statusCode).toBe(204)
      expect((await served(pdf.url as string)).statusCode).toBe(404)
      expect((await call('GET', `/media/${pdf.id as number}`)).statusCode).toBe(404)
    })

    it('refuses what is not an accepted file by its content, whatever its name and type say; nothing is stored', async () => {
      const before = {
        files: await mediaFiles(),
        media: (await call('GET', `/offers/${offer.id as number}/media`)).json(),
      }
      const html = await upload(
        `offers/${offer.id as number}`,
        'zdjecie.jpg',
        Buffer.from('<html><script>alert(1)</script></html>'),
        'image/jpeg',
      )
      expect(html.statusCode).toBe(415)
      expect(html.json()).toMatchObject({ error: 'unsupported_media_type' })
      expect(html.json().message).toBe(html.json().message_pl)
      const svg = await upload(
        `offers/${offer.id as number}`,
        'plan.svg',
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
        'image/svg+xml',
      )
      expect(svg.statusCode).toBe(415)
      const broken = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)])
      const damaged = await upload(`offers/${offer.id as number}`, 'x.jpg', broken, 'image/jpeg')
      expect(damaged.statusCode).toBe(422)
      expect(damaged.json().error).toBe('invalid_image')
      const large = Buffer.concat([PDF, Buffer.alloc(MAX_BYTES, 32)])
      const tooLarge = await upload(`offers/${offer.id as number}`, 'duzy.pdf', large, 'application/pdf')
      expect(tooLarge.statusCode).toBe(413)
      expect((await upload('offers/999999', 'a.png', plan, 'image/png')).statusCode).toBe(404)
      expect(await mediaFiles()).toEqual(before.files)
      expect((await call('GET', `/offers/${offer.id as number}/media`)).json()).toEqual(before.media)
      const asReader = await env.app.inject({
        method: 'GET',
        url: `${API}/offers/${offer.id as number}/media`,
        headers: { authorization: reader.authorization },
      })
      expect(asReader.statusCode).toBe(403)
    })
  },
  { env: { DG_MEDIA_MAX_BYTES: String(MAX_BYTES), DG_PANEL_URL: 'https://oferty.example' } },
)
