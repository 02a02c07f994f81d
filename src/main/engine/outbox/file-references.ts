import fs from 'node:fs/promises'
import { gitBlobOid, type ContentChange } from '../../content'
import { confinedPath } from '../workspace/safe-names'
import { UnsendableError } from './outbox-errors'
import type { ContentPayload, FileReference } from './outbox-types'

/**
 * File uploads are kept in the outbox by reference (path, hash, size), not as bytes: an `insert_files`
 * entry holds `@file:<path>` and the bytes are read when the batch is sent, one file at a time, and
 * sent only when they are still the bytes planned. A file changed or gone since is refused here.
 */
export const FILE_BYTES_PLACEHOLDER = '@file:'

/** The path a placeholder names, or undefined for inline bytes (ops written before references). */
export function placeholderPath(base64: string | undefined): string | undefined {
  return base64?.startsWith(FILE_BYTES_PLACEHOLDER) ? base64.slice(FILE_BYTES_PLACEHOLDER.length) : undefined
}

/** Length of the base64 text of `size` bytes. */
export function base64Length(size: number): number {
  return Math.ceil(Math.max(size, 0) / 3) * 4
}

/** Paths of the files a change uploads by reference. */
export function referencedPaths(change: ContentChange): string[] {
  if (change.operation !== 'insert_files') return []
  return change.files.flatMap((f) => {
    const path = placeholderPath(f.base64)
    return path === undefined ? [] : [path]
  })
}

/** The references a part of a batch needs (when a batch is split). */
export function referencesFor(payload: ContentPayload, changes: readonly ContentChange[]): Pick<ContentPayload, 'files' | 'folder'> {
  if (!payload.files) return {}
  const wanted = new Set(changes.flatMap(referencedPaths))
  const files = payload.files.filter((f) => wanted.has(f.path))
  return files.length > 0 ? { files, folder: payload.folder } : {}
}

/** A referenced file that is not the file planned any more: the op is refused before anything leaves. */
export class FileChangedError extends UnsendableError {}

/**
 * The request body of a content batch, `{"changes":[...]}` as UTF-8 bytes, with the planned bytes of
 * every referenced file read now (one at a time) and written into it as base64. The body is the one
 * large thing made: no base64 string of a file outlives its copy into the body, and there is no string
 * of the whole body (JSON.stringify of changes carrying base64 held the base64 twice, and the request
 * encoded it a third time). Throws FileChangedError naming the file when it changed or vanished since the plan: different bytes
 * than planned are never sent; the next plan carries the file as it is now.
 */
export async function contentRequestBody(changes: readonly ContentChange[], payload: ContentPayload): Promise<Buffer<ArrayBuffer>> {
  const references = new Map((payload.files ?? []).map((f) => [f.path, f]))
  // The body in order: JSON text, and the files whose base64 goes between the pieces of text.
  const parts: Array<string | FileReference> = ['{"changes":[']
  changes.forEach((change, index) => {
    if (index > 0) parts.push(',')
    if (!referencedPaths(change).length || change.operation !== 'insert_files') {
      parts.push(JSON.stringify(change))
      return
    }
    // The change without its files, then each file without its bytes: both are objects with keys
    // (operation; name), so each closing brace can be taken off and the rest appended.
    parts.push(`${JSON.stringify({ ...change, files: undefined }).slice(0, -1)},"files":[`)
    change.files.forEach((file, i) => {
      const path = placeholderPath(file.base64)
      const text = JSON.stringify(path === undefined ? file : { ...file, base64: undefined })
      if (path === undefined) {
        parts.push(i > 0 ? `,${text}` : text)
        return
      }
      const reference = references.get(path)
      if (!reference || !payload.folder) throw new UnsendableError(`${path}: the outbox holds no reference to this file's planned bytes`)
      parts.push(`${i > 0 ? ',' : ''}${text.slice(0, -1)},"base64":"`, reference, '"}')
    })
    parts.push(']}')
  })
  parts.push(']}')

  const length = parts.reduce((n, part) => n + (typeof part === 'string' ? Buffer.byteLength(part) : base64Length(part.size)), 0)
  const body = Buffer.allocUnsafe(length)
  let offset = 0
  for (const part of parts) {
    if (typeof part === 'string') offset += body.write(part, offset, 'utf8')
    // Base64 is ASCII: one byte a character.
    else offset += body.write((await plannedBytes(payload.folder!, part)).toString('base64'), offset, 'latin1')
  }
  if (offset !== length) throw new Error(`a content batch's body came out at ${offset} bytes, not the ${length} counted`)
  return body
}

async function plannedBytes(folder: string, reference: FileReference): Promise<Buffer> {
  const { path, hash, size } = reference
  let bytes: Buffer
  try {
    bytes = await fs.readFile(confinedPath(folder, path))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new FileChangedError(`${path} is gone since this push was planned; it was not uploaded (the next push sees it as it is now)`)
    throw error // unreadable for another reason (permissions, a busy disk): not the file's fault, tried again
  }
  if (bytes.byteLength !== size || gitBlobOid(bytes) !== hash) {
    throw new FileChangedError(`${path} changed after this push was planned; the planned version was not uploaded and the next push uploads the file as it is now`)
  }
  return bytes
}
