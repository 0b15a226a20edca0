/* GET /status: the licence, the last publication of each dataset, missed days and recent alerts in one answer. */
import { recentAlerts } from '../alerts/alert-service.js'
import type { HostContext } from '../host/context.js'
import { getLastPublication, getLastPublicationFailure, getPublicDatasetId } from '../publication/daily-file/dataset.js'
import { CURRENT_LEGAL_CONTRACT } from '../offers/legal-contract.js'
import { getPublicationSettings } from '../publication/settings/publication-settings.js'
import { countUntypedListedOffers } from '../publication/publications-repository.js'
import { missedDays } from '../publication/publishing/publication-days.js'
import { todayInWarsaw } from '../host/warsaw-day.js'
import { datasetBase, datasetStore, listDatasets } from '../publication/daily-file/datasets.js'
import { publicationStore, XML_NAME } from '../publication/publication-store.js'
import { SERVICE_VERSION } from '../version.js'
import { getLicenseState } from '../licensing/license.js'

export async function getServiceStatus(ctx: HostContext) {
  const [license, lastPublication, datasetId, failure, settings, manifest] = await Promise.all([
    getLicenseState(ctx),
    getLastPublication(ctx),
    getPublicDatasetId(ctx),
    getLastPublicationFailure(ctx),
    getPublicationSettings(ctx),
    publicationStore(ctx).currentManifest(),
  ])
  const listed = (manifest?.days ?? []).map((d) => d.date)
  const today = todayInWarsaw(ctx)
  // days before today without a file (today is the schedule's to publish)
  const primaryMissed = missedDays(listed, today)
  const datasets = await Promise.all(
    (await listDatasets(ctx)).map(async (dataset) => {
      const developerId = dataset.primary ? null : dataset.developer.id
      const [last, failed, datasetManifest] = await Promise.all([
        getLastPublication(ctx, developerId),
        getLastPublicationFailure(ctx, developerId),
        datasetStore(ctx, dataset).currentManifest(),
      ])
      const base = settings.public_base_url ? datasetBase(settings.public_base_url, dataset) : null
      return {
        developer_id: dataset.developer.id,
        developer_name: dataset.developer.name,
        nip: dataset.developer.nip,
        public_dataset_id: dataset.extIdent,
        xml_url: base === null ? null : `${base}/${XML_NAME}`,
        last_publication: last,
        last_publication_failure: failed,
        missed_days: missedDays(
          (datasetManifest?.days ?? []).map((d) => d.date),
          today,
        ),
      }
    }),
  )
  // every entity's missed days: a day the second company missed is as much a legal gap
  const missed = [...new Set([...primaryMissed, ...datasets.flatMap((d) => d.missed_days)])].sort()
  return {
    version: SERVICE_VERSION,
    contract_id: CURRENT_LEGAL_CONTRACT.id,
    license_status: license.status,
    continuity_mode: license.continuity_mode,
    last_publication: lastPublication,
    public_dataset_id: datasetId,
    last_publication_failure: failure,
    offers_without_type: await countUntypedListedOffers(ctx.db, settings.published_statuses),
    missed_days: missed,
    datasets,
    alerts: await recentAlerts(ctx),
  }
}
