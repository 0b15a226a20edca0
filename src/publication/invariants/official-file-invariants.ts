/*
 * The legal rules of a published day's file, checked on the file's own rows just before it is
 * written, whatever produced it (the catalog, a report import, a future channel): an input path may
 * refuse earlier, never instead. They read the bytes that will be served, so a file cannot pass
 * them by being built another way. A violation refuses the publication; a gap (a unit on offer
 * shown without one of its prices) is published all the same and named in a warning.
 *
 * The rules, for the file of day D:
 * - no "valid from" date after D (a price announced for a later day is not that day's price);
 * - every flat or house has its price per m² (38) and its total (40); every part sold alone its
 *   price (46 or 50): a missing one is a named gap;
 * - the combined price (42), when given, is not below the total (40): it is the total plus the
 *   required parts (art. 19a ust. 1);
 * - one elementary value per cell: money as `1234.50`, dates as `YYYY-MM-DD`, no line breaks;
 * - the developer's name fits the titles of the harvester XML (300 characters each).
 */
import { englishCount, polishCount } from '../../host/plural.js'
import { issue, type PublicationIssue } from '../publication-issue.js'
import { OFFICIAL_COLUMN_COUNT, OFFICIAL_COLUMN_INDEX, type OfficialColumnKey } from '../daily-file/official-columns.js'

/** The template's "not applicable" sign. */
const X = 'X'

const MONEY = /^(0|[1-9]\d*)\.\d{2}$/
const DATE = /^\d{4}-\d{2}-\d{2}$/

/** The longest developer name whose resource and dataset titles stay within the XSD's 300 characters. */
export const MAX_DEVELOPER_NAME_LENGTH = 200

/** Price columns with the date column beside them (1-based numbers in the messages). */
const PRICE_PAIRS: ReadonlyArray<readonly [OfficialColumnKey, OfficialColumnKey]> = [
  ['price_m2', 'price_m2_from'],
  ['price_total', 'price_total_from'],
  ['price_combined', 'price_combined_from'],
  ['part_price', 'part_price_from'],
  ['room_price', 'room_price_from'],
  ['right_value', 'right_value_from'],
  ['other_payment_value', 'other_payment_value_from'],
]

const col = (key: OfficialColumnKey): number => OFFICIAL_COLUMN_INDEX[key]
const number = (key: OfficialColumnKey): number => OFFICIAL_COLUMN_INDEX[key] + 1

/** A unit of the file: where it is and how the file names it. */
export interface InvariantUnit {
  /** Column 37 for a flat or house, the part's designation (45 or 49) for a part sold alone. */
  code: string
  /** Column 32 (town) and 33 (street) of the investment, to tell units of two investments apart. */
  place: string
  /** 1-based line of the file (the header is line 1). */
  line: number
}

export type InvariantViolationCode =
  | 'invariant_price_date_after_day'
  | 'invariant_combined_below_total'
  | 'invariant_cell_not_elementary'
  | 'invariant_developer_name_too_long'

export type InvariantGapCode = 'offer_price_missing' | 'offer_price_m2_missing' | 'offer_price_total_missing'

export interface InvariantReport {
  /** The day the file is for. */
  day: string
  /** Rules broken: the file must not be published (each a PublicationIssue with day and unit). */
  violations: PublicationIssue[]
  /** Units on offer shown without a price: published, each kind one warning naming the units. */
  gaps: PublicationIssue[]
  /** How many units of each gap kind (offer_price_missing…), for the outcome and /status. */
  gapCounts: Record<InvariantGapCode, number>
  /** Data rows read. */
  rows: number
}

const MAX_VIOLATIONS = 50
const NAMED_IN_MESSAGE = 20

interface UnitState {
  unit: InvariantUnit
  dwelling: boolean
  m2: boolean
  total: boolean
}

/**
 * Checks a file fed in pieces (bytes as they are written), or its rows one by one. Call finish()
 * once, after the last piece. The header line is skipped (the byte check compares it).
 */
export class OfficialFileInvariants {
  private readonly violations: PublicationIssue[] = []
  private readonly units = new Map<string, UnitState>()
  private readonly decoder = new TextDecoder('utf-8', { fatal: false })
  private pending = ''
  /** How much of `pending` was scanned, and whether that point is inside quotes. */
  private scanned = 0
  private inQuotes = false
  private line = 0
  private rows = 0
  private nameChecked = false

