/*
 * Row errors of the shared write path (import preview rows, webhook `issues`), in Polish and in
 * English. Every error keeps `row`, `field`, `code` and `message` (docs/integration/import.md) and carries both
 * texts: `message_pl` for the sales staff who fix a file, `message_en` for integrators. `message`
 * is the Polish text; the HTTP layer sets it to `message_en` for a request that prefers English.
 *
 * The texts are made, not listed: a value parser words its reason once in each language, naming
 * the value it was given (parse-values.ts), and the error prefixes it with the field: its
 * canonical name in English (what a CRM sends), its label in Polish (what an operator sees).
 */
import type { CanonicalField } from '../canonical-fields.js'

/** `code` is typed as string so that file readers can add their own codes to the same list. */
export interface RowError {
  /** 1-based data row, as numbered by the caller. */
  row: number
  /** A canonical field name, the unknown key for `unknown_field`, or `file` for the file itself. */
  field: string
  code: string
  /** `message_pl`, until an answer is localized for its request (Accept-Language: en). */
  message: string
  message_pl: string
  message_en: string
}

/** Field labels as a Polish operator knows them (the words of the official dataset where it has them). */
export const FIELD_LABELS_PL: Readonly<Record<CanonicalField, string>> = {
  source_investment_id: 'Identyfikator inwestycji',
  source_property_id: 'Identyfikator oferty',
  prop_no: 'Oznaczenie lokalu',
  prop_type: 'Rodzaj oferty',
  property_status: 'Status oferty',
  prop_area: 'Powierzchnia',
  prop_rooms: 'Liczba pokoi',
  prop_floor: 'Piętro',
  price_m2: 'Cena za m²',
  price_m2_from: 'Data obowiązywania ceny za m²',
  price_total: 'Cena całkowita',
  price_total_from: 'Data obowiązywania ceny całkowitej',
  price_combined: 'Cena z elementami dodatkowymi',
  price_combined_from: 'Data obowiązywania ceny z elementami dodatkowymi',
  price_combined_variant: 'Wariant ceny z elementami dodatkowymi',
  price_combined_status: 'Status ceny z elementami dodatkowymi',
  proj_voivod: 'Województwo',
  proj_powiat: 'Powiat',
  proj_gmina: 'Gmina',
  proj_city: 'Miejscowość',
  proj_street: 'Ulica',
  proj_build_no: 'Numer budynku',
  proj_local_no: 'Numer lokalu',
  proj_zip: 'Kod pocztowy',
}

const LABELS: ReadonlyMap<string, string> = new Map([...Object.entries(FIELD_LABELS_PL), ['file', 'Plik']])

/** The Polish label of a field; a name that is no canonical field is shown as it was sent. */
export function fieldLabelPl(field: string): string {
  return LABELS.get(field) ?? field
}

/** An error whose texts are complete as given (they name no field, or name it themselves). */
export function rowError(row: number, field: string, code: string, texts: { pl: string; en: string }): RowError {
  return { row, field, code, message: texts.pl, message_pl: texts.pl, message_en: texts.en }
}

/** An error about one field: `en` and `pl` say why, and are prefixed with the field's name or label. */
export function fieldError(row: number, field: string, code: string, en: string, pl: string): RowError {
  return rowError(row, field, code, { pl: `${fieldLabelPl(field)}: ${pl}`, en: `${field}: ${en}` })
}

/** Grosze as Polish text: `65160000` → `651 600,00`. */
export function formatCentsPl(cents: bigint | number): string {
  const value = BigInt(cents)
  const abs = value < 0n ? -value : value
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ' ')
  return `${value < 0n ? '-' : ''}${whole},${(abs % 100n).toString().padStart(2, '0')}`
}

/** A stored area (`54.30`) as Polish text (`54,30`). */
export function formatAreaPl(area: string): string {
  return area.replace('.', ',')
}

/** A calendar date (`2026-11-07`) as Polish text (`07.11.2026`). */
export function formatDatePl(date: string): string {
  return `${date.slice(8, 10)}.${date.slice(5, 7)}.${date.slice(0, 4)}`
}
