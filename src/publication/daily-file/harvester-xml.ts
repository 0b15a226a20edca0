/*
 * The harvester XML that dane.gov.pl fetches once a day (schema urn:otwarte-dane:harvester:1.13),
 * laid out like the ministry's template "Szablon_budowy_pliku_xml" v1.14 and checked here against
 * the rules the XSD cannot express (https only, unique identifiers, one resource per day). Pure
 * and deterministic: the portal compares the MD5 of the served bytes with the `.md5` file, so the
 * same input must give the same bytes whenever it is rebuilt.
 */
import { createHash } from 'node:crypto'

import { MAX_DEVELOPER_NAME_LENGTH } from '../invariants/official-file-invariants.js'
import { isIsoDate } from './daily-csv.js'

export const HARVESTER_NAMESPACE = 'urn:otwarte-dane:harvester:1.13'

/** From this many resources the portal asks to be contacted about a new source (limit ~1000). */
export const HARVESTER_RESOURCE_WARN_AT = 900

export const HARVESTER_CATEGORIES = [
  'AGRI',
  'EDUC',
  'ENVI',
  'ENER',
  'TRAN',
  'TECH',
  'ECON',
  'SOCI',
  'HEAL',
  'GOVE',
  'REGI',
  'JUST',
  'INTR',
] as const

export type HarvesterCategory = (typeof HARVESTER_CATEGORIES)[number]

export interface HarvesterTag {
  lang: 'pl' | 'en'
  value: string
}

/** The instruction for developers prescribes category ECON and the tag "Deweloper". */
export const DEFAULT_HARVESTER_CATEGORIES: readonly HarvesterCategory[] = Object.freeze(['ECON'])
export const DEFAULT_HARVESTER_TAGS: readonly HarvesterTag[] = Object.freeze([
  Object.freeze({ lang: 'pl', value: 'Deweloper' } as const),
])

export interface HarvesterResourceInput {
  /** Never changed once published: a new extIdent makes the portal delete and re-create the resource. */
  extIdent: string
  /** The day's CSV; https only, and never changed once published. */
  url: string
  titlePl: string
  titleEn: string
  descriptionPl: string
  descriptionEn: string
  /** The price-list date. */
  dataDate: string
}

export interface HarvesterXmlInput {
  extIdent: string
  titlePl: string
  titleEn: string
  descriptionPl: string
  descriptionEn: string
  /** Optional page describing the dataset (https). */
  url?: string | null
  categories?: readonly HarvesterCategory[]
  tags?: readonly HarvesterTag[]
  /** Every published day; the portal deletes resources that disappear from the file. */
  resources: readonly HarvesterResourceInput[]
  /**
   * Accept http:// URLs: a local trial outside production, whose files the portal will never
   * fetch. Everything else is checked as for the portal.
   */
  allowHttp?: boolean
}

export type HarvesterXmlErrorCode =
  | 'insecure_url'
  | 'invalid_url'
  | 'invalid_ext_ident'
  | 'duplicate_ext_ident'
  | 'duplicate_data_date'
  | 'duplicate_url'
  | 'invalid_date'
  | 'invalid_text'
  | 'invalid_category'
  | 'invalid_tag'
  | 'no_resources'

export class HarvesterXmlError extends Error {
  readonly code: HarvesterXmlErrorCode
  /** Path of the offending input field, e.g. `resources[2].url`. */
  readonly field: string

  constructor(code: HarvesterXmlErrorCode, field: string, message: string) {
    super(`${field}: ${message}`)
    this.name = 'HarvesterXmlError'
    this.code = code
    this.field = field
  }
}

/** Lowercase hex MD5, the body of the `.md5` file the portal compares with the XML it downloads. */
export function md5Hex(data: Buffer | Uint8Array | string): string {
  return createHash('md5').update(data).digest('hex')
}

/*
 * The XSD allows any 1–36 characters; the instruction recommends letters and digits without
 * diacritics, and the template itself uses underscores. Anything else risks a portal-side rule.
 */
const EXT_IDENT_PATTERN = /^[A-Za-z0-9_-]{1,36}$/

// XSD: dataset url ≤ 1000; resource url ≤ 2000, but the developer instruction 1.0.6 says 10..1000.
const MAX_URL_LENGTH = 1000

/** Characters XML 1.0 cannot carry at all, not even escaped; lone surrogates included. */
function hasNonXmlCharacter(value: string): boolean {
  // for…of walks code points, so only unpaired surrogates show up as D800–DFFF
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0
    const control = code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d
    if (control || code === 0xfffe || code === 0xffff || (code >= 0xd800 && code <= 0xdfff)) return true
  }
  return false
}

function checkExtIdent(value: string, field: string): void {
  if (!EXT_IDENT_PATTERN.test(value)) {
    throw new HarvesterXmlError(
      'invalid_ext_ident',
      field,
      `"${value}" must be 1–36 characters of A–Z, a–z, 0–9, "_" or "-"`,
    )
  }
}

