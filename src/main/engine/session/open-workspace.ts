import path from 'node:path'
import type Database from 'better-sqlite3'
import { signedIn, type QuirePaths } from '../account/account'
import { ChangeRequestDiffsRepository } from '../cache/change-request-diffs'
import { CacheRepository, type AccountRow, type SpaceRow } from '../cache/cache-repository'
import { openCacheDatabase, type OpenCacheOptions } from '../cache/open-cache'
import { LeaseHeldError, WorkspaceLease, type LeaseHolder, type LeaseKind } from '../cache/workspace-lease'
import { CommentsRepository } from '../comments/comments-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import { OutboxRepository } from '../outbox/outbox-repository'
import { spaceFolderPath } from '../sync/sync-engine'
import { WorkspaceSession, type WorkspaceSessionOptions } from './workspace-session'

/** The cache setting of the workspace folder: `--workspace` of the CLI and the app's setting are one. */
export const WORKSPACE_SETTING = 'workspace'

/** What a store needs to know of where things are: the cache file, and the workspace folder used until one is chosen. */
export type StorePaths = Pick<QuirePaths, 'cacheFile' | 'defaultWorkspace'>

/** A signed-in account and the gateway that calls the service as it. */
export interface SignedInAccount {
  account: AccountRow
  gateway: ApiGateway
}

/** How a session runs, beside what the store and the account give it. */
export type SessionSettings = Omit<WorkspaceSessionOptions, 'cache' | 'outbox' | 'comments' | 'account' | 'gateway' | 'lease'>

/**
 * One workspace's cache database and what reads and writes it: the cache, the outbox, the comments and
 * the workspace's cross-process lease. The outbox is built with the lease's claim, so ops are claimed
 * (and sent) only while this process holds the workspace: never by two processes at once. The app opens
 * its store once for its life; every CLI command opens one, directly or through `openWorkspace`.
 */
export class WorkspaceStore {
  readonly cache: CacheRepository
  readonly outbox: OutboxRepository
  readonly comments: CommentsRepository
  /** Change request diffs as last read, for reading them offline. */
  readonly diffs: ChangeRequestDiffsRepository
  readonly lease: WorkspaceLease

  private constructor(
    private readonly db: Database.Database,
    readonly paths: StorePaths,
    now?: () => Date,
  ) {
    this.cache = new CacheRepository(db, now && (() => now().toISOString()))
    this.lease = new WorkspaceLease(db)
    this.outbox = new OutboxRepository(db, undefined, this.lease.outboxClaim())
    this.comments = new CommentsRepository(db)
    this.diffs = new ChangeRequestDiffsRepository(db)
  }

  /** Opens (and creates, migrates or heals: openCacheDatabase) the cache file of `paths`. */
  static open(paths: StorePaths, options: Pick<OpenCacheOptions, 'nativeBinding' | 'onHealed'> & { now?: () => Date } = {}): WorkspaceStore {
    const { now, ...open } = options
    return new WorkspaceStore(openCacheDatabase(paths.cacheFile, open), paths, now)
  }

  /** The workspace folder: `requested` (a `--workspace`) is remembered for the commands after; else the one remembered, else the default. */
  folder(requested?: string): string {
    if (requested) {
      const resolved = path.resolve(requested)
      this.cache.setSetting(WORKSPACE_SETTING, resolved)
      return resolved
    }
    return this.cache.setting(WORKSPACE_SETTING) ?? this.paths.defaultWorkspace
  }

  /**
   * Takes the workspace for this process (no other process syncs or sends while it holds it); answers
   * who holds it when another live process does: then this one only queues, and the holder sends.
   */
  claim(kind: LeaseKind): LeaseHolder | undefined {
    if (this.lease.held) return undefined
    const result = this.lease.acquire({ kind })
    return result.acquired ? undefined : result.holder
  }

  /** The session of a signed-in account over this store, under this process's lease (`lease` names it to others); nothing started. */
  session(signed: SignedInAccount, settings: SessionSettings, lease: LeaseKind): WorkspaceSession {
    return new WorkspaceSession({ ...settings, cache: this.cache, outbox: this.outbox, comments: this.comments, account: signed.account, gateway: signed.gateway, lease: { lease: this.lease, kind: lease } })
  }

  /** Lets the workspace go (another process may take it) and closes the database. */
  close() {
    this.lease.release()
    this.db.close()
  }
}

export interface OpenWorkspaceOptions extends Omit<SessionSettings, 'workspace'> {
  /** What this process is, as another that finds the workspace taken names it (`quire watch`: watch). */
  lease: LeaseKind
  /**
   * Takes the workspace first, before signing in: another live holder fails the open with LeaseHeldError
   * (quire sync, watch, import: they sync or send, which only one process may). Without it the session
   * claims the workspace when it is free and otherwise only queues, for the holder to send.
   */
  exclusive?: boolean
  /** The workspace folder asked for (`--workspace`), remembered for later commands; else the remembered one. */
  folder?: string
}

/** A workspace opened for one signed-in account: its store, account, gateway, folder and a session over them, nothing started. */
export interface OpenWorkspace extends SignedInAccount {
  readonly store: WorkspaceStore
  readonly cache: CacheRepository
  readonly outbox: OutboxRepository
  readonly comments: CommentsRepository
  readonly lease: WorkspaceLease
  readonly session: WorkspaceSession
  /** The workspace folder (the root of the space folders). */
  readonly workspace: string
  /** The folder of a space the sync-down engine has placed. */
  folderOf(space: SpaceRow): string | undefined
  /** Stops the session, lets its requests finish, releases the workspace and closes the database, in that order (once). */
  close(): Promise<void>
}

/**
 * The one way a command opens a workspace (the CLI's; the app keeps its store and builds sessions from
 * it): the cache with its repositories and lease, the workspace taken (`exclusive`), the saved account
 * signed in (NotSignedInError when there is none), the workspace folder, and a WorkspaceSession over
 * them. What fails on the way closes what was opened.
 */
export async function openWorkspace(paths: QuirePaths, options: OpenWorkspaceOptions): Promise<OpenWorkspace> {
  const { lease: kind, exclusive, folder: requested, ...settings } = options
  const store = WorkspaceStore.open(paths)
  try {
    if (exclusive) {
      const holder = store.claim(kind)
      if (holder) throw new LeaseHeldError(holder)
    }
    const signed = await signedIn(store.cache, paths)
    const workspace = store.folder(requested)
    const session = store.session(signed, { ...settings, workspace: () => workspace }, kind)
    if (!exclusive) {
      store.claim(kind)
      // Records who else holds the workspace (session.attachedTo): then actions queue for the holder.
      session.claimWorkspace()
    }
    let closed: Promise<void> | undefined
    const close = async () => {
      try {
        await session.stop()
        await signed.gateway.idle()
      } finally {
        store.close()
      }
    }
    return {
      ...signed,
      store,
      cache: store.cache,
      outbox: store.outbox,
      comments: store.comments,
      lease: store.lease,
      session,
      workspace,
      folderOf: (space) => spaceFolderPath(store.cache, workspace, space),
      close: () => (closed ??= close()),
    }
  } catch (error) {
    store.close()
    throw error
  }
}
