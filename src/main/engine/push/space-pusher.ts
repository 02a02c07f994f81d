import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { GitBookAPIError, type Revision, type RevisionPage } from '@gitbook/api'
import { gitBlobOid, SUMMARY_FILE, type ContentChange } from '../../content'
import { SUMMARY_ENTRY_ID, type CacheRepository, type RemotePageRow } from '../cache/cache-repository'
import type { CommentsRepository } from '../comments/comments-repository'
import { findMarkers, stripMarkers } from '../comments/markers'
import { ServiceUnreachableError, type ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository, PushSession } from '../outbox/outbox-repository'
import { filesOf } from './sync-up-status'
import { OutboxSender, type ChangeRequestGone, type DrainResult } from '../outbox/outbox-sender'
import type { OutboxOp } from '../outbox/outbox-types'
import { LocalFileChanged, replaceIfUnchanged, syncFolder, writeFileAtomic, writeTempFile } from '../workspace/atomic-write'
import type { JournalEntry } from '../sync/plan-types'
import { remoteRows } from '../sync/remote-snapshot'
import { confinedPath } from '../workspace/safe-names'
import { batchChanges } from './batches'
import { LocalScanner } from './local-scan'
import { conflictCopyPath, FILE_BYTES_PLACEHOLDER, planPush } from './push-planner'
import type { LocalFiles, PlannedChange, PlannedMarker, PlannedRewrite, PushPlan, PushReport } from './push-types'
import { mergeTitles, subjectFor } from './subject'

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
  /** Tests: a save at an exact moment of a merged page's rewrite (before it, or inside its final window). */
  rewriteHooks?: { before?: (path: string) => void | Promise<void>; inWindow?: () => void }
}

export interface PushResult {
  /** Changes written to the outbox by this push. */
  planned: number
  /** Operations the service answered during this push. */
  sent: number
  changeRequest?: { id: string; number?: number }
  conflicts: string[]
  reports: PushReport[]
  failures: string[]
  /** Set when the outbox could not be emptied (offline, rate limited, server errors): it is sent later. */
  stopped?: DrainResult['stopped']
  /** A change request of the writer was merged or closed and the workspace took it in. */
  settled?: { id: string; status: 'merged' | 'archived' | 'missing' }
  /** Why nothing was planned (a sync down pass is unfinished). */
  skipped?: string
}

/**
 * Sync up for one space: local edits become content changes in the writer's one open change request,
 * markers become comments, both sides' edits are kept on conflict. Every outgoing operation is written
 * to the outbox before it is sent; every step is safe to repeat after a crash.
 *
 * A push: finish pending conflicts -> send what the outbox holds -> take in a merged or closed change
 * request -> plan from (journal, local files, main) -> write the plan to the outbox -> send it.
 */
export class SpacePusher {
  private readonly scanner: LocalScanner
  private readonly sender: OutboxSender
  private readonly now: () => Date

  constructor(private readonly o: SpacePusherOptions) {
    this.scanner = new LocalScanner(o.folder)
    this.now = o.now ?? (() => new Date())
    this.sender = new OutboxSender(o.gateway, o.outbox, o.comments, { commentPosted: (op) => this.markerPosted(op) })
  }

  get spaceId() {
    return this.o.spaceId
  }

  async push(options: { plan?: boolean } = {}): Promise<PushResult> {
    const result: PushResult = { planned: 0, sent: 0, conflicts: [], reports: [], failures: [] }
    const { outbox, spaceId } = this.o
    outbox.ensureSession(spaceId, this.o.userId)

    await this.finishConflicts()
    if (!(await this.sendAll(result))) return this.finishResult(result)
    if (!result.settled) {
      const gone = await this.checkOpenChangeRequest()
      if (gone) await this.settle(gone, result)
    }
    // After taking in a merge, the space is pulled before the next plan (main must show the merge).
    if (options.plan === false || result.settled) return this.finishResult(result)

    const run = this.o.cache.run(spaceId)
    if (run) {
      result.skipped = `a sync down pass of this space is unfinished (${run.completed}/${run.total})`
      return this.finishResult(result)
    }
    await this.closeResolvedConflicts()
    const plan = await this.plan()
    result.reports.push(...plan.reports)
    result.planned = await this.enqueue(plan)
    await this.applyRewrites(plan.rewrites)
    await this.removePostedMarkers(plan.markers.filter((m) => !m.post && this.o.outbox.byKey(m.key)?.state === 'done'))
    await this.keepOrphans(plan.orphans)
    for (const r of plan.relocations) {
      const journaled = this.o.cache.journal(this.o.spaceId).find((j) => j.kind === 'page' && j.id === r.pageId)
      if (journaled) this.o.cache.recordJournal(this.o.spaceId, { ...journaled, path: r.to, baseHash: r.hash })
    }
    await this.finishConflicts()
    await this.sendAll(result)
    return this.finishResult(result)
  }

