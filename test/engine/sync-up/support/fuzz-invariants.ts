import fs from 'node:fs'
import path from 'node:path'
import type { ChangeRequest, Comment, Revision, RevisionPage } from '@gitbook/api'
import { CONFLICT_COPY } from '../../../../src/main/engine/push/push-types'
import { TEMP_MARK } from '../../../../src/main/engine/workspace/atomic-write'
import type { ApiClient } from '../../../support/service'
import type { Writer } from './app-workstation'

/**
 * Quire's promises (/work/shared/PROMISES.md) as checks over a randomized sequence: what every writer
 * saved (a ledger of unique words), what reached the space's content and when, and what the service,
 * the writer's disk and the writer's outbox hold at a quiet point. Each check throws an Error naming the
 * promise; the test adds the seed and the steps.
 */

/** Unique words the generator types: `w12x` by the writer, `o12x` by someone else. */
export const WORD = /\b[wo]\d+x\b/g

export const wordsIn = (text: string): string[] => text.match(WORD) ?? []

export interface PageState {
  id: string
  markdown: string
  parent?: string
  slug?: string
  oid?: string
  path?: string
}

export class Ledger {
  /** Every word any writer saved, with who typed it and where. */
  readonly saved = new Map<string, string>()
  /** Words a later save removed (the writer deleted the file holding them; someone deleted their page). */
  readonly removed = new Set<string>()
  /** Words typed into a file sync up must not read (over 8 MB): reported, never sent. */
  readonly unsendable = new Set<string>()
  /** Step at which each word was first seen in the space's content. */
  readonly reachedMain = new Map<string, number>()
  /** Pages whose content, place or existence the writer's change request may change. */
  readonly touched = new Set<string>()
  /** Comment, reply texts typed as markers. */
  readonly markers = new Set<string>()
  /** Comment, reply texts asked from the front end (CLI command, app button), each asked twice, with the page they are on. */
  readonly asked = new Map<string, string | undefined>()
  /** Someone else's change requests the writer reviewed from the front end (each verdict asked twice), with the verdict. */
  readonly reviewed = new Map<string, string>()
  /** Change requests of the writer's account made before the sequence (the seeding), not the writer's Quire's. */
  readonly before = new Set<string>()
  /** Change requests the writer's Quire recorded as created (its create ops, seen before each of its requests and after every step: settled ones are pruned). */
  readonly created = new Set<string>()
  /** Markers the writer removed with their file, or whose page someone deleted before they were posted. */
  readonly markersGone = new Set<string>()
  /** P9: pages whose net change by the writer is an edit or a move (restored, moved, backup-saved, renamed away and back), and how. */
  readonly keptIdentity = new Map<string, string>()
  /** Pages the writer deleted (their file removed for good): the only pages the writer's change request may delete. */
  readonly writerDeleted = new Set<string>()
  /** Pages someone else deleted (merged at once). */
  readonly othersDeleted = new Set<string>()
  /** P9: the order the writer last gave two sibling pages in SUMMARY.md (key: both ids, sorted). */
  readonly wantedOrder = new Map<string, [string, string]>()

  save(word: string, where: string) {
    this.saved.set(word, where)
  }

  removeWordsOf(text: string) {
    for (const w of wordsIn(text)) this.removed.add(w)
    for (const m of this.markers) if (text.includes(m)) this.markersGone.add(m)
  }
}

/** Pages of a revision answered with their markdown (the service's default format). */
export function pagesWithText(revision: Revision): Map<string, PageState> {
  const out = new Map<string, PageState>()
  const visit = (pages: readonly RevisionPage[], parent?: string) => {
    for (const p of pages) {
      if (p.type === 'document') {
        const markdown = 'markdown' in p && typeof p.markdown === 'string' ? p.markdown : ''
        out.set(p.id, { id: p.id, markdown, parent, slug: p.slug, oid: p.git?.oid, path: p.git?.path })
      }
      if ('pages' in p && Array.isArray(p.pages)) visit(p.pages, p.id)
    }
  }
  visit(revision.pages)
  return out
}

export async function mainPages(api: ApiClient, spaceId: string): Promise<Map<string, PageState>> {
  return pagesWithText((await api.call('getCurrentRevision', { params: { spaceId } })).body as Revision)
}

