// What is wrong with a chosen import file before anything else is said of it: empty, a Word
// document, an image or a PDF, an old binary format, or not a spreadsheet at all. Read from the
// file's first bytes (its content, not its name: a text file named .docx is a text file), so the
// panel never asks for a column assignment of a file the import could not read anyway.
import { formatBytes } from '../dom.js'
import { tr } from '../i18n.js'

const startsWith = (bytes, signature) => signature.every((b, i) => bytes[i] === b)

/** { code, text } of the file's own problem, or null when it may be a CSV or an XLSX. */
export async function fileProblem(file) {
  if (file.size === 0)
    return {
      code: 'file_empty',
      text: tr(
        `Plik „${file.name}” jest pusty (0 bajtów): wybierz plik z cennikiem.`,
        `The file “${file.name}” is empty (0 bytes): choose the price list file.`,
      ),
    }
  const start = new Uint8Array(await file.slice(0, 65536).arrayBuffer())
  // a document's part names are in its zip's local headers, uncompressed, within the first entries
  const zipNames = new TextDecoder('latin1').decode(start)
  const bytes = start.subarray(0, 4096)
  const head = new TextDecoder('latin1').decode(bytes)
  const kind = (pl, en) => ({
    code: 'unsupported_format',
    text: tr(
      `Plik „${file.name}” to ${pl}, a nie arkusz z cennikiem. Import przyjmuje CSV albo XLSX (w arkuszu: Zapisz jako → CSV UTF-8 lub Skoroszyt Excel).`,
      `The file “${file.name}” is ${en}, not a price list spreadsheet. The import takes CSV or XLSX (in a spreadsheet: Save as → CSV UTF-8 or Excel Workbook).`,
    ),
  })
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47])) return kind('obraz PNG', 'a PNG image')
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return kind('zdjęcie JPEG', 'a JPEG image')
  if (head.startsWith('GIF8')) return kind('obraz GIF', 'a GIF image')
  if (head.startsWith('%PDF')) return kind('dokument PDF', 'a PDF document')
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0]))
    return kind('plik w starym formacie Word/Excel (.doc/.xls)', 'a file in the old Word/Excel format (.doc/.xls)')
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    if (zipNames.includes('word/')) return kind('dokument Word (.docx)', 'a Word document (.docx)')
    if (zipNames.includes('ppt/')) return kind('prezentacja PowerPoint', 'a PowerPoint presentation')
    if (zipNames.includes('opendocument.text'))
      return kind('dokument tekstowy OpenDocument (.odt)', 'an OpenDocument text (.odt)')
    return null
  }
  if (/\.(docx?|odt|pdf|png|jpe?g|gif)$/i.test(file.name) && !/[;,\t]/.test(head))
    return kind(
      tr('plik o rozszerzeniu dokumentu lub obrazu', 'a file named like a document or an image'),
      'a file named like a document or an image',
    )
  let control = 0
  for (const b of bytes) if (b < 9 || (b > 13 && b < 32)) control++
  if (control > bytes.length / 20) return kind('plik binarny', 'a binary file')
  if (head.trim() === '')
    return {
      code: 'file_empty',
      text: tr(
        `Plik „${file.name}” ma same puste wiersze: nie ma w nim nagłówka ani danych.`,
        `The file “${file.name}” has only empty lines: no header and no data.`,
      ),
    }
  if (file.size > 1024 * 1024 && !/[\r\n]/.test(head))
    return {
      code: 'csv_malformed',
      text: tr(
        `Pierwszy wiersz pliku „${file.name}” (${formatBytes(file.size)}) nie kończy się w pierwszych 4 KB; import przyjmuje wiersze do 1 MB. To chyba nie jest plik CSV.`,
        `The first line of “${file.name}” (${formatBytes(file.size)}) does not end within 4 KB; the import takes lines up to 1 MB. This does not look like a CSV file.`,
      ),
    }
  return null
}
