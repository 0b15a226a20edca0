/*
 * The offer file of the import benchmarks: `rows` offers in up to 200 investments (`INV-001`, …),
 * with the 24 canonical columns under the headers a Polish CRM export gives them, written as a
 * UTF-8 `;` CSV and, when asked, as an XLSX (exceljs streaming writer). The same options give the
 * same bytes in every run (a seeded generator). Used by `bench:import`, `bench:mixed`,
 * `bench:soak` and `bench:faults`.
 */
import { once } from 'node:events'
import fs from 'node:fs'

import ExcelJS from 'exceljs'

import { CANONICAL_FIELDS, type CanonicalField } from '../../src/offers/canonical-fields.js'

const POLISH_LETTERS: Readonly<Record<string, string>> = { ł: 'l', Ł: 'L' }
export const ascii = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[łŁ]/g, (letter) => POLISH_LETTERS[letter] ?? letter)
    .replace(/\u00a0/g, ' ')

/** Column headers as a Polish CRM export names them; the mapping sent with every import. */
export const HEADERS: Readonly<Record<CanonicalField, string>> = {
  source_investment_id: 'ID inwestycji',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer lokalu',
  prop_type: 'Rodzaj lokalu',
  property_status: 'Status',
  prop_area: 'Powierzchnia użytkowa [m2]',
  prop_rooms: 'Liczba pokoi',
  prop_floor: 'Piętro',
  price_m2: 'Cena za m2 [zł]',
  price_m2_from: 'Cena za m2 obowiązuje od',
  price_total: 'Cena [zł]',
  price_total_from: 'Cena obowiązuje od',
  price_combined: 'Cena łączna [zł]',
  price_combined_from: 'Cena łączna obowiązuje od',
  price_combined_variant: 'Wariant ceny łącznej',
  price_combined_status: 'Status ceny łącznej',
  proj_voivod: 'Województwo',
  proj_powiat: 'Powiat',
  proj_gmina: 'Gmina',
  proj_city: 'Miejscowość',
  proj_street: 'Ulica',
  proj_build_no: 'Nr budynku',
  proj_local_no: 'Nr lokalu w adresie',
  proj_zip: 'Kod pocztowy',
}

/** mulberry32: the same file in every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Place {
  voivodeship: string
  powiat: string
  gmina: string
  city: string
  zip: string
  /** Typical price per m² of a flat, in grosze. */
  m2: number
}