function checkUrl(value: string, field: string, allowHttp = false): void {
  if (allowHttp && value.startsWith('http://')) value = `https://${value.slice('http://'.length)}`
  if (/^http:/i.test(value)) {
    throw new HarvesterXmlError('insecure_url', field, `"${value}" must use https:// (the portal refuses http)`)
  }
  let parsed: URL | null = null
  try {
    parsed = new URL(value)
  } catch {
    parsed = null
  }
  // The XSD pattern is a case-sensitive "https://.*", so "HTTPS://" would fail there.
  if (!parsed || parsed.protocol !== 'https:' || !value.startsWith('https://') || /\s/.test(value)) {
    throw new HarvesterXmlError('invalid_url', field, `"${value}" is not an absolute https:// URL without spaces`)
  }
  if (value.length > MAX_URL_LENGTH) {
    throw new HarvesterXmlError('invalid_url', field, `URL is longer than ${MAX_URL_LENGTH} characters`)
  }
}

function checkText(value: string, field: string, maxLength: number): void {
  // The XSD counts characters (code points), not UTF-16 units.
  const length = [...value].length
  if (value.trim() === '' || length > maxLength) {
    throw new HarvesterXmlError('invalid_text', field, `must be 1–${maxLength} characters, not blank (got ${length})`)
  }
  if (hasNonXmlCharacter(value)) {
    throw new HarvesterXmlError('invalid_text', field, 'contains a character that XML 1.0 cannot represent')
  }
}

