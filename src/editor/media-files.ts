/*
 * Uploaded media as files: what a file is, judged by its content (never by its name or the type a
 * client declares), how an image is made safe to serve, and where it is kept. Images (JPEG, PNG,
 * WebP) are decoded and written again by sharp (libvips): the decoder proves they are images,
 * rotation from EXIF is applied and every metadata block (EXIF with a photographer's GPS position,
 * XMP, comments) is left out, and a preview of at most PREVIEW_SIZE pixels is made for lists. PDFs
 * are kept as sent and only ever served as downloads. Files are named by a random key, so a name
 * is never reused and cannot be guessed; they live in DG_DATA_DIR/media.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

import type { Logger } from 'pino'
import type { Sharp, SharpOptions } from 'sharp'

export type MediaFormat = 'jpeg' | 'png' | 'webp' | 'pdf'

export const MEDIA_TYPES: Readonly<Record<MediaFormat, { mime: string; ext: string; kind: 'image' | 'document' }>> = {
  jpeg: { mime: 'image/jpeg', ext: 'jpg', kind: 'image' },
  png: { mime: 'image/png', ext: 'png', kind: 'image' },
  webp: { mime: 'image/webp', ext: 'webp', kind: 'image' },
  pdf: { mime: 'application/pdf', ext: 'pdf', kind: 'document' },
}

/** Longest side of a preview, in pixels. */
export const PREVIEW_SIZE = 480
/** Images above this many pixels are refused before they are decoded (a decompression bomb). */
export const MAX_IMAGE_PIXELS = 50_000_000

/** A served file's name: a 24-hex key, `-preview.webp` or the original's extension. */
export const MEDIA_FILE_NAME = /^([0-9a-f]{24})(-preview\.webp|\.(?:jpg|png|webp|pdf))$/

/** The format of a file by its first bytes, or undefined for anything else (GIF, SVG, HTML, …). */
export function detectMediaFormat(bytes: Buffer): MediaFormat | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg'
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png'
  if (
    bytes.length >= 12 &&
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'webp'
  if (bytes.length >= 5 && bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf'
  return undefined
}

type SharpFactory = (input?: Buffer, options?: SharpOptions) => Sharp

let sharpLoad: Promise<SharpFactory | undefined> | undefined

/*
 * sharp's native part comes as an optional npm package per platform (@img/sharp-linux-x64 with its
 * libvips): an install with --omit=optional has none. Uploads then still work, checked by their
 * first bytes only and served as sent, without previews; the log says why once.
 */
function loadSharp(log: Logger): Promise<SharpFactory | undefined> {
  sharpLoad ??= import('sharp').then(
    (module) => module.default as unknown as SharpFactory,
    (error: unknown) => {
      log.warn(
        { err: error },
        'sharp (image processing) could not be loaded: images are stored as sent and get no preview; install the optional dependencies',
      )
      return undefined
    },
  )
  return sharpLoad
}

export class InvalidImage extends Error {}

export interface PreparedMedia {
  format: MediaFormat
  /** The bytes to keep and serve. */
  content: Buffer
  /** A WebP preview of an image, when one could be made. */
  preview?: Buffer
  width?: number
  height?: number
}

/** Decodes, cleans and previews an image; a PDF is kept as it is. Throws InvalidImage for an undecodable image. */
export async function prepareMedia(bytes: Buffer, format: MediaFormat, log: Logger): Promise<PreparedMedia> {
  if (format === 'pdf') return { format, content: bytes }
  const sharp = await loadSharp(log)
  if (!sharp) return { format, content: bytes }
  const open = () => sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' }).rotate()
  try {
    const encoded =
      format === 'jpeg'
        ? open().jpeg({ quality: 88 })
        : format === 'png'
          ? open().png({ compressionLevel: 9 })
          : open().webp({ quality: 88 })
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true })
    const preview = await open()
      .resize({ width: PREVIEW_SIZE, height: PREVIEW_SIZE, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer()
    return { format, content: data, preview, width: info.width, height: info.height }
  } catch (error) {
    throw new InvalidImage(error instanceof Error ? error.message : String(error))
  }
}

export function mediaDir(dataDir: string): string {
  return path.join(dataDir, 'media')
}

export interface StoredMediaFiles {
  key: string
  fileName: string
  previewName?: string
}

/** Writes the file (and its preview) under new names: each to a temporary name, synced, then renamed. */
export async function storeMediaFiles(dataDir: string, prepared: PreparedMedia): Promise<StoredMediaFiles> {
  const dir = mediaDir(dataDir)
  await fs.mkdir(dir, { recursive: true })
  const key = randomBytes(12).toString('hex')
  const fileName = `${key}.${MEDIA_TYPES[prepared.format].ext}`
  await writeDurably(path.join(dir, fileName), prepared.content)
  if (!prepared.preview) return { key, fileName }
  const previewName = `${key}-preview.webp`
  await writeDurably(path.join(dir, previewName), prepared.preview)
  return { key, fileName, previewName }
}

async function writeDurably(target: string, content: Buffer): Promise<void> {
  const temporary = `${target}.${randomBytes(4).toString('hex')}.tmp`
  const handle = await fs.open(temporary, 'wx', 0o640)
  try {
    await handle.writeFile(content)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await fs.rename(temporary, target)
}

/** Removes an attachment's files (the original and its preview); missing ones are fine. */
export async function removeMediaFiles(dataDir: string, fileName: string): Promise<void> {
  const match = MEDIA_FILE_NAME.exec(fileName)
  if (!match) return
  const dir = mediaDir(dataDir)
  await fs.rm(path.join(dir, fileName), { force: true })
  await fs.rm(path.join(dir, `${match[1]}-preview.webp`), { force: true })
}