const PLACES: readonly Place[] = [
  { voivodeship: 'mazowieckie', powiat: 'Warszawa', gmina: 'Warszawa', city: 'Warszawa', zip: '02', m2: 1_750_000 },
  {
    voivodeship: 'mazowieckie',
    powiat: 'piaseczyński',
    gmina: 'Piaseczno',
    city: 'Piaseczno',
    zip: '05',
    m2: 1_000_000,
  },
  { voivodeship: 'małopolskie', powiat: 'Kraków', gmina: 'Kraków', city: 'Kraków', zip: '30', m2: 1_600_000 },
  { voivodeship: 'małopolskie', powiat: 'wielicki', gmina: 'Wieliczka', city: 'Wieliczka', zip: '32', m2: 950_000 },
  { voivodeship: 'dolnośląskie', powiat: 'Wrocław', gmina: 'Wrocław', city: 'Wrocław', zip: '53', m2: 1_350_000 },
  { voivodeship: 'dolnośląskie', powiat: 'wrocławski', gmina: 'Siechnice', city: 'Siechnice', zip: '55', m2: 850_000 },
  { voivodeship: 'pomorskie', powiat: 'Gdańsk', gmina: 'Gdańsk', city: 'Gdańsk', zip: '80', m2: 1_500_000 },
  { voivodeship: 'pomorskie', powiat: 'Gdynia', gmina: 'Gdynia', city: 'Gdynia', zip: '81', m2: 1_450_000 },
  { voivodeship: 'wielkopolskie', powiat: 'Poznań', gmina: 'Poznań', city: 'Poznań', zip: '61', m2: 1_150_000 },
  { voivodeship: 'wielkopolskie', powiat: 'poznański', gmina: 'Luboń', city: 'Luboń', zip: '62', m2: 800_000 },
  { voivodeship: 'łódzkie', powiat: 'Łódź', gmina: 'Łódź', city: 'Łódź', zip: '90', m2: 900_000 },
  { voivodeship: 'śląskie', powiat: 'Katowice', gmina: 'Katowice', city: 'Katowice', zip: '40', m2: 1_000_000 },
  { voivodeship: 'śląskie', powiat: 'Gliwice', gmina: 'Gliwice', city: 'Gliwice', zip: '44', m2: 850_000 },
  { voivodeship: 'lubelskie', powiat: 'Lublin', gmina: 'Lublin', city: 'Lublin', zip: '20', m2: 950_000 },
  { voivodeship: 'podkarpackie', powiat: 'Rzeszów', gmina: 'Rzeszów', city: 'Rzeszów', zip: '35', m2: 900_000 },
  { voivodeship: 'podlaskie', powiat: 'Białystok', gmina: 'Białystok', city: 'Białystok', zip: '15', m2: 850_000 },
  {
    voivodeship: 'kujawsko-pomorskie',
    powiat: 'Bydgoszcz',
    gmina: 'Bydgoszcz',
    city: 'Bydgoszcz',
    zip: '85',
    m2: 800_000,
  },
  { voivodeship: 'kujawsko-pomorskie', powiat: 'Toruń', gmina: 'Toruń', city: 'Toruń', zip: '87', m2: 850_000 },
  { voivodeship: 'warmińsko-mazurskie', powiat: 'Olsztyn', gmina: 'Olsztyn', city: 'Olsztyn', zip: '10', m2: 800_000 },
  {
    voivodeship: 'zachodniopomorskie',
    powiat: 'Szczecin',
    gmina: 'Szczecin',
    city: 'Szczecin',
    zip: '71',
    m2: 900_000,
  },
  {
    voivodeship: 'lubuskie',
    powiat: 'Zielona Góra',
    gmina: 'Zielona Góra',
    city: 'Zielona Góra',
    zip: '65',
    m2: 750_000,
  },
  { voivodeship: 'opolskie', powiat: 'Opole', gmina: 'Opole', city: 'Opole', zip: '45', m2: 750_000 },
  { voivodeship: 'świętokrzyskie', powiat: 'Kielce', gmina: 'Kielce', city: 'Kielce', zip: '25', m2: 750_000 },
]
const STREETS = [
  'Słoneczna',
  'Kwiatowa',
  'Leśna',
  'Ogrodowa',
  'Lipowa',
  'Brzozowa',
  'Polna',
  'Łąkowa',
  'Jana Pawła II',
  'Grunwaldzka',
  'Żeromskiego',
  'Marii Skłodowskiej-Curie',
  'Wrzosowa',
  'Zielona',
]
/** Status words as operators type them; the validator folds case and diacritics. */
const STATUSES: readonly (readonly [string, number])[] = [
  ['wolne', 0.4],
  ['Wolne', 0.15],
  ['rezerwacja', 0.08],
  ['Rezerwacja', 0.04],
  ['sprzedane', 0.25],
  ['Sprzedane', 0.08],
]

interface Investment {
  id: string
  place: Place
  voivodeshipText: string
  street: string
  buildingNo: string
  zip: string
  /** Thousands separator of this CRM's export: a space or a no-break space, as Polish Excel writes. */
  group: string
  counters: { flat: number; house: number; parking: number; storage: number; garage: number }
}

/** One offer row: the text a CSV holds for each canonical field ('' for an empty cell), plus typed cells for XLSX. */
interface Generated {
  text: string[]
  cells: (string | number | null)[]
}