  private finishResult(result: PushResult): PushResult {
    const session = this.o.outbox.session(this.o.spaceId)
    if (session?.changeRequestId) result.changeRequest = { id: session.changeRequestId, number: session.number }
    result.conflicts = this.o.outbox.conflicts(this.o.spaceId).map((c) => c.copyPath)
    return result
  }

  /** Drains the outbox; false when it stopped early (offline and the like). Takes in a change request found gone. */
  private async sendAll(result: PushResult): Promise<boolean> {
    const drained = await this.sender.drain(this.o.spaceId)
    result.sent += drained.sent
    result.failures.push(...drained.failed.map((f) => `${f.op.kind} #${f.op.seq}${filesOf(f.op).length > 0 ? ` of ${filesOf(f.op).join(', ')}` : ''}: ${f.error}`))
    if (drained.gone) {
      await this.settle(drained.gone, result)
      return this.sendAll(result)
    }
    if (drained.stopped) {
      result.stopped = drained.stopped
      return false
    }
    return true
  }

  /* Planning */

  /**
   * Main as the service has it now. A push (the watcher's, between passes) must not plan against the
   * last pass's view: a change request opened now is based on today's main, and a page edited or
   * deleted against an older main would undo what others merged since. One request when main has not
   * moved; offline (or refused for a while), the last view stands.
   */
  private async refreshMain() {
    const { cache, gateway, spaceId } = this.o
    try {
      const { data: space } = await gateway.client.spaces.getSpaceById(spaceId)
      if (space.revision === cache.space(spaceId)?.remoteRevision) return
      const { data: revision } = await gateway.client.spaces.getCurrentRevision(spaceId)
      cache.recordRevision(spaceId, { id: revision.id, parents: revision.parents, createdAt: revision.createdAt })
      const rows = remoteRows(revision)
      cache.replaceRemoteTree(spaceId, rows.pages, rows.files)
      cache.upsertSpace({ id: space.id, orgId: space.organization, collectionId: space.parent, title: space.title, remoteRevision: revision.id })
    } catch (error) {
      if (error instanceof ServiceUnreachableError || (error instanceof GitBookAPIError && error.code !== 401)) return
      throw error
    }
  }

  async plan(): Promise<PushPlan> {
    const { cache, outbox, spaceId } = this.o
    await this.refreshMain()
    const journal = cache.journal(spaceId)
    const pushed = outbox.entries(spaceId)
    const base = new Map(journal.map((j) => [j.path, j.baseHash]))
    const carried = new Map(pushed.map((p) => [p.path, p.hash]))
    const pagePaths = [...journal, ...pushed].filter((e) => e.kind === 'page').map((e) => e.path)
    const scan = await this.scanner.scan((p, hash) => base.get(p) !== hash || (carried.has(p) && carried.get(p) !== hash), pagePaths)
    const main = cache.remoteTree(spaceId)
    return planPush({
      spaceId,
      journal,
      main,
      mergeTexts: await this.mergeTexts(journal, main.pages, scan.files),
      local: scan.files,
      skipped: scan.skipped,
      summary: scan.summary,
      pushed,
      posted: outbox.markerKeys(spaceId),
      refused: outbox.refusedKeys(spaceId),
      stamp: stampOf(this.now()),
    })
  }

  /**
   * Base and main texts of the pages both the writer and main changed since the merge base, for the
   * planner's block merge (main as it is now, maybe newer than the last sync down saw). A page whose
   * base text is not kept, or that cannot be fetched now, is left out (it gets a conflicted copy).
   */
  private async mergeTexts(journal: readonly JournalEntry[], pages: readonly RemotePageRow[], local: LocalFiles): Promise<Map<string, { base: string; main: string; mainOid: string }>> {
    const texts = new Map<string, { base: string; main: string; mainOid: string }>()
    const mainOids = new Map(pages.map((p) => [p.id, p.gitOid]))
    for (const j of journal) {
      const mainOid = mainOids.get(j.id)
      const file = local.get(j.path)
      if (j.kind !== 'page' || !mainOid || mainOid === j.oid || !file || file.hash === j.baseHash || file.text === undefined) continue
      const base = this.o.cache.pageBases.text(this.o.spaceId, j.oid)
      if (base === undefined) continue
      let page: { markdown: string; oid: string }
      try {
        page = await this.mainPage(j.id)
      } catch (error) {
        if (error instanceof ServiceUnreachableError || error instanceof GitBookAPIError) continue
        throw error
      }
      texts.set(j.id, { base, main: page.markdown, mainOid: page.oid })
    }
    return texts
  }

