import type { CacheRepository, SpaceIssue, SpaceState } from '../cache/cache-repository'
import { spaceFolderPath } from './sync-engine'

export interface SpaceStatus {
  spaceId: string
  organization: string
  title: string
  folder?: string
  /** `idle` until a first pass; `syncing` also when a pass was interrupted (the next one resumes it). */
  state: SpaceState
  /** The revision the folder matches (undefined before the first complete pass). */
  revision?: string
  /** The newest revision the service was seen at. */
  remoteRevision?: string
  pages: number
  lastSyncAt?: string
  pending: {
    /** Steps of an unfinished pass not yet done. */
    steps: number
    /** Remote changes waiting on the remote side (a newer revision not yet mirrored). */
    behind: boolean
    issues: SpaceIssue[]
  }
  message?: string
}

/** Status of every selected space, from the cache only: it works offline. */
export function readSpaceStatuses(cache: CacheRepository, workspace: string): SpaceStatus[] {
  return cache.selectedSpaces().map((space) => {
    const run = cache.run(space.id)
    const org = cache.organization(space.orgId)
    return {
      spaceId: space.id,
      organization: org?.title ?? space.orgId,
      title: space.title,
      folder: spaceFolderPath(cache, workspace, space),
      state: space.state,
      revision: space.syncedRevision,
      remoteRevision: space.remoteRevision,
      pages: cache.pageCount(space.id),
      lastSyncAt: space.lastSyncAt,
      pending: {
        steps: run ? Math.max(0, run.total - run.completed) : 0,
        behind: space.remoteRevision !== undefined && space.remoteRevision !== space.syncedRevision,
        issues: space.issues,
      },
      message: space.lastError,
    }
  })
}
