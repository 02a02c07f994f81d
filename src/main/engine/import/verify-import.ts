import fs from 'node:fs/promises'
import path from 'node:path'
import type { Revision } from '@gitbook/api'
import { diffLines } from 'diff'
import { SUMMARY_FILE } from '../../content'
import type { CacheRepository } from '../cache/cache-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository } from '../outbox/outbox-repository'
import { relinkedText } from '../links/relink'
import { buildRemoteSnapshot } from '../sync/remote-snapshot'
import { ASSETS_PREFIX } from '../workspace/content-names'
import { differenceReasons } from './fidelity'
import type { ImportNote } from './import-notes'
import type { CopyStep, ImportPlan } from './import-plan'
import type { SourceTree } from './source-tree'
import { summaryGroups } from './summary-structure'

export interface Verification {
  /** Pages and SUMMARY.md that will be mirrored back byte for byte at the same path, of those imported. */
  identical: number
  total: number
  /** Assets the change request holds, of those copied. */
  uploaded: number
  assets: number
  notes: ImportNote[]
}

/**
 * Reads the change request back as a mirror would receive it (the revision's pages at the paths sync
 * down gives them, SUMMARY.md rendered from its tree) and compares it with the tree imported: each page
 * or SUMMARY.md that will not come back byte for byte at its path gets a note with the reason, and
 * each asset copied that the change request does not hold is named.
 */
export interface ReadBackInput {
  gateway: ApiGateway
  cache: CacheRepository
  outbox: OutboxRepository
  spaceId: string
  tree: SourceTree
  plan: ImportPlan
}

/** The change request (or the space's content) as imported: its revision, and where each page and file of the plan came back. */
export interface ReadBack {
  revision: Revision
  snapshot: ReturnType<typeof buildRemoteSnapshot>
  /** Each page of the plan the revision holds: its copy step, its id, and the path it came back at. */
  pages: Array<{ step: CopyStep; id: string; path: string }>
  /** Tree path (`from`) -> path it came back at, of each page and of each uploaded file. */
  placements: { pages: Map<string, string>; files: Map<string, string> }
}

export async function readBack(o: ReadBackInput): Promise<ReadBack> {
  const { gateway, outbox, spaceId, plan } = o
  const changeRequestId = outbox.session(spaceId)?.changeRequestId
  const revision: Revision = changeRequestId
    ? (await gateway.client.spaces.getRevisionOfChangeRequestById(spaceId, changeRequestId)).data
    : (await gateway.client.spaces.getCurrentRevision(spaceId)).data
  const snapshot = buildRemoteSnapshot(revision)
  const byId = new Map(snapshot.entries.map((e) => [e.id, e]))
  // Where each local path went: the change request's entries (new pages and files), else the journal.
  const idOf = new Map<string, string>()
  for (const j of o.cache.journal(spaceId)) idOf.set(j.path, j.id)
  for (const e of outbox.entries(spaceId)) if (e.pageId && e.state !== 'deleted') idOf.set(e.path, e.pageId)
  const fileIds = new Map(outbox.entries(spaceId).filter((e) => e.kind === 'file' && e.pageId).map((e) => [e.path, e.pageId!]))
  const pages: ReadBack['pages'] = []
  const placements: ReadBack['placements'] = { pages: new Map(), files: new Map() }
  for (const step of plan.copies) {
    const isPage = plan.pages.includes(step.to)
    if (!isPage && !step.to.startsWith(ASSETS_PREFIX)) continue
    const id = isPage ? idOf.get(step.to) : (fileIds.get(step.to) ?? idOf.get(step.to))
    const entry = id ? byId.get(id) : undefined
    if (!entry?.path) continue
    if (isPage) {
      pages.push({ step, id: entry.id, path: entry.path })
      placements.pages.set(step.from, entry.path)
    } else placements.files.set(step.from, entry.path)
  }
  return { revision, snapshot, pages, placements }
}

