/*
 * The official data standard is a versioned module (docs/decisions/publication-pipeline.md): its id, the date until
 * which this service applies it, and its 58 columns and rules. A new ministry standard
 * becomes a new module beside this one, never an edit of it.
 */
import { HARVESTER_NAMESPACE } from './daily-file/harvester-xml.js'
import { OFFICIAL_COLUMNS, type OfficialColumn } from './daily-file/official-columns.js'

export interface LegalContract {
  /** Stable identifier reported as `contract.id` / `contract_id`. */
  readonly id: string
  /** Review date of the module (YYYY-MM-DD): the standard itself has no end date. */
  readonly validUntil: string
  readonly title: string
  /** The columns of the daily file, in order, with their exact header texts. */
  readonly columns: readonly OfficialColumn[]
  /** Namespace of the harvester XML schema the portal validates against. */
  readonly harvesterNamespace: string
}

export const OFFICIAL_PRICES_2025: LegalContract = Object.freeze({
  id: 'pl-mrit-ceny-mieszkan-58-2025',
  validUntil: '2027-12-31',
  title: 'Wzorcowy zakres danych dotyczących cen mieszkań (58 kolumn), dane.gov.pl harvester 1.13',
  columns: OFFICIAL_COLUMNS,
  harvesterNamespace: HARVESTER_NAMESPACE,
})

export const CURRENT_LEGAL_CONTRACT: LegalContract = OFFICIAL_PRICES_2025
