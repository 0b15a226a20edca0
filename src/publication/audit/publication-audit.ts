/*
 * The audit of everything published: for every developer entity's dataset, the files as they are
 * served are read again from the data directory and checked as the harvester and a lawyer would —
 * the XML against the XSD and its .md5, every listed resource present with the checksum recorded
 * when it was published and the URL, day and texts (titles, descriptions) it was first published
 * with, no resource published for the portal dropped from the XML since, and each day file against
 * the same invariants every file passes before it is written (the day file invariants module) plus
 * the byte rules. Every problem names its dataset, day, file and unit.
 * Read only: it never changes a file or a record.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import type { HostContext } from '../../host/context.js'
import { checkCsvBytes } from '../daily-file/csv-byte-check.js'
import { type Dataset, datasetBase, datasetOf, datasetStore, listDatasets } from '../daily-file/datasets.js'
import { md5Hex } from '../daily-file/harvester-xml.js'
import { validateHarvesterXml } from '../daily-file/validate-xml.js'
import { checkOfficialFile } from '../invariants/official-file-invariants.js'
import { issue, type PublicationIssue } from '../publication-issue.js'
import { type Manifest, type ManifestDay, MD5_NAME, type PublicationStore, XML_NAME } from '../publication-store.js'
import { isTrialAddress } from '../publishing/public-address.js'
import { getPublicationSettings } from '../settings/publication-settings.js'
import { publishedRecords } from './audit-repository.js'

export type AuditSeverity = 'error' | 'gap'

/** One finding: a rule a published file breaks (error) or a unit it shows incompletely (gap). */
export interface AuditProblem extends PublicationIssue {
  severity: AuditSeverity
  developer_id: number
  /** The day of the file (its dataDate); null for the dataset's XML as a whole. */
  day: string | null
  file: string | null
  /** The unit (column 37, or a part's designation) the problem is about, when one is. */
  unit: string | null
  /** 1-based line of the day file, when known. */
  line: number | null
}

export interface DatasetAudit {
  developer_id: number
  developer_name: string
  public_dataset_id: string
  xml_url: string | null
  /** Resources the served XML lists. */
  resources: number
  /** Day files read and checked. */
  files_checked: number
  errors: number
  gaps: number
  problems: AuditProblem[]
}

export interface AuditReport {
  checked_at: string
  /** Only the files of this day were checked (the nightly run); null: everything. */
  day: string | null
  /** No error in any dataset (gaps are reported, as in the publication's warnings). */
  valid: boolean
  errors: number
  gaps: number
  datasets: DatasetAudit[]
}

export interface AuditOptions {
  /** Check only the files of this day (and the XML listing them). */
  day?: string | undefined
  /** Only this developer entity's dataset. */
  developerId?: number | undefined
  /**
   * The nightly run: every file is still read and compared with its recorded checksum, and every
   * resource with what it was first published with, but the rules a file passed before it was
   * written — the day-file rules (byte rules, invariants) and the XML's XSD — are applied only to
   * this day's files and to files whose bytes are no longer the recorded ones. A file with its
   * recorded checksum has the bytes that passed those rules when it was published; applying them
   * again finds only a rule newer than the file, which the audit on demand (no option) shows.
   */
  rulesOnlyForDay?: string | undefined
}

/** A resource's texts, which never change once it is published. */
interface ResourceTexts {
  title_pl: string
  title_en: string
  description_pl: string
  description_en: string
}

interface ListedResource {
  extIdent: string
  url: string
  dataDate: string
  texts: ResourceTexts
}

/** The resources of a harvester XML as listed (the XSD was checked separately). */
export function listedResources(xml: string): ListedResource[] {
  const out: ListedResource[] = []
  for (const match of xml.matchAll(/<resource\b[^>]*>([\s\S]*?)<\/resource>/g)) {
    const body = match[1] ?? ''
    const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(body)?.[1] ?? ''
    const both = (name: string) => {
      const found = new RegExp(
        `<${name}>\\s*<polish>([^<]*)</polish>\\s*<english>([^<]*)</english>\\s*</${name}>`,
      ).exec(body)
      return { pl: unescapeXml(found?.[1] ?? ''), en: unescapeXml(found?.[2] ?? '') }
    }
    const title = both('title')
    const description = both('description')
    out.push({
      extIdent: field('extIdent'),
      url: unescapeXml(field('url')),
      dataDate: field('dataDate'),
      texts: { title_pl: title.pl, title_en: title.en, description_pl: description.pl, description_en: description.en },
    })
  }
  return out
}

