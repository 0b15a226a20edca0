/*
 * One dataset per developer entity. Polish developer groups sell each project through a company
 * of its own (its own NIP), and each company has its own duty and its own dataset on dane.gov.pl.
 * The publishing developer (setting `developer_id`, else the first entity) owns the dataset at the
 * original paths (/dane-gov/, the first extIdent), which also lists investments assigned to no
 * entity; every other entity with a published investment has its own dataset under
 * /dane-gov/d{id}/ with an extIdent of its own, its own files and its own publications.
 */
import { randomUUID } from 'node:crypto'
import path from 'node:path'

import type { HostContext } from '../../host/context.js'
import type { DeveloperRow } from '../../host/db/schema.js'
import { notFound } from '../../host/errors.js'
import { INVESTMENT_STATUSES_IN_DAILY_FILE } from '../../offers/editor-operation.js'
import { getOption, getOrCreateOption } from '../../host/options/options.js'
import { getPublicDatasetId } from './dataset.js'
import { getPublicationSettings, resolvePublishingDeveloper } from '../settings/publication-settings.js'
import { PublicationStore } from '../publication-store.js'

export interface Dataset {
  developer: DeveloperRow
  /** The publishing developer's dataset, at the original paths. */
  primary: boolean
  /** The path segment under /dane-gov/ ('' for the primary dataset). */
  key: string
  extIdent: string
}

/** The path segment of an entity's dataset other than the publishing developer's. */
export const datasetKey = (developerId: number): string => `d${developerId}`
const extIdentOption = (developerId: number) => `dg_dataset_ext_ident_${datasetKey(developerId)}`

async function extIdentOf(ctx: HostContext, developer: DeveloperRow, primary: boolean): Promise<string> {
  if (primary) return getPublicDatasetId(ctx)
  // made once, never changed: the portal identifies the dataset by it
  return getOrCreateOption(ctx, extIdentOption(developer.id), () => randomUUID(), false)
}

/** The publishing developer's dataset, or undefined while no developer entity exists. */
export async function primaryDataset(ctx: HostContext): Promise<Dataset | undefined> {
  const developer = await resolvePublishingDeveloper(ctx, await getPublicationSettings(ctx))
  if (!developer) return undefined
  return { developer, primary: true, key: '', extIdent: await extIdentOf(ctx, developer, true) }
}

/**
 * Every dataset: the primary one, then each other entity with a published investment or a dataset
 * already listed (its extIdent made: it may hold files though its investments were withdrawn, and
 * its missed days and its audit still concern it), by id.
 */
export async function listDatasets(ctx: HostContext): Promise<Dataset[]> {
  const primary = await primaryDataset(ctx)
  if (!primary) return []
  const listed = (
    await ctx.db
      .selectFrom('options')
      .select('name')
      .where('name', 'like', `${extIdentOption(0).slice(0, -1)}%`)
      .execute()
  ).flatMap((row) => {
    const id = Number(/_d([1-9]\d{0,9})$/.exec(row.name)?.[1])
    return Number.isSafeInteger(id) ? [id] : []
  })
  const others = await ctx.db
    .selectFrom('developers')
    .selectAll('developers')
    .where('developers.id', '!=', primary.developer.id)
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('investments')
            .select('investments.id')
            .whereRef('investments.developer_id', '=', 'developers.id')
            .where('investments.host_status', 'in', [...INVESTMENT_STATUSES_IN_DAILY_FILE]),
        ),
        ...(listed.length > 0 ? [eb('developers.id', 'in', listed)] : []),
      ]),
    )
    .orderBy('developers.id')
    .execute()
  const datasets = [primary]
  for (const developer of others)
    datasets.push({
      developer,
      primary: false,
      key: datasetKey(developer.id),
      extIdent: await extIdentOf(ctx, developer, false),
    })
  return datasets
}

/** The dataset of a developer entity (the primary one when no id is given). */
export async function datasetOf(ctx: HostContext, developerId?: number | null): Promise<Dataset> {
  const primary = await primaryDataset(ctx)
  if (developerId === undefined || developerId === null || developerId === primary?.developer.id) {
    if (!primary) throw notFound('developer_not_found', 'No developer entity is set up yet (columns 1–28).')
    return primary
  }
  const developer = await ctx.db.selectFrom('developers').selectAll().where('id', '=', developerId).executeTakeFirst()
  if (!developer) throw notFound('developer_not_found', `There is no developer ${developerId}.`)
  return { developer, primary: false, key: datasetKey(developer.id), extIdent: await extIdentOf(ctx, developer, false) }
}

/**
 * The dataset whose files are served under /dane-gov/{key}/, if the key names one. It only reads:
 * anybody may ask for these files, and making the extIdent of a dataset never listed (the option
 * write also bumped the catalog revision, invalidating every catalog ETag) on such a request was
 * a write by an anonymous GET (found by the fuzz suite). A dataset without its extIdent has never
 * been listed, so it has no files to serve.
 */
export async function datasetByKey(ctx: HostContext, key: string): Promise<Dataset | undefined> {
  const match = /^d([1-9]\d{0,9})$/.exec(key)
  if (!match) return undefined
  const developerId = Number(match[1])
  const publishing = await resolvePublishingDeveloper(ctx, await getPublicationSettings(ctx))
  if (!publishing || publishing.id === developerId) return undefined
  const extIdent = await getOption<string>(ctx, extIdentOption(developerId))
  if (extIdent === undefined) return undefined
  const developer = await ctx.db.selectFrom('developers').selectAll().where('id', '=', developerId).executeTakeFirst()
  return developer ? { developer, primary: false, key: datasetKey(developerId), extIdent } : undefined
}

export function datasetStore(
  ctx: Pick<HostContext, 'config'>,
  dataset: Pick<Dataset, 'primary' | 'key'>,
): PublicationStore {
  const root = path.join(ctx.config.dataDir, 'publication')
  return new PublicationStore(dataset.primary ? root : path.join(root, 'developers', dataset.key))
}

/** Where a dataset's files are published, under the public address of the files. */
export function datasetBase(publicBaseUrl: string, dataset: Pick<Dataset, 'primary' | 'key'>): string {
  const base = publicBaseUrl.replace(/\/+$/, '')
  return dataset.primary ? base : `${base}/${dataset.key}`
}
