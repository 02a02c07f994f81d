import path from 'node:path'
import type { GatewayTuning } from '../../../../src/main/app/accounts'
import { QuireBackend } from '../../../../src/main/app/backend'
import { CacheRepository } from '../../../../src/main/engine/cache/cache-repository'
import { CommentsRepository } from '../../../../src/main/engine/comments/comments-repository'
import { openCacheDatabase } from '../../../../src/main/engine/cache/open-cache'
import { OutboxRepository } from '../../../../src/main/engine/outbox/outbox-repository'
import type { PushResult } from '../../../../src/main/engine/push/space-pusher'
import type { WorkspaceSession } from '../../../../src/main/engine/session/workspace-session'
import { spaceFolderPath } from '../../../../src/main/engine/sync/sync-engine'
import type { PullResult } from '../../../../src/main/engine/watch/pull'
import { SpaceFiles, type Remote, type SeededSpace } from './workspace'

/** What the randomized test needs of a writer's Quire, whichever front end runs it. */
export interface Writer {
  readonly seeded: SeededSpace
  readonly folder: string
  readonly cache: CacheRepository
  readonly outbox: OutboxRepository
  file(relative: string): string
  read(relative: string): string
  write(relative: string, content: string | Buffer): void
  push(): Promise<Pick<PushResult, 'planned' | 'sent' | 'settled' | 'stopped' | 'skipped'>>
  pull(): Promise<PullResult>
  /** "Merge" from Quire (through its outbox); a label of what became of it. */
  merge(changeRequestId: string): Promise<string>
  /** "Update from main" of the writer's change request as the front end asks it (quire cr update; the app's Update from main); a label. */
  updateFromMain(changeRequestId: string): Promise<string>
  /** A comment, reply or resolve asked from the front end (quire comment/reply/resolve; the app's buttons); a label. */
  act(ask: FrontEndAsk): Promise<string>
  close(): void | Promise<void>
  /** Resolves once the front end runs nothing it started itself (the app's cycle after a merge); the CLI's Quire runs nothing unasked. */
  settle?(): Promise<void>
}

/** What a writer asks of the front end about comment threads. */
export type FrontEndAsk =
  | { kind: 'comment'; pageId: string; text: string }
  | { kind: 'reply'; commentId: string; text: string }
  | { kind: 'resolve'; commentId: string }
  /** A verdict on someone else's change request, with its comment. */
  | { kind: 'review'; changeRequestId: string; verdict: 'approved' | 'changes-requested'; text: string }

const noDesktop = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }

/**
 * A writer's Quire as the APP runs it: QuireBackend (the class the Electron main process and `quire
 * serve` run) over a data folder, its own workspace session doing every push and pass. The test reads the
 * cache and the outbox through a second connection to the same SQLite file.
 */
export class AppWorkstation extends SpaceFiles implements Writer {
  readonly cache: CacheRepository
  readonly outbox: OutboxRepository
  private readonly db

  private constructor(
    readonly seeded: SeededSpace,
    readonly dataDir: string,
    private readonly backend: QuireBackend,
  ) {
    super()
    this.db = openCacheDatabase(path.join(dataDir, 'cache.db'))
    this.cache = new CacheRepository(this.db)
    this.outbox = new OutboxRepository(this.db)
  }

  /**
   * Opens the app's backend over `dataDir`: the first time it signs in and chooses the space; later (a
   * restart after a kill) it resumes the stored session, as the app does. `quietly` runs the start with
   * the network's faults off (a start that fails to sign in is not what these sequences are about).
   */
  static async open(
    remote: Remote,
    seeded: SeededSpace,
    dataDir: string,
    gateway: GatewayTuning,
    quietly: (work: () => Promise<void>) => Promise<void>,
    // The sequences of its users test other things than the quiet interval of a removal (0 here); the tests of it pass more.
    options: { deletionQuietMs?: number; watch?: boolean; debounceMs?: number } = {},
  ): Promise<AppWorkstation> {
    process.env.QUIRE_TOKEN_STORE = 'file'
    let backend!: QuireBackend
    await quietly(async () => {
      backend = await QuireBackend.open({ dataDir, desktop: noDesktop, autoSync: false, watch: options.watch ?? false, debounceMs: options.debounceMs, deletionQuietMs: options.deletionQuietMs ?? 0, gateway })
      if (!(await backend.getSession()).signedIn) await backend.signIn({ endpoint: remote.origin, token: remote.token })
      await backend.listSpaces()
      const status = await backend.getStatus()
      if (!status.spaces.some((s) => s.id === seeded.spaceId)) await backend.setSelection({ kind: 'space', id: seeded.spaceId, selected: true })
    })
    return new AppWorkstation(seeded, dataDir, backend)
  }