  constructor(readonly day: string) {
    if (!DATE.test(day)) throw new Error(`OfficialFileInvariants needs a YYYY-MM-DD day, got "${day}"`)
  }

  /** A piece of the file's bytes (UTF-8); records may span pieces. */
  feed(chunk: Uint8Array): void {
    this.pending += this.decoder.decode(chunk, { stream: true })
    this.drain(false)
  }

  /** One data row as its 58 cell values (unquoted), at its 1-based line of the file. */
  checkRow(cells: readonly string[], line: number): void {
    this.rows++
    if (cells.length !== OFFICIAL_COLUMN_COUNT) return // the byte check reports the column count
    const type = cells[col('property_type')] as string
    // a flat or a house names its kind in column 36 (a report may spell it its own way); a part sold
    // alone has X there and its own block
    const dwelling = type !== X && type !== ''
    const place = `${cells[col('loc_city')] ?? ''}, ${cells[col('loc_street')] ?? ''}`
    const code = dwelling
      ? (cells[col('property_code')] as string)
      : firstGiven(cells[col('part_designation')], cells[col('room_designation')], cells[col('property_code')])
    const unit: InvariantUnit = { code, place, line }

    if (!this.nameChecked) {
      this.nameChecked = true
      const name = cells[col('developer_name')] as string
      if ([...name].length > MAX_DEVELOPER_NAME_LENGTH)
        this.violation(
          'invariant_developer_name_too_long',
          `Nazwa dewelopera ma ${[...name].length} znaków; tytuły zasobów w pliku XML dane.gov.pl mieszczą najwyżej ${MAX_DEVELOPER_NAME_LENGTH}. Skróć nazwę w ustawieniach publikacji (dane dewelopera), np. do nazwy z KRS bez dopisków.`,
          `The developer's name has ${[...name].length} characters; the XML titles allow ${MAX_DEVELOPER_NAME_LENGTH}. Shorten the name in the publication settings.`,
          unit,
          { column: number('developer_name') },
        )
    }

    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i] as string
      if (/[\r\n\t]/.test(cell))
        this.violation(
          'invariant_cell_not_elementary',
          `Komórka w kolumnie ${i + 1} zawiera znak nowej linii lub tabulacji; każda komórka ma mieć jedną wartość w jednej linii. Popraw tę wartość w danych oferty.`,
          `The cell of column ${i + 1} holds a line break or a tab; every cell holds one value on one line.`,
          unit,
          { column: i + 1 },
        )
    }

    for (const [priceKey, dateKey] of PRICE_PAIRS) {
      const price = cells[col(priceKey)] as string
      const date = cells[col(dateKey)] as string
      if (price === '' || date === '') continue // an empty cell is the byte rules' finding
      if (price !== X && !MONEY.test(price))
        this.violation(
          'invariant_cell_not_elementary',
          `Kolumna ${number(priceKey)} ma „${short(price)}” zamiast jednej kwoty w postaci 1234.50. Wpisz jedną kwotę w złotych.`,
          `Column ${number(priceKey)} holds "${short(price)}" instead of one amount like 1234.50.`,
          unit,
          { column: number(priceKey) },
        )
      if (date !== X && !DATE.test(date))
        this.violation(
          'invariant_cell_not_elementary',
          `Kolumna ${number(dateKey)} ma „${short(date)}” zamiast jednej daty RRRR-MM-DD.`,
          `Column ${number(dateKey)} holds "${short(date)}" instead of one YYYY-MM-DD date.`,
          unit,
          { column: number(dateKey) },
        )
      else if (date !== X && date > this.day)
        this.violation(
          'invariant_price_date_after_day',
          `Plik z dnia ${this.day}: ${unitName(unit)} ma w kolumnie ${number(dateKey)} cenę obowiązującą od ${date}, czyli po tym dniu. Cena zapowiedziana na później nie jest ceną tego dnia: plik tego dnia podaje cenę obowiązującą w tym dniu.`,
          `The file of ${this.day}: ${unitName(unit)} has a price valid from ${date} in column ${number(dateKey)}, after that day.`,
          unit,
          { column: number(dateKey), valid_from: date },
        )
      if ((price === X) !== (date === X))
        this.violation(
          'invariant_cell_not_elementary',
          `Kolumna ${number(priceKey)} i data obok niej (kolumna ${number(dateKey)}) muszą być podane razem albo obie mieć X.`,
          `Column ${number(priceKey)} and its date (column ${number(dateKey)}) are given together or both X.`,
          unit,
          { column: number(dateKey) },
        )
    }

    const total = cells[col('price_total')] as string
    const combined = cells[col('price_combined')] as string
    if (MONEY.test(total) && MONEY.test(combined) && cents(combined) < cents(total))
      this.violation(
        'invariant_combined_below_total',
        `Plik z dnia ${this.day}: ${unitName(unit)} ma cenę łączną (kolumna 42) ${combined} zł niższą niż cena lokalu (kolumna 40) ${total} zł. Cena łączna to cena lokalu powiększona o ceny części, pomieszczeń przynależnych i praw, które nabywca musi kupić: popraw ją w edytorze oferty („Przelicz cenę łączną”) albo usuń.`,
        `The file of ${this.day}: ${unitName(unit)} has a combined price (column 42) of ${combined} below its total (column 40) of ${total}.`,
        unit,
        { column: number('price_combined'), price_combined: combined, price_total: total },
      )

    // a unit's main row is its first; further rows of a flat repeat 36–37 with X in 38–43
    const key = `${place}\u0000${type}\u0000${code}`
    const known = this.units.get(key)
    const state = known ?? { unit, dwelling, m2: false, total: false }
    if (!known) this.units.set(key, state)
    if (dwelling) {
      if (cells[col('price_m2')] !== X) state.m2 = true
      if (total !== X) state.total = true
    } else if (!known) {
      // a part sold alone: the price of its own block (46 or 50) is its only price
      const own = code === cells[col('part_designation')] ? 'part_price' : 'room_price'
      // one price only: without it the part has no price at all
      if (cells[col(own)] !== X) state.m2 = state.total = true
    }
  }

  finish(): InvariantReport {
    this.pending += this.decoder.decode()
    this.drain(true)
    const missing: Record<InvariantGapCode, InvariantUnit[]> = {
      offer_price_missing: [],
      offer_price_m2_missing: [],
      offer_price_total_missing: [],
    }
    for (const state of this.units.values()) {
      if (!state.m2 && !state.total) missing.offer_price_missing.push(state.unit)
      else if (!state.total) missing.offer_price_total_missing.push(state.unit)
      else if (!state.m2 && state.dwelling) missing.offer_price_m2_missing.push(state.unit)
    }
    const gaps: PublicationIssue[] = []
    const day = this.day
    const list = (units: InvariantUnit[]) => {
      const shown = units.slice(0, NAMED_IN_MESSAGE).map((u) => u.code)
      const more = units.length - shown.length
      return {
        pl: shown.join(', ') + (more > 0 ? ` i ${polishCount(more, ['inny', 'inne', 'innych'])}` : ''),
        en: shown.join(', ') + (more > 0 ? ` and ${more} more` : ''),
      }
    }
    const details = (units: InvariantUnit[]) => ({
      day,
      count: units.length,
      units: units.map((u) => ({ code: u.code, place: u.place, line: u.line })),
    })
    if (missing.offer_price_missing.length > 0) {
      const n = list(missing.offer_price_missing)
      gaps.push(
        issue(
          'offer_price_missing',
          `Plik z dnia ${day}: ${polishCount(missing.offer_price_missing.length, ['oferowany lokal nie ma', 'oferowane lokale nie mają', 'oferowanych lokali nie ma'])} ceny (X zamiast ceny): ${n.pl}. Ustawa wymaga ceny każdego oferowanego lokalu: uzupełnij cenę albo zmień status oferty.`,
          `The file of ${day}: ${englishCount(missing.offer_price_missing.length, ['offered unit has', 'offered units have'])} no price: ${n.en}.`,
          details(missing.offer_price_missing),
        ),
      )
    }
    if (missing.offer_price_m2_missing.length > 0) {
      const n = list(missing.offer_price_m2_missing)
      gaps.push(
        issue(
          'offer_price_m2_missing',
          `Plik z dnia ${day}: ${polishCount(missing.offer_price_m2_missing.length, ['lokal ma cenę całkowitą, ale nie ma', 'lokale mają cenę całkowitą, ale nie mają', 'lokali ma cenę całkowitą, ale nie ma'])} ceny za m² (X w kolumnach 38–39): ${n.pl}. Podaj cenę za m² w edytorze oferty (pole „Cena za m²”) albo w imporcie.`,
          `The file of ${day}: ${englishCount(missing.offer_price_m2_missing.length, ['unit has', 'units have'])} a total but no price per m² (X in columns 38–39): ${n.en}.`,
          details(missing.offer_price_m2_missing),
        ),
      )
    }
    if (missing.offer_price_total_missing.length > 0) {
      const n = list(missing.offer_price_total_missing)
      gaps.push(
        issue(
          'offer_price_total_missing',
          `Plik z dnia ${day}: ${polishCount(missing.offer_price_total_missing.length, ['oferowany lokal nie ma', 'oferowane lokale nie mają', 'oferowanych lokali nie ma'])} ceny całkowitej (X w kolumnach 40–41 lub w cenie części): ${n.pl}. Podaj cenę całkowitą w edytorze oferty (pole „Cena całkowita”) albo w imporcie.`,
          `The file of ${day}: ${englishCount(missing.offer_price_total_missing.length, ['offered unit has', 'offered units have'])} no total price: ${n.en}.`,
          details(missing.offer_price_total_missing),
        ),
      )
    }
    return {
      day,
      violations: this.violations.slice(0, MAX_VIOLATIONS),
      gaps,
      gapCounts: {
        offer_price_missing: missing.offer_price_missing.length,
        offer_price_m2_missing: missing.offer_price_m2_missing.length,
        offer_price_total_missing: missing.offer_price_total_missing.length,
      },
      rows: this.rows,
    }
  }

  private violation(
    code: InvariantViolationCode,
    pl: string,
    en: string,
    unit: InvariantUnit,
    details: Record<string, unknown>,
  ): void {
    if (this.violations.length >= MAX_VIOLATIONS) return
    this.violations.push(
      issue(code, pl, en, { day: this.day, unit: unit.code, place: unit.place, line: unit.line, ...details }),
    )
  }

  /** Splits whole records off the pending text; quoted cells may hold `;`, quotes and line ends. */
  private drain(final: boolean): void {
    const text = this.pending
    let recordStart = 0
    let inQuotes = this.inQuotes
    for (let i = this.scanned; i < text.length; i++) {
      const ch = text.charCodeAt(i)
      // a doubled quote toggles twice: the state is right at every line end
      if (ch === 0x22) inQuotes = !inQuotes
      else if (ch === 0x0a && !inQuotes) {
        this.record(parseRecord(text.slice(recordStart, i)))
        recordStart = i + 1
      }
    }
    if (final) {
      if (recordStart < text.length) this.record(parseRecord(text.slice(recordStart)))
      this.pending = ''
      this.scanned = 0
      this.inQuotes = false
      return
    }
    this.pending = text.slice(recordStart)
    this.scanned = this.pending.length
    this.inQuotes = inQuotes
  }

  private record(cells: string[]): void {
    this.line++
    if (this.line === 1) return // the header
    this.checkRow(cells, this.line)
  }
}

