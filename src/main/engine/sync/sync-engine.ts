import path from 'node:path'
import { GitBookAPIError, type Space } from '@gitbook/api'
import PQueue from 'p-queue'
import type { AccountRow, CacheRepository, SpaceRow, SpaceState } from '../cache/cache-repository'
import { paginate, ServiceUnreachableError, type ApiGateway } from '../gateway/api-gateway'
import { FolderNameRegistry } from '../workspace/safe-names'
import type { SpaceFolderOptions } from '../workspace/space-folder'
import type { StepEvent } from './executor'
import { listCollections, listSelection, listSpaces, type ListedSpaces } from './selection-lists'
import { syncSpace } from './space-sync'

export type SyncProgressEvent =
  | { type: 'space-started'; spaceId: string; label: string }
  | { type: 'space-planned'; spaceId: string; label: string; total: number }
  | { type: 'step'; spaceId: string; label: string; step: StepEvent }
  | { type: 'space-finished'; spaceId: string; label: string; state: SpaceState; message?: string }

export interface SyncEngineOptions {
  cache: CacheRepository
  account: AccountRow
  gateway: ApiGateway
  /** Root folder: `<workspace>/<organization>/<space>/`. */
  workspace: string
  allowMassDelete?: boolean
  concurrency?: number
  /** Spaces synced at once in a pass (`spaceConcurrency()` unless given; 1: one after another). */
  spaceConcurrency?: number
  /** Asked before each space starts: true once the caller stops (the spaces not started are left for the next pass). */
  shouldStop?: () => boolean
  refreshLinks?: boolean
  /** See SpacePassOptions.byDifference (default true). */
  byDifference?: boolean
  onProgress?: (event: SyncProgressEvent) => void
  /** Sync up (hook): per space, the pages a pass must leave alone (see SpacePassOptions.hold). */
  hold?: (spaceId: string) => ReadonlySet<string>
  /**
   * What `discover` and `resolveSpaces` fetch serves the next pass on the same cache (within seconds),
   * which then asks nothing more about those spaces: for a caller that passes right after (the CLI's
   * `--all` and `--space`). Off by default: a listing for display (the app's space list) must not stand
   * in for a pass's own look at the service ("Sync now" while offline says offline).
   */
  handOverLists?: boolean
  /** Use page markdown the tree already carries when it matches the page's `git.oid` (default true; false: one GET per page). */
  pageTextsFromTree?: boolean
  /** Hooks into each space folder (tests and benchmarks: which files a pass reads). */
  folder?: SpaceFolderOptions
}

export interface SpaceReport {
  spaceId: string
  label: string
  folder?: string
  state: SpaceState
  message?: string
  revision?: string
  steps: number
}

export interface PassReport {
  spaces: SpaceReport[]
  offline: boolean
  /** Every selected space matches its remote revision. */
  inSync: boolean
}

/**
 * Spaces synced at once in a pass. Two: while one space waits on its tree or plans, the other keeps the
 * gateway's queue full (its own concurrency, up to 16, and the service's rate limit bound the requests).
 * More spaces add little there and cost where the work is local on a busy machine: bench:scale's
 * 100 x 100 first mirror over loopback took 13.3 s with 4 at a time at load 5.7 (6.2 s at load 1.7),
 * 7.2 s with 2 and 6.9 s with 1 (load 2-5); bench:network -- spaces (50 x 100 pages, 80 ms round trip,
 * --hosted's 100/s) took 59 s with 2, 63 s with 4 and 91-102 s with 1 against its 52 s floor.
 */
export const SPACE_CONCURRENCY = 2

/** SPACE_CONCURRENCY, or `QUIRE_SPACE_CONCURRENCY` where set (1: one space after another, as before; benchmarks compare the two). */
export function spaceConcurrency(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.QUIRE_SPACE_CONCURRENCY?.trim()
  if (!given) return SPACE_CONCURRENCY
  if (!/^\d+$/.test(given) || Number(given) < 1) throw new Error(`QUIRE_SPACE_CONCURRENCY must be a whole number of spaces (1 or more), got "${given}"`)
  return Number(given)
}