  /**
   * A cleanly merged page: the file becomes the merge and its merge base becomes main's version. Only
   * over the very file the merge was made from: a save made since then stays (the next push merges it).
   */
  private async applyRewrites(rewrites: readonly PlannedRewrite[]) {
    const { cache, spaceId } = this.o
    for (const r of rewrites) {
      const full = this.resolve(r.path)
      await this.o.rewriteHooks?.before?.(r.path)
      const temp = await writeTempFile(path.dirname(full), path.basename(full), r.text)
      try {
        const stamp = stampOf(this.now())
        await replaceIfUnchanged(temp, full, r.fromHash, r.path, { copyPath: (target) => conflictCopyPath(target, stamp), inWindow: this.o.rewriteHooks?.inWindow })
      } catch (error) {
        if (error instanceof LocalFileChanged) continue
        throw error
      }
      cache.transaction(() => {
        cache.recordJournal(spaceId, { id: r.pageId, kind: 'page', path: r.path, oid: r.mainOid, baseHash: gitBlobOid(r.mainText) })
        cache.pageBases.remember(spaceId, r.mainOid, r.mainText)
      })
      await syncFolder(path.dirname(full))
    }
    if (rewrites.length > 0) cache.pageBases.prune(spaceId)
  }

  /** Writes a plan to the outbox in one transaction: change request, batches, subject, comments, conflicts. */
  private async enqueue(plan: PushPlan): Promise<number> {
    const { outbox, spaceId, userId } = this.o
    const batches = batchChanges(plan.changes.filter((c) => !isNoop(c.change)))
    const bytes = await this.readUploads(plan.changes)
    const markerOps = plan.markers.filter((m) => m.post)
    const threads = new Map(markerOps.flatMap((m) => (m.marker.commentId ? [[m.marker.commentId, this.o.comments.thread(m.marker.commentId)]] : [])))
    outbox.transaction(() => {
      const session = outbox.session(spaceId)!
      const generation = session.generation
      if (batches.length > 0) {
        const titles = mergeTitles(session.titles, plan.changes.map((c) => c.title))
        const subject = subjectFor(titles)
        if (!session.changeRequestId && !this.pendingCreate(session)) {
          outbox.enqueue({ spaceId, generation, kind: 'create-cr', key: `create-cr:${spaceId}:${generation}`, payload: { subject, userId } })
        } else if (subject !== session.subject) {
          outbox.enqueue({ spaceId, generation, kind: 'update-cr', key: `update-cr:${spaceId}:${generation}:${subject}`, payload: { subject } })
        }
        outbox.setSubject(spaceId, generation, subject, titles)
        for (const batch of batches) {
          const changes = batch.map((c) => withBytes(c.change, bytes))
          const keys = batch.map((c) => c.key)
          const { seq, created } = outbox.enqueue({
            spaceId,
            generation,
            kind: 'content',
            key: `content:${spaceId}:${generation}:${createHash('sha256').update(keys.join(',')).digest('hex')}`,
            payload: {
              changes,
              entries: batch.flatMap((c) => c.entries),
              perChange: batch.map((c) => c.entries),
              keys,
              defines: batch.flatMap((c) => (c.defines ? [c.defines] : [])),
            },
          })
          if (created) outbox.applyEntries(spaceId, generation, seq, batch.flatMap((c) => c.entries))
        }
      }
      if (plan.bookkeeping.length > 0) outbox.applyEntries(spaceId, generation, 0, plan.bookkeeping)
      for (const m of markerOps) {
        const origin = { path: m.path, source: m.marker.source }
        if (m.marker.kind === 'comment') {
          outbox.enqueue({ spaceId, generation, kind: 'comment', key: m.key, payload: { pageId: m.pageId, text: m.marker.text, target: m.target, userId, marker: origin } })
        } else {
          const changeRequestId = threads.get(m.marker.commentId!)?.changeRequestId
          const scope = changeRequestId ? { changeRequestId } : {}
          if (m.marker.kind === 'reply') {
            outbox.enqueue({ spaceId, generation, kind: 'reply', key: m.key, payload: { commentId: m.marker.commentId!, text: m.marker.text, userId, marker: origin, ...scope } })
          } else {
            outbox.enqueue({ spaceId, generation, kind: 'resolve', key: m.key, payload: { commentId: m.marker.commentId!, marker: origin, ...scope } })
          }
        }
      }
      for (const c of plan.conflicts) {
        outbox.addConflict({ spaceId, ...c })
        const entry = outbox.entries(spaceId).find((e) => e.path === c.path)
        if (entry && entry.state !== 'conflict') outbox.applyEntries(spaceId, generation, 0, [{ op: 'set', ...entry, state: 'conflict' }])
      }
    })
    return batches.reduce((n, b) => n + b.length, 0)
  }