  /** Resolves once the backend is idle: its session's queue and the app's own work after a pass (backend.idle). */
  settle(): Promise<void> {
    return this.backend.idle()
  }

  get session(): WorkspaceSession {
    const session = this.backend.session
    if (!session) throw new Error('the app is signed out')
    return session
  }

  get folder(): string {
    const row = this.cache.space(this.seeded.spaceId)
    const folder = row && spaceFolderPath(this.cache, this.cache.setting('workspace') ?? path.join(this.dataDir, 'workspace'), row)
    if (!folder) throw new Error('the space has no folder yet (no pass has run)')
    return folder
  }

  /** The session's push of the space (with the pass and second push it makes when a merge settled). */
  async push() {
    const results: PushResult[] = []
    const stop = this.session.observe((event) => {
      if (event.type === 'push' && event.spaceId === this.seeded.spaceId) results.push(event.result)
    })
    try {
      await this.session.push(this.seeded.spaceId)
    } finally {
      stop()
    }
    return {
      planned: results.reduce((n, r) => n + r.planned, 0),
      sent: results.reduce((n, r) => n + r.sent, 0),
      settled: results.find((r) => r.settled)?.settled,
      stopped: results.at(-1)?.stopped,
      skipped: results.at(-1)?.skipped,
    }
  }

  /** The session's sync-down pass (the one `quire sync` and every cycle run). */
  async pull(): Promise<PullResult> {
    const before = this.cache.space(this.seeded.spaceId)?.syncedRevision
    const report = await this.session.pass()
    const space = report?.spaces.find((s) => s.spaceId === this.seeded.spaceId)
    if (!space) throw new Error(`the pass did not take the space in: ${JSON.stringify(report)}`)
    const revision = space.revision ?? ''
    const issues: PullResult['issues'] = space.message ? [{ kind: 'failed', message: space.message }] : []
    return { revision, unchanged: space.steps === 0 && revision === before, written: space.steps, state: space.state, issues }
  }

  /** The space's state as the app shows it (`synced`, `pending`, ...). */
  async state(): Promise<string | undefined> {
    return (await this.backend.getStatus()).spaces.find((s) => s.id === this.seeded.spaceId)?.state
  }

  /**
   * The app's Merge, and the cycle it starts right after (workspace-session.ts `merge`): the workspace has
   * followed the merge when this returns, as it has after the CLI's (SpacePusher.merge settles in the call).
   * Left running, that cycle's push and pass race the next steps, which read the journal and the outbox
   * as if it were over: a file's page as the journal named it before the merge, "no change request
   * open" judged while the cycle is about to open one.
   */
  async merge(changeRequestId: string): Promise<string> {
    const merged = await this.backend.mergeChangeRequest({ spaceId: this.seeded.spaceId, changeRequestId })
    await this.backend.idle()
    return merged.waiting ? `waits (${merged.waiting})` : merged.status
  }

  async updateFromMain(changeRequestId: string): Promise<string> {
    const updated = await this.backend.updateChangeRequest({ spaceId: this.seeded.spaceId, changeRequestId })
    return updated.waiting ? `waits (${updated.waiting})` : updated.conflicts ? 'updated with conflicts' : 'updated'
  }

  async act(ask: FrontEndAsk): Promise<string> {
    const spaceId = this.seeded.spaceId
    if (ask.kind === 'review') {
      const reviewed = await this.backend.reviewChangeRequest({ spaceId, changeRequestId: ask.changeRequestId, verdict: ask.verdict, comment: ask.text })
      return reviewed.repeat ? `already ${reviewed.repeat}` : reviewed.waiting ? `waits (${reviewed.waiting})` : 'sent'
    }
    const changeRequestId = ask.kind === 'comment' ? undefined : this.cachedThread(ask.commentId)
    const thread =
      ask.kind === 'comment'
        ? await this.backend.postComment({ spaceId, pageId: ask.pageId, markdown: ask.text })
        : ask.kind === 'reply'
          ? await this.backend.replyToComment({ spaceId, commentId: ask.commentId, markdown: ask.text, changeRequestId })
          : await this.backend.resolveComment({ spaceId, commentId: ask.commentId, changeRequestId })
    return thread.repeat ? `already ${thread.repeat}` : thread.waiting ? `waits (${thread.waiting})` : 'sent'
  }

  /** The change request a thread belongs to, as the app's mirror knows it (what its thread view passes). */
  private cachedThread(commentId: string): string | undefined {
    return new CommentsRepository(this.db).thread(commentId)?.changeRequestId
  }

  async close() {
    await this.backend.close()
    this.db.close()
  }
}
