/*
 * A simulated dane.gov.pl harvester: the checks of an XML import, in the portal's order,
 * performed over HTTP against a running server (docs/decisions/preflight.md):
 *   1. file_name      the XML URL's file name has no spaces and ends with `.xml`; standard port only
 *   2. head           HEAD of the XML: 2xx, Content-Type containing text/xml or application/xml
 *   3. md5_file       GET of the same URL with `.md5` instead of `.xml`: 2xx, body = 32 lowercase hex
 *                     digits (optionally one trailing newline)
 *   4. md5_match      the MD5 of the downloaded XML equals that body
 *   5. xsd            the root's namespace names schema 1.13 and the XML validates against the XSD
 *   6. resources      extIdents ≤ 36 and unique, developer flags, every resource URL https
 *   7. csv            every listed CSV downloads (2xx, text/csv, `.csv` extension), and its header
 *                     line is byte for byte the official template's
 * Like the portal, it stops at the first failing step. The public URLs are the production https
 * ones written in the XML; `origins` maps such an origin (e.g. https://ceny.example.pl) to the
 * local http server, because the test cannot present a trusted certificate. A URL whose origin is
 * not mapped fails instead of reaching the network.
 */
import { createHash } from 'node:crypto'

import { validateHarvesterXml } from '../../../src/publication/daily-file/validate-xml.js'

export type HarvestStepName = 'file_name' | 'head' | 'md5_file' | 'md5_match' | 'xsd' | 'resources' | 'csv'

export const HARVEST_STEPS: readonly HarvestStepName[] = [
  'file_name',
  'head',
  'md5_file',
  'md5_match',
  'xsd',
  'resources',
  'csv',
]

export interface HarvestStep {
  name: HarvestStepName
  ok: boolean
  detail: string
}

export interface HarvestedResource {
  extIdent: string
  url: string
  dataDate: string
  contentType: string
  body: Buffer
}

export interface HarvestResult {
  ok: boolean
  steps: HarvestStep[]
  xml?: Buffer
  md5?: string
  resources: HarvestedResource[]
}

export interface HarvesterOptions {
  /** Public origin → local origin, e.g. { 'https://ceny.example.pl': 'http://127.0.0.1:41234' }. */
  origins: Record<string, string>
  /** The first line (header) of the official template, without its line end. */
  templateHeader: Buffer
  /** Makes the requests instead of the global fetch (e.g. one that trusts a test certificate). */
  fetch?: typeof fetch
}

class StepFailed extends Error {}

function unescapeXml(value: string): string {
  return value
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&')
}

function firstElement(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)
  return match ? unescapeXml(match[1] as string) : undefined
}

export class SimulatedHarvester {
  constructor(private readonly options: HarvesterOptions) {}

  /** Maps a public URL to the local server; unmapped origins are refused (no network). */
  localUrl(publicUrl: string): string {
    const url = new URL(publicUrl)
    const local = this.options.origins[url.origin]
    if (!local) throw new StepFailed(`${publicUrl}: origin ${url.origin} is not served by this test`)
    return `${local}${url.pathname}${url.search}`
  }