  private pendingCreate(session: PushSession): boolean {
    return this.o.outbox.unfinished(this.o.spaceId).some((op) => op.kind === 'create-cr' && op.generation === session.generation)
  }

  /** Bytes of the files the plan uploads, base64, read now so the outbox holds exactly what is sent. */
  private async readUploads(changes: readonly PlannedChange[]): Promise<Map<string, string>> {
    const bytes = new Map<string, string>()
    for (const c of changes) {
      if (c.change.operation !== 'insert_files') continue
      for (const file of c.change.files) {
        const placeholder = file.base64 ?? ''
        if (!placeholder.startsWith(FILE_BYTES_PLACEHOLDER)) continue
        const rel = placeholder.slice(FILE_BYTES_PLACEHOLDER.length)
        bytes.set(placeholder, (await fs.readFile(this.resolve(rel))).toString('base64'))
      }
    }
    return bytes
  }

  private resolve(relative: string): string {
    return confinedPath(this.o.folder, relative)
  }

  /* Markers */

  /** A posted comment, reply or resolve leaves the file it was typed in. */
  private async markerPosted(op: OutboxOp) {
    const marker = 'marker' in op.payload ? op.payload.marker : undefined
    if (marker) await this.removeMarkers(marker.path, [marker.source])
  }

  private async removePostedMarkers(markers: readonly PlannedMarker[]) {
    const byPath = new Map<string, string[]>()
    for (const m of markers) byPath.set(m.path, [...(byPath.get(m.path) ?? []), m.marker.source])
    for (const [p, sources] of byPath) await this.removeMarkers(p, sources)
  }

  /**
   * Cuts markers out of a file, writing it atomically only if it still holds them (the writer may have
   * removed or changed them meanwhile). Quire's own write is no edit: the content without markers is
   * what the change request already has.
   */
  private async removeMarkers(relative: string, sources: readonly string[]) {
    const full = this.resolve(relative)
    let text: string
    try {
      text = await fs.readFile(full, 'utf8')
    } catch {
      return
    }
    const remaining = [...sources]
    const gone = findMarkers(text).filter((m) => {
      const at = remaining.indexOf(m.source)
      if (at === -1) return false
      remaining.splice(at, 1)
      return true
    })
    if (gone.length === 0) return
    await writeFileAtomic(full, stripMarkers(text, gone))
  }

  /**
   * Markers on a page deleted remotely: the file is kept whole in a conflicted copy (recorded as an open
   * conflict, so the writer sees it), then the markers leave the file.
   */
  private async keepOrphans(orphans: PushPlan['orphans']) {
    for (const o of orphans) {
      const copy = this.resolve(o.copyPath)
      if (!(await exists(copy))) await writeFileAtomic(copy, o.text)
      this.o.outbox.addConflict({ spaceId: this.o.spaceId, path: o.path, pageId: o.pageId, copyPath: o.copyPath, localText: o.text, remoteOid: '' }, 'open')
      await this.removeMarkers(o.path, findMarkers(o.text).map((m) => m.source))
    }
  }

  /* Conflicts */

