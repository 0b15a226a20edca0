/*
 * What `dg import --help` adds to the options: the canonical fields a mapping may name, each with
 * its meaning, and a mapping.json to start from. Keyed by CanonicalField so that a field added to
 * the vocabulary without a line here fails the type check instead of going unexplained.
 */
import { CANONICAL_FIELDS, type CanonicalField } from '../offers/canonical-fields.js'

const FIELD_MEANINGS: Readonly<Record<CanonicalField, string>> = {
  source_investment_id: 'required: the investment’s id in your CRM (the rows of one investment share it)',
  source_property_id: 'required: the offer’s id in your CRM, unique within its investment',
  prop_no: 'designation shown to buyers, e.g. A/1.01',
  prop_type: 'mieszkanie or dom (also lokal mieszkalny, flat, dom jednorodzinny, house)',
  property_status: 'status word, Polish or English: wolne/available, rezerwacja/reserved, sprzedane/sold, …',
  prop_area: 'usable area in m², decimal text: 54,30 or 54.30',
  prop_rooms: 'number of rooms, a whole number ≥ 0',
  prop_floor: 'floor, a whole number, may be negative',
  price_m2: 'gross price per m² in zł, decimal text: 12 000,00 or 12000.00 (never 1.2E4)',
  price_m2_from: 'date the price per m² applies from, YYYY-MM-DD or DD.MM.YYYY (today when left out)',
  price_total: 'gross total price in zł, decimal text; must equal price_m2 × area within rounding',
  price_total_from: 'date the total price applies from (today when left out)',
  price_combined: 'explicit gross price of a configuration (e.g. the flat with a parking space)',
  price_combined_from: 'date the configuration price applies from',
  price_combined_variant: 'id of the configuration variant',
  price_combined_status: 'approval state of the configuration price',
  proj_voivod: 'investment location: voivodeship, e.g. mazowieckie',
  proj_powiat: 'investment location: county (powiat)',
  proj_gmina: 'investment location: municipality (gmina)',
  proj_city: 'investment location: city',
  proj_street: 'investment location: street',
  proj_build_no: 'investment location: building number',
  proj_local_no: 'unit number: checked as text, not stored (the official location has none)',
  proj_zip: 'investment location: postal code NN-NNN',
}

const EXAMPLE_MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  price_m2: 'Cena za m2',
  price_total: 'Cena',
  price_total_from: 'Cena od',
}

function describeFields(): string[] {
  const width = Math.max(...CANONICAL_FIELDS.map((field) => field.length))
  return CANONICAL_FIELDS.map((field) => `  ${field.padEnd(width)}  ${FIELD_MEANINGS[field]}`)
}

export const IMPORT_HELP = [
  '',
  'The mapping file is a JSON object: canonical field → the column header of your file (exactly as in',
  'its header row). Only source_investment_id and source_property_id are required; map the columns',
  'you have. Canonical fields:',
  ...describeFields(),
  '',
  'A custom field of offers registered by an extension (DG_EXTENSIONS) is mapped as "meta:<key>",',
  'e.g. "meta:exposure": "Ekspozycja"; its cells are read by the key\'s registered type (text, whole',
  "number, number with a comma or a dot, tak/nie) and merged into the offer's custom fields.",
  '',
  'Example mapping.json:',
  ...JSON.stringify(EXAMPLE_MAPPING, null, 2)
    .split('\n')
    .map((line) => `  ${line}`),
  '',
  'Files: CSV (UTF-8 or Windows-1250, separated by semicolons, commas or tabs) or XLSX (the first sheet,',
  'or --sheet). In patch mode an empty cell changes nothing; snapshot archives the offers of the',
  'investments in the file that the file leaves out.',
].join('\n')
