/*
 * Is what the harvester will download really what we published? Fetches the public URLs
 * (public_base_url + dataset.xml, dataset.md5 and the latest day's CSV) the way the portal does:
 * HEAD and GET of the XML with its Content-Type, the .md5 body (32 lowercase hex digits) compared
 * with the MD5 of the XML bytes actually served, and the CSV. A proxy, a CDN cache or a stale
 * instance in front of this service shows up here, not in the portal's import report a day later.
 */
import { type Manifest, MD5_NAME } from '../publication-store.js'
import { XML_NAME } from '../publication-store.js'
import { explainNetworkError } from '../../host/http/network-errors.js'
import { HttpProbeError, type HttpProbeResult, probeUrl } from './http-probe.js'
import { issue, type PublicationIssue } from '../publication-issue.js'

export type DeliveryStatus = 'ok' | 'failed' | 'not_published' | 'not_checked'

export interface DeliveryReport {
  status: DeliveryStatus
  checked_at: string | null
  issues: PublicationIssue[]
}

export const DELIVERY_TIMEOUT_MS = 5000

const REASONS_PL: Record<string, string> = {
  timeout: 'przekroczony czas oczekiwania',
  network: 'błąd połączenia',
  invalid_url: 'niepoprawny adres',
  too_many_redirects: 'zbyt wiele przekierowań',
  too_large: 'zbyt duża odpowiedź',
}

function unreachable(url: string, error: HttpProbeError): PublicationIssue {
  const explained = error.reason === 'network' || error.reason === 'timeout' ? explainNetworkError(error.message) : null
  return issue(
    'delivery_unreachable',
    `Adres ${url} nie odpowiada (${explained?.message_pl ?? REASONS_PL[error.reason] ?? error.reason}). Sprawdź, czy serwer i proxy udostępniają pliki pod publicznym adresem plików (Ustawienia, zakładka „Publikacja”).`,
    `${url} does not answer (${explained?.message_en ?? error.reason}). Check that the server and the proxy serve the files under the service’s public address.`,
    {
      url,
      reason: error.reason,
      error: error.message.slice(0, 300),
      ...(explained ? { error_code: explained.code } : {}),
    },
  )
}

function checkAnswer(
  url: string,
  answer: HttpProbeResult,
  expected: { label: string; accepts: (contentType: string) => boolean },
): PublicationIssue[] {
  if (answer.status !== 200)
    return [
      issue(
        'delivery_http_status',
        `${url}: niewłaściwy kod odpowiedzi ${answer.status}; portal oczekuje 200. Sprawdź publiczny adres plików (Ustawienia, zakładka „Publikacja”) i konfigurację proxy.`,
        `${url}: answered ${answer.status}; the portal expects 200. Check public_base_url and the proxy configuration.`,
        { url, status: answer.status },
      ),
    ]
  if (!expected.accepts(answer.contentType.toLowerCase()))
    return [
      issue(
        'delivery_content_type',
        `${url}: nagłówek Content-Type „${answer.contentType}” zamiast ${expected.label}. Popraw konfigurację serwera lub proxy.`,
        `${url}: Content-Type "${answer.contentType}" instead of ${expected.label}. Fix the server or proxy configuration.`,
        { url, content_type: answer.contentType, expected: expected.label },
      ),
    ]
  return []
}

const XML_TYPE = {
  label: 'text/xml lub application/xml',
  accepts: (t: string) => t.includes('text/xml') || t.includes('application/xml'),
}
const MD5_TYPE = { label: 'text/plain', accepts: (t: string) => t.startsWith('text/plain') }
const CSV_TYPE = { label: 'text/csv', accepts: (t: string) => t.startsWith('text/csv') }

type Probe = HttpProbeResult | HttpProbeError

async function attempt(url: string, method: 'GET' | 'HEAD', keepBytes = 0, maxBytes?: number): Promise<Probe> {
  try {
    return await probeUrl(url, {
      method,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      keepBytes,
      ...(maxBytes === undefined ? {} : { maxBytes }),
    })
  } catch (error) {
    if (error instanceof HttpProbeError) return error
    throw error
  }
}

