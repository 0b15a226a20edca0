/*
 * Errors of the offer-file readers. The codes are part of the import API (they reach the client in
 * the 4xx body and the job record), so they never change meaning; messages are for the operator
 * and say what to do, with the numbers involved.
 */

export const FILE_ERROR_CODES = [
  'file_empty',
  'file_too_large',
  'too_many_rows',
  'unsupported_format',
  'xlsx_corrupt',
  'xlsx_encrypted',
  'xlsx_zip_bomb',
  'sheet_not_found',
  'csv_malformed',
  'header_missing',
  'duplicate_header',
] as const
export type FileErrorCode = (typeof FILE_ERROR_CODES)[number]

export class FileReadError extends Error {
  override readonly name = 'FileReadError'
  readonly code: FileErrorCode
  /** Machine-readable facts behind the message (limits, sizes, row and line numbers, sheet names). */
  readonly details?: Readonly<Record<string, unknown>>

  constructor(code: FileErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    if (details !== undefined) this.details = details
  }
}

export function isFileReadError(error: unknown): error is FileReadError {
  return error instanceof FileReadError
}

/** `52428800` → `50 MB`, `1536` → `1.5 KB`: binary units, as file managers on Windows show them. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  const shown = unit === 0 ? String(value) : String(Number(value.toFixed(1)))
  return `${shown} ${units[unit] ?? 'bytes'}`
}

/** `3` → `C`: a 1-based column number as a spreadsheet names the column. */
function columnLetters(column: number): string {
  let name = ''
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26))
    name = String.fromCharCode(65 + ((rest - 1) % 26)) + name
  return name
}

/**
 * A file error in Polish, made from its code and its details (the English `message` says the
 * same with what only the reader saw, such as a damaged ZIP part's name). Every code of
 * FILE_ERROR_CODES has a text; the details are used where the reader gives them.
 */
export function fileErrorMessagePl(code: string, details: Readonly<Record<string, unknown>> = {}): string {
  const number = (key: string): number | undefined => {
    const value = details[key]
    return typeof value === 'number' ? value : undefined
  }
  const text = (key: string): string | undefined => {
    const value = details[key]
    return typeof value === 'string' ? value : undefined
  }
  const row = number('row')
  const line = number('line')
  switch (code as FileErrorCode) {
    case 'file_empty': {
      const sheet = text('sheet')
      return sheet !== undefined
        ? `Arkusz „${sheet}” jest pusty: nie ma w nim wiersza nagłówka.`
        : 'Plik jest pusty: nie ma w nim wiersza nagłówka ani danych.'
    }
    case 'file_too_large': {
      const size = number('size')
      const limit = number('limit')
      return size !== undefined && limit !== undefined
        ? `Plik ma ${formatBytes(size)}, a limit to ${formatBytes(limit)}. Podziel oferty na mniejsze pliki.`
        : 'Plik jest za duży. Podziel oferty na mniejsze pliki.'
    }
    case 'too_many_rows': {
      const limit = number('limit')
      return limit !== undefined
        ? `Plik ma więcej wierszy danych niż dopuszczalne ${limit}. Podziel oferty na pliki po najwyżej ${limit} wierszy.`
        : 'Plik ma za dużo wierszy danych. Podziel oferty na mniejsze pliki.'
    }
    case 'unsupported_format':
      if (details.detected === 'ole')
        return (
          'Plik jest w starym formacie Excel 97-2003 (.xls) lub innym dawnym formacie Office, którego nie ' +
          'obsługujemy. Otwórz go w Excelu lub LibreOffice i zapisz jako „Skoroszyt programu Excel (.xlsx)” albo jako CSV.'
        )
      if (details.detected === 'utf-16')
        return (
          'Plik jest tekstem UTF-16 („Tekst Unicode” z Excela), którego nie obsługujemy. Zapisz go jako ' +
          '„CSV UTF-8” lub „CSV (rozdzielany średnikami)”.'
        )
      if (details.detected === 'not_xlsx')
        return (
          'Plik nie jest skoroszytem Excela: plik .xlsx to archiwum ZIP, a ten jest tekstem (najpewniej eksportem ' +
          'CSV ze zmienioną nazwą). Zapisz go w Excelu lub LibreOffice jako „Skoroszyt programu Excel (.xlsx)” ' +
          'albo wyślij go z jego prawdziwą nazwą .csv.'
        )
      return (
        'Plik nie jest arkuszem CSV ani XLSX. Zapisz go w programie arkusza kalkulacyjnego jako ' +
        '„Skoroszyt programu Excel (.xlsx)” albo jako CSV i wyślij ponownie.'
      )
    case 'xlsx_encrypted':
      return 'Skoroszyt jest chroniony hasłem, więc nie da się go odczytać. Usuń hasło w Excelu, zapisz plik i wyślij go ponownie.'
    case 'xlsx_corrupt':
      return 'Plik XLSX jest uszkodzony. Otwórz go w Excelu lub LibreOffice i zapisz ponownie jako .xlsx albo wyeksportuj oferty do CSV.'
    case 'xlsx_zip_bomb':
      return (
        'Plik XLSX po rozpakowaniu byłby podejrzanie duży (tak wyglądają tzw. bomby ZIP), więc został odrzucony. ' +
        'Usuń z niego obrazy i zbędne arkusze albo wyeksportuj oferty do CSV.'
      )
    case 'sheet_not_found': {
      const available = Array.isArray(details.available) ? details.available.map((name) => `„${String(name)}”`) : []
      return `Skoroszyt nie ma arkusza „${text('sheet') ?? ''}”.${available.length > 0 ? ` Jego arkusze to: ${available.join(', ')}.` : ''}`
    }
    case 'header_missing': {
      const column = number('column')
      return (
        `Kolumna ${column !== undefined ? `${columnLetters(column)} ` : ''}wiersza nagłówka${row !== undefined ? ` (wiersz ${row})` : ''} ` +
        'nie ma nazwy. Każda kolumna między pierwszą a ostatnią nazwaną musi mieć nagłówek: nazwij ją albo usuń.'
      )
    }
    case 'duplicate_header':
      return (
        `Wiersz nagłówka${row !== undefined ? ` (wiersz ${row})` : ''} ma dwie kolumny „${text('header') ?? ''}”, ` +
        'więc mapowanie nie odróżni ich od siebie. Zmień nazwę jednej z nich albo ją usuń.'
      )
    case 'csv_malformed':
      return csvMalformedPl(details, row, line)
  }
  return 'Nie da się odczytać pliku.'
}

