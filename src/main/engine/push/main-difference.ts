import { GitBookAPIError, type RevisionSemanticChange, type RevisionSemanticChanges } from '@gitbook/api'
import { gitBlobOid } from '../../content'
import type { SpacePusherOptions } from './pusher-context'

/** A page of main as read while following it: its markdown and git oid (kept for the plan's block merges). */
export type MainPages = Map<string, { markdown: string; oid: string }>

/** More changes than this in one revision: the tree is read instead. */
const MAX_CHANGES = 50

/** What a page's edit may change for its row to be updated in place: its body and its title, never its path. */
const IN_PLACE = new Set(['document', 'title', 'description', 'emoji'])

/**
 * Main moved from `from` (the push's view of it) to `to`, one teammate's merge: the push's view is
 * brought to `to` by difference (issue 29), not by reading the whole tree again (the tree of an
 * 800-page space is most of a megabyte even without markdown). What the revision changed against its
 * parent (`getRevisionSemanticChanges`), then each edited page read once (its markdown, which the plan's
 * block merge needs anyway, and its git oid).
 *
 * Only the plain case is done so: a merge of a change request based on `from`, whose changes are page
 * edits that move no page (text, title, description). Anything else (a service without the operation,
 * another writer's revision in between, pages created, deleted or moved, files, a slug) answers
 * undefined, and the caller reads the tree as before. The view is a push's cache of main: the next
 * sync-down pass stores main's tree afresh in any case.
 */
export async function mainByDifference(o: SpacePusherOptions, from: string, to: string): Promise<MainPages | undefined> {
  const { cache, gateway, spaceId } = o
  let answer: RevisionSemanticChanges
  try {
    answer = (await gateway.client.spaces.getRevisionSemanticChanges(spaceId, to, { limit: MAX_CHANGES })).data
  } catch (error) {
    // A service without the operation (404) or refusing it: the tree, as before.
    if (error instanceof GitBookAPIError && error.code !== 401 && error.code !== 429) return undefined
    throw error
  }
  // Changes are against the revision's first parent: known to be `from` only for the merge of a change
  // request that was based on it (a change request based on `from`, merged, makes one revision over it).
  const merged = answer.mergedFrom
  const base = merged ? (merged.revisionMergedAncestor ?? merged.revisionInitial) : undefined
  if (!merged || base !== from || (answer.more ?? 0) > 0) return undefined
  const rows = new Map(cache.remoteTree(spaceId).pages.map((p) => [p.id, p]))
  const edited: Array<{ id: string; title: string }> = []
  for (const change of answer.changes) {
    const page = inPlaceEdit(change)
    if (!page) return undefined
    const row = rows.get(page.id)
    if (!row?.gitPath) return undefined
    edited.push(page)
  }
  const pages: MainPages = new Map()
  const updates: Array<{ id: string; title: string; gitOid: string }> = []
  for (const page of edited) {
    const served = (await gateway.client.spaces.getPageById(spaceId, page.id, { format: 'markdown' })).data as object & { git?: { oid: string; path: string }; title?: string }
    const markdown = 'markdown' in served && typeof served.markdown === 'string' ? served.markdown : ''
    // A page served at another path than the view's moved after all: the tree says where.
    if (served.git && served.git.path !== rows.get(page.id)?.gitPath) return undefined
    const oid = served.git ? served.git.oid : gitBlobOid(markdown)
    pages.set(page.id, { markdown, oid })
    updates.push({ id: page.id, title: served.title ?? page.title, gitOid: oid })
  }
  cache.updateRemotePages(spaceId, updates)
  return pages
}

/** The page an edit changes in place (no move, no new path); undefined for any other change. */
function inPlaceEdit(change: RevisionSemanticChange): { id: string; title: string } | undefined {
  if (change.type !== 'page_edited' || change.page.type !== 'document') return undefined
  const keys = Object.keys(change.attributes ?? {})
  if (keys.length === 0 || keys.some((k) => !IN_PLACE.has(k))) return undefined
  return { id: change.page.id, title: change.page.title }
}
