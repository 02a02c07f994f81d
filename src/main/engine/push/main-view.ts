import { GitBookAPIError, type ChangeRequest, type Space } from '@gitbook/api'
import { gitBlobOid } from '../../content'
import type { RemotePageRow } from '../cache/cache-repository'
import { ServiceUnreachableError } from '../gateway/api-gateway'
import type { JournalEntry } from '../sync/plan-types'
import { remoteRows } from '../sync/remote-snapshot'
import { mainByDifference, type MainPages } from './main-difference'
import type { SpacePusherOptions } from './pusher-context'
import type { ChangeRequestTrust } from './change-request-trust'
import type { LocalFiles } from './push-types'

/** Base and main texts of a page both sides changed, for the planner's block merge. */
export type MergeTexts = Map<string, { base: string; main: string; mainOid: string }>

/**
 * Pages someone else changed inside the writer's change request: the text the writer's edit started
 * from (none for a page whose file the writer deleted) and the change request's.
 */
export type ChangeRequestTexts = Map<string, { carried?: string; text: string; oid: string }>

/**
 * Main as the service has it now. A push (the watcher's, between passes) must not plan against the
 * last pass's view: a change request opened now is based on today's main, and a page edited or
 * deleted against an older main would undo what others merged since. The writer's open change request,
 * as just read, says where main is when it is not outdated (main is its base): no request then, or only
 * the difference when main moved there. Otherwise one request for the space when main has not moved;
 * when it has, the difference (main-difference.ts) or else the tree. Offline (or refused for a while),
 * the last view stands. The pages read on the way are returned for the plan's block merges.
 */
export async function refreshMain(o: SpacePusherOptions, known: { changeRequest?: ChangeRequest; space?: Promise<Space | undefined> } = {}): Promise<MainPages> {
  const { cache, gateway, spaceId } = o
  const cached = cache.space(spaceId)
  const cr = known.changeRequest
  const base = cr && (cr.status === 'draft' || cr.status === 'open') && !cr.outdated ? (cr.revisionMergedAncestor ?? cr.revisionInitial) : undefined
  if (cached?.remoteRevision && base === cached.remoteRevision) return new Map()
  try {
    let target = cached ? base : undefined
    if (!target) {
      const space = (await known.space) ?? (await gateway.client.spaces.getSpaceById(spaceId)).data
      if (space.revision === cached?.remoteRevision) return new Map()
      cache.upsertSpace({ id: space.id, orgId: space.organization, collectionId: space.parent, title: space.title, remoteRevision: cached?.remoteRevision })
      target = space.revision
    }
    const from = cached?.remoteRevision
    const pages = from ? await mainByDifference(o, from, target) : undefined
    if (!pages) {
      const { data: revision } = await gateway.client.spaces.getCurrentRevision(spaceId)
      cache.recordRevision(spaceId, { id: revision.id, parents: revision.parents, createdAt: revision.createdAt })
      const rows = remoteRows(revision)
      cache.replaceRemoteTree(spaceId, rows.pages, rows.files)
      target = revision.id
    }
    const space = cache.space(spaceId)!
    cache.upsertSpace({ id: space.id, orgId: space.orgId, collectionId: space.collectionId, title: space.title, remoteRevision: target })
    return pages ?? new Map()
  } catch (error) {
    if (error instanceof ServiceUnreachableError || (error instanceof GitBookAPIError && error.code !== 401)) return new Map()
    throw error
  }
}

/**
 * Base and main texts of the pages both the writer and main changed since the merge base, for the
 * planner's block merge (main as it is now, maybe newer than the last sync down saw). A page whose
 * base text is not kept, or that cannot be fetched now, is left out (it gets a conflicted copy).
 */
export async function mergeTexts(o: SpacePusherOptions, journal: readonly JournalEntry[], pages: readonly RemotePageRow[], local: LocalFiles, read: MainPages = new Map()): Promise<MergeTexts> {
  const texts: MergeTexts = new Map()
  const mainOids = new Map(pages.map((p) => [p.id, p.gitOid]))
  // A page the change request renamed or moved is at its new path (the journal keeps the old one until the merge).
  const carriedPaths = new Map(o.outbox.entries(o.spaceId).flatMap((e) => (e.kind === 'page' && e.pageId && e.state === 'pushed' ? [[e.pageId, e.path] as const] : [])))
  for (const j of journal) {
    const mainOid = mainOids.get(j.id)
    const file = local.get(carriedPaths.get(j.id) ?? j.path)
    // No file at its path: the page may have moved (the planner finds it by similarity, maybe edited), so
    // its texts are at hand for that merge too.
    if (j.kind !== 'page' || !mainOid || mainOid === j.oid || (file && (file.hash === j.baseHash || file.text === undefined))) continue
    const base = o.cache.pageBases.text(o.spaceId, j.oid)
    if (base === undefined) continue
    let page: { markdown: string; oid: string }
    try {
      // Read already while main's view followed main (main-difference.ts): not asked again.
      page = read.get(j.id) ?? (await mainPage(o, j.id))
    } catch (error) {
      if (error instanceof ServiceUnreachableError || error instanceof GitBookAPIError) continue
      throw error
    }
    texts.set(j.id, { base, main: page.markdown, mainOid: page.oid })
  }
  return texts
}

/** A page of main as markdown, with its git oid. */
export async function mainPage(o: SpacePusherOptions, pageId: string): Promise<{ markdown: string; oid: string }> {
  return markdownAndOid((await o.gateway.client.spaces.getPageById(o.spaceId, pageId, { format: 'markdown' })).data)
}

