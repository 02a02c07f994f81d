import { GitBookAPIError, type ChangeRequest, type Revision, type RevisionPage } from '@gitbook/api'
import fs from 'node:fs/promises'
import { gitBlobOid, SUMMARY_FILE } from '../../content'
import { SUMMARY_ENTRY_ID } from '../cache/cache-repository'
import { findMarkers, stripMarkers } from '../comments/markers'
import { ServiceUnreachableError } from '../gateway/api-gateway'
import type { ChangeRequestGone } from '../outbox/outbox-sender'
import { remoteRows } from '../sync/remote-snapshot'
import { carriedText } from './main-view'
import { carriedSummary } from './summary-state'
import { rememberRevivable, revivablePages, type Revivable } from './revivals'
import { hashOf, resolveIn, type SpacePusherOptions } from './pusher-context'

/**
 * Asks the service about the open change request: `gone` when it was merged or closed, `read` the change
 * request as the service answered (undefined when there is none, or the service is out of reach).
 */
export async function checkOpenChangeRequest(o: SpacePusherOptions): Promise<{ gone?: ChangeRequestGone; read?: ChangeRequest }> {
  const session = o.outbox.session(o.spaceId)
  if (!session?.changeRequestId) return {}
  try {
    const cr = (await o.gateway.client.spaces.getChangeRequestById(o.spaceId, session.changeRequestId)).data
    o.outbox.saveChangeRequest(o.spaceId, cr)
    if (cr.status === 'merged' || cr.status === 'archived') return { gone: { id: cr.id, status: cr.status }, read: cr }
    return { read: cr }
  } catch (error) {
    if (error instanceof GitBookAPIError && error.code === 404) return { gone: { id: session.changeRequestId, status: 'missing' } }
    if (error instanceof ServiceUnreachableError || (error instanceof GitBookAPIError && (error.code === 429 || error.code >= 500))) return {}
    throw error
  }
}

/**
 * The writer's change request is merged: the files it carried become the merge base (so sync down
 * brings the merged revision, normalized by the service, over them, and later edits start a new
 * change request); pages it deleted leave the journal. Closed or missing: nothing is merged and the
 * local edits go to the next change request. False when there was nothing to settle, or the merge
 * could not be taken in now (offline: a later push settles it).
 */