/** How long lists made by `discover` stand in for the next pass's own (the CLI discovers, then passes). */
const DISCOVERY_REUSE_MS = 10_000

/**
 * Spaces just fetched by `discover` (every one the account sees: `complete`) or `resolveSpaces` of an
 * engine that hands its lists over, for the next pass on the same cache and account to decide by
 * instead of listing them again. Kept per cache, not per engine: the CLI discovers with one engine and
 * its workspace session passes with another.
 */
interface Discovered {
  accountId: string
  at: number
  spaces: Map<string, Space>
  complete: boolean
}
const discoveredByCache = new WeakMap<CacheRepository, Discovered>()

/**
 * Runs passes over the selected spaces, a few at a time (see `pass`). A pass starts from the space lists of the
 * organizations that hold the selection (`listSelection`): they carry every space's revision, so an
 * unchanged pass costs one request per organization whatever the number of spaces, and only a changed
 * space costs more (its tree, then the pages whose oid changed). Lists an engine just made and hands
 * over (`handOverLists`, the CLI's) are used instead, so `quire sync --all` lists nothing twice.
 */
export class SyncEngine {
  constructor(private readonly options: SyncEngineOptions) {}

  private get cache() {
    return this.options.cache
  }
  private get gateway() {
    return this.options.gateway
  }

  /** Lists every organization, collection and space the account sees into the cache (and hands them to the next pass, see `handOverLists`). */
  async discover(): Promise<void> {
    const client = this.gateway.client
    const spaces = new Map<string, Space>()
    const orgs = paginate((page) => client.orgs.listOrganizationsForAuthenticatedUser({ page, limit: 1000 }).then((r) => r.data))
    for await (const org of orgs) {
      this.cache.upsertOrganization({ id: org.id, accountId: this.options.account.id, title: org.title })
      await listCollections(this.cache, this.gateway, org.id)
      for (const space of await listSpaces(this.cache, this.gateway, org.id)) spaces.set(space.id, space)
    }
    if (this.options.handOverLists) discoveredByCache.set(this.cache, { accountId: this.options.account.id, at: Date.now(), spaces, complete: true })
  }

  /** Makes sure spaces named by id are in the cache (with their organization), without listing everything. */
  async resolveSpaces(ids: string[]): Promise<void> {
    for (const id of ids) {
      if (this.cache.space(id)) continue
      let space
      try {
        space = (await this.gateway.client.spaces.getSpaceById(id)).data
      } catch (error) {
        if (error instanceof GitBookAPIError && error.code === 404) throw new Error(`no space ${id} (or it is not visible to ${this.options.account.displayName})`)
        throw error
      }
      if (!this.cache.organization(space.organization)) {
        const org = (await this.gateway.client.orgs.getOrganizationById(space.organization)).data
        this.cache.upsertOrganization({ id: org.id, accountId: this.options.account.id, title: org.title })
      }
      this.cache.upsertSpace({ id: space.id, orgId: space.organization, collectionId: space.parent, title: space.title })
      if (!this.options.handOverLists) continue
      let discovered = discoveredByCache.get(this.cache)
      if (!discovered || discovered.accountId !== this.options.account.id || Date.now() - discovered.at >= DISCOVERY_REUSE_MS) {
        discoveredByCache.set(this.cache, (discovered = { accountId: this.options.account.id, at: Date.now(), spaces: new Map(), complete: false }))
      }
      discovered.spaces.set(space.id, space)
    }
  }