function csvMalformedPl(details: Readonly<Record<string, unknown>>, row?: number, line?: number): string {
  const inLine = line !== undefined ? `Linia ${line}` : 'Część pliku'
  if (details.encoding === 'utf-8')
    return (
      `${inLine} nie jest poprawnym tekstem UTF-8, choć tekst przed nią jest: plik łączy dwa kodowania. ` +
      'Otwórz go w arkuszu kalkulacyjnym i zapisz ponownie jako „CSV UTF-8”.'
    )
  switch (details.reason) {
    case 'quote_not_closed':
      return (
        `Wiersz ${row ?? '?'} (linia ${line ?? '?'}) otwiera cudzysłów, który nigdzie się nie zamyka, więc reszta ` +
        'pliku zostałaby odczytana jako jedna wartość. Dodaj brakujący cudzysłów zamykający (").'
      )
    case 'record_too_long': {
      const limit = typeof details.limit_bytes === 'number' ? formatBytes(details.limit_bytes) : '1 MB'
      return details.quoted === false
        ? `Wiersz ${row ?? '?'} ma więcej niż ${limit} (to limit jednego wiersza): plik nie jest chyba plikiem CSV ` +
            'albo jego wiersze nie kończą się znakiem nowej linii. Zapisz go w arkuszu jako „CSV UTF-8” albo XLSX.'
        : `Wiersz ${row ?? '?'} ma więcej niż ${limit} (to limit jednego wiersza): prawdopodobnie cudzysłów (") ` +
            'nie został zamknięty albo plik nie jest plikiem CSV.'
    }
    case 'invalid_closing_quote':
      return (
        `${inLine}: po wartości w cudzysłowie są jeszcze inne znaki przed następnym separatorem. Cudzysłów ` +
        'wewnątrz wartości zapisuje się podwójnie (""), np. "Apartament ""Słoneczny""".'
      )
    case 'invalid_opening_quote':
      return (
        `${inLine}: cudzysłów (") występuje w wartości, która się od niego nie zaczyna. Ujmij całą wartość ` +
        'w cudzysłów, a cudzysłowy w środku podwój, np. "Apartament ""Słoneczny""".'
      )
  }
  const columns = typeof details.columns === 'number' ? details.columns : undefined
  const column = typeof details.column === 'number' ? details.column : undefined
  if (columns !== undefined && column !== undefined)
    return (
      `Wiersz ${row ?? '?'} ma wartość w kolumnie ${columnLetters(column)}, poza ${columns} kolumnami wiersza ` +
      'nagłówka. Wartość zawiera prawdopodobnie separator bez cudzysłowu; ujmij takie wartości w cudzysłów.'
    )
  return `${inLine} nie daje się odczytać jako CSV. Zapisz plik ponownie z arkusza kalkulacyjnego jako CSV.`
}
