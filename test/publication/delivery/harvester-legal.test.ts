/*
 * Several days of a developer's publication as the dane.gov.pl harvester meets them, with a
 * portal that keeps every resource it imported by extIdent and, like the real one, downloads a
 * resource's file when the extIdent is new (a known resource keeps the bytes it was imported
 * with). Shown over HTTP: a past day's file never changes across a price change; a same-day change
 * reaches the portal as a resource of its own; a new public address leaves every earlier resource
 * at the URL it was published with, still served.
 */
import type { AddressInfo } from 'node:net'
import fs from 'node:fs'

import { beforeAll, expect, it } from 'vitest'

import { updatePublicationSettings } from '../../../src/publication/settings/publication-settings.js'
import { createTestUser, grantProLicense, type TestUser } from '../../helpers/factories.js'
import { seedFixedCatalog } from '../../helpers/fixed-catalog.js'
import { type HarvestResult, SimulatedHarvester } from '../../helpers/portal/harvester-simulator.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

const TEMPLATE = fs.readFileSync(
  new URL('../../fixtures/official/Wcorcowy_zakres_danych_dotyczących_cen_mieszkań.csv', import.meta.url),
)
const TEMPLATE_HEADER = TEMPLATE.subarray(0, TEMPLATE.indexOf(0x0a))
const FIRST_ORIGIN = 'https://ceny.example.pl'
const SECOND_ORIGIN = 'https://oferty.example.pl'

/** What the portal holds: resource extIdent → the date, URL and bytes it imported. */
type Portal = Map<string, { dataDate: string; url: string; body: Buffer }>

function importInto(portal: Portal, result: HarvestResult): string[] {
  expect(result.steps.filter((s) => !s.ok)).toEqual([])
  const added: string[] = []
  for (const resource of result.resources) {
    if (portal.has(resource.extIdent)) continue
    portal.set(resource.extIdent, { dataDate: resource.dataDate, url: resource.url, body: resource.body })
    added.push(resource.extIdent)
  }
  return added
}

describeEachDatabase(
  'several days through the simulated harvester: frozen days, same-day changes, a new address',
  (getEnv) => {
    let env: TestEnv
    let admin: TestUser
    let harvester: SimulatedHarvester
    let ids: Map<string, number>
    let origin: string
    const portal: Portal = new Map()

    const publishOn = (when: string, date = when.slice(0, 10)) => {
      env.clock.set(when)
      return fetch(`${origin}/wp-json/dg/v2/publications`, {
        method: 'POST',
        headers: { authorization: admin.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ date }),
      })
    }
    const setStoragePrice = (cents: number, from: string) =>
      env.ctx.db
        .updateTable('offers')
        .set({ price_total_cents: cents, price_total_from: from })
        .where('id', '=', ids.get('KL-07') as number)
        .execute()

    beforeAll(async () => {
      env = getEnv()
      env.clock.set('2026-11-20T00:30:00Z')
      ids = await seedFixedCatalog(env.ctx)
      await grantProLicense(env.ctx)
      admin = await createTestUser(env.ctx, 'administrator')
      await updatePublicationSettings(env.ctx, { public_base_url: `${FIRST_ORIGIN}/dane-gov` }, { type: 'cli' })
      await env.app.listen({ port: 0, host: '127.0.0.1' })
      origin = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`
      harvester = new SimulatedHarvester({
        origins: { [FIRST_ORIGIN]: origin, [SECOND_ORIGIN]: origin },
        templateHeader: TEMPLATE_HEADER,
      })
    })

    it('keeps a past day byte for byte across a price change, and brings a same-day change to the portal', async () => {
      expect((await publishOn('2026-11-20T00:30:00Z')).status).toBe(200)
      expect(importInto(portal, await harvester.harvest(`${FIRST_ORIGIN}/dane-gov/dataset.xml`))).toHaveLength(1)
      expect((await publishOn('2026-11-21T00:30:00Z')).status).toBe(200)
      const second = await harvester.harvest(`${FIRST_ORIGIN}/dane-gov/dataset.xml`)
      expect(importInto(portal, second)).toHaveLength(1)
      const md5Before = second.md5

      // a price changes in the afternoon of the 21st and is published again that day
      await setStoragePrice(910_000, '2026-11-21')
      expect((await publishOn('2026-11-21T13:00:00Z')).status).toBe(200)
      const third = await harvester.harvest(`${FIRST_ORIGIN}/dane-gov/dataset.xml`)
      expect(third.md5).not.toBe(md5Before)
      const added = importInto(portal, third)
      expect(added).toHaveLength(1)
      const change = portal.get(added[0] as string)
      expect(change?.dataDate).toBe('2026-11-21')
      expect(change?.body.toString('utf8')).toContain(';9100.00;2026-11-21;')

      // the portal's copies of every day equal what is still served, and the 20th can never be made again
      for (const resource of third.resources)
        expect(resource.body.equals(portal.get(resource.extIdent)?.body as Buffer)).toBe(true)
      const again = await publishOn('2026-11-21T15:00:00Z', '2026-11-20')
      expect(again.status).toBe(422)
      expect(((await again.json()) as { error: string }).error).toBe('publication_day_closed')
      const fourth = await harvester.harvest(`${FIRST_ORIGIN}/dane-gov/dataset.xml`)
      expect(fourth.md5).toBe(third.md5)
    })

    it('serves every earlier resource at the URL it was published with after the public address changes', async () => {
      env.clock.set('2026-11-22T00:10:00Z')
      const unconfirmed = await fetch(`${origin}/wp-json/dg/v2/publication/settings`, {
        method: 'PUT',
        headers: { authorization: admin.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ public_base_url: `${SECOND_ORIGIN}/dane-gov` }),
      })
      expect(unconfirmed.status).toBe(409)
      const confirmed = await fetch(`${origin}/wp-json/dg/v2/publication/settings`, {
        method: 'PUT',
        headers: { authorization: admin.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ public_base_url: `${SECOND_ORIGIN}/dane-gov`, confirm_url_change: true }),
      })
      expect(confirmed.status).toBe(200)
      expect((await publishOn('2026-11-22T00:30:00Z')).status).toBe(200)

      const result = await harvester.harvest(`${SECOND_ORIGIN}/dane-gov/dataset.xml`)
      const added = importInto(portal, result)
      expect(added).toHaveLength(1)
      expect(portal.get(added[0] as string)?.url.startsWith(`${SECOND_ORIGIN}/dane-gov/`)).toBe(true)
      // the resources the portal already knows keep their URLs and bytes
      for (const resource of result.resources) {
        const known = portal.get(resource.extIdent)
        expect(resource.url).toBe(known?.url)
        expect(resource.body.equals(known?.body as Buffer)).toBe(true)
      }
      expect(result.resources.filter((r) => r.url.startsWith(FIRST_ORIGIN))).toHaveLength(3)
    })
  },
)