  /**
   * Conflicts recorded but not yet on disk: the writer's version goes to the conflicted copy, the file
   * gets the remote version, and the merge base moves to it. Each step checks before it writes, so a
   * crash part way is finished by the next push.
   */
  private async finishConflicts() {
    const { outbox, cache, spaceId } = this.o
    for (const c of outbox.conflicts(spaceId).filter((x) => x.state === 'pending')) {
      let page: { markdown: string; oid: string }
      try {
        page = await this.mainPage(c.pageId)
      } catch (error) {
        if (error instanceof ServiceUnreachableError) return
        if (error instanceof GitBookAPIError && error.code === 404) {
          outbox.removeConflict(spaceId, c.copyPath) // deleted meanwhile: the change request inserts it again
          continue
        }
        throw error
      }
      const copy = this.resolve(c.copyPath)
      if (!(await exists(copy))) await writeFileAtomic(copy, c.localText)
      const file = this.resolve(c.path)
      const current = await hashOf(file)
      if (current === gitBlobOid(c.localText) || current === undefined) await writeFileAtomic(file, page.markdown)
      cache.transaction(() => {
        cache.recordJournal(spaceId, { id: c.pageId, kind: 'page', path: c.path, oid: page.oid, baseHash: gitBlobOid(page.markdown) })
        cache.pageBases.remember(spaceId, page.oid, page.markdown)
      })
      outbox.openConflict(spaceId, c.copyPath)
    }
  }

  private async mainPage(pageId: string): Promise<{ markdown: string; oid: string }> {
    const page = (await this.o.gateway.client.spaces.getPageById(this.o.spaceId, pageId, { format: 'markdown' })).data
    const markdown = 'markdown' in page && typeof page.markdown === 'string' ? page.markdown : ''
    return { markdown, oid: 'git' in page && page.git ? page.git.oid : gitBlobOid(markdown) }
  }

  /** A conflict is over once its copy is gone (the writer took what they wanted from it). */
  private async closeResolvedConflicts() {
    for (const c of this.o.outbox.conflicts(this.o.spaceId)) {
      if (c.state === 'open' && !(await exists(this.resolve(c.copyPath)))) this.o.outbox.removeConflict(this.o.spaceId, c.copyPath)
    }
  }

  /* Merged or closed change requests */

  /** Asks the service about the open change request; undefined when it is still open (or the service is out of reach). */
  private async checkOpenChangeRequest(): Promise<ChangeRequestGone | undefined> {
    const session = this.o.outbox.session(this.o.spaceId)
    if (!session?.changeRequestId) return undefined
    try {
      const cr = (await this.o.gateway.client.spaces.getChangeRequestById(this.o.spaceId, session.changeRequestId)).data
      this.o.outbox.saveChangeRequest(this.o.spaceId, cr)
      if (cr.status === 'merged' || cr.status === 'archived') return { id: cr.id, status: cr.status }
      return undefined
    } catch (error) {
      if (error instanceof GitBookAPIError && error.code === 404) return { id: session.changeRequestId, status: 'missing' }
      if (error instanceof ServiceUnreachableError || (error instanceof GitBookAPIError && (error.code === 429 || error.code >= 500))) return undefined
      throw error
    }
  }

  /**
   * The writer's change request is merged: the files it carried become the merge base (so sync down
   * brings the merged revision, normalized by the service, over them, and later edits start a new
   * change request); pages it deleted leave the journal. Closed or missing: nothing is merged and the
   * local edits go to the next change request.
   */
  async settle(gone: ChangeRequestGone, result?: PushResult) {
    const { outbox, cache, spaceId } = this.o
    const session = outbox.session(spaceId)
    if (!session) return
    if (gone.status === 'merged') {
      const merged = await this.mergedContent()
      if (!merged) return // offline: settled by a later push
      const done = new Set(outbox.ops(spaceId, 100_000).filter((op) => op.state === 'done').map((op) => op.seq))
      const summaryJournal = cache.journal(spaceId).find((j) => j.kind === 'summary')
      for (const entry of outbox.entryRows(spaceId)) {
        if (entry.generation !== session.generation || (entry.opSeq !== 0 && !done.has(entry.opSeq)) || !entry.pageId) continue
        if (entry.state === 'deleted') {
          if (!merged.pages.has(entry.pageId)) cache.forgetJournal(spaceId, entry.pageId, 'page')
          continue
        }
        // A page deleted on the service since the merge is journaled too: sync down then removes its file.
        const remote = (entry.kind === 'file' ? merged.files.get(entry.pageId) : merged.pages.get(entry.pageId)) ?? ''
        const local = await this.localHashes(entry.path)
        if (!local) continue
        // The base is what the change request carried: a file that differs only by comment markers typed
        // since is still an edit (the markers are posted, then leave the file), never taken for the base.
        const baseHash = entry.hash
        cache.recordJournal(spaceId, { id: entry.pageId, kind: entry.kind, path: entry.path, oid: remote, baseHash })
        // The file is main's merged version as it is: it is the page's next merge base (sync down, which
        // has nothing to download then, would not keep it).
        if (entry.kind === 'page' && local.text !== undefined && local.raw === remote) cache.pageBases.remember(spaceId, remote, local.text)
      }
      // SUMMARY.md edits placed the new pages; the service's SUMMARY.md replaces them now.
      const summaryHash = await hashOf(this.resolve(SUMMARY_FILE))
      if (summaryJournal && summaryHash && summaryHash !== summaryJournal.baseHash) cache.recordJournal(spaceId, { ...summaryJournal, id: SUMMARY_ENTRY_ID, baseHash: summaryHash })
    }
    outbox.transaction(() => {
      outbox.supersede(spaceId, session.generation)
      outbox.closeSession(spaceId, session.generation)
    })
    if (result) result.settled = gone
  }