  /** Fetches through the origin map, following redirects like the portal does. */
  async fetch(publicUrl: string, method: 'GET' | 'HEAD'): Promise<{ status: number; headers: Headers; body: Buffer }> {
    let current = publicUrl
    for (let hop = 0; hop < 5; hop++) {
      const response = await (this.options.fetch ?? fetch)(this.localUrl(current), {
        method,
        redirect: 'manual',
        headers: { 'user-agent': 'Mozilla/5.0 (simulated dane.gov.pl harvester)' },
      })
      const location = response.headers.get('location')
      if (response.status >= 300 && response.status < 400 && location) {
        current = new URL(location, current).toString()
        continue
      }
      return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) }
    }
    throw new StepFailed(`${publicUrl}: too many redirects`)
  }

  async harvest(xmlUrl: string): Promise<HarvestResult> {
    const steps: HarvestStep[] = []
    const result: HarvestResult = { ok: false, steps, resources: [] }
    const step = async (name: HarvestStepName, run: () => Promise<string> | string): Promise<void> => {
      try {
        steps.push({ name, ok: true, detail: await run() })
      } catch (error) {
        steps.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) })
        throw new StepFailed(name)
      }
    }
    const md5Url = /\.xml$/.test(xmlUrl) ? xmlUrl.replace(/\.xml$/, '.md5') : `${xmlUrl}.md5`
    try {
      await step('file_name', () => {
        const url = new URL(xmlUrl)
        const name = decodeURIComponent(url.pathname.split('/').pop() ?? '')
        if (/\s/.test(name) || /\s/.test(xmlUrl)) throw new Error(`"${name}" contains a space`)
        if (!name.endsWith('.xml')) throw new Error(`"${name}" does not end with .xml`)
        if (url.port !== '') throw new Error(`port ${url.port} is not a standard port (80/443)`)
        return name
      })
      await step('head', async () => {
        const head = await this.fetch(xmlUrl, 'HEAD')
        if (head.status < 200 || head.status > 299) throw new Error(`${xmlUrl}: HEAD answered ${head.status}`)
        const type = head.headers.get('content-type') ?? ''
        if (!/text\/xml|application\/xml/.test(type)) throw new Error(`${xmlUrl}: Content-Type "${type}" is not XML`)
        return type
      })
      await step('md5_file', async () => {
        const md5 = await this.fetch(md5Url, 'GET')
        if (md5.status < 200 || md5.status > 299)
          throw new Error(`${md5Url}: niewłaściwy kod odpowiedzi: ${md5.status}`)
        const body = md5.body.toString('utf8')
        if (!/^[0-9a-f]{32}\n?$/.test(body))
          throw new Error(`${md5Url}: "${body.slice(0, 80)}" nie jest poprawnym skrótem MD5!`)
        result.md5 = body.trim()
        return result.md5
      })
      await step('md5_match', async () => {
        const xml = await this.fetch(xmlUrl, 'GET')
        if (xml.status < 200 || xml.status > 299)
          throw new Error(`${xmlUrl}: niewłaściwy kod odpowiedzi: ${xml.status}`)
        result.xml = xml.body
        const actual = createHash('md5').update(xml.body).digest('hex')
        if (actual !== result.md5) throw new Error(`${md5Url}: zdalny skrót MD5 nie jest poprawny! (${actual})`)
        return actual
      })
      const text = (result.xml as Buffer).toString('utf8')
      await step('xsd', async () => {
        const root = /<(?:(\w+):)?datasets\b[^>]*>/.exec(text)
        const prefix = root?.[1]
        const namespace = root
          ? new RegExp(`xmlns${prefix ? `:${prefix}` : ''}="urn:otwarte-dane:harvester:([^"]+)"`).exec(root[0])
          : null
        if (!namespace) throw new Error('Nie znaleziono informacji o wersji użytego schematu XSD')
        if (namespace[1] !== '1.13') throw new Error(`Niepoprawna wersja schematu XSD: ${namespace[1]}`)
        const validation = await validateHarvesterXml(result.xml as Buffer)
        if (!validation.valid) throw new Error(validation.errors.join('\n'))
        return `urn:otwarte-dane:harvester:${namespace[1]}`
      })
      await step('resources', () => {
        const datasetExtIdent = firstElement(text, 'extIdent') ?? ''
        if (datasetExtIdent.length > 36) throw new Error(`dataset extIdent "${datasetExtIdent}" is longer than 36`)
        const seen = new Set<string>()
        for (const block of text.match(/<resource\b[\s\S]*?<\/resource>/g) ?? []) {
          const extIdent = firstElement(block, 'extIdent') ?? ''
          const url = firstElement(block, 'url') ?? ''
          const dataDate = firstElement(block, 'dataDate') ?? ''
          if (extIdent.length === 0 || extIdent.length > 36) throw new Error(`resource extIdent "${extIdent}"`)
          if (seen.has(extIdent)) throw new Error(`resource extIdent "${extIdent}" is not unique`)
          seen.add(extIdent)
          if (!url.startsWith('https://')) throw new Error(`${url}: Required scheme is https://`)
          for (const flag of ['hasHighValueDataFromEuropeanCommissionList', 'containsProtectedData'])
            if (firstElement(block, flag) === 'true')
              throw new Error(`${extIdent}: ${flag}=true refused for developers`)
          result.resources.push({ extIdent, url, dataDate, contentType: '', body: Buffer.alloc(0) })
        }
        if (result.resources.length === 0) throw new Error('no resource listed')
        return `${result.resources.length} resources, all https`
      })
      await step('csv', async () => {
        for (const resource of result.resources) {
          if (!new URL(resource.url).pathname.endsWith('.csv'))
            throw new Error(`${resource.url}: the format is not recognisable from the extension`)
          const csv = await this.fetch(resource.url, 'GET')
          if (csv.status < 200 || csv.status > 299)
            throw new Error(`${resource.url}: niewłaściwy kod odpowiedzi: ${csv.status}`)
          resource.contentType = csv.headers.get('content-type') ?? ''
          if (!resource.contentType.startsWith('text/csv'))
            throw new Error(`${resource.url}: Content-Type "${resource.contentType}" is not text/csv`)
          resource.body = csv.body
          const newline = csv.body.indexOf(0x0a)
          const header = csv.body.subarray(0, newline === -1 ? csv.body.length : newline)
          if (!header.equals(this.options.templateHeader))
            throw new Error(`${resource.url}: the header line differs from the official template`)
        }
        return `${result.resources.length} CSV files downloaded`
      })
      result.ok = true
    } catch (error) {
      if (!(error instanceof StepFailed)) throw error
      // a step that threw outside step() (an unmapped origin) is recorded as the failing step
      if (steps.every((s) => s.ok)) {
        const next = HARVEST_STEPS[steps.length] ?? 'csv'
        steps.push({ name: next, ok: false, detail: error.message })
      }
    }
    return result
  }
}