function unescapeXml(text: string): string {
  return text.replace(/&(amp|lt|gt|#13);/g, (_m, name: string) =>
    name === 'amp' ? '&' : name === 'lt' ? '<' : name === 'gt' ? '>' : '\r',
  )
}

const resourceKey = (day: ManifestDay): string => day.ext_ident ?? day.file_name

function recordedTexts(day: ManifestDay): ResourceTexts | undefined {
  if (
    day.title_pl === undefined ||
    day.title_en === undefined ||
    day.description_pl === undefined ||
    day.description_en === undefined
  )
    return undefined
  return {
    title_pl: day.title_pl,
    title_en: day.title_en,
    description_pl: day.description_pl,
    description_en: day.description_en,
  }
}

interface PublishedHistory {
  /** The texts each resource was first recorded with (the earliest manifest that has them), by key. */
  firstTexts: Map<string, ResourceTexts & { version: string }>
  /** Resources an earlier version listed for the portal that the current one does not. */
  dropped: { day: ManifestDay; version: string }[]
  /** The checksum recorded with the publication of each file, by file name. */
  checksums: Map<string, string>
}

/** How much of a manifest's end is read for the resource its publication added. */
const ADDED_ENTRY_TAIL = 32 * 1024

async function readManifest(store: PublicationStore, version: string): Promise<Manifest | undefined> {
  try {
    return JSON.parse(await fs.readFile(path.join(store.versionDir(version), 'manifest.json'), 'utf8')) as Manifest
  } catch {
    // a version folder of a failed publication has no manifest: it was never served
    return undefined
  }
}

/** A manifest's entry for a file, parsed alone, when the text holds it whole. */
function manifestEntry(text: string, fileName: string): ManifestDay | undefined {
  const at = text.lastIndexOf(`"file_name": ${JSON.stringify(fileName)}`)
  if (at < 0) return undefined
  const start = text.lastIndexOf('{', at)
  const end = text.indexOf('}', at)
  if (start < 0 || end < 0) return undefined
  try {
    const day = JSON.parse(text.slice(start, end + 1)) as ManifestDay
    return day.file_name === fileName && typeof day.date === 'string' ? day : undefined
  } catch {
    // a brace inside a text: the caller reads the whole manifest
    return undefined
  }
}

/**
 * The resource a publication added, read from the end of its version's manifest: days are listed
 * by date, so the day a nightly run adds is the last one; an older day (a report import) or a text
 * with a brace in it makes the whole manifest be read.
 */
async function addedResource(
  store: PublicationStore,
  version: string,
  fileName: string,
): Promise<ManifestDay | undefined> {
  const file = path.join(store.versionDir(version), 'manifest.json')
  let tail: string
  try {
    const handle = await fs.open(file, 'r')
    try {
      const { size } = await handle.stat()
      const length = Math.min(size, ADDED_ENTRY_TAIL)
      const buffer = Buffer.alloc(length)
      const { bytesRead } = await handle.read(buffer, 0, length, size - length)
      tail = buffer.subarray(0, bytesRead).toString('utf8')
    } finally {
      await handle.close()
    }
  } catch {
    return undefined
  }
  return (
    manifestEntry(tail, fileName) ?? (await readManifest(store, version))?.days.find((d) => d.file_name === fileName)
  )
}

/**
 * What every version up to the current one listed, oldest first, without reading every manifest
 * whole (a year of daily versions holds hundreds of megabytes of manifests, each listing every
 * earlier day again): a version with a publication record is read only for the resource that
 * publication added, the one place its first texts are recorded; a version without one (written
 * before publications recorded their file) is read whole. A resource of a manifest written before
 * texts were recorded gets them from the first manifest that has them.
 */
async function publishedHistory(
  ctx: HostContext,
  dataset: Dataset,
  store: PublicationStore,
  current: Manifest,
): Promise<PublishedHistory> {
  const records = await publishedRecords(ctx.db, dataset.primary ? null : dataset.developer.id)
  const history: PublishedHistory = { firstTexts: new Map(), dropped: [], checksums: new Map() }
  const added = new Map<string, string[]>()
  const published = new Set<string>()
  for (const record of records) {
    if (record.file_name && record.csv_md5 && !history.checksums.has(record.file_name))
      history.checksums.set(record.file_name, record.csv_md5)
    if (!record.version || record.version > current.version || !record.file_name) continue
    if (published.has(record.file_name)) {
      if (!added.has(record.version)) added.set(record.version, [])
      continue
    }
    published.add(record.file_name)
    added.set(record.version, [...(added.get(record.version) ?? []), record.file_name])
  }
  let versions: string[] = []
  try {
    versions = (await fs.readdir(path.join(store.root, 'versions'))).filter((v) => v <= current.version).sort()
  } catch {
    // no versions folder: only the current manifest is known
  }
  const listedNow = new Set(current.days.map(resourceKey))
  const seen = new Set<string>()
  const take = (day: ManifestDay, version: string) => {
    const key = resourceKey(day)
    if (!history.firstTexts.has(key)) {
      const texts = recordedTexts(day)
      if (texts) history.firstTexts.set(key, { ...texts, version })
    }
    if (!listedNow.has(key) && !seen.has(key) && !day.url?.startsWith('http://')) history.dropped.push({ day, version })
    seen.add(key)
  }
  for (const version of versions) {
    const files = added.get(version)
    if (files) {
      for (const fileName of files) {
        const day = await addedResource(store, version, fileName)
        if (day) take(day, version)
      }
    } else for (const day of (await readManifest(store, version))?.days ?? []) take(day, version)
  }
  // resources first listed without texts: the earliest manifest that recorded them (after an upgrade)
  const untexted = new Set(
    current.days.filter((d) => recordedTexts(d) && !history.firstTexts.has(resourceKey(d))).map(resourceKey),
  )
  for (const version of versions) {
    if (untexted.size === 0) break
    for (const day of (await readManifest(store, version))?.days ?? []) {
      const texts = recordedTexts(day)
      if (!texts || !untexted.has(resourceKey(day))) continue
      history.firstTexts.set(resourceKey(day), { ...texts, version })
      untexted.delete(resourceKey(day))
    }
  }
  // a store whose earlier versions are gone still has the texts the current manifest recorded
  for (const day of current.days) take(day, current.version)
  return history
}

const TEXT_NAMES: Record<keyof ResourceTexts, { pl: string; en: string }> = {
  title_pl: { pl: 'tytuł polski', en: 'Polish title' },
  title_en: { pl: 'tytuł angielski', en: 'English title' },
  description_pl: { pl: 'opis polski', en: 'Polish description' },
  description_en: { pl: 'opis angielski', en: 'English description' },
}

class DatasetFindings {
  readonly problems: AuditProblem[] = []

  constructor(private readonly developerId: number) {}

  add(
    found: PublicationIssue,
    where: { day?: string | null; file?: string | null; unit?: string | null; line?: number | null },
    severity: AuditSeverity = 'error',
  ): void {
    this.problems.push({
      ...found,
      severity,
      developer_id: this.developerId,
      day: where.day ?? null,
      file: where.file ?? null,
      unit: where.unit ?? null,
      line: where.line ?? null,
    })
  }
}

async function readIfPresent(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file)
  } catch {
    return undefined
  }
}