/** The cells of one record (without its line end): `;` separates, `"` quotes, `""` is a quote. */
function parseRecord(record: string): string[] {
  if (!record.includes('"')) return record.split(';')
  const cells: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < record.length; i++) {
    const ch = record[i] as string
    if (quoted) {
      if (ch === '"') {
        if (record[i + 1] === '"') {
          cell += '"'
          i++
        } else quoted = false
      } else cell += ch
    } else if (ch === '"') quoted = true
    else if (ch === ';') {
      cells.push(cell)
      cell = ''
    } else cell += ch
  }
  cells.push(cell)
  return cells
}

function firstGiven(...values: (string | undefined)[]): string {
  for (const value of values) if (value !== undefined && value !== X && value !== '') return value
  return X
}

function cents(money: string): number {
  const [zl, gr] = money.split('.') as [string, string]
  return Number(zl) * 100 + Number(gr)
}

function short(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}

function unitName(unit: InvariantUnit): string {
  return `lokal ${unit.code} (${unit.place}, wiersz ${unit.line})`
}

/** The rules on a whole file in memory (a report's converted file, an audit of a stored file). */
export function checkOfficialFile(content: Uint8Array | string, day: string): InvariantReport {
  const checker = new OfficialFileInvariants(day)
  checker.feed(typeof content === 'string' ? Buffer.from(content, 'utf8') : content)
  return checker.finish()
}

/** The rules on data rows given as cell values (no header), e.g. rows an audit has parsed itself. */
export function checkOfficialRows(rows: readonly (readonly string[])[], day: string): InvariantReport {
  const checker = new OfficialFileInvariants(day)
  rows.forEach((cells, index) => checker.checkRow(cells, index + 2))
  return checker.finish()
}