  /**
   * One pass over every selected space, a few spaces at a time (`spaceConcurrency`). Every request of
   * every space goes through the one gateway, whose queue, pace and rate-limit budget bound them all:
   * spaces in parallel only keep that queue fed (one space's tree read, plan and folder scan overlap
   * another's downloads), they never add to what the service is asked for at once. One space's failure
   * is its own entry; a refused token (401) stops new spaces and is thrown once those running ended; a
   * service found unreachable leaves the spaces not yet started offline; `shouldStop` starts no more.
   * The report lists the spaces in selection order, whatever order they finished in.
   */
  async pass(): Promise<PassReport> {
    const report: PassReport = { spaces: [], offline: false, inSync: true }
    let listed: ListedSpaces = new Map()
    try {
      listed = this.takeDiscovered() ?? (await listSelection(this.cache, this.gateway, this.options.account.id))
    } catch (error) {
      if (!(error instanceof ServiceUnreachableError)) throw error
      report.offline = true
    }
    const selected = this.cache.selectedSpaces()
    if (!report.offline) this.nameFolders(selected)
    const entries: Array<SpaceReport | undefined> = new Array(selected.length)
    // What stops the pass (a refused token, the cache failing): no space starts after it, and it is
    // thrown once the spaces running have ended, as one space after another threw it.
    let thrown: { error: unknown } | undefined
    let stopped = false
    const queue = new PQueue({ concurrency: Math.max(1, this.options.spaceConcurrency ?? spaceConcurrency()) })
    for (const [index, space] of selected.entries()) {
      void queue.add(async () => {
        if (thrown) return
        try {
          if (report.offline) {
            entries[index] = this.markOffline(space, this.label(space), 'the service cannot be reached')
            return
          }
          if (this.options.shouldStop?.()) {
            stopped = true
            return
          }
          const entry = await this.syncOne(space, listed.get(space.id))
          if (entry.state === 'offline') report.offline = true
          entries[index] = entry
        } catch (error) {
          thrown ??= { error }
        }
      })
    }
    await queue.onIdle()
    if (thrown) throw thrown.error
    report.spaces = entries.filter((entry) => entry !== undefined)
    report.inSync = !stopped && !report.offline && report.spaces.every((s) => s.state === 'synced')
    return report
  }

  /**
   * Every new space's folder named before any space starts, in selection order (the same names whichever
   * space finishes first), each organization's names gathered once rather than once a space.
   */
  private nameFolders(spaces: SpaceRow[]) {
    const names = new Map<string, FolderNameRegistry>()
    for (const space of spaces) {
      try {
        this.folderFor(space, names)
      } catch {
        // Said as that space's error when it syncs.
      }
    }
  }

  /** One space of a pass, its progress events from start to finish; throws only a refused token (401). */
  private async syncOne(space: SpaceRow, listed: Space | undefined): Promise<SpaceReport> {
    const label = this.label(space)
    let folder: string | undefined
    let entry: SpaceReport
    this.options.onProgress?.({ type: 'space-started', spaceId: space.id, label })
    try {
      folder = this.folderFor(space)
      const outcome = await syncSpace(space, folder, {
        cache: this.cache,
        gateway: this.gateway,
        allowMassDelete: this.options.allowMassDelete,
        concurrency: this.options.concurrency,
        refreshLinks: this.options.refreshLinks,
        hold: this.options.hold?.(space.id),
        listed,
        pageTextsFromTree: this.options.pageTextsFromTree,
        byDifference: this.options.byDifference,
        folder: this.options.folder,
        onPlanned: (total) => this.options.onProgress?.({ type: 'space-planned', spaceId: space.id, label, total }),
        onStep: (step) => this.options.onProgress?.({ type: 'step', spaceId: space.id, label, step }),
      })
      entry = { spaceId: space.id, label: this.label(this.cache.space(space.id) ?? space), folder, state: outcome.state, message: outcome.message, revision: outcome.revision, steps: outcome.steps }
    } catch (error) {
      if (error instanceof GitBookAPIError && error.code === 401) {
        // The token, not this space: the caller says signed out for every space.
        this.options.onProgress?.({ type: 'space-finished', spaceId: space.id, label, state: 'error', message: error.errorMessage })
        throw error
      }
      if (error instanceof ServiceUnreachableError) {
        entry = this.markOffline(space, label, error.message)
      } else {
        const message = describeError(error)
        this.cache.setSpaceState(space.id, 'error', { lastError: message, issues: [{ kind: 'failed', message }] })
        entry = { spaceId: space.id, label, folder, state: 'error', message, steps: 0 }
      }
    }
    this.options.onProgress?.({ type: 'space-finished', spaceId: space.id, label: entry.label, state: entry.state, message: entry.message })
    return entry
  }

