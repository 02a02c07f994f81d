import type { ChangeRequest, Space } from '@gitbook/api'
import type { ActivityEntry, ChangeRequestChanges, ChangeRequestDiscussion, MergeCheck, ChangeRequestFilter, ChangeRequestSummary, ChangeRequestUpdate, CommentThread } from '../../shared/contract'
import { type ActionOutcome, ActionRefusedError, type CacheRepository, changeRequestChanges, type ChangeRequestDiffsRepository, type CommentsRepository, isUpdateConflict, mergeCheck, type OutboxRepository, ServiceUnreachableError, type SpaceRow, type WorkspaceSession } from '../engine'
import { ChangeRequestDiscussions } from './change-request-discussion'
import { ChangeRequests, statusesOf, summary } from './change-requests'
import { Comments } from './comments'
import { AppError, fromApiError } from './errors'

/**
 * Comments and change requests as the app offers them. Reads come from the service and are mirrored;
 * when the service cannot be reached they come from the cache's mirrors, marked "as last seen at".
 * Every action goes through the session's outbox: offline it waits, and goes out exactly once when the
 * service is back; the answer says it waits. Each action says in the activity log what became of it.
 */
export class ReviewActions {
  private readonly changeRequests: ChangeRequests
  private readonly comments: Comments
  private readonly discussions: ChangeRequestDiscussions

  constructor(
    private readonly session: WorkspaceSession,
    private readonly cache: CacheRepository,
    private readonly outbox: OutboxRepository,
    mirror: CommentsRepository,
    private readonly diffs: ChangeRequestDiffsRepository,
    pageTitle: (spaceId: string, pageId: string) => Promise<string | undefined>,
    private readonly log: (level: ActivityEntry['level'], message: string, spaceId?: string) => void,
  ) {
    this.changeRequests = new ChangeRequests(session.gateway, session.account.userId, outbox)
    this.comments = new Comments(session.gateway, pageTitle, mirror)
    this.discussions = new ChangeRequestDiscussions(session.gateway, session.account.userId, mirror, outbox)
  }

  /** The description, threads and reviews of a change request; offline, as last read. */
  async discussion(spaceId: string, changeRequestId: string): Promise<ChangeRequestDiscussion> {
    try {
      return await this.discussions.read(spaceId, changeRequestId)
    } catch (error) {
      if (!isOffline(error)) throw fromApiError(error, 'Reading the discussion of the change request')
      return this.discussions.fromMirror(spaceId, changeRequestId, this.cache.space(spaceId)?.lastSyncAt ?? new Date().toISOString())
    }
  }

  /* Change requests */

  /** One space's change requests, or those of every selected space. */
  async listChangeRequests(filter: { spaceId?: string; mine?: boolean; status?: ChangeRequestFilter }): Promise<ChangeRequestSummary[]> {
    const spaces = filter.spaceId ? [this.cache.space(filter.spaceId)].filter((s): s is SpaceRow => s !== undefined) : this.cache.selectedSpaces()
    if (filter.spaceId && spaces.length === 0) throw new AppError('not-found', `No space ${filter.spaceId} is known.`)
    try {
      const list = await this.changeRequests.list(
        spaces.map((r) => ({ id: r.id, title: r.title })),
        filter,
      )
      void this.keepDiffs(list)
      return list
    } catch (error) {
      if (!isOffline(error)) throw error
      return this.mirroredChangeRequests(spaces, filter)
    }
  }

  private mirroredChangeRequests(spaces: SpaceRow[], filter: { mine?: boolean; status?: ChangeRequestFilter }): ChangeRequestSummary[] {
    const userId = this.session.account.userId
    const statuses = statusesOf(filter.status)
    const out: ChangeRequestSummary[] = []
    for (const space of spaces) {
      for (const row of this.outbox.changeRequests(space.id)) {
        if (!statuses.includes(row.status)) continue
        // The mirror keeps each change request as the service returned it. Offline, nothing may be merged.
        const cr = summary(row.data as unknown as ChangeRequest, { title: space.title, permissions: { merge: false } as Space['permissions'] }, userId)
        if (filter.mine && !cr.mine) continue
        out.push({ ...cr, asOf: space.lastSyncAt ?? cr.updatedAt })
      }
    }
    return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
  }

