import fs from 'node:fs/promises'
import { gitBlobOid, type ContentChange, type InsertFileInput } from '../../content'
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
 * The changes with the planned bytes of every referenced file, read now (one file at a time). Throws
 * FileChangedError naming the file when it changed or vanished since the plan: different bytes than
 * planned are never sent; the next plan carries the file as it is now.
 */
export async function withFileBytes(changes: readonly ContentChange[], payload: ContentPayload): Promise<ContentChange[]> {
  if (!changes.some((c) => referencedPaths(c).length > 0)) return [...changes]
  const references = new Map((payload.files ?? []).map((f) => [f.path, f]))
  const out: ContentChange[] = []
  for (const change of changes) {
    if (change.operation !== 'insert_files') {
      out.push(change)
      continue
    }
    const files: InsertFileInput[] = []
    for (const file of change.files) {
      const path = placeholderPath(file.base64)
      if (path === undefined) {
        files.push(file)
        continue
      }
      const reference = references.get(path)
      if (!reference || !payload.folder) throw new UnsendableError(`${path}: the outbox holds no reference to this file's planned bytes`)
      files.push({ ref: file.ref, name: file.name, ...(file.contentType ? { contentType: file.contentType } : {}), base64: (await plannedBytes(payload.folder, reference)).toString('base64') })
    }
    out.push({ ...change, files })
  }
  return out
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