  /**
   * What `discover` or `resolveSpaces` just fetched, once, when it covers the selection: every selected
   * space, and every space there is when the selection names organizations or collections (which may
   * hold spaces the cache has not seen). Undefined otherwise, or when too old to decide by.
   */
  private takeDiscovered(): ListedSpaces | undefined {
    const discovered = discoveredByCache.get(this.cache)
    discoveredByCache.delete(this.cache)
    if (!discovered || discovered.accountId !== this.options.account.id || Date.now() - discovered.at >= DISCOVERY_REUSE_MS) return undefined
    if (!discovered.complete && this.cache.selectionNeedsDiscovery()) return undefined
    return this.cache.selectedSpaces().every((s) => discovered.spaces.has(s.id)) ? discovered.spaces : undefined
  }

  /** Offline: the folder stays as it is; an unfinished run stays recorded so the next pass resumes it. */
  private markOffline(space: SpaceRow, label: string, message: string): SpaceReport {
    this.cache.setSpaceState(space.id, 'offline', { lastError: message })
    return { spaceId: space.id, label, folder: spaceFolderPath(this.cache, this.options.workspace, space), state: 'offline', message, steps: 0 }
  }

  private label(space: SpaceRow): string {
    return `${this.cache.organization(space.orgId)?.title ?? space.orgId}/${space.title}`
  }

  /**
   * `<workspace>/<organization>/<space>`: names chosen once, stored, and kept when the organization or
   * space is renamed; unique among their siblings (case and Unicode folding included).
   */
  private folderFor(space: SpaceRow, names = new Map<string, FolderNameRegistry>()): string {
    const org = this.cache.organization(space.orgId)
    if (!org) throw new Error(`space ${space.id} belongs to an organization Quire has not seen`)
    if (!org.folder) {
      const orgNames = new FolderNameRegistry()
      for (const other of this.cache.organizations(org.accountId)) if (other.folder) orgNames.claim(other.folder, other.id)
      this.cache.setOrganizationFolder(org.id, orgNames.claim(org.title, org.id))
    }
    if (!space.folder) {
      let spaceNames = names.get(org.id)
      if (!spaceNames) {
        names.set(org.id, (spaceNames = new FolderNameRegistry()))
        for (const other of this.cache.spaces(org.id)) if (other.folder) spaceNames.claim(other.folder, other.id)
      }
      this.cache.setSpaceFolder(space.id, spaceNames.claim(space.title, space.id))
    }
    const folder = spaceFolderPath(this.cache, this.options.workspace, this.cache.space(space.id) ?? space)
    if (!folder) throw new Error(`no folder could be named for space ${space.id}`)
    return folder
  }
}

/** Where a space's folder is, once a pass has named it; undefined before its first pass. */
export function spaceFolderPath(cache: CacheRepository, workspace: string, space: SpaceRow): string | undefined {
  const org = cache.organization(space.orgId)
  if (!org?.folder || !space.folder) return undefined
  return path.join(workspace, org.folder, space.folder)
}

function describeError(error: unknown): string {
  if (error instanceof GitBookAPIError) return `the service answered HTTP ${error.code}: ${error.errorMessage}`
  return error instanceof Error ? error.message : String(error)
}
