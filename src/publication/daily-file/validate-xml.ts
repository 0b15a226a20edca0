/*
 * Validation of the harvester XML against the official XSD, bundled in resources/official so the
 * check needs no network and uses the exact schema the portal applies (libxml2 via WebAssembly, the
 * same validator family as the xmllint the portal's own checks are reproduced with).
 */
import { readFile } from 'node:fs/promises'

import { memoryPages, validateXML } from 'xmllint-wasm'

/** Resolves from src/publication/daily-file and from dist/publication/daily-file alike: both are three levels below the root. */
export const OFFICIAL_XSD_URL = new URL('../../../resources/official/otwarte_dane_latest.xsd', import.meta.url)

const XSD_FILE_NAME = 'otwarte_dane_latest.xsd'
const XML_FILE_NAME = 'harvester.xml'

// 900+ daily resources make a few MB of XML; the library's default 32 MiB ceiling is too tight for that.
const MAX_MEMORY_PAGES = 256 * memoryPages.MiB

let officialXsd: Promise<string> | undefined

/** The bundled XSD, read once per process; a failed read is retried on the next call. */
export function loadOfficialXsd(): Promise<string> {
  officialXsd ??= readFile(OFFICIAL_XSD_URL, 'utf8').catch((error: unknown) => {
    officialXsd = undefined
    throw error
  })
  return officialXsd
}

export interface XmlValidationResult {
  valid: boolean
  /** xmllint messages with their line numbers, e.g. `harvester.xml:4: element dataset: Schemas validity error : …`. */
  errors: string[]
}

export async function validateHarvesterXml(xml: string | Uint8Array): Promise<XmlValidationResult> {
  const schema = await loadOfficialXsd()
  try {
    const result = await validateXML({
      xml: [{ fileName: XML_FILE_NAME, contents: xml }],
      schema: [{ fileName: XSD_FILE_NAME, contents: schema }],
      maxMemoryPages: MAX_MEMORY_PAGES,
    })
    return { valid: result.valid, errors: result.errors.map((error) => error.rawMessage) }
  } catch (error) {
    // The library rejects on failures it cannot attribute to the document; the file is still not proven valid.
    return { valid: false, errors: [`xmllint: ${error instanceof Error ? error.message : String(error)}`] }
  }
}
