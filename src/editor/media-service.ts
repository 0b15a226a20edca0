/*
 * Media of investments and offers: images (JPEG, PNG, WebP) for galleries and main images, PDF
 * documents. An upload is checked by its content (media-files.ts), size-limited
 * (DG_MEDIA_MAX_BYTES), stored in the data folder and recorded as an attachment of its offer or
 * investment, with an audit entry; the catalog's `image`, `gallery`, `media` and documents show
 * it once it is placed: an offer's or investment's `gallery` and `thumbnail_id` are set by PATCHing
 * the offer (through the shared write path) or the investment, naming its version. Documents are
 * shown in the order of their `position`.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import { type Actor, recordAudit } from '../host/audit/audit.js'
import type { Executor, HostContext } from '../host/context.js'
import { HostError, PluginError } from '../host/errors.js'
import { parseInteger, parseText } from '../offers/validation/parse-values.js'
import { type RowError, rowError } from '../offers/validation/row-errors.js'
import {
  type AttachmentRow,
  deleteAttachment,
  insertAttachment,
  type MediaOwner,
  nextAttachmentPosition,
  selectAttachment,
  selectAttachmentsById,
  selectAttachmentsOfOwner,
  selectInvestment,
  selectInvestmentForUpdate,
  selectMediaUsers,
  updateAttachment,
} from './editor-repository.js'
import {
  detectMediaFormat,
  InvalidImage,
  MEDIA_FILE_NAME,
  MEDIA_TYPES,
  mediaDir,
  prepareMedia,
  removeMediaFiles,
  storeMediaFiles,
} from './media-files.js'
import { validationFailed } from './refusals.js'

/** Where uploads are served, outside the REST namespace (like /dane-gov/). */
export const MEDIA_PATH = '/dg-media'

const TITLE_MAX_LENGTH = 255
const ALT_MAX_LENGTH = 500

function fileOf(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1)
}

export async function mediaView(ctx: HostContext, row: AttachmentRow) {
  const file = fileOf(row.url)
  const match = MEDIA_FILE_NAME.exec(file)
  let previewUrl: string | null = row.kind === 'image' ? row.url : null
  if (match && row.kind === 'image') {
    const preview = `${match[1] as string}-preview.webp`
    const exists = await fs
      .access(path.join(mediaDir(ctx.config.dataDir), preview))
      .then(() => true)
      .catch(() => false)
    if (exists) previewUrl = `${row.url.slice(0, -file.length)}${preview}`
  }
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    alt: row.alt,
    url: row.url,
    preview_url: previewUrl,
    mime_type: row.mime_type,
    position: row.position,
    offer_id: row.offer_id,
    investment_id: row.investment_id,
    /** false for media linked by address (not uploaded here). */
    uploaded: match !== null,
    created_at: row.created_at,
  }
}

export type MediaView = Awaited<ReturnType<typeof mediaView>>

/** 404 for an owner that does not exist; with `lock`, an investment stays until the transaction ends (PostgreSQL). */
async function requireOwner(db: Executor, owner: MediaOwner, lock?: HostContext): Promise<void> {
  if (owner.offerId !== undefined) {
    const offer = await db.selectFrom('offers').select('id').where('id', '=', owner.offerId).executeTakeFirst()
    if (!offer) throw new HostError('offer_not_found', 404, `There is no offer ${owner.offerId}.`)
  }
  if (owner.investmentId === undefined) return
  const investment = lock
    ? await selectInvestmentForUpdate(db, lock.caps.name, owner.investmentId)
    : await selectInvestment(db, owner.investmentId)
  if (!investment) throw new HostError('investment_not_found', 404, `There is no investment ${owner.investmentId}.`)
}

export async function listMedia(ctx: HostContext, owner: MediaOwner): Promise<MediaView[]> {
  await requireOwner(ctx.db, owner)
  const rows = await selectAttachmentsOfOwner(ctx.db, owner)
  return Promise.all(rows.map((row) => mediaView(ctx, row)))
}

function issue(field: string, code: string, en: string, pl: string): RowError {
  const labels: Record<string, string> = { title: 'Tytuł pliku', alt: 'Tekst alternatywny', position: 'Kolejność' }
  return rowError(1, field, code, { en: `${field}: ${en}`, pl: `${labels[field] ?? field}: ${pl}` })
}

