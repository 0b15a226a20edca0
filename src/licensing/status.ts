import type { HostContext } from '../host/context.js'
import { getLastPublication, getLastPublicationFailure, getPublicDatasetId } from '../publication/dataset.js'
import { CURRENT_LEGAL_CONTRACT } from '../publication/legal-contract.js'
import { PLUGIN_VERSION } from '../version.js'
import { getLicenseState } from './license.js'

export async function getServiceStatus(ctx: HostContext) {
  const [license, lastPublication, datasetId, failure] = await Promise.all([
    getLicenseState(ctx),
    getLastPublication(ctx),
    getPublicDatasetId(ctx),
    getLastPublicationFailure(ctx),
  ])
  return {
    version: PLUGIN_VERSION,
    contract_id: CURRENT_LEGAL_CONTRACT.id,
    license_status: license.status,
    continuity_mode: license.continuity_mode,
    last_publication: lastPublication,
    public_dataset_id: datasetId,
    last_publication_failure: failure,
  }
}
