/*
 * How many data rows an offer file has, counted without parsing it, so that a progress bar can
 * show a total and the time left before the preview has read the file. An estimate: a CSV value
 * holding a line break, empty lines and empty formatted sheet rows count as rows, so the reader's
 * own count stays the truth and the bar follows it when they differ.
 */
import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'

const LF = 0x0a
const CR = 0x0d
// a worksheet row element, with or without a namespace prefix (`<row r="2">`, `<x:row>`)
const ROW_ELEMENT = /<(?:[A-Za-z_][\w.-]{0,30}:)?row[\s>/]/g
const ROW_ELEMENT_MAX_LENGTH = 40

/** Data rows (the header row left out), or undefined when the file cannot be read this way. */
export async function estimateDataRows(path: string, sheet?: string): Promise<number | undefined> {
  try {
    return (await isZip(path)) ? await countSheetRows(path, sheet) : await countTextLines(path)
  } catch {
    // the preview reports what is wrong with the file; the bar merely goes without a total
    return undefined
  }
}

async function isZip(path: string): Promise<boolean> {
  const handle = await open(path, 'r')
  try {
    const head = Buffer.alloc(4)
    const { bytesRead } = await handle.read(head, 0, 4, 0)
    return bytesRead === 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5)
  } finally {
    await handle.close()
  }
}

async function countTextLines(path: string): Promise<number> {
  let lf = 0
  let cr = 0
  let last = -1
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) lf++
    // old Mac files break lines with CR alone; counted only when there is no LF at all
    if (lf === 0) for (let at = chunk.indexOf(CR); at !== -1; at = chunk.indexOf(CR, at + 1)) cr++
    if (chunk.length > 0) last = chunk[chunk.length - 1] as number
  }
  const breaks = lf > 0 ? lf : cr
  const lines = breaks + (last === -1 || last === LF || last === CR ? 0 : 1)
  return Math.max(0, lines - 1)
}

async function countSheetRows(path: string, name?: string): Promise<number> {
  const { openXlsx, selectSheet, sheetXml } = await import('./read-xlsx.js')
  const workbook = await openXlsx(path)
  const sheet = selectSheet(workbook, name?.trim() === '' ? undefined : name)
  let rows = 0
  let carry = ''
  for await (const chunk of sheetXml(workbook, sheet)) {
    const window = carry + chunk.toString('latin1')
    ROW_ELEMENT.lastIndex = 0
    // a match that lies wholly in the carried tail was counted with the previous chunk
    for (let match = ROW_ELEMENT.exec(window); match !== null; match = ROW_ELEMENT.exec(window))
      if (match.index + match[0].length > carry.length) rows++
    carry = window.slice(-ROW_ELEMENT_MAX_LENGTH)
  }
  return Math.max(0, rows - 1)
}
