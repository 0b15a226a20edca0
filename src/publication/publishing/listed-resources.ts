/*
 * The resources a dataset's XML lists: each day's file with the URL, extIdent, texts and time it
 * was first published with (none of them ever changes), and the resource a new file of the day adds.
 */
import type { HostContext } from '../../host/context.js'
import { getPublicDatasetId } from '../daily-file/dataset.js'
import {
  type FrozenResource,
  frozenResources,
  newResourceTexts,
  portalResources,
} from '../daily-file/dataset-resources.js'
import { type Dataset, datasetBase, datasetStore } from '../daily-file/datasets.js'
import { dailyResourceExtIdent } from '../daily-file/harvester-xml.js'
import type { ManifestDay } from '../publication-store.js'
import { firstPublishedTimes, firstPublishedUrls } from '../publications-repository.js'
import { isTrialAddress } from './public-address.js'

/** A resource whose URL and extIdent are known. */
export type AddressedResource = ManifestDay & { url: string; ext_ident: string }

/** A listed resource whose URL, extIdent, texts and publication time are known: none of them changes. */
export type RecordedResource = FrozenResource<AddressedResource>

/**
 * The resources of a manifest with the URL and extIdent each was first published with. Manifests
 * written before these were recorded lack them: the URL is then taken from the first publication
 * recorded for that day (its outcome names it), else built from the current address; the extIdent
 * is the one the XML always derived.
 */
export async function recordedResources(
  ctx: HostContext,
  days: readonly ManifestDay[],
  datasetId: string,
  base: string | null,
): Promise<AddressedResource[]> {
  const legacy = days.filter((d) => d.url === undefined || d.ext_ident === undefined)
  let firstUrls = new Map<string, string>()
  if (legacy.length > 0) firstUrls = await firstPublishedUrls(ctx.db)
  return days.map((day) =>
    day.url !== undefined && day.ext_ident !== undefined
      ? (day as AddressedResource)
      : {
          ...day,
          url: day.url ?? firstUrls.get(day.file_name) ?? `${base ?? ''}/${day.file_name}`,
          ext_ident: day.ext_ident ?? dailyResourceExtIdent(datasetId, day.date, day.revision ?? 1),
        },
  )
}

/** What a dataset lists before a publication of `date`. */
export interface ResourceListing {
  date: string
  /** Whose resources: the texts of a new one name the developer. */
  developerName: string
  datasetId: string
  /** The dataset's public address, when one is set. */
  base: string | null
  /** Every resource listed so far, by date. */
  listed: RecordedResource[]
  /** The resources of `date` listed so far, the latest last. */
  sameDay: RecordedResource[]
  /** Resources of a local trial, which the portal never lists. */
  dropped: ManifestDay[]
}

export async function readResourceListing(
  ctx: HostContext,
  dataset: Dataset | undefined,
  publicBaseUrl: string | null,
  date: string,
): Promise<ResourceListing> {
  const store = dataset ? datasetStore(ctx, dataset) : undefined
  const previous = store ? await store.currentManifest() : undefined
  const datasetId = dataset?.extIdent ?? (await getPublicDatasetId(ctx))
  const base = publicBaseUrl && dataset ? datasetBase(publicBaseUrl, dataset) : null
  const trial = ctx.config.env !== 'production' && base !== null && isTrialAddress(base)
  const developerName = dataset?.developer.name ?? ''
  const portal = portalResources(await recordedResources(ctx, previous?.days ?? [], datasetId, base), trial)
  const listed: RecordedResource[] = store
    ? await frozenResources(
        store,
        portal.kept,
        developerName,
        () => firstPublishedTimes(ctx.db),
        previous?.created_at ?? ctx.now().toISOString(),
      )
    : []
  const sameDay = listed.filter((d) => d.date === date)
  return { date, developerName, datasetId, base, listed, sameDay, dropped: portal.dropped }
}

/**
 * The resource a file of this name and content adds, or none when it repeats the day's latest
 * bytes; a second file of the day with other bytes is a revision, a resource of its own.
 */
export function newResource(
  ctx: HostContext,
  listing: ResourceListing,
  fileName: string,
  md5: string | undefined,
): RecordedResource | undefined {
  const { date, base, datasetId } = listing
  const latest = listing.sameDay.at(-1)
  if (latest && md5 !== undefined && latest.md5 === md5) return undefined
  const revision = (latest?.revision ?? 0) + 1
  const name = revision === 1 ? fileName : fileName.replace(/\.csv$/, `-v${revision}.csv`)
  return {
    date,
    file_name: name,
    md5: md5 ?? '',
    rows: 0,
    bytes: 0,
    url: `${base ?? ''}/${name}`,
    ext_ident: dailyResourceExtIdent(datasetId, date, revision),
    revision,
    ...newResourceTexts(listing.developerName, date, revision, ctx.now().toISOString()),
  }
}

const byDate = (a: { date: string }, b: { date: string }) => a.date.localeCompare(b.date)

/** What the dataset lists with the resource added, if any. */
export function resourcesWith(listing: ResourceListing, added: RecordedResource | undefined): RecordedResource[] {
  return added ? [...listing.listed, added].sort(byDate) : listing.listed
}