  /**
   * The space's content after the merge. The cache's remote tree is brought to it too (sync down's own
   * store, through its own functions), so no plan compares new merge bases with the old main.
   */
  private async mergedContent(): Promise<{ pages: Map<string, string>; files: Map<string, string> } | undefined> {
    let revision: Revision
    try {
      revision = (await this.o.gateway.client.spaces.getCurrentRevision(this.o.spaceId)).data
    } catch (error) {
      if (error instanceof ServiceUnreachableError) return undefined
      throw error
    }
    const rows = remoteRows(revision)
    this.o.cache.replaceRemoteTree(this.o.spaceId, rows.pages, rows.files)
    const pages = new Map<string, string>()
    const visit = (list: readonly RevisionPage[]) => {
      for (const p of list) {
        if ('git' in p && p.git) pages.set(p.id, p.git.oid)
        if ('pages' in p && Array.isArray(p.pages)) visit(p.pages)
      }
    }
    visit(revision.pages)
    const files = new Map(revision.files.map((f) => [f.id, f.git?.oid ?? '']))
    return { pages, files }
  }

  private async localHashes(relative: string): Promise<{ raw: string; stripped: string; text?: string } | undefined> {
    let bytes: Buffer
    try {
      bytes = await fs.readFile(this.resolve(relative))
    } catch {
      return undefined
    }
    const raw = gitBlobOid(bytes)
    if (!relative.toLowerCase().endsWith('.md')) return { raw, stripped: raw }
    const text = bytes.toString('utf8')
    const markers = findMarkers(text)
    return { raw, stripped: markers.length === 0 ? raw : gitBlobOid(stripMarkers(text, markers)), text }
  }

  /* Explicit actions (CLI, app) */

  /** Merges the writer's open change request through the outbox, then takes the merge in. */
  async merge(changeRequestId: string): Promise<{ result: 'merge' | 'conflicts' | 'pending'; revision?: string }> {
    const { outbox, spaceId } = this.o
    const session = outbox.ensureSession(spaceId, this.o.userId)
    const { seq } = outbox.enqueue({ spaceId, generation: session.generation, kind: 'merge', key: `merge:${spaceId}:${changeRequestId}:${Date.now()}`, payload: { changeRequestId } })
    const drained = await this.sender.drain(spaceId)
    const op = outbox.op(seq)
    if (!op || op.state !== 'done') {
      if (op?.state === 'failed') throw new Error(op.lastError ?? 'the merge was refused')
      if (drained.stopped) return { result: 'pending' }
      throw new Error('the merge was not sent')
    }
    const answer = op.result as { result: 'merge' | 'conflicts'; revision?: string }
    if (answer.result === 'merge' && session.changeRequestId === changeRequestId) await this.settle({ id: changeRequestId, status: 'merged' })
    return answer
  }

  /** The writer's change request for this space, as last seen. */
  openChangeRequest(): { id: string; number?: number } | undefined {
    const session = this.o.outbox.session(this.o.spaceId)
    return session?.changeRequestId ? { id: session.changeRequestId, number: session.number } : undefined
  }

  /** Sends whatever the outbox holds, without planning. */
  async flush(): Promise<DrainResult> {
    return this.sender.drain(this.o.spaceId)
  }
}

function isNoop(change: ContentChange): boolean {
  return change.operation === 'update_page' && Object.keys(change).length === 2
}

function withBytes(change: ContentChange, bytes: ReadonlyMap<string, string>): ContentChange {
  if (change.operation !== 'insert_files') return change
  return { ...change, files: change.files.map((f) => (f.base64 !== undefined && bytes.has(f.base64) ? { ...f, base64: bytes.get(f.base64)! } : f)) }
}

async function exists(full: string): Promise<boolean> {
  try {
    await fs.access(full)
    return true
  } catch {
    return false
  }
}

async function hashOf(full: string): Promise<string | undefined> {
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
