/**
 * insert_files: uploads of images and attachments, inline as base64.
 * `url` sources are fetched by the caller (this module does no I/O) and must
 * reach us as base64.
 */
import { ContentError } from '../errors'
import { gitBlobOid } from '../markdown/blob-oid'
import type { InsertFilesChange, TreeFile } from '../types'
import { freshId, writableFiles, type Batch } from './batch'
import { contentTypeFromName, imageDimensions } from './file-bytes'

export const MAX_FILES_PER_CHANGE = 20
export const MAX_FILE_BYTES = 1024 * 1024
const MAX_NAME_LENGTH = 256

export function insertFiles(batch: Batch, change: InsertFilesChange, index: number): TreeFile[] {
  const inputs: unknown = change.files
  if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > MAX_FILES_PER_CHANGE) {
    const count = Array.isArray(inputs) ? inputs.length : 0
    throw new ContentError(`insert_files takes 1 to ${MAX_FILES_PER_CHANGE} files, got ${count}`, index)
  }
  return change.files.map((input, position) => {
    const where = `files[${position}]`
    const name: unknown = input.name
    if (typeof name !== 'string' || name === '' || name.length > MAX_NAME_LENGTH) {
      throw new ContentError(`${where}.name must be a file name of 1 to ${MAX_NAME_LENGTH} characters`, index)
    }
    if (input.url !== undefined) {
      throw new ContentError(`${where}: the url source of '${name}' must be fetched and sent as base64 before it is applied`, index)
    }
    const bytes = decodeBase64(input.base64, `${where}.base64`, index)
    if (bytes.byteLength > MAX_FILE_BYTES) {
      throw new ContentError(`${where}: '${name}' is ${bytes.byteLength} bytes, over the 1 MB limit`, index)
    }
    const contentType = typeof input.contentType === 'string' && input.contentType !== '' ? input.contentType : contentTypeFromName(name)
    const blobOid = gitBlobOid(bytes)
    const dimensions = contentType.startsWith('image/') ? imageDimensions(bytes) : undefined
    const file: TreeFile = {
      id: freshId(batch, (id) => batch.tree.files.some((f) => f.id === id), index),
      name,
      contentType,
      size: bytes.byteLength,
      ...(dimensions ? { dimensions } : {}),
      blobOid,
      createdAt: batch.env.now,
    }
    writableFiles(batch).push(file)
    batch.fileBlobs.set(blobOid, bytes)
    if (input.ref !== undefined) batch.fileRefs.set(input.ref, file.id)
    return file
  })
}

function decodeBase64(value: unknown, field: string, index: number): Uint8Array {
  if (typeof value !== 'string') throw new ContentError(`${field} is required (a base64 string)`, index)
  const compact = value.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw new ContentError(`${field} is not valid base64`, index)
  }
  return new Uint8Array(Buffer.from(compact, 'base64'))
}
