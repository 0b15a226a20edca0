import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { describe, expect, it } from 'vitest'

import {
  buildHarvesterXml,
  dailyResourceExtIdent,
  HARVESTER_NAMESPACE,
  HarvesterXmlError,
  md5Hex,
  officialDatasetTexts,
  officialResourceTexts,
  type HarvesterResourceInput,
  type HarvesterXmlInput,
} from '../../../src/publication/daily-file/harvester-xml.js'
import { OFFICIAL_XSD_URL, validateHarvesterXml } from '../../../src/publication/daily-file/validate-xml.js'

// A copy of the ministry's example, kept in the repository so the test does not depend on ../shared.
const OFFICIAL_EXAMPLE = path.resolve(
  import.meta.dirname,
  '../../fixtures/official/Przykład_3_kolejne_publikacje_v.1.14_12.11.2025.xml',
)

const DATASET_ID = '3f2a9c1e5b7d4e6f8a0b1c2d3e4f5a6b'
const DEVELOPER = 'Przykładowy Deweloper Sp. z o.o.'

function day(date: string): HarvesterResourceInput {
  return {
    extIdent: dailyResourceExtIdent(DATASET_ID, date),
    url: `https://www.example.com/dane/ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-${date}.csv`,
    dataDate: date,
    ...officialResourceTexts(DEVELOPER, date),
  }
}

function feed(dates: string[], extra: Partial<HarvesterXmlInput> = {}): HarvesterXmlInput {
  return {
    extIdent: DATASET_ID,
    ...officialDatasetTexts(DEVELOPER, { first: 2026, last: 2026 }),
    resources: dates.map(day),
    ...extra,
  }
}

const expectError = (attempt: () => unknown, code: string) => {
  expect(attempt).toThrow(HarvesterXmlError)
  expect(attempt).toThrow(expect.objectContaining({ code }))
}

