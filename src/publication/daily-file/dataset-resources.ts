/*
 * What a developer entity's dataset lists and says, beyond the day files themselves: the texts
 * of each resource, frozen when it is first published; the dataset's own texts (the years its
 * files span, the entity's notes); its `<url>`; and which listed resources belong to the portal
 * (a local http trial's never do).
 */
import fs from 'node:fs/promises'

import { parse } from 'csv-parse/sync'

import type { DeveloperRow } from '../../host/db/schema.js'
import { issue, type PublicationIssue } from '../publication-issue.js'
import type { ManifestDay, PublicationStore } from '../publication-store.js'
import {
  type DatasetYears,
  type HarvesterXmlInput,
  officialDatasetTexts,
  officialResourceTexts,
} from './harvester-xml.js'

export type FrozenResource<T extends ManifestDay = ManifestDay> = T &
  Required<Pick<ManifestDay, 'title_pl' | 'title_en' | 'description_pl' | 'description_en' | 'published_at'>>

/** The developer name a stored day file carries in its first data row (column 1), if any. */
export async function developerNameInFile(file: string): Promise<string | undefined> {
  let head: Buffer
  try {
    const handle = await fs.open(file, 'r')
    try {
      const buffer = Buffer.alloc(64 * 1024)
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
      head = buffer.subarray(0, bytesRead)
    } finally {
      await handle.close()
    }
  } catch {
    return undefined
  }
  const text = head.toString('utf8')
  const firstEnd = text.indexOf('\n')
  if (firstEnd < 0) return undefined
  try {
    const rows = parse(text.slice(firstEnd + 1), {
      delimiter: ';',
      relax_column_count: true,
      to_line: 1,
    })
    const name = rows[0]?.[0]
    return name && name !== 'X' ? name : undefined
  } catch {
    return undefined
  }
}

/**
 * Each listed resource with its texts and publication time as first published. A resource of a
 * manifest written before they were recorded gets the texts it was published with: the
 * developer name its own file carries (the name may have changed since) in the wording of that
 * time, which had no version mark; its time is the first recorded publication of its file.
 */
export async function frozenResources<T extends ManifestDay>(
  store: PublicationStore,
  days: readonly T[],
  currentName: string,
  firstPublishedAt: () => Promise<Map<string, string>>,
  fallbackTime: string,
): Promise<FrozenResource<T>[]> {
  let times: Map<string, string> | undefined
  const out: FrozenResource<T>[] = []
  for (const day of days) {
    if (
      day.title_pl !== undefined &&
      day.title_en !== undefined &&
      day.description_pl !== undefined &&
      day.description_en !== undefined &&
      day.published_at !== undefined
    ) {
      out.push(day as FrozenResource<T>)
      continue
    }
    const texts =
      day.title_pl !== undefined &&
      day.title_en !== undefined &&
      day.description_pl !== undefined &&
      day.description_en !== undefined
        ? {
            titlePl: day.title_pl,
            titleEn: day.title_en,
            descriptionPl: day.description_pl,
            descriptionEn: day.description_en,
          }
        : officialResourceTexts((await developerNameInFile(store.csvPath(day.md5))) ?? currentName, day.date)
    let publishedAt = day.published_at
    if (publishedAt === undefined) {
      times ??= await firstPublishedAt()
      publishedAt = times.get(day.file_name) ?? fallbackTime
    }
    out.push({
      ...day,
      title_pl: texts.titlePl,
      title_en: texts.titleEn,
      description_pl: texts.descriptionPl,
      description_en: texts.descriptionEn,
      published_at: publishedAt,
    })
  }
  return out
}

/** The texts of a resource published now. */
export function newResourceTexts(
  developerName: string,
  date: string,
  revision: number,
  publishedAt: string,
): Pick<FrozenResource, 'title_pl' | 'title_en' | 'description_pl' | 'description_en' | 'published_at'> {
  const texts = officialResourceTexts(developerName, date, revision)
  return {
    title_pl: texts.titlePl,
    title_en: texts.titleEn,
    description_pl: texts.descriptionPl,
    description_en: texts.descriptionEn,
    published_at: publishedAt,
  }
}

export function datasetYears(days: readonly { date: string }[]): DatasetYears {
  const years = days.map((d) => Number(d.date.slice(0, 4)))
  return { first: Math.min(...years), last: Math.max(...years) }
}

/**
 * The dataset's texts: the years its listed files span, and the entity's notes — the Polish one
 * ends the Polish description, the English one (only when given) the English description.
 */
export function datasetTexts(
  developer: Pick<DeveloperRow, 'name' | 'description_note_pl' | 'description_note_en'>,
  days: readonly { date: string }[],
): Pick<HarvesterXmlInput, 'titlePl' | 'titleEn' | 'descriptionPl' | 'descriptionEn'> {
  const texts = officialDatasetTexts(developer.name, datasetYears(days))
  return {
    ...texts,
    descriptionPl: developer.description_note_pl
      ? `${texts.descriptionPl} ${developer.description_note_pl}`
      : texts.descriptionPl,
    descriptionEn: developer.description_note_en
      ? `${texts.descriptionEn} ${developer.description_note_en}`
      : texts.descriptionEn,
  }
}

/**
 * The resources the dataset lists for the portal. A resource published at an http address was a
 * local trial the portal never fetched: once the files are served over https it is left out (it
 * made every publication fail with xml_insecure_url), and in a trial everything stays.
 */
export function portalResources<T extends ManifestDay>(
  days: readonly T[],
  trial: boolean,
): { kept: T[]; dropped: T[] } {
  if (trial) return { kept: [...days], dropped: [] }
  const isTrial = (day: T) => day.url?.startsWith('http://') === true
  return { kept: days.filter((d) => !isTrial(d)), dropped: days.filter(isTrial) }
}

export function trialResourcesDroppedWarning(dropped: readonly ManifestDay[]): PublicationIssue {
  const dates = [...new Set(dropped.map((d) => d.date))].sort()
  return issue(
    'trial_resources_left_out',
    `Pliki z próby lokalnej (adres http://, ${dropped.length}; dni ${dates.join(', ')}) nie trafiają do zbioru na portalu: portal nigdy ich nie pobrał, a zbiór produkcyjny wymienia tylko pliki pod adresem https.`,
    `The files of a local trial (http:// address, ${dropped.length}; days ${dates.join(', ')}) are left out of the dataset: the portal never fetched them, and the production dataset lists only files served over https.`,
    { count: dropped.length, dates },
  )
}

/**
 * The dataset `<url>` (the entity's page with the prices): the instruction 1.0.6 requires it
 * although the XSD makes it optional, so without it production is refused and a trial warned.
 */
export function datasetUrlFinding(
  developer: Pick<DeveloperRow, 'id' | 'name' | 'dataset_url'>,
  production: boolean,
): { issue?: PublicationIssue; warning?: PublicationIssue } {
  if (developer.dataset_url) return {}
  const found = issue(
    'dataset_url_missing',
    `Zbiór dewelopera ${developer.name} nie ma adresu strony z cenami (<url> zbioru, wymagany przez instrukcję dane.gov.pl). Podaj go w ustawieniach dewelopera (pole „Adres strony z cenami”, https://)${production ? '' : ' przed publikacją produkcyjną'}.`,
    `The dataset of ${developer.name} has no page with the prices (the dataset <url> the dane.gov.pl instruction requires). Set it on the developer entity (dataset_url, https://)${production ? '' : ' before publishing in production'}.`,
    { developer_id: developer.id, field: 'dataset_url' },
  )
  return production ? { issue: found } : { warning: found }
}