  /** What the change request changes, page by page; offline, as last read (with asOf), when it was read once. */
  async changes(spaceId: string, changeRequestId: string): Promise<ChangeRequestChanges> {
    try {
      return await changeRequestChanges(this.session.gateway, spaceId, changeRequestId, this.diffs)
    } catch (error) {
      const kept = this.diffs.get(spaceId, changeRequestId)
      if (!isOffline(error) || !kept) throw offlineWithoutDiff(fromApiError(error, 'Reading what the change request changes'))
      return { ...(kept.data as ChangeRequestChanges), asOf: kept.fetchedAt }
    }
  }

  /** Change requests whose diff is being kept now: one reading each at a time. */
  private readonly keeping = new Set<string>()

  /**
   * Every live change request listed gets its diff kept for offline, read again only when its revision
   * moved since: one at a time, behind what the user asked for, each failure left for the next list.
   */
  private async keepDiffs(list: ChangeRequestSummary[]): Promise<void> {
    for (const cr of list) {
      if ((cr.status !== 'open' && cr.status !== 'draft') || !cr.revision || this.keeping.has(cr.id)) continue
      if (this.diffs.get(cr.spaceId, cr.id)?.revision === cr.revision) continue
      this.keeping.add(cr.id)
      try {
        await changeRequestChanges(this.session.gateway, cr.spaceId, cr.id, this.diffs)
      } catch {
        // Offline or refused: the next list tries again.
      } finally {
        this.keeping.delete(cr.id)
      }
    }
  }

  /** The merge rules in force for the change request, each met or not, and what a merge would skip. */
  async mergeCheck(spaceId: string, changeRequestId: string): Promise<MergeCheck> {
    try {
      return await mergeCheck(this.session.gateway, this.session.account.userId, spaceId, changeRequestId)
    } catch (error) {
      // Offline in plain words (not the HTTP client's "fetch failed"): the rules are the service's to judge.
      if (isOffline(error)) throw new AppError('offline', 'the service cannot be reached; they are read again when it is back, and the service judges a merge when it goes out.')
      throw fromApiError(error, 'Reading the merge rules')
    }
  }

  pdfUrl(spaceId: string, changeRequestId: string): Promise<string> {
    return this.changeRequests.pdfUrl(spaceId, changeRequestId)
  }

  /**
   * The change request after Update from main, and whether main and it changed the same places. The
   * service refuses an update that would have to drop one side's text (409, naming the pages). For the
   * writer's own change request, their push turns that into the app's conflicts (main's version in the
   * change request and the file, theirs in a conflicted copy: Compare, Keep mine, Keep theirs) and the
   * update is asked once more; otherwise the refusal, naming the pages, is the answer.
   */
  async updateFromMain(spaceId: string, changeRequestId: string): Promise<ChangeRequestUpdate> {
    let outcome: ActionOutcome
    let refused: string | undefined
    try {
      outcome = await this.session.updateFromMain(spaceId, changeRequestId)
    } catch (error) {
      refused = error instanceof ActionRefusedError ? error.op.lastError : undefined
      if (!isUpdateConflict(refused) || this.outbox.session(spaceId)?.changeRequestId !== changeRequestId) {
        throw error instanceof ActionRefusedError ? refusal(error, 'Updating the change request from main') : fromApiError(error, 'Updating the change request from main')
      }
      this.log('warning', `Update from main: ${refused!.replace(/^HTTP \d{3}: /, '')} Your version of those places goes to conflicted copies.`, spaceId)
      await this.session.push(spaceId)
      outcome = await this.act(() => this.session.updateFromMain(spaceId, changeRequestId), 'Updating the change request from main')
    }
    const summary = await this.summary(spaceId, changeRequestId, outcome)
    const answer = outcome.op.result as { result?: string } | undefined
    const conflicts = answer?.result === 'conflicts' || refused !== undefined
    if (summary.waiting) this.log('warning', `#${summary.number}: update from main waits to be sent (${summary.waiting})`, spaceId)
    else this.log(conflicts ? 'warning' : 'info', conflicts ? `#${summary.number} was updated from main with conflicts to resolve` : `#${summary.number} "${summary.subject}" updated from main`, spaceId)
    return { ...summary, conflicts }
  }

