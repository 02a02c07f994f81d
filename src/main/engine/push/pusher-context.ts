import fs from 'node:fs/promises'
import { gitBlobOid } from '../../content'
import type { CacheRepository } from '../cache/cache-repository'
import type { CommentsRepository } from '../comments/comments-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository } from '../outbox/outbox-repository'
import { confinedPath } from '../workspace/safe-names'
import { DELETION_QUIET_MS } from './push-types'

/** What the parts of a space's pusher share: the stores, the service, the space folder, the writer. */
export interface SpacePusherOptions {
  gateway: ApiGateway
  cache: CacheRepository
  outbox: OutboxRepository
  comments: CommentsRepository
  spaceId: string
  /** Absolute path of the space folder. */
  folder: string
  /** The writer (the signed-in user). */
  userId: string
  now?: () => Date
  /**
   * How long a page file must stay missing before its deletion is sent (default DELETION_QUIET_MS, 2 s;
   * `QUIRE_DELETION_QUIET_MS` where set): an editor's backup-save puts the file back within it.
   */
  deletionQuietMs?: number
  /** Tests: a save at an exact moment of a merged page's rewrite (before it, or inside its final window). */
  rewriteHooks?: { before?: (path: string) => void | Promise<void>; inWindow?: () => void }
}

/** Absolute path of a file of the space folder (never outside it). */
export function resolveIn(o: SpacePusherOptions, relative: string): string {
  return confinedPath(o.folder, relative)
}

/** The quiet interval of a removal: the option, else `QUIRE_DELETION_QUIET_MS`, else DELETION_QUIET_MS. */
export function deletionQuietMs(o: { deletionQuietMs?: number }): number {
  if (o.deletionQuietMs !== undefined) return o.deletionQuietMs
  const raw = Number(process.env.QUIRE_DELETION_QUIET_MS?.trim() || Number.NaN)
  return Number.isFinite(raw) && raw >= 0 ? raw : DELETION_QUIET_MS
}

export function nowOf(o: SpacePusherOptions): Date {
  return o.now?.() ?? new Date()
}

export async function exists(full: string): Promise<boolean> {
  try {
    await fs.access(full)
    return true
  } catch {
    return false
  }
}

export async function hashOf(full: string): Promise<string | undefined> {
  try {
    return gitBlobOid(await fs.readFile(full))
  } catch {
    return undefined
  }
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** Local time as conflicted copies are named: `2026-01-31 093612`. */
export function stampOf(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`
}