export async function changeRequestsOf(api: ApiClient, spaceId: string, creator: string, statuses = ['draft', 'open']): Promise<ChangeRequest[]> {
  const out: ChangeRequest[] = []
  for (const status of statuses) {
    const items = (await api.call('listChangeRequestsForSpace', { params: { spaceId }, query: { status, limit: 1000 } })).body.items as ChangeRequest[]
    out.push(...items.filter((cr) => cr.createdBy.id === creator))
  }
  return out
}

const fail = (promise: string, message: string): never => {
  throw new Error(`${promise}: ${message}`)
}

/** P2, as the content is now: a word that reached main is still there unless a later save removed it. */
export function checkNoMergedEditUndone(ledger: Ledger, main: ReadonlyMap<string, PageState>, step: number) {
  const text = [...main.values()].map((p) => p.markdown).join('\n')
  for (const w of wordsIn(text)) if (ledger.saved.has(w) && !ledger.reachedMain.has(w)) ledger.reachedMain.set(w, step)
  const undone = [...ledger.reachedMain].filter(([w]) => !ledger.removed.has(w) && !text.includes(w))
  if (undone.length > 0) fail('P2 a merged edit was undone', undone.map(([w, at]) => `${w} (${ledger.saved.get(w)}; in main since step ${at})`).join(', '))
}

/** Conflicted copies anywhere in the space folder, with their text. */
export function conflictCopies(folder: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (dir: string, rel: string) => {
    if (!fs.existsSync(dir)) return
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.isDirectory()) walk(path.join(dir, entry.name), r)
      else if (CONFLICT_COPY.test(r)) out.set(r, fs.readFileSync(path.join(dir, entry.name), 'utf8'))
    }
  }
  walk(folder, '')
  return out
}

/** P1: every word saved is in main, in an open change request of the writer, or in a conflicted copy on the writer's disk. */
export async function checkNoEditLost(ledger: Ledger, api: ApiClient, ws: Writer, main: ReadonlyMap<string, PageState>, writerId: string) {
  const spaceId = ws.seeded.spaceId
  const places = [...[...main.values()].map((p) => p.markdown), ...conflictCopies(ws.folder).values()]
  for (const cr of await changeRequestsOf(api, spaceId, writerId)) {
    const revision = (await api.call('getRevisionOfChangeRequestById', { params: { spaceId, changeRequestId: cr.id } })).body as Revision
    places.push(...[...pagesWithText(revision).values()].map((p) => p.markdown))
  }
  const everything = places.join('\n')
  const lost = [...ledger.saved].filter(([w]) => !ledger.removed.has(w) && !ledger.unsendable.has(w) && !everything.includes(w))
  if (lost.length > 0) fail('P1 edits lost', lost.map(([w, where]) => `${w} (${where})`).join(', '))
}