  async merge(spaceId: string, changeRequestId: string): Promise<ChangeRequestSummary> {
    let before: ChangeRequestSummary | undefined
    try {
      before = await this.changeRequests.get(spaceId, changeRequestId)
    } catch (error) {
      if (!isOffline(error)) throw error
    }
    // Offline the service decides when the merge goes out; online a merge the caller may not make is refused here.
    if (before && !before.canMerge) throw new AppError('forbidden', `Change request #${before.number} cannot be merged by you (status ${before.status}).`)
    if (before) {
      // The rules are judged before anything is queued: a refused merge must not wait in the outbox.
      const check = await this.mergeCheck(spaceId, changeRequestId).catch((error: unknown) => {
        if (isOffline(error)) return undefined // gone since: the merge waits, and the service judges it when it goes out
        throw error
      })
      if (check && check.blockers.length > 0) throw new AppError('forbidden', `Change request #${before.number} cannot be merged: ${check.blockers.join('; ')}.`)
    }
    const outcome = await this.act(() => this.session.merge(spaceId, changeRequestId), `Merging change request #${before?.number ?? changeRequestId}`)
    const answer = outcome.op.result as { result?: string } | undefined
    if (outcome.sent && answer?.result === 'conflicts') {
      throw new AppError('conflict', `Change request ${before ? `#${before.number}` : changeRequestId} was merged with conflicts: look at its pages in the space.`)
    }
    const summary = await this.summary(spaceId, changeRequestId, outcome)
    if (summary.waiting) this.log('warning', `Merging #${summary.number} waits to be sent (${summary.waiting})`, spaceId)
    else this.log('info', `Merged #${summary.number} "${summary.subject}" into ${summary.spaceTitle}`, spaceId)
    return summary
  }

  /** The change request after an action: from the service once sent, else the mirror's, marked waiting. */
  async summary(spaceId: string, changeRequestId: string, outcome: ActionOutcome): Promise<ChangeRequestSummary> {
    if (outcome.sent) {
      try {
        return withRepeat(await this.changeRequests.get(spaceId, changeRequestId), outcome)
      } catch (error) {
        if (!isOffline(error)) throw error
      }
    }
    const space = this.cache.space(spaceId)
    const mirrored = space ? this.mirroredChangeRequests([space], {}).find((c) => c.id === changeRequestId) : undefined
    if (!mirrored) throw new AppError('offline', `The change request is not known here yet; the action waits to be sent (${outcome.waiting ?? 'offline'}).`)
    return withRepeat({ ...mirrored, ...(outcome.sent ? {} : { waiting: outcome.waiting ?? 'waiting to be sent' }) }, outcome)
  }

  /* Comments */

  async listComments(spaceId: string, pageId?: string): Promise<CommentThread[]> {
    try {
      return await this.comments.threads(spaceId, pageId)
    } catch (error) {
      if (!isOffline(error)) throw error
      return this.comments.fromMirror(spaceId, pageId)
    }
  }

  async postComment(spaceId: string, pageId: string, markdown: string): Promise<CommentThread> {
    const outcome = await this.act(() => this.session.comment(spaceId, { pageId, text: markdown, target: 'space' }), 'Posting the comment')
    const id = (outcome.op.result as { id?: string } | undefined)?.id
    const me = this.session.account
    const posted: CommentThread =
      outcome.sent && id
        ? await this.thread(spaceId, id)
        : { id: `pending-${outcome.op.seq}`, pageId, author: me.displayName, postedAt: outcome.op.createdAt, markdown, resolved: false, mine: true, replies: [], waiting: outcome.waiting ?? 'waiting to be sent' }
    const thread = withRepeat(posted, outcome)
    this.logThread(spaceId, thread, `Commented on ${thread.pageTitle ?? 'a page'}`)
    return thread
  }

  async reply(spaceId: string, commentId: string, markdown: string, changeRequestId?: string): Promise<CommentThread> {
    const outcome = await this.act(() => this.session.reply(spaceId, { commentId, text: markdown, ...(changeRequestId ? { changeRequestId } : {}) }), 'Replying to the comment')
    const thread = await this.threadAfter(spaceId, commentId, outcome, changeRequestId)
    this.logThread(spaceId, thread, `Replied to ${thread.author}'s comment${thread.pageTitle ? ` on ${thread.pageTitle}` : ''}`)
    return thread
  }

  async resolve(spaceId: string, commentId: string, changeRequestId?: string): Promise<CommentThread> {
    const outcome = await this.act(() => this.session.resolve(spaceId, { commentId, ...(changeRequestId ? { changeRequestId } : {}) }), 'Resolving the comment')
    const thread = await this.threadAfter(spaceId, commentId, outcome, changeRequestId)
    this.logThread(spaceId, thread, `Resolved ${thread.author}'s comment${thread.pageTitle ? ` on ${thread.pageTitle}` : ''}`)
    return thread
  }

  /** Opens a resolved thread of a change request again (a review op: it names the change request). */
  async reopen(spaceId: string, changeRequestId: string, commentId: string, reopen: () => Promise<ActionOutcome>): Promise<CommentThread> {
    const outcome = await this.act(reopen, 'Reopening the comment')
    const thread = await this.threadAfter(spaceId, commentId, outcome, changeRequestId)
    this.logThread(spaceId, thread, `Reopened ${thread.author}'s comment`)
    return thread
  }

  private logThread(spaceId: string, thread: CommentThread, done: string) {
    const again = thread.repeat === 'sent' ? ' (already sent before: nothing sent again)' : thread.repeat === 'queued' ? ' (already queued: the same one, not a second)' : ''
    // Queued is not sent: the entry says which it is, and the delivery is logged when the queue empties.
    this.log(thread.waiting ? 'warning' : 'info', `${thread.waiting ? 'Queued: ' : ''}${done}${again}${thread.waiting ? ` (not sent yet: ${thread.waiting})` : ''}`, spaceId)
  }

  private async threadAfter(spaceId: string, commentId: string, outcome: ActionOutcome, changeRequestId?: string): Promise<CommentThread> {
    if (outcome.sent) {
      if (!changeRequestId) return withRepeat(await this.thread(spaceId, commentId), outcome)
      try {
        return withRepeat(await this.discussions.thread(spaceId, changeRequestId, commentId), outcome)
      } catch (error) {
        throw fromApiError(error, 'Reading the comment')
      }
    }
    const known = changeRequestId ? this.discussions.mirrored(commentId) : (await this.comments.fromMirror(spaceId)).find((t) => t.id === commentId)
    if (!known) throw new AppError('offline', `The comment is not known here yet; your answer waits to be sent (${outcome.waiting ?? 'offline'}).`)
    return withRepeat({ ...known, waiting: outcome.waiting ?? 'waiting to be sent' }, outcome)
  }

  private async thread(spaceId: string, commentId: string): Promise<CommentThread> {
    try {
      return await this.comments.reload(spaceId, commentId)
    } catch (error) {
      throw fromApiError(error, 'Reading the comment')
    }
  }

  /** Runs an action; a refusal becomes the AppError its HTTP status says. */
  async act(run: () => Promise<ActionOutcome>, what: string): Promise<ActionOutcome> {
    try {
      return await run()
    } catch (error) {
      if (error instanceof ActionRefusedError) throw refusal(error, what)
      throw fromApiError(error, what)
    }
  }
}

/** The answer says when the action was asked before (already queued or sent), so the UI can say so. */
function withRepeat<T extends { repeat?: ActionOutcome['repeat'] }>(answer: T, outcome: ActionOutcome): T {
  return outcome.repeat ? { ...answer, repeat: outcome.repeat } : answer
}

/** Offline with no diff kept: say so in plain words, not "fetch failed". */
function offlineWithoutDiff(error: unknown): unknown {
  if (!isOffline(error)) return error
  return new AppError('offline', 'The service cannot be reached, and these changes were never read while it could be: they show offline once they have been opened (or listed) online.')
}

function isOffline(error: unknown): boolean {
  return error instanceof ServiceUnreachableError || (error instanceof AppError && error.kind === 'offline')
}

function refusal(error: ActionRefusedError, what: string): AppError {
  const reason = error.op.lastError ?? 'refused'
  const status = Number(/^HTTP (\d{3})/.exec(reason)?.[1])
  const kind = status === 403 ? 'forbidden' : status === 404 ? 'not-found' : status === 409 || status === 412 ? 'conflict' : status === 401 ? 'auth' : 'invalid'
  // The kind carries the status; the person reads the service's own words (a merge rule's reason, say).
  return new AppError(kind, `${what}: ${reason.replace(/^HTTP \d{3}: /, '')}`)
}
