import fs from 'node:fs'
import path from 'node:path'
import type { CacheRepository } from '../cache/cache-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import { LocalSearchIndex, type IndexedSpace } from './local-index'
import { ftsExpression } from './query-syntax'
import { searchWorkspace, type SearchAnswer, type SearchedSpace, type SearchOptions } from './workspace-search'

/**
 * The search index as a session (or a one-off command) keeps it. The index is read from the files:
 * every query first brings each space's rows to its folder (a stat a file; only changed files are read
 * again), so it is never stale against the folder, not even for a save the watcher has not reported
 * yet. The watcher's bursts are indexed as they come, so the query finds them done.
 */
export class SearchKeeper {
  readonly index: LocalSearchIndex

  constructor(private readonly cache: CacheRepository) {
    this.index = new LocalSearchIndex(cache.searchIndex)
  }

  /** The watcher's burst: these files of a space changed. */
  changed(space: IndexedSpace, paths: readonly string[]): void {
    try {
      this.index.update(space, paths)
    } catch {
      // Not indexed now (a cache busy or full): the next query's refresh reads them from the folder.
    }
  }

  /** Searches the spaces' folders, and the service beside them when `gateway` is given and `skipRemote` is not. */
  async search(gateway: ApiGateway | undefined, spaces: readonly SearchedSpace[], query: string, options: SearchOptions = {}): Promise<SearchAnswer> {
    ftsExpression(query, { prefixLast: options.prefixLast }) // an empty query is refused before any file is read
    for (const space of spaces) if (space.folder) this.index.refresh({ spaceId: space.spaceId, folder: space.folder })
    return searchWorkspace(this.index, this.cache, gateway, spaces, query, options)
  }
}

export class UnknownSpaceError extends Error {
  constructor(readonly spaceId: string) {
    super(`no synced space has the id ${spaceId} (quire spaces lists them)`)
  }
}

/**
 * The spaces a search covers: the synced ones (or only `only`), each with its folder in `workspace`
 * when a pass has made it, and its organization (for the service's search).
 */
export function searchedSpaces(cache: CacheRepository, workspace: string, only?: string): SearchedSpace[] {
  const rows = only === undefined ? cache.selectedSpaces() : [cache.space(only)].filter((s) => s !== undefined)
  if (only !== undefined && rows.length === 0) throw new UnknownSpaceError(only)
  return rows.map((row) => {
    const org = cache.organization(row.orgId)
    const folder = org?.folder && row.folder ? path.join(workspace, org.folder, row.folder) : undefined
    return { spaceId: row.id, title: row.title, organizationId: row.orgId, ...(folder && fs.existsSync(folder) ? { folder } : {}) }
  })
}
