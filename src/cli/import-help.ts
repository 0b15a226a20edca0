/*
 * What `dg import --help` adds to the options: the canonical fields a mapping may name, each with
 * its meaning (from canonical-fields.ts), and a mapping.json to start from.
 */
import { CANONICAL_FIELDS, FIELD_DESCRIPTIONS } from '../offers/canonical-fields.js'

export const EXAMPLE_MAPPING = {
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
  return CANONICAL_FIELDS.map((field) => `  ${field.padEnd(width)}  ${FIELD_DESCRIPTIONS[field]}`)
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