/** P3: each change request of the writer exists once (one per create op), each marker is posted at most once and is not lost. */
export async function checkExactlyOnce(ledger: Ledger, api: ApiClient, ws: Writer, writerId: string) {
  const spaceId = ws.seeded.spaceId
  const all = (await changeRequestsOf(api, spaceId, writerId, ['draft', 'open', 'merged', 'archived'])).filter((cr) => !ledger.before.has(cr.id))
  noteCreated(ledger, ws)
  const ids = all.map((cr) => cr.id).sort()
  const open = all.filter((cr) => cr.status === 'draft' || cr.status === 'open')
  if (JSON.stringify(ids) !== JSON.stringify([...ledger.created].sort()) || open.length > 1) {
    fail('P3 change requests', `the service has ${JSON.stringify(all.map((cr) => [cr.id, cr.subject, cr.status]))}; the outbox created ${JSON.stringify([...ledger.created])}`)
  }
  const bodies: string[] = []
  const markdown = (c: { body: unknown }) => (c.body as { markdown?: string }).markdown ?? ''
  const threads = async (list: string, replies: string, scope: Record<string, string>) => {
    for (const c of (await api.call(list, { params: { spaceId, ...scope }, query: { limit: 1000, format: 'markdown' } })).body.items as Comment[]) {
      bodies.push(markdown(c))
      if (c.replies === 0) continue
      const answers = (await api.call(replies, { params: { spaceId, ...scope, commentId: c.id }, query: { limit: 1000, format: 'markdown' } })).body.items as Array<{ body: unknown }>
      bodies.push(...answers.map(markdown))
    }
  }
  await threads('listCommentsInSpace', 'listCommentRepliesInSpace', {})
  for (const cr of all) await threads('listCommentsInChangeRequest', 'listCommentRepliesInChangeRequest', { changeRequestId: cr.id })
  const onDisk = [...pageTexts(ws.folder).values(), ...conflictCopies(ws.folder).values()].join('\n')
  for (const [text, pageId] of ledger.asked) {
    const n = bodies.filter((b) => b === text).length
    if (n > 1) fail('P3 an action asked twice was posted more than once', `"${text}" ${n} times`)
    // Refused for good only when its page is gone (the writer's deletion, someone else's).
    const gone = pageId !== undefined && (ledger.writerDeleted.has(pageId) || ledger.othersDeleted.has(pageId))
    if (n === 0 && !gone) fail('P1 an action asked from the front end was lost', `"${text}" was never posted`)
  }
  for (const [changeRequestId, verdict] of ledger.reviewed) {
    const reviews = (await api.call('getReviewsByChangeRequestId', { params: { spaceId, changeRequestId } })).body.items as Array<{ status: string; reviewer: { id: string } }>
    const mine = reviews.filter((r) => r.reviewer.id === writerId)
    if (mine.length > 1) fail('P3 a verdict asked twice was posted more than once', `${mine.length} reviews on ${changeRequestId}: ${JSON.stringify(mine.map((r) => r.status))}`)
    if (mine.length === 0) fail('P1 a verdict asked from the front end was lost', `no ${verdict} review on ${changeRequestId}`)
  }
  for (const text of ledger.markers) {
    const n = bodies.filter((b) => b === text).length
    if (n > 1) fail('P3 a marker was posted more than once', `"${text}" ${n} times`)
    if (n === 0 && !ledger.markersGone.has(text) && !onDisk.includes(text)) fail('P1 a marker was lost', `"${text}" is neither posted nor on disk`)
  }
}

/** Remembers the change requests the outbox says it created (before a settled session's ops are pruned). */
export function noteCreated(ledger: Ledger, ws: Writer) {
  for (const op of ws.outbox.ops(ws.seeded.spaceId, 100_000)) if (op.kind === 'create-cr' && op.state === 'done') ledger.created.add((op.result as { id: string }).id)
}

/** Every file of the space folder but conflicted copies and Quire's temp files, with its text (symlinks read through). */
export function pageTexts(folder: string, skip: ReadonlySet<string> = new Set()): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (dir: string, rel: string) => {
    if (!fs.existsSync(dir)) return
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (r === '.gitbook' || r === 'SUMMARY.md' || CONFLICT_COPY.test(r) || entry.name.startsWith(TEMP_MARK)) continue
      if (entry.isDirectory()) walk(path.join(dir, entry.name), r)
      else if (r.endsWith('.md')) out.set(r, skip.has(r) ? '' : fs.readFileSync(path.join(dir, entry.name), 'utf8'))
    }
  }
  walk(folder, '')
  return out
}

/**
 * P4 after a quiet pass: every page of main has its file (the journal says where), every file not edited
 * locally (`edited`: paths the change request carries, files sync up must skip; `carriedPages`: pages it
 * renames, moves or deletes) equals the service's
 * markdown byte for byte, and no page file lies about that the journal does not know.
 */
