import path from 'node:path'
import { quirePaths, signedIn, SpacePusher, WorkspaceStore, type AccountRow, type ApiGateway, type CacheRepository, type CommentsRepository, type LeaseHolder, type LeaseKind, type OutboxRepository, type QuirePaths, type SpaceRow, type WorkspaceLease } from '../engine'

/**
 * What the commands that act on single files, comments and change requests share (quire cr, comments,
 * comment, reply, resolve): the workspace's store, the account signed in when first needed, the workspace.
 * Commands that run a workspace session open it with the engine's openWorkspace instead.
 */
export class SyncUpContext {
  readonly cache: CacheRepository
  readonly outbox: OutboxRepository
  readonly comments: CommentsRepository
  readonly lease: WorkspaceLease
  private gatewayCache?: { account: AccountRow; gateway: ApiGateway }

  private constructor(
    private readonly store: WorkspaceStore,
    readonly paths: QuirePaths,
    workspace?: string,
  ) {
    this.cache = store.cache
    this.lease = store.lease
    // Ops are claimed (and sent) only while this process holds the workspace's lease.
    this.outbox = store.outbox
    this.comments = store.comments
    this.diffs = store.diffs
    this.workspace = store.folder(workspace)
  }

  readonly workspace: string
  /** Change request diffs as last read (the app's and `quire cr show`'s), for `cr show` offline. */
  readonly diffs: WorkspaceStore['diffs']

  static open(options: { workspace?: string } = {}): SyncUpContext {
    const paths = quirePaths()
    return new SyncUpContext(WorkspaceStore.open(paths), paths, options.workspace)
  }

  close() {
    this.store.close()
  }

  /** Takes the workspace for this command; answers who holds it when another live process does (WorkspaceStore.claim). */
  claim(kind: LeaseKind): LeaseHolder | undefined {
    return this.store.claim(kind)
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
