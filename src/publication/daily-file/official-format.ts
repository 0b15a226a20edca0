/*
 * The files the current legal contract prescribes: the daily CSV's columns, in order, with their
 * exact header texts, and the namespace of the harvester XML the portal validates against. A new
 * ministry standard brings a format of its own beside this one, never an edit of it.
 */
import { CURRENT_LEGAL_CONTRACT, type LegalContract } from '../../offers/legal-contract.js'
import { HARVESTER_NAMESPACE } from './harvester-xml.js'
import { OFFICIAL_COLUMNS, type OfficialColumn } from './official-columns.js'

export interface OfficialFormat {
  readonly contract: LegalContract
  readonly columns: readonly OfficialColumn[]
  readonly harvesterNamespace: string
}

export const CURRENT_OFFICIAL_FORMAT: OfficialFormat = Object.freeze({
  contract: CURRENT_LEGAL_CONTRACT,
  columns: OFFICIAL_COLUMNS,
  harvesterNamespace: HARVESTER_NAMESPACE,
})