export async function verifyImport(o: ReadBackInput): Promise<Verification> {
  const { gateway, outbox, spaceId, tree, plan } = o
  const back = await readBack(o)
  const { revision, snapshot } = back
  const byId = new Map(snapshot.entries.map((e) => [e.id, e]))
  const placedPages = new Map(back.pages.map((p) => [p.step.to, p]))
  const groups = summaryGroups(tree.summary)
  const notes: ImportNote[] = []
  let identical = 0
  let total = 0

  const fileText = (from: string) => fs.readFile(path.join(tree.root, ...from.split('/')), 'utf8')
  for (const step of plan.copies) {
    if (!plan.pages.includes(step.to)) continue
    total++
    const placed = placedPages.get(step.to)
    const entry = placed ? byId.get(placed.id) : undefined
    if (!entry) {
      notes.push({ kind: 'not-sent', path: step.from, reason: 'the change request has no page for it (see the push reports)' })
      continue
    }
    const samePath = entry.path === step.to
    if (!samePath) {
      const group = groups.get(step.from)
      notes.push({ kind: 'moved', path: step.from, reason: `comes back as ${entry.path}${group ? ` (its group "${group}" could not be created, so the page tree places it elsewhere)` : ' (where the page tree places it)'}` })
    }
    if (entry.oid === step.hash) {
      if (samePath) identical++
      continue
    }
    const answer = (await gateway.client.spaces.getPageInRevisionById(spaceId, revision.id, entry.id, { format: 'markdown' })).data
    const returned = 'markdown' in answer && typeof answer.markdown === 'string' ? answer.markdown : ''
    const written = await fileText(step.from)
    // Links re-pointed to where their pages and files came back (import/relink-imported.ts) and nothing else.
    if (relinkedText(written, written, step.from, entry.path, back.placements) === returned) {
      notes.push({ kind: 'differs', path: step.from, reason: 'links re-pointed to the places their pages and files come back at' })
      continue
    }
    for (const reason of differenceReasons(written, returned)) notes.push({ kind: 'differs', path: step.from, reason })
  }

  const summaryStep = plan.copies.find((c) => c.to === SUMMARY_FILE)
  const summary = snapshot.entries.find((e) => e.kind === 'summary')
  if (summaryStep && summary?.content !== undefined) {
    total++
    if (summary.content === tree.summary) identical++
    else {
      const parts = diffLines(tree.summary, summary.content)
      const removed = parts.filter((p) => p.removed).reduce((n, p) => n + (p.count ?? 0), 0)
      const added = parts.filter((p) => p.added).reduce((n, p) => n + (p.count ?? 0), 0)
      notes.push({
        kind: 'differs',
        path: summaryStep.from,
        reason: `rendered back from the page tree: ${removed} line${removed === 1 ? '' : 's'} of the tree's are not in it, ${added} are new (see the notes on groups, separators, entries and paths)`,
      })
    }
  }

  // Assets: the change request's files, by the path each was uploaded from.
  let uploaded = 0
  let assets = 0
  const idOf = new Map<string, string>()
  for (const j of o.cache.journal(spaceId)) idOf.set(j.path, j.id)
  for (const e of outbox.entries(spaceId)) if (e.pageId && e.state !== 'deleted') idOf.set(e.path, e.pageId)
  const fileIds = new Map(outbox.entries(spaceId).filter((e) => e.kind === 'file' && e.pageId).map((e) => [e.path, e.pageId!]))
  const tooLarge = new Set(plan.notes.filter((n) => n.kind === 'too-large').map((n) => n.path))
  for (const step of plan.copies) {
    if (!step.to.startsWith(ASSETS_PREFIX)) continue
    assets++
    const id = fileIds.get(step.to) ?? idOf.get(step.to)
    const entry = id ? byId.get(id) : undefined
    if (entry) {
      uploaded++
      if (entry.path !== step.to) notes.push({ kind: 'moved', path: step.from, reason: `comes back as ${entry.path} (the service named it so)` })
    } else if (!tooLarge.has(step.from)) {
      notes.push({ kind: 'not-sent', path: step.from, reason: 'not uploaded: no page imported links to it, and the push path uploads only the assets pages link to (the file stays in the space folder)' })
    }
  }
  return { identical, total, uploaded, assets, notes }
}