describe('harvester XML', () => {
  it('validates against the official XSD for one published day', async () => {
    const xml = buildHarvesterXml(feed(['2026-03-09']))
    expect(await validateHarvesterXml(xml)).toEqual({ valid: true, errors: [] })
    expect(xml.match(/<resource status="published">/g)).toHaveLength(1)
    expect(xml).toContain('<dataDate>2026-03-09</dataDate>')
  })

  it('validates for three days, listing each day once, oldest first, whatever the input order', async () => {
    const xml = buildHarvesterXml(feed(['2026-03-11', '2026-03-09', '2026-03-10']))
    expect(await validateHarvesterXml(xml)).toEqual({ valid: true, errors: [] })
    expect([...xml.matchAll(/<dataDate>([^<]+)<\/dataDate>/g)].map((match) => match[1])).toEqual([
      '2026-03-09',
      '2026-03-10',
      '2026-03-11',
    ])
    expect(buildHarvesterXml(feed(['2026-03-09', '2026-03-10', '2026-03-11']))).toBe(xml)
  })

  it('follows the official template: ns2 root, unqualified children, daily, ECON, tags, fixed flags', () => {
    const xml = buildHarvesterXml(feed(['2026-03-09']))
    expect(xml.startsWith("<?xml version='1.0' encoding='UTF-8'?>\n")).toBe(true)
    expect(xml).toContain(`<ns2:datasets xmlns:ns2="${HARVESTER_NAMESPACE}"`)
    expect(xml).not.toMatch(/xmlns="/)
    expect(xml).not.toMatch(/<ns2:(?!datasets)/)
    expect(xml).toContain('<updateFrequency>daily</updateFrequency>')
    expect(xml).toContain('<category>ECON</category>')
    expect(xml).toContain('<tag lang="pl">Deweloper</tag>')
    expect(xml).toContain('<availability>local</availability>')
    expect(xml).toContain('<specialSign>X</specialSign>')
    expect(xml).not.toContain('<hasHighValueDataFromEuropeanCommissionList>true')
    expect(xml).not.toContain('<containsProtectedData>true')
    expect(xml.endsWith('</ns2:datasets>\n')).toBe(true)
    expect(xml).not.toContain('\r')
  })

  it('is invalid without <tags>', async () => {
    const xml = buildHarvesterXml(feed(['2026-03-09']))
    const withoutTags = xml.replace(/\t\t<tags>[\s\S]*<\/tags>\n/, '')
    expect(withoutTags).not.toContain('<tags>')
    const result = await validateHarvesterXml(withoutTags)
    expect(result.valid).toBe(false)
    expect(result.errors.join('\n')).toMatch(/tags/)
    expectError(() => buildHarvesterXml(feed(['2026-03-09'], { tags: [] })), 'invalid_tag')
  })

  it('reports an http URL or malformed XML as invalid when checked as text', async () => {
    const xml = buildHarvesterXml(feed(['2026-03-09']))
    expect((await validateHarvesterXml(xml.replace('<url>https://', '<url>http://'))).valid).toBe(false)
    expect((await validateHarvesterXml('<ns2:datasets')).valid).toBe(false)
  })

  it('refuses http and non-URL resource or dataset addresses with a typed error', () => {
    const http = { ...day('2026-03-09'), url: 'http://www.example.com/a.csv' }
    expectError(() => buildHarvesterXml({ ...feed([]), resources: [http] }), 'insecure_url')
    expectError(() => buildHarvesterXml(feed(['2026-03-09'], { url: 'http://www.example.com' })), 'insecure_url')
    const spaced = { ...day('2026-03-09'), url: 'https://www.example.com/a b.csv' }
    expectError(() => buildHarvesterXml({ ...feed([]), resources: [spaced] }), 'invalid_url')
    const error = (() => {
      try {
        buildHarvesterXml({ ...feed(['2026-03-08']), resources: [day('2026-03-08'), http] })
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toMatchObject({ code: 'insecure_url', field: 'resources[1].url' })
  })

  it('checks extIdents (≤ 36 allowed characters, unique) and URLs (unique); a day may have a second resource', () => {
    expectError(() => buildHarvesterXml(feed(['2026-03-09'], { extIdent: 'a'.repeat(37) })), 'invalid_ext_ident')
    expectError(() => buildHarvesterXml(feed(['2026-03-09'], { extIdent: 'zbiór-cen' })), 'invalid_ext_ident')
    expect(buildHarvesterXml(feed(['2026-03-09'], { extIdent: 'a'.repeat(36) }))).toContain('a'.repeat(36))
    expectError(() => buildHarvesterXml(feed([])), 'no_resources')
    // a same-day republication whose bytes differ is a resource of its own (new extIdent and URL)
    const revision = {
      ...day('2026-03-09'),
      extIdent: dailyResourceExtIdent(DATASET_ID, '2026-03-09', 2),
      url: day('2026-03-09').url.replace(/\.csv$/, '-v2.csv'),
    }
    expect(revision.extIdent).toHaveLength(36)
    expect(revision.extIdent).not.toBe(day('2026-03-09').extIdent)
    const twice = buildHarvesterXml({ ...feed([]), resources: [day('2026-03-09'), revision] })
    expect(twice.match(/<dataDate>2026-03-09<\/dataDate>/g)).toHaveLength(2)
    expectError(
      () =>
        buildHarvesterXml({ ...feed([]), resources: [day('2026-03-09'), { ...revision, url: day('2026-03-09').url }] }),
      'duplicate_url',
    )
    expectError(
      () =>
        buildHarvesterXml({
          ...feed([]),
          resources: [day('2026-03-09'), { ...day('2026-03-10'), extIdent: day('2026-03-09').extIdent }],
        }),
      'duplicate_ext_ident',
    )
    expectError(
      () =>
        buildHarvesterXml({
          ...feed([]),
          resources: [day('2026-03-09'), { ...day('2026-03-10'), url: day('2026-03-09').url }],
        }),
      'duplicate_url',
    )
    expectError(
      () => buildHarvesterXml({ ...feed([]), resources: [{ ...day('2026-03-09'), dataDate: '2026-02-29' }] }),
      'invalid_date',
    )
    expect(dailyResourceExtIdent(DATASET_ID, '2026-03-09')).toBe('3f2a9c1e5b7d4e6f8a0b1c2d3e4_20260309')
    expect(dailyResourceExtIdent(DATASET_ID, '2026-03-09')).toHaveLength(36)
  })

  it('escapes text and refuses characters XML cannot hold', async () => {
    const name = 'Kowalski & Syn <Dom> "Nowy"'
    const xml = buildHarvesterXml({
      ...feed(['2026-03-09']),
      ...officialDatasetTexts(name, { first: 2026, last: 2026 }),
    })
    expect(xml).toContain('Kowalski &amp; Syn &lt;Dom&gt; "Nowy"')
    expect((await validateHarvesterXml(xml)).valid).toBe(true)
    expectError(() => buildHarvesterXml({ ...feed(['2026-03-09']), titlePl: 'a\u0001b' }), 'invalid_text')
    expectError(() => buildHarvesterXml({ ...feed(['2026-03-09']), titlePl: 'x'.repeat(301) }), 'invalid_text')
    expectError(() => buildHarvesterXml({ ...feed(['2026-03-09']), descriptionEn: '  ' }), 'invalid_text')
  })

  it('stays valid with 1000 published days', async () => {
    const dates = Array.from({ length: 1000 }, (_, i) => new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10))
    const xml = buildHarvesterXml(feed(dates))
    expect(xml.match(/<resource /g)).toHaveLength(1000)
    expect(await validateHarvesterXml(xml)).toEqual({ valid: true, errors: [] })
  })

  it('accepts the official example as valid, so the validator and the bundled XSD agree with the ministry', async () => {
    expect(await validateHarvesterXml(readFileSync(OFFICIAL_EXAMPLE))).toEqual({ valid: true, errors: [] })
  })

  it('finds the bundled XSD from src/publication/daily-file and from dist/publication/daily-file', () => {
    const fromSrc = fileURLToPath(OFFICIAL_XSD_URL)
    const fromDist = fileURLToPath(
      new URL(
        '../../../resources/official/otwarte_dane_latest.xsd',
        pathToFileURL(path.resolve(import.meta.dirname, '../../../dist/publication/daily-file/validate-xml.js')),
      ),
    )
    expect(fromDist).toBe(fromSrc)
    expect(existsSync(fromSrc)).toBe(true)
    expect(readFileSync(fromSrc, 'utf8')).toContain(`targetNamespace="${HARVESTER_NAMESPACE}"`)
  })
})

describe('md5Hex', () => {
  it('is the lowercase hex MD5 of the exact bytes', () => {
    expect(md5Hex('')).toBe('d41d8cd98f00b204e9800998ecf8427e')
    expect(md5Hex(Buffer.from('abc'))).toBe('900150983cd24fb0d6963f7d28e17f72')
    expect(md5Hex('The quick brown fox jumps over the lazy dog')).toBe('9e107d9d372bb6826bd81d3542a419d6')
    const xml = buildHarvesterXml(feed(['2026-03-09']))
    expect(md5Hex(xml)).toBe(md5Hex(Buffer.from(xml, 'utf8')))
    expect(md5Hex(xml)).toMatch(/^[0-9a-f]{32}$/)
    expect(md5Hex(xml + '\n')).not.toBe(md5Hex(xml))
  })
})
