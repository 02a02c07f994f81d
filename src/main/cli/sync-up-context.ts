import path from 'node:path'
import type Database from 'better-sqlite3'
import { quirePaths, signedIn, type QuirePaths } from '../engine/account/account'
import { CacheRepository, type AccountRow, type SpaceRow } from '../engine/cache/cache-repository'
import { openCacheDatabase } from '../engine/cache/open-cache'
import { CommentsRepository } from '../engine/comments/comments-repository'
import type { ApiGateway } from '../engine/gateway/api-gateway'
import { OutboxRepository } from '../engine/outbox/outbox-repository'
import { WorkspaceLease, type LeaseHolder, type LeaseKind } from '../engine/cache/workspace-lease'
import { SpacePusher } from '../engine/push/space-pusher'
import { workspaceFolder } from './sync-command'

/** What the sync-up commands share: one cache database with its repositories, the account, the workspace. */
export class SyncUpContext {
  readonly cache: CacheRepository
  readonly outbox: OutboxRepository
  readonly comments: CommentsRepository
  readonly lease: WorkspaceLease
  private gatewayCache?: { account: AccountRow; gateway: ApiGateway }

  private constructor(
    private readonly db: Database.Database,
    readonly paths: QuirePaths,
    workspace?: string,
  ) {
    this.cache = new CacheRepository(db)
    this.lease = new WorkspaceLease(db)
    // Ops are claimed (and sent) only while this process holds the workspace's lease.
    this.outbox = new OutboxRepository(db, undefined, this.lease.outboxClaim())
    this.comments = new CommentsRepository(db)
    this.workspace = workspaceFolder(this.cache, workspace)
  }

  readonly workspace: string

  static open(options: { workspace?: string } = {}): SyncUpContext {
    const paths = quirePaths()
    return new SyncUpContext(openCacheDatabase(paths.cacheFile), paths, options.workspace)
  }

  close() {
    this.lease.release()
    this.db.close()
  }

  /**
   * Takes the workspace for this command (no other process syncs or sends while it runs); answers who
   * holds it when another live process does: then this one only queues, and the holder sends.
   */
  claim(kind: LeaseKind): LeaseHolder | undefined {
    if (this.lease.held) return undefined
    const result = this.lease.acquire({ kind })
    return result.acquired ? undefined : result.holder
  }

  async signedIn(kind: LeaseKind = 'cli'): Promise<{ account: AccountRow; gateway: ApiGateway }> {
    this.gatewayCache ??= await signedIn(this.cache, this.paths)
    this.claim(kind)
    return this.gatewayCache
  }

  /** The folder of a space the sync-down engine has placed. */
  folderOf(space: SpaceRow): string | undefined {
    const org = this.cache.organization(space.orgId)
    return org?.folder && space.folder ? path.join(this.workspace, org.folder, space.folder) : undefined
  }

  /** Which space a local file belongs to, and its path inside the space folder. */
  locate(file: string): { space: SpaceRow; folder: string; relative: string } {
    const full = path.resolve(file)
    for (const space of this.cache.spaces()) {
      const folder = this.folderOf(space)
      if (folder && full.startsWith(folder + path.sep)) return { space, folder, relative: path.relative(folder, full).split(path.sep).join('/') }
    }
    throw new Error(`${file} is not inside a synced space of the workspace ${this.workspace}`)
  }

  /** The page a local file stands for: its journal entry, or the page the writer's change request created for it. */
  pageOf(spaceId: string, relative: string): { pageId: string; inMain: boolean } {
    const journaled = this.cache.journal(spaceId).find((j) => j.kind === 'page' && j.path === relative)
    const pushed = this.outbox.entries(spaceId).find((e) => e.kind === 'page' && e.path === relative && e.pageId && e.state !== 'deleted')
    const pageId = pushed?.pageId ?? journaled?.id
    if (!pageId) throw new Error(`${relative} is not a page Quire knows yet (a new file gets its page with the next push)`)
    const inMain = this.cache.remoteTree(spaceId).pages.some((p) => p.id === pageId)
    return { pageId, inMain }
  }

  async pusher(space: SpaceRow): Promise<SpacePusher> {
    const folder = this.folderOf(space)
    if (!folder) throw new Error(`space ${space.title} has no folder yet: run \`quire sync\` first`)
    const { account, gateway } = await this.signedIn()
    return new SpacePusher({ gateway, cache: this.cache, outbox: this.outbox, comments: this.comments, spaceId: space.id, folder, userId: account.userId })
  }
}
