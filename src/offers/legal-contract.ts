/*
 * The legal contract the offers' prices are published under: the ministry's data standard for
 * flat and house prices, by its id and the date until which this service applies it. The catalog,
 * /status and the preflight report it; the files it prescribes (the 58 columns, the harvester XML)
 * are the publication's (publication/daily-file/official-format.ts). A new ministry standard
 * becomes a new contract beside this one, never an edit of it (docs/decisions/publication-pipeline.md).
 */

export interface LegalContract {
  /** Stable identifier reported as `contract.id` / `contract_id`. */
  readonly id: string
  /** Review date of the module (YYYY-MM-DD): the standard itself has no end date. */
  readonly validUntil: string
  readonly title: string
}

export const OFFICIAL_PRICES_2025: LegalContract = Object.freeze({
  id: 'pl-mrit-ceny-mieszkan-58-2025',
  validUntil: '2027-12-31',
  title: 'Wzorcowy zakres danych dotyczących cen mieszkań (58 kolumn), dane.gov.pl harvester 1.13',
})

export const CURRENT_LEGAL_CONTRACT: LegalContract = OFFICIAL_PRICES_2025