/** The byte rules and the day-file invariants on a day file's bytes, each finding with its unit and line. */
function checkDayFileRules(findings: DatasetFindings, content: Buffer, where: { day: string; file: string }): void {
  for (const found of checkCsvBytes(content)) findings.add(found, where)
  const report = checkOfficialFile(content, where.day)
  for (const violation of report.violations) {
    const details = violation.details ?? {}
    findings.add(violation, {
      ...where,
      unit: typeof details.unit === 'string' ? details.unit : null,
      line: typeof details.line === 'number' ? details.line : null,
    })
  }
  for (const gap of report.gaps) {
    const units = (gap.details?.units as { code: string; line: number }[] | undefined) ?? []
    for (const unit of units.length > 0 ? units : [undefined])
      findings.add(gap, { ...where, unit: unit?.code ?? null, line: unit?.line ?? null }, 'gap')
  }
}

/** A title or description of a published resource that is not the one it was first published with. */
function textChanged(
  day: ManifestDay,
  name: keyof ResourceTexts,
  inXml: boolean,
  now: string,
  first: ResourceTexts & { version: string },
): PublicationIssue {
  const code = name.startsWith('title') ? 'audit_resource_title_changed' : 'audit_resource_description_changed'
  const what = TEXT_NAMES[name]
  return issue(
    code,
    inXml
      ? `Plik XML podaje przy pliku ${day.file_name} z dnia ${day.date} inny ${what.pl} („${now}”) niż przy jego publikacji („${first[name]}”, wersja ${first.version}); opublikowany zasób nie może się zmieniać. Opublikuj dzisiejszy plik ponownie; jeśli błąd zostaje, odtwórz katalog publikacji z kopii zapasowej.`
      : `Zapis zbioru (manifest) podaje przy pliku ${day.file_name} z dnia ${day.date} inny ${what.pl} („${now}”) niż przy jego publikacji („${first[name]}”, wersja ${first.version}); następna publikacja zmieniłaby opublikowany zasób. Odtwórz katalog publikacji z kopii zapasowej.`,
    inXml
      ? `The XML gives the file ${day.file_name} of ${day.date} another ${what.en} ("${now}") than it was published with ("${first[name]}", version ${first.version}); a published resource never changes. Publish today's file again; if the error stays, restore the publication folder from the backup.`
      : `The dataset's record (manifest) gives the file ${day.file_name} of ${day.date} another ${what.en} ("${now}") than it was published with ("${first[name]}", version ${first.version}); the next publication would change a published resource. Restore the publication folder from the backup.`,
    { field: name, listed: now, published: first[name], published_in: first.version, in: inXml ? 'xml' : 'manifest' },
  )
}

