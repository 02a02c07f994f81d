import { MAX_CHANGES_PER_BATCH, type ContentChange } from '../../content'
import { base64Length, placeholderPath } from '../outbox/file-references'
import type { PlannedChange } from './push-types'

/**
 * Request body a batch may reach (the service refuses bodies over 32 MiB; a smaller bound keeps each
 * request, and what the client holds while sending it, small).
 */
export const MAX_BATCH_BYTES = 4 * 1024 * 1024
/** Room left under the bound for what the estimate does not see: the body's wrapper, refs rewritten to ids. */
const BATCH_BYTES_SLACK = 64 * 1024

export interface BatchLimits {
  /** Changes per request (the service takes 1 to 50). */
  maxChanges?: number
  /** Request body bytes per batch, estimated with `fileSize`. */
  maxBytes?: number
  /** Bytes of a file an `insert_files` entry names by `@file:<path>` (sent as base64 then). */
  fileSize?: (path: string) => number
}

/**
 * Cuts a plan's changes into batches of at most 50 changes and at most MAX_BATCH_BYTES of request body,
 * in plan order (parents before children, uploads before the pages that link to them). A change that
 * needs a ref stays with the change defining it when that fits; otherwise the later batch gets the id
 * once the earlier one is answered. A change larger than the bound goes alone. The service restores
 * every `revert_page` of a request from one revision: a revert from another starts a new batch.
 */
export function batchChanges(changes: readonly PlannedChange[], limits: BatchLimits = {}): PlannedChange[][] {
  const size = limits.maxChanges ?? MAX_CHANGES_PER_BATCH
  const maxBytes = (limits.maxBytes ?? MAX_BATCH_BYTES) - BATCH_BYTES_SLACK
  const batches: PlannedChange[][] = []
  let current: PlannedChange[] = []
  let bytes = 0
  let defined = new Set<string>()
  /** The revision the current batch's revert_page changes restore from ('' for the change request's base): one per request. */
  let reverts: string | undefined
  for (const change of changes) {
    const needsCurrent = change.uses.some((ref) => defined.has(ref))
    const changeBytes = bodyBytes(change.change, limits.fileSize)
    const revert = change.change.operation === 'revert_page' ? (change.change.revision ?? '') : undefined
    const full = current.length >= size || bytes + changeBytes > maxBytes || (revert !== undefined && reverts !== undefined && revert !== reverts)
    if (current.length > 0 && (full || (current.length >= size - 1 && !needsCurrent && wantsFollowers(change, changes)))) {
      batches.push(current)
      current = []
      bytes = 0
      defined = new Set()
      reverts = undefined
    }
    if (revert !== undefined) reverts = revert
    current.push(change)
    bytes += changeBytes
    for (const ref of change.defines?.split(' ') ?? []) if (ref) defined.add(ref)
  }
  if (current.length > 0) batches.push(current)
  return batches
}

/** Bytes a change adds to a request body: its JSON, with the base64 of files it names by reference. */
export function bodyBytes(change: ContentChange, fileSize?: (path: string) => number): number {
  let bytes = Buffer.byteLength(JSON.stringify(change)) + 1
  if (change.operation !== 'insert_files') return bytes
  for (const file of change.files) {
    const path = placeholderPath(file.base64)
    if (path !== undefined && fileSize) bytes += base64Length(fileSize(path)) - file.base64!.length
  }
  return bytes
}

/** Whether later changes use a ref this one defines (better to open a new batch with it). */
function wantsFollowers(change: PlannedChange, all: readonly PlannedChange[]): boolean {
  const refs = change.defines?.split(' ').filter(Boolean) ?? []
  return refs.length > 0 && all.some((other) => other.uses.some((ref) => refs.includes(ref)))
}

/** Items in order, cut into groups of at most `maxCount` items and `maxSize` in all by `sizeOf` (a larger item goes alone). */
export function chunkBounded<T>(items: Iterable<T>, maxCount: number, maxSize: number, sizeOf: (item: T) => number): T[][] {
  const groups: T[][] = []
  let current: T[] = []
  let total = 0
  for (const item of items) {
    const size = sizeOf(item)
    if (current.length > 0 && (current.length >= maxCount || total + size > maxSize)) {
      groups.push(current)
      current = []
      total = 0
    }
    current.push(item)
    total += size
  }
  if (current.length > 0) groups.push(current)
  return groups
}