/** A page as the service answers it in markdown: its text and git oid (hashed here when the answer has none). */
function markdownAndOid(page: object & { git?: { oid: string } }): { markdown: string; oid: string } {
  const markdown = 'markdown' in page && typeof page.markdown === 'string' ? page.markdown : ''
  return { markdown, oid: page.git ? page.git.oid : gitBlobOid(markdown) }
}

/**
 * Pages the writer edited (again, since the change request carried them) that someone else changed
 * inside the writer's change request (an edit of theirs in it, an "update from main"): the version the
 * writer's edit started from and the change request's, for the planner to merge the edit with theirs
 * rather than send the file over it; a page whose file the writer deleted is not deleted over their
 * edit. A GET of each edited or deleted page in the change request (and, for a page it did not carry,
 * at its base); nothing while batches wait to be sent, or offline.
 */
export async function changeRequestTexts(
  o: SpacePusherOptions,
  journal: readonly JournalEntry[],
  pages: readonly RemotePageRow[],
  local: LocalFiles,
  trust?: ChangeRequestTrust,
): Promise<ChangeRequestTexts> {
  const texts: ChangeRequestTexts = new Map()
  const session = o.outbox.session(o.spaceId)
  if (!session?.changeRequestId || o.outbox.unfinished(o.spaceId).some((op) => op.kind === 'content')) return texts
  const cr = o.outbox.changeRequest(session.changeRequestId)?.data as { id: string; revision?: string; revisionMergedAncestor?: string; status?: string } | undefined
  if (!cr?.revision || (cr.status !== 'draft' && cr.status !== 'open')) return texts
  // A page the writer's last batch wrote whole under a head that holds only the writer's batches
  // (change-request-trust.ts) is the text the writer carried, nobody else's edit to merge with.
  const own = (pageId: string) => trust?.trustsPage(cr, pageId) === true
  const entries = new Map(o.outbox.entryRows(o.spaceId).filter((e) => e.generation === session.generation && e.kind === 'page' && e.pageId).map((e) => [e.pageId!, e]))
  const mainOids = new Map(pages.map((p) => [p.id, p.gitOid]))
  for (const j of journal) {
    if (j.kind !== 'page') continue
    const entry = entries.get(j.id)
    if (entry && entry.state !== 'pushed') continue
    const startHash = entry ? entry.hash : j.baseHash
    const file = local.get(entry?.path ?? j.path)
    // A carried page the writer left as it was is looked at too when main changed it: the plan would merge
    // it with main and send it again, over whatever someone changed in the change request.
    const mainChanged = mainOids.get(j.id) !== undefined && mainOids.get(j.id) !== j.oid
    if (file && (file.text === undefined || (file.hash === startHash && !(entry && mainChanged)))) continue
    if (own(j.id)) continue
    const theirs = await pageIn(o, cr.revision, j.id)
    if (!theirs || theirs.oid === startHash) continue
    let from: string | undefined
    if (entry) from = carriedText(o, entry) ?? o.cache.pageBases.text(o.spaceId, entry.hash)
    else {
      // Not carried: the change request holds its base's version unless someone changed it there.
      if (theirs.oid === j.oid) continue
      const base = cr.revisionMergedAncestor ? await pageIn(o, cr.revisionMergedAncestor, j.id) : undefined
      if (base?.oid === theirs.oid) continue
      from = base?.markdown ?? o.cache.pageBases.text(o.spaceId, j.oid)
    }
    if (from !== undefined || !file) texts.set(j.id, { carried: from, text: theirs.markdown, oid: theirs.oid })
  }
  // Pages the change request created (no journal entry until it is merged): edited again, they are merged
  // with theirs from the carried text in the same way, never sent over it.
  const journaled = new Set(journal.map((j) => j.id))
  for (const [pageId, entry] of entries) {
    if (journaled.has(pageId) || entry.state !== 'pushed') continue
    const file = local.get(entry.path)
    if (!file || file.text === undefined || file.hash === entry.hash || own(pageId)) continue
    const theirs = await pageIn(o, cr.revision, pageId)
    if (!theirs || theirs.oid === entry.hash) continue
    const from = carriedText(o, entry)
    if (from !== undefined) texts.set(pageId, { carried: from, text: theirs.markdown, oid: theirs.oid })
  }
  return texts
}

/** A page of a revision as markdown with its git oid; undefined when the revision has no such page or the service is out of reach. */
async function pageIn(o: SpacePusherOptions, revision: string, pageId: string): Promise<{ markdown: string; oid: string } | undefined> {
  try {
    return markdownAndOid((await o.gateway.client.spaces.getPageInRevisionById(o.spaceId, revision, pageId, { format: 'markdown' })).data)
  } catch (error) {
    if (error instanceof ServiceUnreachableError || error instanceof GitBookAPIError) return undefined
    throw error
  }
}

/** The markdown a change request carried for a page entry, when the batch that sent it holds exactly that text. */
export function carriedText(o: SpacePusherOptions, entry: { pageId?: string; hash: string; opSeq: number }): string | undefined {
  const op = o.outbox.op(entry.opSeq)
  if (op?.kind !== 'content') return undefined
  for (const change of op.payload.changes) {
    const page =
      change.operation === 'update_page' ? change.page : change.operation === 'insert_page' && change.ref ? o.outbox.idOfRef(o.spaceId, change.ref) : undefined
    if (page !== entry.pageId || !('document' in change) || !change.document || !('markdown' in change.document)) continue
    const markdown = change.document.markdown
    if (typeof markdown === 'string' && gitBlobOid(markdown) === entry.hash) return markdown
  }
  // A batch rebuilt after a lost answer (outbox/rebuilt-batch.ts) keeps the text the entry names apart.
  return op.payload.carried?.find((c) => c.pageId === entry.pageId && gitBlobOid(c.markdown) === entry.hash)?.markdown
}