/** Title, alt text and position as sent, validated; the issues when they are not. */
function metadata(fields: Record<string, unknown>): {
  values: { title?: string; alt?: string; position?: number }
  errors: RowError[]
} {
  const errors: RowError[] = []
  const values: { title?: string; alt?: string; position?: number } = {}
  for (const [field, max] of [
    ['title', TITLE_MAX_LENGTH],
    ['alt', ALT_MAX_LENGTH],
  ] as const) {
    if (fields[field] === undefined) continue
    const text = parseText(fields[field] ?? '', { maxLength: max })
    if (!text.ok) errors.push(issue(field, text.code, text.message, text.message_pl))
    else values[field] = text.value ?? ''
  }
  if (fields.position !== undefined && fields.position !== null) {
    const position = parseInteger(fields.position, { min: 0, max: 10_000 })
    if (!position.ok) errors.push(issue('position', position.code, position.message, position.message_pl))
    else if (position.value !== null) values.position = position.value
  }
  return { values, errors }
}

export interface Upload {
  content: Buffer
  fileName: string
  fields: Record<string, string>
}

/** A new image or document of an offer or investment, served under `origin` (the configured public address) + /dg-media/. */
export async function uploadMedia(
  ctx: HostContext,
  actor: Actor,
  owner: MediaOwner,
  upload: Upload,
  origin: string,
): Promise<MediaView> {
  await requireOwner(ctx.db, owner)
  const { values, errors } = metadata(upload.fields)
  if (errors.length > 0) throw validationFailed(errors)
  const format = detectMediaFormat(upload.content)
  if (!format) {
    const en =
      'The file is not a JPEG, PNG or WebP image or a PDF document (judged by its content, not its name); nothing was stored.'
    const pl =
      'Plik nie jest obrazem JPEG, PNG lub WebP ani dokumentem PDF (sprawdzana jest zawartość, nie nazwa); niczego nie zapisano.'
    throw new PluginError('unsupported_media_type', 415, { message: en, message_en: en, message_pl: pl })
  }
  let prepared
  try {
    prepared = await prepareMedia(upload.content, format, ctx.log)
  } catch (error) {
    if (!(error instanceof InvalidImage)) throw error
    const en = `The image cannot be read (damaged, or larger than 50 megapixels); nothing was stored.`
    const pl = `Nie można odczytać obrazu (uszkodzony albo większy niż 50 megapikseli); niczego nie zapisano.`
    throw new PluginError('invalid_image', 422, { message: en, message_en: en, message_pl: pl })
  }
  const type = MEDIA_TYPES[format]
  const stored = await storeMediaFiles(ctx.config.dataDir, prepared)
  try {
    const id = await ctx.db.transaction().execute(async (trx) => {
      // the investment may have been deleted while the file was processed
      await requireOwner(trx, owner, ctx)
      const nowIso = ctx.now().toISOString()
      const created = await insertAttachment(trx, {
        investment_id: owner.investmentId ?? null,
        offer_id: owner.offerId ?? null,
        kind: type.kind,
        title: values.title ?? upload.fileName.slice(0, TITLE_MAX_LENGTH),
        url: `${origin}${MEDIA_PATH}/${stored.fileName}`,
        mime_type: type.mime,
        alt: values.alt ?? '',
        position: values.position ?? (await nextAttachmentPosition(trx, owner, type.kind)),
        created_at: nowIso,
      })
      await recordAudit(
        ctx,
        {
          actor,
          action: 'editor.media.upload',
          objectType: 'attachment',
          objectId: created,
          outcome: 'success',
          details: {
            channel: 'editor',
            ...(owner.offerId !== undefined ? { offer_id: owner.offerId } : {}),
            ...(owner.investmentId !== undefined ? { investment_id: owner.investmentId } : {}),
            mime_type: type.mime,
            bytes: prepared.content.length,
            ...(prepared.width ? { width: prepared.width, height: prepared.height } : {}),
          },
        },
        trx,
      )
      return created
    })
    return mediaView(ctx, (await selectAttachment(ctx.db, id)) as AttachmentRow)
  } catch (error) {
    await removeMediaFiles(ctx.config.dataDir, stored.fileName)
    throw error
  }
}

async function requireAttachment(db: Executor, id: number): Promise<AttachmentRow> {
  const row = await selectAttachment(db, id)
  if (!row) throw new HostError('media_not_found', 404, `There is no attachment ${id}.`)
  return row
}

export async function getMedia(ctx: HostContext, id: number): Promise<MediaView> {
  return mediaView(ctx, await requireAttachment(ctx.db, id))
}