export function checkConvergence(ws: Writer, main: ReadonlyMap<string, PageState>, edited: ReadonlySet<string>, carriedPages: ReadonlySet<string> = new Set()) {
  const spaceId = ws.seeded.spaceId
  const journal = new Map(ws.cache.journal(spaceId).filter((j) => j.kind === 'page').map((j) => [j.id, j.path]))
  const files = pageTexts(ws.folder, edited)
  const problems: string[] = []
  for (const [id, page] of main) {
    if (carriedPages.has(id)) continue // renamed, moved or deleted in the open change request
    const local = journal.get(id)
    if (local === undefined) problems.push(`page ${page.path} has no file in the journal`)
    else if (!files.has(local)) problems.push(`page ${page.path} has no file at ${local}`)
    else if (!edited.has(local) && files.get(local) !== page.markdown) problems.push(`${local} differs from the service's ${page.path}`)
  }
  const known = new Set(journal.values())
  for (const file of files.keys()) if (!known.has(file) && !edited.has(file)) problems.push(`${file} is no page of the space`)
  if (problems.length > 0) fail('P4 the workspace does not equal the service', problems.join('; '))
}

/**
 * P6: the writer's open change requests delete, move or change no page the writer did not touch
 * (compared with the revision each is based on; pages someone else edited inside it are theirs).
 */
export async function checkOnlyWhatTheWriterDid(api: ApiClient, spaceId: string, writerId: string, allowed: ReadonlySet<string>) {
  for (const cr of await changeRequestsOf(api, spaceId, writerId)) {
    const base = pagesWithText((await api.call('getRevisionById', { params: { spaceId, revisionId: cr.revisionMergedAncestor ?? '' } })).body as Revision)
    const head = pagesWithText((await api.call('getRevisionOfChangeRequestById', { params: { spaceId, changeRequestId: cr.id } })).body as Revision)
    const wrong: string[] = []
    for (const [id, before] of base) {
      if (allowed.has(id)) continue
      const after = head.get(id)
      if (!after) wrong.push(`deletes ${before.path}`)
      else if (after.parent !== before.parent || after.slug !== before.slug) wrong.push(`moves ${before.path} to ${after.path}`)
      else if (after.markdown !== before.markdown) wrong.push(`changes ${before.path}`)
    }
    if (wrong.length > 0) fail('P6 the change request does what the writer did not', `#${cr.number}: ${wrong.join(', ')}`)
  }
}

/**
 * P9 at a quiet point: a page whose net change by the writer is an edit or a move keeps its id (in the
 * writer's open change request, else in main), and no open change request of the writer deletes a page
 * the writer did not delete.
 */
export async function checkPageIdentity(ledger: Ledger, api: ApiClient, spaceId: string, writerId: string, main: ReadonlyMap<string, PageState>) {
  const open = await changeRequestsOf(api, spaceId, writerId)
  const heads: Array<Map<string, PageState>> = []
  const wrong: string[] = []
  for (const cr of open) {
    const base = pagesWithText((await api.call('getRevisionById', { params: { spaceId, revisionId: cr.revisionMergedAncestor ?? '' } })).body as Revision)
    const head = pagesWithText((await api.call('getRevisionOfChangeRequestById', { params: { spaceId, changeRequestId: cr.id } })).body as Revision)
    heads.push(head)
    for (const [id, before] of base) if (!head.has(id) && !ledger.writerDeleted.has(id) && !ledger.othersDeleted.has(id)) wrong.push(`#${cr.number} deletes ${before.path}, which the writer did not delete`)
  }
  const where = heads.length > 0 ? heads : [main]
  for (const [id, how] of ledger.keptIdentity) {
    if (ledger.writerDeleted.has(id) || ledger.othersDeleted.has(id)) continue
    if (!where.some((pages) => pages.has(id))) wrong.push(`page ${id} (${how}) lost its id`)
  }
  if (wrong.length > 0) fail('P9 a page stays itself', wrong.join('; '))
}

/**
 * P9 after the final merge: an edit of SUMMARY.md is sent, never dropped: two siblings the writer
 * swapped are in the writer's order in main, while both are still siblings there.
 */
export function checkSummaryOrder(ledger: Ledger, main: ReadonlyMap<string, PageState>) {
  const order = [...main.keys()]
  const wrong: string[] = []
  for (const [before, after] of ledger.wantedOrder.values()) {
    const a = main.get(before)
    const b = main.get(after)
    if (!a || !b || a.parent !== b.parent) continue
    if (order.indexOf(before) > order.indexOf(after)) wrong.push(`${a.path} should come before ${b.path}`)
  }
  if (wrong.length > 0) fail('P9 an edit of SUMMARY.md was dropped', wrong.join('; '))
}