export async function settleChangeRequest(o: SpacePusherOptions, gone: ChangeRequestGone): Promise<boolean> {
  const { outbox, cache, spaceId } = o
  const session = outbox.session(spaceId)
  if (!session) return false
  if (gone.status === 'merged') {
    const merged = await mergedContent(o)
    if (!merged) return false // offline: settled by a later push
    const done = new Set(outbox.ops(spaceId, 100_000).filter((op) => op.state === 'done').map((op) => op.seq))
    const journal = cache.journal(spaceId)
    const summaryJournal = journal.find((j) => j.kind === 'summary')
    // The merged change request's base had every page it deleted: a page whose file is back is restored from it.
    const data = outbox.changeRequest(gone.id)?.data
    const base = typeof data?.revisionMergedAncestor === 'string' ? data.revisionMergedAncestor : typeof data?.revisionInitial === 'string' ? data.revisionInitial : undefined
    const revive: Revivable[] = []
    for (const entry of outbox.entryRows(spaceId)) {
      if (entry.generation !== session.generation || (entry.opSeq !== 0 && !done.has(entry.opSeq)) || !entry.pageId) continue
      if (entry.state === 'deleted') {
        if (merged.pages.has(entry.pageId)) continue
        // The file came back after the deletion was sent (restored, renamed back) and the merge came
        // first: the page's journal goes, the file is not a new page (revivals.ts).
        const j = journal.find((e) => e.kind === 'page' && e.id === entry.pageId)
        const back = j !== undefined && ((await localHashes(o, j.path)) !== undefined || (entry.path !== j.path && (await localHashes(o, entry.path)) !== undefined))
        if (j && back && base !== undefined) revive.push({ pageId: j.id, path: j.path, oid: j.oid, baseHash: j.baseHash, revision: base })
        cache.forgetJournal(spaceId, entry.pageId, 'page')
        continue
      }
      // A conflicted page: the change request carried main's version (reverted), not the file; the journal
      // is what the conflict flow wrote (main's version, which the file then held). Taken as carried, its
      // empty hash would become the page's base, and the writer's next edit of it would never be sent.
      if (entry.state === 'conflict') continue
      // A page deleted on the service since the merge is journaled too: sync down then removes its file.
      const remote = (entry.kind === 'file' ? merged.files.get(entry.pageId) : merged.pages.get(entry.pageId)) ?? ''
      const local = await localHashes(o, entry.path)
      if (!local) continue
      // The base is what the change request carried: a file that differs only by comment markers typed
      // since is still an edit (the markers are posted, then leave the file), never taken for the base.
      const baseHash = entry.hash
      // Main holds more than the carried version (someone else's edits merged with it, or the service's
      // own normalization): the journal names the carried version as the remote it knows. Sync down then
      // brings main's version over an unedited file; a file edited again before that is seen by the next
      // plan as changed on both sides and merged with main (the carried text kept here as the merge
      // base), never sent over main's gain.
      const behindMain = entry.kind === 'page' && remote !== '' && remote !== baseHash
      if (behindMain) {
        const carried = carriedText(o, entry) ?? (local.raw === baseHash ? local.text : undefined)
        if (carried !== undefined) cache.pageBases.remember(spaceId, baseHash, carried)
      }
      cache.recordJournal(spaceId, { id: entry.pageId, kind: entry.kind, path: entry.path, oid: behindMain ? baseHash : remote, baseHash })
      // The file is main's merged version as it is: it is the page's next merge base (sync down, which
      // has nothing to download then, would not keep it).
      if (entry.kind === 'page' && local.text !== undefined && local.raw === remote) cache.pageBases.remember(spaceId, remote, local.text)
    }
    if (revive.length > 0) rememberRevivable(cache, spaceId, [...revivablePages(cache, spaceId).filter((r) => !revive.some((n) => n.pageId === r.pageId)), ...revive])
    // The change request carried the writer's SUMMARY.md (new pages placed, order, nesting, titles): the
    // service's SUMMARY.md replaces it now. Not a version it did not carry (edited since) nor one with
    // edits the content API cannot represent: that file stays the writer's edit.
    const summaryHash = await hashOf(resolveIn(o, SUMMARY_FILE))
    const carried = carriedSummary(cache, spaceId, session.generation)
    if (summaryJournal && summaryHash && summaryHash !== summaryJournal.baseHash && carried?.hash === summaryHash && carried.unsent === 0) {
      cache.recordJournal(spaceId, { ...summaryJournal, id: SUMMARY_ENTRY_ID, baseHash: summaryHash })
    }
  }
  outbox.transaction(() => {
    outbox.supersede(spaceId, session.generation)
    outbox.closeSession(spaceId, session.generation)
  })
  return true
}

/**
 * The space's content after the merge. The cache's remote tree is brought to it too (sync down's own
 * store, through its own functions), so no plan compares new merge bases with the old main.
 */
async function mergedContent(o: SpacePusherOptions): Promise<{ pages: Map<string, string>; files: Map<string, string> } | undefined> {
  let revision: Revision
  try {
    revision = (await o.gateway.client.spaces.getCurrentRevision(o.spaceId)).data
  } catch (error) {
    if (error instanceof ServiceUnreachableError) return undefined
    throw error
  }
  const rows = remoteRows(revision)
  o.cache.replaceRemoteTree(o.spaceId, rows.pages, rows.files)
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

async function localHashes(o: SpacePusherOptions, relative: string): Promise<{ raw: string; stripped: string; text?: string } | undefined> {
  let bytes: Buffer
  try {
    bytes = await fs.readFile(resolveIn(o, relative))
  } catch {
    return undefined
  }
  const raw = gitBlobOid(bytes)
  if (!relative.toLowerCase().endsWith('.md')) return { raw, stripped: raw }
  const text = bytes.toString('utf8')
  const markers = findMarkers(text)
  return { raw, stripped: markers.length === 0 ? raw : gitBlobOid(stripMarkers(text, markers)), text }
}