export interface OfferFileOptions {
  rows: number
  /** Polish letters written without diacritics (`śląskie` → `slaskie`), headers included. */
  asciiOnly?: boolean
  /**
   * Added to every price per m² (and so to the totals): a file that updates every offer of the
   * file made without it. 100 keeps prices in whole złoty.
   */
  m2PlusCents?: number
}

export interface OfferFile {
  rows: number
  investments: number
  /** Canonical field → column header: the mapping sent with the import. */
  mapping: Record<CanonicalField, string>
  /** Writes the CSV and, when `xlsxPath` is given, the XLSX of the same rows. */
  generateFiles(csvPath: string, xlsxPath?: string): Promise<void>
}

export function offerFile(options: OfferFileOptions): OfferFile {
  const rows = options.rows
  const asciiOnly = options.asciiOnly ?? false
  const m2PlusCents = options.m2PlusCents ?? 0
  const investmentCount = Math.max(1, Math.min(200, Math.floor(rows / 5)))
  const mapping: Record<CanonicalField, string> = { ...HEADERS }
  if (asciiOnly) for (const field of CANONICAL_FIELDS) mapping[field] = ascii(HEADERS[field])

  const random = prng(20260401)
  const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1))
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const pad = (value: number, width: number) => String(value).padStart(width, '0')

  const investments: Investment[] = Array.from({ length: investmentCount }, (_, i) => {
    const place = PLACES[i % PLACES.length] as Place
    return {
      id: `INV-${pad(i + 1, 3)}`,
      place,
      voivodeshipText: i % 7 === 3 ? `woj. ${place.voivodeship}` : place.voivodeship,
      street: pick(STREETS),
      buildingNo: `${between(1, 180)}${i % 3 === 0 ? pick(['A', 'B', 'C']) : ''}`,
      zip: `${place.zip}-${pad(between(0, 999), 3)}`,
      group: i % 2 === 0 ? ' ' : '\u00a0',
      counters: { flat: 0, house: 0, parking: 0, storage: 0, garage: 0 },
    }
  })

  function status(): string {
    let r = random()
    for (const [word, weight] of STATUSES) {
      r -= weight
      if (r < 0) return word
    }
    return 'wolne'
  }

  function date(): string {
    return `2026-${pad(between(1, 6), 2)}-${pad(between(1, 28), 2)}`
  }

  /** Grosze → `12 345,67`. */
  function money(cents: number, group: string): string {
    const zloty = String(Math.floor(cents / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, group)
    return `${zloty},${pad(cents % 100, 2)}`
  }

  const area = (hundredths: number) => `${Math.floor(hundredths / 100)},${pad(hundredths % 100, 2)}`

  function offerRow(index: number): Generated {
    const inv = investments[Math.min(investmentCount - 1, Math.floor((index * investmentCount) / rows))] as Investment
    const c = inv.counters
    const kind = random()
    let type: string
    let code: string
    let areaHundredths: number
    let rooms: number | null
    let floorNo: number
    let m2: number
    let localNo = ''
    if (kind < 0.8) {
      const n = c.flat++
      type = 'mieszkanie'
      floorNo = Math.floor(n / 8) % 12
      const unit = (n % 8) + 1
      code = `${String.fromCharCode(65 + (Math.floor(n / 96) % 8))}/${floorNo}.${pad(unit, 2)}`
      rooms = between(1, 5)
      areaHundredths = rooms * 1500 + between(1000, 2500) + between(0, 99)
      m2 = Math.round(inv.place.m2 * (0.85 + random() * 0.35))
      localNo = String(n + 1)
    } else if (kind < 0.85) {
      const n = ++c.house
      type = pick(['dom', 'dom jednorodzinny'])
      code = `D${n}`
      floorNo = 0
      rooms = between(4, 7)
      areaHundredths = between(9000, 18000)
      m2 = Math.round(inv.place.m2 * (0.6 + random() * 0.2))
    } else {
      // parking spaces, storage rooms and garages, exported without a type: the import takes flats and
      // houses only and creates these unqualified; their type is set in the editor
      const part = kind < 0.93 ? 'miejsce postojowe' : kind < 0.97 ? 'komórka lokatorska' : 'garaż'
      type = ''
      rooms = null
      floorNo = -between(1, 2)
      if (part === 'miejsce postojowe') {
        code = `MP/${floorNo}.${pad(++c.parking, 3)}`
        areaHundredths = between(1250, 1500)
        m2 = between(300_000, 600_000)
      } else if (part === 'komórka lokatorska') {
        code = `K/${floorNo}.${pad(++c.storage, 3)}`
        areaHundredths = between(250, 800)
        m2 = between(400_000, 700_000)
      } else {
        code = `G/${floorNo}.${pad(++c.garage, 2)}`
        areaHundredths = between(1600, 2200)
        m2 = between(350_000, 550_000)
      }
    }
    // whole złoty per m² for most CRMs, grosze for some
    if (index % 5 !== 0) m2 = Math.round(m2 / 100) * 100
    m2 += m2PlusCents
    const total = Math.floor((m2 * areaHundredths + 50) / 100)
    const priceDate = date()
    const combined = type === 'mieszkanie' && random() < 0.3
    const extra = combined ? between(40_000, 90_000) * 100 : 0
    const combinedVariant = combined ? pick(['z miejscem postojowym', 'z komórką lokatorską', 'z garażem']) : ''
    const combinedStatus = combined ? pick(['obowiązuje', 'promocja']) : ''
    const combinedDate = combined ? priceDate : ''
    const { place } = inv
    const propertyId = String(100_001 + index)
    const text = [
      inv.id,
      propertyId,
      code,
      type,
      status(),
      area(areaHundredths),
      rooms === null ? '' : String(rooms),
      String(floorNo),
      money(m2, inv.group),
      priceDate,
      money(total, inv.group),
      priceDate,
      combined ? money(total + extra, inv.group) : '',
      combinedDate,
      combinedVariant,
      combinedStatus,
      inv.voivodeshipText,
      place.powiat,
      place.gmina,
      place.city,
      inv.street,
      inv.buildingNo,
      localNo,
      inv.zip,
    ]
    if (asciiOnly) for (let i = 0; i < text.length; i++) text[i] = ascii(text[i] ?? '')
    const cells = text.map((value) => (value === '' ? null : value)) as (string | number | null)[]
    cells[5] = areaHundredths / 100
    cells[6] = rooms
    cells[7] = floorNo
    cells[8] = m2 / 100
    cells[10] = total / 100
    cells[12] = combined ? (total + extra) / 100 : null
    return { text, cells }
  }

  async function generateFiles(csvPath: string, xlsxPath?: string): Promise<void> {
    const csv = fs.createWriteStream(csvPath)
    const workbook = xlsxPath
      ? new ExcelJS.stream.xlsx.WorkbookWriter({ filename: xlsxPath, useSharedStrings: false, useStyles: false })
      : undefined
    const sheet = workbook?.addWorksheet('Oferty')
    const headers = CANONICAL_FIELDS.map((field) => mapping[field])
    sheet?.addRow(headers).commit()
    let chunk = `\ufeff${headers.join(';')}\r\n`
    for (let i = 0; i < rows; i++) {
      const row = offerRow(i)
      if (row.text.some((value) => /[;"\r\n]/.test(value))) throw new Error(`row ${i} would need quoting`)
      chunk += `${row.text.join(';')}\r\n`
      sheet?.addRow(row.cells).commit()
      if (i % 2000 === 1999 || i === rows - 1) {
        if (!csv.write(chunk)) await once(csv, 'drain')
        chunk = ''
        // lets the ZIP stream drain the committed rows
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
    csv.end()
    await once(csv, 'finish')
    sheet?.commit()
    await workbook?.commit()
  }

  return { rows, investments: investmentCount, mapping, generateFiles }
}