async function auditDataset(
  ctx: HostContext,
  dataset: Dataset,
  base: string | null,
  trial: boolean,
  options: AuditOptions,
): Promise<DatasetAudit> {
  const store = datasetStore(ctx, dataset)
  const findings = new DatasetFindings(dataset.developer.id)
  const manifest = await store.currentManifest().catch(() => undefined)
  const audit: DatasetAudit = {
    developer_id: dataset.developer.id,
    developer_name: dataset.developer.name,
    public_dataset_id: dataset.extIdent,
    xml_url: base === null ? null : `${base}/${XML_NAME}`,
    resources: 0,
    files_checked: 0,
    errors: 0,
    gaps: 0,
    problems: findings.problems,
  }
  if (!manifest) return audit
  const dir = store.versionDir(manifest.version)

  // the XML and its .md5, as served
  const xml = await readIfPresent(path.join(dir, XML_NAME))
  const md5 = (await readIfPresent(path.join(dir, MD5_NAME)))?.toString('utf8').trim()
  let listed: ListedResource[] = []
  if (!xml) {
    findings.add(
      issue(
        'audit_xml_missing',
        `Brak udostępnianego pliku XML zbioru ${dataset.developer.name} (wersja ${manifest.version}); harvester dane.gov.pl (mechanizm pobierania danych) nie pobierze żadnego zasobu. Opublikuj dzisiejszy plik ponownie.`,
        `The served XML of the dataset of ${dataset.developer.name} (version ${manifest.version}) is missing; the harvester fetches no resource. Publish today's file again.`,
        { version: manifest.version },
      ),
      {},
    )
  } else {
    const xmlMd5 = md5Hex(xml)
    if (md5 !== xmlMd5 || manifest.xml_md5 !== xmlMd5)
      findings.add(
        issue(
          'audit_md5_mismatch',
          `Plik ${MD5_NAME} zbioru ${dataset.developer.name} nie zgadza się z plikiem XML (XML ${xmlMd5}, .md5 ${md5 ?? 'brak'}, zapisano ${manifest.xml_md5}); portal odrzuci import. Opublikuj dzisiejszy plik ponownie.`,
          `The ${MD5_NAME} of the dataset of ${dataset.developer.name} does not match its XML (XML ${xmlMd5}, .md5 ${md5 ?? 'missing'}, recorded ${manifest.xml_md5}); the portal refuses the import. Publish today's file again.`,
          { xml_md5: xmlMd5, md5_file: md5 ?? null, recorded: manifest.xml_md5 },
        ),
        {},
      )
    const text = xml.toString('utf8')
    // the XML with its recorded checksum passed the XSD when it was published (see rulesOnlyForDay)
    const check =
      options.rulesOnlyForDay !== undefined && xmlMd5 === manifest.xml_md5
        ? { valid: true, errors: [] }
        : await validateHarvesterXml(
            trial ? Buffer.from(text.replaceAll('<url>http://', '<url>https://'), 'utf8') : xml,
          )
    if (!check.valid)
      findings.add(
        issue(
          'audit_xml_xsd_invalid',
          `Plik XML zbioru ${dataset.developer.name} nie jest zgodny ze schematem XSD 1.13 portalu.`,
          `The XML of the dataset of ${dataset.developer.name} does not validate against the portal's XSD 1.13.`,
          { errors: check.errors.slice(0, 10) },
        ),
        {},
      )
    listed = listedResources(text)
  }
  audit.resources = listed.length

  const history = await publishedHistory(ctx, dataset, store, manifest)

  // the manifest and the XML list the same resources, with the texts they were first published with
  const byExtIdent = new Map(listed.map((r) => [r.extIdent, r]))
  for (const day of manifest.days) {
    const resource = day.ext_ident
      ? byExtIdent.get(day.ext_ident)
      : listed.find((r) => r.url.endsWith(`/${day.file_name}`))
    if (xml && !resource)
      findings.add(
        issue(
          'audit_resource_not_listed',
          `Plik ${day.file_name} z dnia ${day.date} jest opublikowany, ale plik XML go nie wymienia.`,
          `The file ${day.file_name} of ${day.date} is published but the XML does not list it.`,
        ),
        { day: day.date, file: day.file_name },
      )
    else if (resource && (resource.dataDate !== day.date || (day.url !== undefined && resource.url !== day.url)))
      findings.add(
        issue(
          'audit_resource_changed',
          `Zasób ${resource.extIdent} w pliku XML ma inny adres lub dzień (${resource.url}, ${resource.dataDate}) niż przy publikacji (${day.url ?? day.file_name}, ${day.date}); opublikowany zasób nie może się zmieniać.`,
          `Resource ${resource.extIdent} in the XML has another URL or day (${resource.url}, ${resource.dataDate}) than when published (${day.url ?? day.file_name}, ${day.date}); a published resource never changes.`,
        ),
        { day: day.date, file: day.file_name },
      )
    const first = history.firstTexts.get(resourceKey(day))
    if (first) {
      const served: [string, Partial<ResourceTexts>][] = [
        ['xml', resource?.texts ?? {}],
        ['manifest', day],
      ]
      for (const [where, texts] of served)
        for (const name of Object.keys(TEXT_NAMES) as (keyof ResourceTexts)[]) {
          const now = texts[name]
          if (now === undefined || now === first[name]) continue
          findings.add(textChanged(day, name, where === 'xml', now, first), { day: day.date, file: day.file_name })
          break
        }
    }
    if (!trial && day.url?.startsWith('http://'))
      findings.add(
        issue(
          'audit_trial_resource_listed',
          `Zbiór wymienia plik z próby lokalnej (${day.url}); portal pobiera tylko https. Opublikuj dzisiejszy plik ponownie: pliki próby zostaną pominięte.`,
          `The dataset lists a file of a local trial (${day.url}); the portal fetches https only. Publish today's file again: trial files are left out.`,
        ),
        { day: day.date, file: day.file_name },
      )
  }
  const known = new Set(manifest.days.map((d) => d.ext_ident).filter(Boolean))
  for (const resource of listed)
    if (!known.has(resource.extIdent) && !manifest.days.some((d) => resource.url.endsWith(`/${d.file_name}`)))
      findings.add(
        issue(
          'audit_resource_unknown',
          `Plik XML wymienia zasób ${resource.extIdent} (${resource.url}), którego nie ma wśród opublikowanych plików; harvester dane.gov.pl nie pobierze go.`,
          `The XML lists resource ${resource.extIdent} (${resource.url}) that is none of the published files; the harvester cannot fetch it.`,
        ),
        { day: resource.dataDate },
      )

  // a resource published for the portal never leaves the XML (the portal would delete it)
  if (options.day === undefined)
    for (const { day, version } of history.dropped)
      findings.add(
        issue(
          'audit_resource_removed',
          `Plik ${day.file_name} z dnia ${day.date} był opublikowany (wersja ${version}), a nie ma go już w pliku XML: portal usuwa zasoby, które znikają z pliku.`,
          `The file ${day.file_name} of ${day.date} was published (version ${version}) and is no longer in the XML: the portal deletes resources that disappear from the file.`,
        ),
        { day: day.date, file: day.file_name },
      )

  // every day file, as served; a stored file shared by several days is read and hashed once
  const digests = new Map<string, { md5: string; bytes: number } | null>()
  for (const day of manifest.days) {
    if (options.day !== undefined && day.date !== options.day) continue
    const where = { day: day.date, file: day.file_name }
    const file = store.csvPath(day.md5)
    let content: Buffer | undefined
    let actual = digests.get(day.md5)
    if (actual === undefined) {
      content = await readIfPresent(file)
      actual = content ? { md5: md5Hex(content), bytes: content.length } : null
      digests.set(day.md5, actual)
    }
    if (!actual) {
      findings.add(
        issue(
          'audit_file_missing',
          `Brak pliku ${day.file_name} z dnia ${day.date} (${day.md5}.csv w katalogu danych); harvester dane.gov.pl dostaje pod jego adresem błąd 404 (dg_published_file_missing). Odtwórz katalog publikacji z kopii zapasowej.`,
          `The file ${day.file_name} of ${day.date} (${day.md5}.csv in the data directory) is missing; the harvester gets 404 (dg_published_file_missing) at its address. Restore the publication folder from the backup.`,
        ),
        where,
      )
      continue
    }
    audit.files_checked += 1
    const changed = actual.md5 !== day.md5 || actual.bytes !== day.bytes
    if (changed)
      findings.add(
        issue(
          'audit_file_checksum_mismatch',
          `Plik ${day.file_name} z dnia ${day.date} zmienił się od publikacji (MD5 ${actual.md5}, zapisano ${day.md5}); opublikowany plik nigdy się nie zmienia. Odtwórz go z kopii zapasowej.`,
          `The file ${day.file_name} of ${day.date} changed since it was published (MD5 ${actual.md5}, recorded ${day.md5}); a published file never changes. Restore it from the backup.`,
          { md5: actual.md5, recorded: day.md5 },
        ),
        where,
      )
    const inRecord = history.checksums.get(day.file_name)
    if (inRecord !== undefined && inRecord !== day.md5)
      findings.add(
        issue(
          'audit_publication_record_mismatch',
          `Suma kontrolna pliku ${day.file_name} w historii publikacji (${inRecord}) różni się od wymienionej w zbiorze (${day.md5}).`,
          `The checksum of ${day.file_name} in the publication history (${inRecord}) differs from the one the dataset lists (${day.md5}).`,
          { recorded: inRecord, listed: day.md5 },
        ),
        where,
      )
    if (options.rulesOnlyForDay !== undefined && day.date !== options.rulesOnlyForDay && !changed) continue
    content ??= await readIfPresent(file)
    if (content) checkDayFileRules(findings, content, where)
  }
  audit.errors = findings.problems.filter((p) => p.severity === 'error').length
  audit.gaps = findings.problems.length - audit.errors
  return audit
}

/** Audits every dataset (or one), every published file (or one day's). */
export async function auditPublications(ctx: HostContext, options: AuditOptions = {}): Promise<AuditReport> {
  const settings = await getPublicationSettings(ctx)
  const datasets =
    options.developerId !== undefined ? [await datasetOf(ctx, options.developerId)] : await listDatasets(ctx)
  const audits: DatasetAudit[] = []
  for (const dataset of datasets) {
    const base = settings.public_base_url ? datasetBase(settings.public_base_url, dataset) : null
    const trial = ctx.config.env !== 'production' && base !== null && isTrialAddress(base)
    audits.push(await auditDataset(ctx, dataset, base, trial, options))
  }
  const errors = audits.reduce((n, a) => n + a.errors, 0)
  return {
    checked_at: ctx.now().toISOString(),
    day: options.day ?? null,
    valid: errors === 0,
    errors,
    gaps: audits.reduce((n, a) => n + a.gaps, 0),
    datasets: audits,
  }
}
