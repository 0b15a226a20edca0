/*
 * The header row of a source's file, fetched once with the source's own settings (address,
 * headers, allowed private hosts, trusted certificate, sheet), so the panel can assign columns
 * from the file itself before the source is saved. Nothing is stored: the file is read up to its
 * header and removed. The same fetch and address guard as a run.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, rm } from 'node:fs/promises'
import path from 'node:path'

import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import type { NetworkErrorExplanation } from '../host/http/network-errors.js'
import { readOfferFile } from '../imports/reading/read-offer-file.js'
import { DEFAULT_FETCH_LIMITS, fetchSourceFile, SourceFetchError } from './fetch-source.js'
import { FAILURE_ADVICE } from './source-alerts.js'
import { bilingual, sourceNotFound } from './source-runs.js'
import { sourceColumns } from './source-settings.js'
import { findSource } from './sources-repository.js'

export interface HeaderPreviewInput {
  /** A saved source whose settings fill what is not sent (its stored headers only for its own origin). */
  source_id?: number
  url?: string
  headers?: Record<string, string>
  private_hosts?: string[]
  ca_certificate?: string | null
  sheet?: string | null
}

export interface HeaderPreview {
  headers: string[]
  format: 'csv' | 'xlsx'
  bytes: number
}

function previewFailed(pl: string, en: string, details: Record<string, unknown>): PluginError {
  return new PluginError('source_preview_failed', 422, { ...bilingual(pl, en), ...details })
}

export async function previewSourceHeaders(ctx: HostContext, input: HeaderPreviewInput): Promise<HeaderPreview> {
  const existing = input.source_id === undefined ? undefined : await findSource(ctx.db, input.source_id)
  if (input.source_id !== undefined && !existing) throw sourceNotFound(input.source_id)
  const url = input.url ?? existing?.url
  const sameOrigin =
    existing !== undefined &&
    url !== undefined &&
    URL.canParse(url) &&
    new URL(url).origin === new URL(existing.url).origin
  const columns = sourceColumns(
    ctx,
    {
      url,
      headers: input.headers ?? (sameOrigin ? (JSON.parse(existing?.headers ?? '{}') as Record<string, string>) : {}),
      private_hosts: input.private_hosts ?? (existing ? (JSON.parse(existing.private_hosts) as string[]) : []),
      sheet: input.sheet === undefined ? existing?.sheet : input.sheet,
      ca_certificate: input.ca_certificate === undefined ? existing?.ca_certificate : input.ca_certificate,
    },
    undefined,
    ['url', 'headers', 'private_hosts', 'sheet'],
  )
  const dir = path.join(ctx.config.dataDir, 'sources')
  await mkdir(dir, { recursive: true })
  const target = path.join(dir, `preview-${randomUUID()}.download`)
  try {
    let fetched
    try {
      fetched = await fetchSourceFile({
        url: columns.url!,
        headers: JSON.parse(columns.headers ?? '{}') as Record<string, string>,
        privateHosts: JSON.parse(columns.private_hosts ?? '[]') as string[],
        ca: columns.ca_certificate ?? null,
        limits: { ...DEFAULT_FETCH_LIMITS, maxBytes: ctx.config.importMaxBytes },
        target,
      })
    } catch (error) {
      if (!(error instanceof SourceFetchError)) throw error
      const network = error.details.network as NetworkErrorExplanation | null | undefined
      const advice = FAILURE_ADVICE[error.code] ?? FAILURE_ADVICE.source_unreachable!
      throw previewFailed(
        `Nie udało się pobrać pliku. ${network ? `${network.message_pl} ` : ''}${advice.pl}`,
        `The file could not be fetched. ${network ? `${network.message_en} ` : ''}${advice.en}`,
        { fetch_code: error.code, ...(network ? { network_code: network.code } : {}), detail: error.message },
      )
    }
    if (fetched.kind !== 'fetched') throw new Error('a preview sends no validators')
    let headers: string[]
    try {
      const reader = await readOfferFile({
        path: target,
        fileName: `source.${fetched.format}`,
        ...(columns.sheet ? { sheet: columns.sheet } : {}),
        limits: { maxBytes: ctx.config.importMaxBytes, maxRows: Number.MAX_SAFE_INTEGER },
      })
      headers = reader.headers
    } catch (error) {
      if (!(error instanceof PluginError)) throw error
      throw previewFailed(
        'Pobrany plik nie daje się odczytać jako arkusz z wierszem nagłówków (CSV lub XLSX). Sprawdź, czy adres prowadzi wprost do pliku, a przy pliku XLSX także nazwę arkusza.',
        'The fetched file does not read as a sheet with a header row (CSV or XLSX). Check that the address leads straight to the file and, for XLSX, the sheet name.',
        { fetch_code: 'source_file_invalid', detail: error.error },
      )
    }
    return { headers, format: fetched.format, bytes: fetched.bytes }
  } finally {
    await rm(target, { force: true })
  }
}