/** Title, alt text and position (the order of documents). */
export async function updateMedia(
  ctx: HostContext,
  actor: Actor,
  id: number,
  fields: Record<string, unknown>,
): Promise<MediaView> {
  const { values, errors } = metadata(fields)
  if (errors.length > 0) throw validationFailed(errors)
  await ctx.db.transaction().execute(async (trx) => {
    await requireAttachment(trx, id)
    if (Object.keys(values).length === 0) return
    await updateAttachment(trx, id, values)
    await recordAudit(
      ctx,
      {
        actor,
        action: 'editor.media.update',
        objectType: 'attachment',
        objectId: id,
        outcome: 'success',
        details: { channel: 'editor', fields: Object.keys(values) },
      },
      trx,
    )
  })
  return getMedia(ctx, id)
}

/**
 * Removes an attachment and its files. One still shown as an image or in a gallery is refused
 * (409 `media_in_use`): take it out of the gallery first, so that no published page loses an
 * image without an edit that says so.
 */
export async function deleteMedia(ctx: HostContext, actor: Actor, id: number): Promise<void> {
  const removed = await ctx.db.transaction().execute(async (trx) => {
    const row = await requireAttachment(trx, id)
    const users = await selectMediaUsers(trx, row)
    if (users.length > 0) {
      const names = users.map((u) => `${u.type} ${u.id}`).join(', ')
      const en = `The attachment is the image or in the gallery of ${names}; remove it from there first (PATCH gallery / thumbnail_id).`
      const pl = `Plik jest zdjęciem głównym lub w galerii (${names}); najpierw usuń go stamtąd.`
      throw new PluginError('media_in_use', 409, { message: en, message_en: en, message_pl: pl, used_by: users })
    }
    await deleteAttachment(trx, id)
    await recordAudit(
      ctx,
      {
        actor,
        action: 'editor.media.delete',
        objectType: 'attachment',
        objectId: id,
        outcome: 'success',
        details: { channel: 'editor', title: row.title, url: row.url },
      },
      trx,
    )
    return row
  })
  await removeMediaFiles(ctx.config.dataDir, fileOf(removed.url))
}

/**
 * The issues of a gallery and main image that are not the entry's own images (`field` gallery or
 * thumbnail_id); an image already shown stays acceptable even when it was linked by address.
 */
export async function checkOwnImages(
  db: Executor,
  owner: MediaOwner,
  fields: { gallery?: number[] | undefined; thumbnailId?: number | null | undefined },
  current: { gallery: string; thumbnail_id: number | null } | undefined,
): Promise<RowError[]> {
  const ids = [...(fields.gallery ?? []), ...(typeof fields.thumbnailId === 'number' ? [fields.thumbnailId] : [])]
  if (ids.length === 0) return []
  const shown = new Set<number>([
    ...(JSON.parse(current?.gallery ?? '[]') as number[]),
    ...(current?.thumbnail_id ? [current.thumbnail_id] : []),
  ])
  const rows = new Map((await selectAttachmentsById(db, ids)).map((row) => [row.id, row]))
  const own = (id: number) => {
    if (shown.has(id)) return true
    const row = rows.get(id)
    if (!row || row.kind !== 'image') return false
    return owner.offerId !== undefined ? row.offer_id === owner.offerId : row.investment_id === owner.investmentId
  }
  const errors: RowError[] = []
  const whose = owner.offerId !== undefined ? 'offer' : 'investment'
  const whosePl = owner.offerId !== undefined ? 'tej oferty' : 'tej inwestycji'
  const foreign = (fields.gallery ?? []).filter((id) => !own(id))
  if (foreign.length > 0)
    errors.push(
      rowError(1, 'gallery', 'not_own_image', {
        en: `gallery: ${foreign.join(', ')} ${foreign.length > 1 ? 'are not images' : 'is not an image'} of this ${whose}; upload them to it first`,
        pl: `Galeria: ${foreign.join(', ')} nie jest zdjęciem ${whosePl}; najpierw je prześlij`,
      }),
    )
  if (typeof fields.thumbnailId === 'number' && !own(fields.thumbnailId))
    errors.push(
      rowError(1, 'thumbnail_id', 'not_own_image', {
        en: `thumbnail_id: ${fields.thumbnailId} is not an image of this ${whose}; upload it to it first`,
        pl: `Zdjęcie główne: ${fields.thumbnailId} nie jest zdjęciem ${whosePl}; najpierw je prześlij`,
      }),
    )
  return errors
}
