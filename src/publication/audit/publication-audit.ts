/*
 * The audit of everything published: for every developer entity's dataset, the files as they are
 * served are read again from the data directory and checked as the harvester and a lawyer would —
 * the XML against the XSD and its .md5, every listed resource present with the checksum recorded
 * when it was published, no resource published for the portal dropped from the XML since, and
 * each day file against the same invariants every file passes before it is written (the day file
 * invariants module) plus the byte rules. Every problem names its dataset, day, file and unit.
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
import { type Manifest, type PublicationStore, XML_NAME } from '../publication-store.js'
import { isTrialAddress, MD5_NAME } from '../publication-service.js'
import { getPublicationSettings } from '../settings/publication-settings.js'

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
}

interface ListedResource {
  extIdent: string
  url: string
  dataDate: string
}

/** The resources of a harvester XML as listed (the XSD was checked separately). */
export function listedResources(xml: string): ListedResource[] {
  const out: ListedResource[] = []
  for (const match of xml.matchAll(/<resource\b[^>]*>([\s\S]*?)<\/resource>/g)) {
    const body = match[1] ?? ''
    const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(body)?.[1] ?? ''
    out.push({ extIdent: field('extIdent'), url: unescapeXml(field('url')), dataDate: field('dataDate') })
  }
  return out
}

function unescapeXml(text: string): string {
  return text.replace(/&(amp|lt|gt|#13);/g, (_m, name: string) =>
    name === 'amp' ? '&' : name === 'lt' ? '<' : name === 'gt' ? '>' : '\r',
  )
}

/** The manifests of every version a store ever served or prepared, oldest first. */
async function pastManifests(store: PublicationStore): Promise<Manifest[]> {
  const dir = path.join(store.root, 'versions')
  let names: string[]
  try {
    names = (await fs.readdir(dir)).sort()
  } catch {
    return []
  }
  const manifests: Manifest[] = []
  for (const name of names) {
    try {
      manifests.push(JSON.parse(await fs.readFile(path.join(dir, name, 'manifest.json'), 'utf8')) as Manifest)
    } catch {
      // a version folder of a failed publication has no manifest: it was never served
    }
  }
  return manifests
}

/** The checksums recorded with the successful publications of a dataset, by file name. */
async function recordedChecksums(ctx: HostContext, dataset: Dataset): Promise<Map<string, string>> {
  const rows = await ctx.db
    .selectFrom('publications')
    .select(['issues', 'csv_md5'])
    .where('status', '=', 'published')
    .where((eb) => (dataset.primary ? eb('developer_id', 'is', null) : eb('developer_id', '=', dataset.developer.id)))
    .orderBy('id', 'asc')
    .execute()
  const checksums = new Map<string, string>()
  for (const row of rows) {
    try {
      const name = (JSON.parse(row.issues ?? '{}') as { outcome?: { csv?: { file_name?: string } } }).outcome?.csv
        ?.file_name
      if (name && row.csv_md5 && !checksums.has(name)) checksums.set(name, row.csv_md5)
    } catch {
      // an unreadable record names no file
    }
  }
  return checksums
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
    const check = await validateHarvesterXml(
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

  // the manifest and the XML list the same resources
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
  if (options.day === undefined) {
    const current = new Set(manifest.days.map((d) => d.ext_ident ?? d.file_name))
    const reported = new Set<string>()
    for (const past of await pastManifests(store)) {
      if (past.version > manifest.version) continue
      for (const day of past.days) {
        const key = day.ext_ident ?? day.file_name
        if (current.has(key) || reported.has(key) || day.url?.startsWith('http://')) continue
        reported.add(key)
        findings.add(
          issue(
            'audit_resource_removed',
            `Plik ${day.file_name} z dnia ${day.date} był opublikowany (wersja ${past.version}), a nie ma go już w pliku XML: portal usuwa zasoby, które znikają z pliku.`,
            `The file ${day.file_name} of ${day.date} was published (version ${past.version}) and is no longer in the XML: the portal deletes resources that disappear from the file.`,
          ),
          { day: day.date, file: day.file_name },
        )
      }
    }
  }

  // every day file, as served
  const recorded = await recordedChecksums(ctx, dataset)
  for (const day of manifest.days) {
    if (options.day !== undefined && day.date !== options.day) continue
    const where = { day: day.date, file: day.file_name }
    const content = await readIfPresent(store.csvPath(day.md5))
    if (!content) {
      findings.add(
        issue(
          'audit_file_missing',
          `Brak pliku ${day.file_name} z dnia ${day.date} (${day.md5}.csv w katalogu danych); harvester dane.gov.pl dostanie błąd 404 (brak pliku). Odtwórz katalog publikacji z kopii zapasowej.`,
          `The file ${day.file_name} of ${day.date} (${day.md5}.csv in the data directory) is missing; the harvester gets 404. Restore the publication folder from the backup.`,
        ),
        where,
      )
      continue
    }
    audit.files_checked += 1
    const actual = md5Hex(content)
    if (actual !== day.md5 || content.length !== day.bytes)
      findings.add(
        issue(
          'audit_file_checksum_mismatch',
          `Plik ${day.file_name} z dnia ${day.date} zmienił się od publikacji (MD5 ${actual}, zapisano ${day.md5}); opublikowany plik nigdy się nie zmienia. Odtwórz go z kopii zapasowej.`,
          `The file ${day.file_name} of ${day.date} changed since it was published (MD5 ${actual}, recorded ${day.md5}); a published file never changes. Restore it from the backup.`,
          { md5: actual, recorded: day.md5 },
        ),
        where,
      )
    const inRecord = recorded.get(day.file_name)
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
    for (const found of checkCsvBytes(content)) findings.add(found, where)
    const report = checkOfficialFile(content, day.date)
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