export async function checkDelivery(args: {
  baseUrl: string | null
  manifest: Manifest | undefined
  now: () => Date
  /** A local trial at an http:// address outside production: served files are checked, the scheme is not (the preflight warns). */
  trial?: boolean
}): Promise<DeliveryReport> {
  const { manifest } = args
  if (!manifest) return { status: 'not_published', checked_at: null, issues: [] }
  if (!args.baseUrl) return { status: 'not_checked', checked_at: null, issues: [] }
  const base = args.baseUrl.replace(/\/+$/, '')
  const checkedAt = args.now().toISOString()
  const issues: PublicationIssue[] = []
  if (!base.startsWith('https://') && !args.trial)
    issues.push(
      issue(
        'delivery_not_https',
        'Portal dane.gov.pl pobiera pliki tylko przez https; ustaw public_base_url na adres https://.',
        'The dane.gov.pl portal only downloads over https; set public_base_url to an https:// address.',
        { url: base },
      ),
    )
  const urls = {
    xml: `${base}/${XML_NAME}`,
    md5: `${base}/${MD5_NAME}`,
  }
  /*
   * The latest file, and the latest file at every earlier public address: a resource keeps the URL
   * it was published with, so an old address must keep serving its files after a change.
   */
  const csvChecks = new Map<string, { url: string; md5: string }>()
  for (const day of [...manifest.days].reverse()) {
    const url = day.url ?? `${base}/${day.file_name}`
    const prefix = url.slice(0, url.lastIndexOf('/'))
    if (csvChecks.size === 0 || !csvChecks.has(prefix)) csvChecks.set(prefix, { url, md5: day.md5 })
    if (csvChecks.size >= 5) break
  }
  const [head, xml, md5, ...csvs] = await Promise.all([
    attempt(urls.xml, 'HEAD'),
    attempt(urls.xml, 'GET', 0, 256 * 1024 * 1024),
    attempt(urls.md5, 'GET', 1024, 64 * 1024),
    ...[...csvChecks.values()].map((check) => attempt(check.url, 'GET', 0)),
  ])

  const usable = (url: string, probe: Probe, expected: typeof XML_TYPE): HttpProbeResult | undefined => {
    if (probe instanceof HttpProbeError) {
      issues.push(unreachable(url, probe))
      return undefined
    }
    const problems = checkAnswer(url, probe, expected)
    issues.push(...problems)
    return problems.length === 0 ? probe : undefined
  }

  // the portal checks the XML's Content-Type with HEAD, then the .md5 body, then the MD5 of the
  // downloaded XML; a HEAD problem is reported only when GET works, so one fault is named once
  const servedXml = usable(urls.xml, xml, XML_TYPE)
  if (servedXml) usable(`${urls.xml} (HEAD)`, head, XML_TYPE)
  const servedMd5 = usable(urls.md5, md5, MD5_TYPE)
  if (servedMd5) {
    const text = servedMd5.body.toString('utf8').replace(/\r?\n$/, '')
    if (!/^[0-9a-f]{32}$/.test(text)) {
      issues.push(
        issue(
          'delivery_md5_invalid',
          `${urls.md5}: treść nie jest skrótem MD5 (32 małe znaki szesnastkowe). Opublikuj ponownie.`,
          `${urls.md5}: the body is not an MD5 digest (32 lowercase hex digits). Publish again.`,
          { url: urls.md5, body: text.slice(0, 80) },
        ),
      )
    } else if (servedXml && text !== servedXml.md5) {
      issues.push(
        issue(
          'delivery_md5_mismatch',
          `${urls.md5}: udostępniony skrót MD5 nie zgadza się z pobranym plikiem XML; portal odrzuci import. Opublikuj ponownie i wyczyść pamięć podręczną proxy.`,
          `${urls.md5}: the served MD5 does not match the downloaded XML; the portal would refuse the import. Publish again and clear any proxy cache.`,
          { url: urls.md5, served_md5: text, xml_md5: servedXml.md5 },
        ),
      )
    }
  }
  if (servedXml && servedXml.md5 !== manifest.xml_md5) {
    issues.push(
      issue(
        'delivery_xml_outdated',
        `${urls.xml}: udostępniany jest inny plik XML niż bieżąca wersja publikacji (pamięć podręczna proxy lub inna instancja).`,
        `${urls.xml}: a different XML is served than the current published version (a proxy cache or another instance).`,
        { url: urls.xml, served_md5: servedXml.md5, current_md5: manifest.xml_md5 },
      ),
    )
  }
  ;[...csvChecks.values()].forEach((check, index) => {
    const servedCsv = usable(check.url, csvs[index] as Probe, CSV_TYPE)
    if (servedCsv && servedCsv.md5 !== check.md5)
      issues.push(
        issue(
          'delivery_csv_mismatch',
          `${check.url}: udostępniany plik CSV różni się od opublikowanego.`,
          `${check.url}: the served CSV differs from the published one.`,
          { url: check.url, served_md5: servedCsv.md5, published_md5: check.md5 },
        ),
      )
  })
  return { status: issues.length === 0 ? 'ok' : 'failed', checked_at: checkedAt, issues }
}