function escapeXml(value: string): string {
  // CR is escaped so that the parser's line-end normalisation keeps it.
  return value.replace(/[&<>\r]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' })[char] ?? char)
}

function checkResources(resources: readonly HarvesterResourceInput[], allowHttp: boolean): HarvesterResourceInput[] {
  if (resources.length === 0) {
    throw new HarvesterXmlError('no_resources', 'resources', 'at least one published day is required')
  }
  const seen = {
    extIdent: new Map<string, number>(),
    dataDate: new Map<string, number>(),
    url: new Map<string, number>(),
  }
  resources.forEach((resource, index) => {
    const field = `resources[${index}]`
    checkExtIdent(resource.extIdent, `${field}.extIdent`)
    checkUrl(resource.url, `${field}.url`, allowHttp)
    checkText(resource.titlePl, `${field}.titlePl`, 300)
    checkText(resource.titleEn, `${field}.titleEn`, 300)
    checkText(resource.descriptionPl, `${field}.descriptionPl`, 1000)
    checkText(resource.descriptionEn, `${field}.descriptionEn`, 1000)
    if (!isIsoDate(resource.dataDate)) {
      throw new HarvesterXmlError(
        'invalid_date',
        `${field}.dataDate`,
        `"${resource.dataDate}" is not a YYYY-MM-DD date`,
      )
    }
    // one day may have several resources: a same-day republication is added as a resource of its own
    const duplicates: [keyof typeof seen, HarvesterXmlErrorCode][] = [
      ['extIdent', 'duplicate_ext_ident'],
      ['url', 'duplicate_url'],
    ]
    for (const [key, code] of duplicates) {
      const first = seen[key].get(resource[key])
      if (first !== undefined) {
        throw new HarvesterXmlError(
          code,
          `${field}.${key}`,
          `"${resource[key]}" is already used by resources[${first}]`,
        )
      }
      seen[key].set(resource[key], index)
    }
  })
  // Oldest day first, as in the official example; input order does not change the bytes.
  return [...resources].sort((a, b) => (a.dataDate < b.dataDate ? -1 : a.dataDate > b.dataDate ? 1 : 0))
}

/*
 * Flags are fixed by the developer instruction: the portal refuses
 * hasHighValueDataFromEuropeanCommissionList=true and containsProtectedData=true for developers.
 */
const DATASET_FLAGS = [
  ['hasDynamicData', false],
  ['hasHighValueData', true],
  ['hasHighValueDataFromEuropeanCommissionList', false],
  ['hasResearchData', false],
] as const

const RESOURCE_FLAGS = [...DATASET_FLAGS, ['containsProtectedData', false]] as const

/**
 * The harvester XML, byte-stable for the same input: UTF-8, LF line ends, tab indentation, root
 * `ns2:datasets` with unqualified children (the XSD's elementFormDefault), element order of the
 * official template, resources sorted by dataDate. Throws HarvesterXmlError for input the portal
 * would refuse or that would silently lose a day.
 */
export function buildHarvesterXml(input: HarvesterXmlInput): string {
  checkExtIdent(input.extIdent, 'extIdent')
  checkText(input.titlePl, 'titlePl', 300)
  checkText(input.titleEn, 'titleEn', 300)
  checkText(input.descriptionPl, 'descriptionPl', 1000)
  checkText(input.descriptionEn, 'descriptionEn', 1000)
  if (input.url != null) checkUrl(input.url, 'url', input.allowHttp)

  const categories = input.categories ?? DEFAULT_HARVESTER_CATEGORIES
  if (categories.length === 0) throw new HarvesterXmlError('invalid_category', 'categories', 'at least one is required')
  categories.forEach((category, index) => {
    if (!(HARVESTER_CATEGORIES as readonly string[]).includes(category)) {
      throw new HarvesterXmlError('invalid_category', `categories[${index}]`, `"${category}" is not a portal category`)
    }
  })
  const tags = input.tags ?? DEFAULT_HARVESTER_TAGS
  if (tags.length === 0) throw new HarvesterXmlError('invalid_tag', 'tags', 'the portal requires at least one tag')
  tags.forEach((tag, index) => {
    if (tag.lang !== 'pl' && tag.lang !== 'en') {
      throw new HarvesterXmlError('invalid_tag', `tags[${index}].lang`, `"${String(tag.lang)}" must be pl or en`)
    }
    checkText(tag.value, `tags[${index}].value`, 300)
  })
  const resources = checkResources(input.resources, input.allowHttp ?? false)

  const out: string[] = []
  const line = (depth: number, content: string) => out.push('\t'.repeat(depth) + content)
  const element = (depth: number, name: string, value: string) => line(depth, `<${name}>${escapeXml(value)}</${name}>`)
  const texts = (depth: number, name: string, polish: string, english: string) => {
    line(depth, `<${name}>`)
    element(depth + 1, 'polish', polish)
    element(depth + 1, 'english', english)
    line(depth, `</${name}>`)
  }

  // Declaration and root exactly as in the official template.
  line(0, "<?xml version='1.0' encoding='UTF-8'?>")
  line(0, `<ns2:datasets xmlns:ns2="${HARVESTER_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`)
  line(1, '<dataset status="published">')
  element(2, 'extIdent', input.extIdent)
  texts(2, 'title', input.titlePl, input.titleEn)
  texts(2, 'description', input.descriptionPl, input.descriptionEn)
  if (input.url != null) element(2, 'url', input.url)
  element(2, 'updateFrequency', 'daily')
  for (const [name, value] of DATASET_FLAGS) element(2, name, String(value))
  line(2, '<categories>')
  for (const category of categories) element(3, 'category', category)
  line(2, '</categories>')
  line(2, '<resources>')
  for (const resource of resources) {
    line(3, '<resource status="published">')
    element(4, 'extIdent', resource.extIdent)
    element(4, 'url', resource.url)
    texts(4, 'title', resource.titlePl, resource.titleEn)
    texts(4, 'description', resource.descriptionPl, resource.descriptionEn)
    element(4, 'availability', 'local')
    element(4, 'dataDate', resource.dataDate)
    line(4, '<specialSigns>')
    element(5, 'specialSign', 'X')
    line(4, '</specialSigns>')
    for (const [name, value] of RESOURCE_FLAGS) element(4, name, String(value))
    line(3, '</resource>')
  }
  line(2, '</resources>')
  line(2, '<tags>')
  for (const tag of tags) line(3, `<tag lang="${tag.lang}">${escapeXml(tag.value)}</tag>`)
  line(2, '</tags>')
  line(1, '</dataset>')
  line(0, '</ns2:datasets>')
  return out.join('\n') + '\n'
}

/**
 * A resource extIdent derived from the dataset's: at most 27 characters of it, `_`, and the date
 * as YYYYMMDD (36 in all), so it is stable for as long as the dataset extIdent is.
 */
export function dailyResourceExtIdent(datasetExtIdent: string, date: string, revision = 1): string {
  checkExtIdent(datasetExtIdent, 'datasetExtIdent')
  if (!isIsoDate(date)) throw new HarvesterXmlError('invalid_date', 'date', `"${date}" is not a YYYY-MM-DD date`)
  if (revision === 1) return `${datasetExtIdent.slice(0, 27)}_${date.replaceAll('-', '')}`
  if (!Number.isInteger(revision) || revision < 2 || revision > 99)
    throw new HarvesterXmlError('invalid_ext_ident', 'revision', `revision ${revision} must be 1–99`)
  // 24 + "_" + YYYYMMDD + "r" + two digits = 36, distinct from the first resource of the day
  return `${datasetExtIdent.slice(0, 24)}_${date.replaceAll('-', '')}r${String(revision).padStart(2, '0')}`
}

const ACT_PL =
  'art. 19b. ust. 1 Ustawy z dnia 20 maja 2021 r. o ochronie praw nabywcy lokalu mieszkalnego lub domu ' +
  'jednorodzinnego oraz Deweloperskim Funduszu Gwarancyjnym (Dz. U. z 2024 r. poz. 695)'

/** The years a dataset's listed resources span: its title names them, never a year it holds no file of. */
export interface DatasetYears {
  first: number
  last: number
}

/**
 * Dataset titles and descriptions worded as in the official template v1.14 ("… w 2026 r."). The
 * portal asks for no new dataset per calendar year, so a dataset whose files span several years
 * names the span ("w latach 2026–2027"), never only the latest year.
 */
export function officialDatasetTexts(
  developerName: string,
  years: DatasetYears,
): Pick<HarvesterXmlInput, 'titlePl' | 'titleEn' | 'descriptionPl' | 'descriptionEn'> {
  const single = years.first === years.last
  return {
    titlePl: single
      ? `Ceny ofertowe mieszkań dewelopera ${developerName} w ${years.first} r.`
      : `Ceny ofertowe mieszkań dewelopera ${developerName} w latach ${years.first}–${years.last}`,
    titleEn: single
      ? `Offer prices of apartments of developer ${developerName} in ${years.first}.`
      : `Offer prices of apartments of developer ${developerName} in ${years.first}–${years.last}.`,
    descriptionPl:
      `Zbiór danych zawiera informacje o cenach ofertowych mieszkań dewelopera ${developerName} ` +
      `udostępniane zgodnie z ${ACT_PL}.`,
    descriptionEn:
      `The dataset contains information on offer prices of apartments of the developer ${developerName} ` +
      `made available in accordance with ${ACT_PL}.`,
  }
}

/**
 * Resource titles and descriptions worded as in the official template v1.14, without the
 * template's stray footnote mark `”[1]` (the instruction 1.0.6 table has none). A further version
 * of one day (revision 2, file `-v2`) says so in its title and description, so that the portal's
 * list tells the day's versions apart and names the one that replaces the others.
 */
export function officialResourceTexts(
  developerName: string,
  date: string,
  revision = 1,
): Pick<HarvesterResourceInput, 'titlePl' | 'titleEn' | 'descriptionPl' | 'descriptionEn'> {
  const versionPl = revision > 1 ? ` (wersja ${revision})` : ''
  const versionEn = revision > 1 ? ` (version ${revision})` : ''
  const replacesPl =
    revision > 1 ? ` Wersja ${revision} z tego dnia zastępuje wcześniejsze wersje (zmiana cen w ciągu dnia).` : ''
  const replacesEn =
    revision > 1
      ? ` Version ${revision} of that day replaces its earlier versions (a price change during the day).`
      : ''
  return {
    titlePl: `Ceny ofertowe mieszkań dewelopera ${developerName} ${date}${versionPl}`,
    titleEn: `Offer prices for developer's apartments ${developerName} ${date}${versionEn}`,
    descriptionPl:
      `Dane dotyczące cen ofertowych mieszkań dewelopera ${developerName} udostępnione ${date} ` +
      `zgodnie z ${ACT_PL}.${replacesPl}`,
    descriptionEn:
      `Data on offer prices of apartments of the developer ${developerName} made available ${date} ` +
      `in accordance with ${ACT_PL}.${replacesEn}`,
  }
}

/** The dataset description's note: the Polish description ends with it, as does the English one when given. */
export const DESCRIPTION_NOTE_MAX = 500

const TEXT_LIMITS = { titlePl: 300, titleEn: 300, descriptionPl: 1000, descriptionEn: 1000 } as const

/** The characters each text has left before its XSD limit. */
function room(texts: Record<keyof typeof TEXT_LIMITS, string>): number {
  return Math.min(
    ...Object.entries(TEXT_LIMITS).map(([key, limit]) => limit - [...texts[key as keyof typeof TEXT_LIMITS]].length),
  )
}

/*
 * The longest developer name every text of the XML can hold: the XSD allows 300 characters in a
 * title and 1000 in a description, and the name appears once in each (with the longest year span
 * and the highest version of a day). A longer name was accepted and then blocked every
 * publication with xml_invalid_text, so the entity's name is refused at entry beyond this.
 */
export const DEVELOPER_NAME_MAX: number = Math.min(
  room(officialDatasetTexts('', { first: 2025, last: 2099 })),
  room(officialResourceTexts('', '2099-12-31', 99)),
  // the invariants every day file passes refuse a longer name in column 1: never accept one at entry
  MAX_DEVELOPER_NAME_LENGTH,
)

/** How long the description note of an entity with this name may be (it ends the dataset description). */
export function descriptionNoteMax(developerName: string): number {
  const texts = officialDatasetTexts(developerName, { first: 2025, last: 2099 })
  // one space joins the note to the description
  const left = Math.min(1000 - [...texts.descriptionPl].length, 1000 - [...texts.descriptionEn].length) - 1
  return Math.max(0, Math.min(DESCRIPTION_NOTE_MAX, left))
}
