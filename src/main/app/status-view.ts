import fs from 'node:fs'
import type { OrganizationNode, SpaceNode, StatusSnapshot } from '../../shared/contract'
import { type CacheRepository, spaceFolderPath, type SpaceRow, type WorkspaceSession } from '../engine'
import type { Conflicts } from './conflicts'
import type { LocalFiles } from './local-files'
import type { SettingsStore } from './settings-store'
import { spaceTree } from './space-tree'
import { overallState, spaceNode } from './status'

/**
 * What the window and the tray show: each space as the session's one state derives it, with what the
 * cache knows beside it (pages, folder, last sync), and the whole as one snapshot.
 */
export class StatusView {
  constructor(
    private readonly deps: {
      cache: CacheRepository
      settings: SettingsStore
      files: LocalFiles
      conflicts: Conflicts
      /** The running session; none while signed out. */
      session: () => WorkspaceSession | undefined
      /** Change requests waiting for the user's review, as last read (none known while signed out). */
      forReview: () => number | undefined
      now?: () => Date
    },
  ) {}

  /** A space as shown; `synced`: chosen by itself or through its organization or collection (cache.selectedSpaces). */
  space(row: SpaceRow, synced: boolean): SpaceNode {
    const { cache, settings, session } = this.deps
    const folder = spaceFolderPath(cache, settings.get().workspace, row)
    return spaceNode(row, session()?.state(row.id), { pageCount: cache.pageCount(row.id), folder: folder && fs.existsSync(folder) ? folder : undefined, synced })
  }

  tree(accountId: string): OrganizationNode[] {
    const synced = new Set(this.deps.cache.selectedSpaces().map((row) => row.id))
    return spaceTree(this.deps.cache, accountId, (row) => this.space(row, synced.has(row.id)))
  }

  snapshot(): StatusSnapshot {
    const { cache, settings, files, conflicts, session, now } = this.deps
    const live = session() !== undefined
    const forReview = live ? this.deps.forReview() : undefined
    const spaces = live ? cache.selectedSpaces().map((row) => this.space(row, true)) : []
    return {
      overall: overallState(live, spaces),
      paused: settings.get().paused,
      spaces,
      brokenLinks: live ? files.brokenLinkCount() : 0,
      conflicts: live ? conflicts.list(spaces.map((s) => s.id)) : [],
      ...(forReview !== undefined ? { forReview } : {}),
      updatedAt: (now?.() ?? new Date()).toISOString(),
    }
  }
}
