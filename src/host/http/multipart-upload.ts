/*
 * Reads a multipart form whose one file part (field "file") is streamed to disk, never held in
 * memory, and whose other parts are short text fields. Used by the offer and report imports.
 */
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'

import type { FastifyRequest } from 'fastify'

import { PluginError } from '../errors.js'

export interface ReceivedForm {
  /** Absent when the body carries no file. */
  filePath?: string
  fileName: string
  fields: Record<string, string>
}

export async function receiveMultipartForm(
  request: FastifyRequest,
  uploadDir: string,
  defaultName: string,
): Promise<ReceivedForm> {
  await fs.mkdir(uploadDir, { recursive: true })
  const limit = request.server.ctx.config.importMaxBytes
  const fields: Record<string, string> = {}
  let filePath: string | undefined
  let fileName = ''
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || filePath) {
          await part.toBuffer().catch(() => undefined)
          throw new PluginError('invalid_upload', 400, { message: 'Send exactly one file, in the field "file".' })
        }
        filePath = path.join(uploadDir, `${randomBytes(12).toString('hex')}.upload`)
        // shown and stored as text only: control characters go (PostgreSQL refuses U+0000, and a
        // name holding one answered 500 there: found by the fuzz suite)
        fileName = [...(part.filename ?? '')].filter((char) => char >= ' ' && char !== '\u007f').join('') || defaultName
        await pipeline(part.file, createWriteStream(filePath))
        if (part.file.truncated) {
          throw new PluginError('file_too_large', 413, {
            message: `The file is larger than the limit of ${limit} bytes (DG_IMPORT_MAX_BYTES).`,
          })
        }
      } else if (typeof part.value === 'string') {
        fields[part.fieldname] = part.value
      }
    }
  } catch (error) {
    if (filePath) await fs.rm(filePath, { force: true })
    if (error instanceof PluginError) throw error
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new PluginError('file_too_large', 413, {
        message: `The file is larger than the limit of ${limit} bytes (DG_IMPORT_MAX_BYTES).`,
      })
    }
    throw new PluginError('invalid_upload', 400, { message: 'The multipart body could not be read.' })
  }
  return { ...(filePath ? { filePath } : {}), fileName, fields }
}
