import type { RevisionFile, RevisionPage } from '@gitbook/api'
import type { ChangeRequestChanges, ChangeRequestFileChange, ChangeRequestPageChange } from '../../../shared/contract'
import type { ChangeRequestDiffsRepository } from '../cache/change-request-diffs'
import { paginate, type ApiGateway } from '../gateway/api-gateway'
import { frontMatterChanges, imagePreview, outline } from './change-request-extras'

/** A change request touching more pages than this shows the first ones (the rest is in the browser). */
export const MAX_PAGES_SHOWN = 40

interface PageAt {
  id: string
  title: string
  path?: string
  /** The page's content hash in that revision: equal hashes, equal text. */
  oid?: string
}

/** Every document page of a revision's tree, by id. */
function documentPages(pages: readonly RevisionPage[]): Map<string, PageAt> {
  const out = new Map<string, PageAt>()
  const visit = (list: readonly RevisionPage[]) => {
    for (const page of list) {
      if (page.type === 'document') {
        const git = 'git' in page ? page.git : undefined
        out.set(page.id, { id: page.id, title: page.title, ...(git?.path ? { path: git.path } : {}), ...(git?.oid ? { oid: git.oid } : {}) })
      }
      if ('pages' in page && Array.isArray(page.pages)) visit(page.pages as RevisionPage[])
    }
  }
  visit(pages)
  return out
}

/** What changed among the revision's files (images, attachments): added, removed, replaced by other bytes or renamed. */
export function fileChanges(before: readonly RevisionFile[], after: readonly RevisionFile[]): ChangeRequestFileChange[] {
  const was = new Map(before.map((f) => [f.id, f]))
  const now = new Map(after.map((f) => [f.id, f]))
  const ref = (f: RevisionFile, change: ChangeRequestFileChange['change']): ChangeRequestFileChange => ({
    id: f.id,
    name: f.name,
    change,
    ...(f.contentType ? { contentType: f.contentType } : {}),
    ...(f.git?.path ? { path: f.git.path } : {}),
  })
  const out: ChangeRequestFileChange[] = []
  for (const f of after) {
    const old = was.get(f.id)
    if (!old) out.push(ref(f, 'added'))
    else if (old.name !== f.name || (old.git?.oid ?? old.downloadURL) !== (f.git?.oid ?? f.downloadURL) || old.size !== f.size) out.push(ref(f, 'edited'))
  }
  for (const f of before) if (!now.has(f.id)) out.push(ref(f, 'removed'))
  return out
}

const markdownOf = (page: unknown): string => (page && typeof page === 'object' && 'markdown' in page && typeof page.markdown === 'string' ? page.markdown : '')

/** Open comment threads of the change request; a review's comment belongs to its review, not counted here. */
async function openThreads(gateway: ApiGateway, spaceId: string, changeRequestId: string): Promise<number> {
  let count = 0
  const list = (page: string | undefined) => gateway.client.spaces.listCommentsInChangeRequest(spaceId, changeRequestId, { page, limit: 100, status: 'open' }).then((r) => r.data)
  for await (const comment of paginate(list)) if (!(comment.target as { review?: string }).review) count++
  return count
}

/**
 * What a change request changes, page by page: its revision against the revision of main it is based
 * on (the last update from main, else where it started), so main's later edits do not show as the
 * change request's. Each changed page comes with both texts (the renderer diffs them) and the front
 * matter keys it changes; images added or replaced come with a preview; a new order of the table of
 * contents with both outlines. A diff read once is kept in `stored` by the change request's revision:
 * the same revision is not read again (only the open comment count is), and it can be shown offline.
 */
export async function changeRequestChanges(gateway: ApiGateway, spaceId: string, changeRequestId: string, stored?: ChangeRequestDiffsRepository): Promise<ChangeRequestChanges> {
  const spaces = gateway.client.spaces
  const cr = (await spaces.getChangeRequestById(spaceId, changeRequestId)).data
  const kept = stored?.get(spaceId, changeRequestId)
  if (kept && kept.revision === cr.revision) return { ...(kept.data as ChangeRequestChanges), comments: await openThreads(gateway, spaceId, changeRequestId) }
  const baseId = cr.revisionMergedAncestor ?? cr.revisionInitial
  const [afterRevision, beforeRevision] = await Promise.all([
    spaces.getRevisionOfChangeRequestById(spaceId, changeRequestId).then((r) => r.data),
    spaces.getRevisionById(spaceId, baseId).then((r) => r.data),
  ])
  const after = documentPages(afterRevision.pages)
  const before = documentPages(beforeRevision.pages)
  const changed: Array<{ page: PageAt; change: ChangeRequestPageChange['change']; fromPath?: string }> = []
  for (const page of after.values()) {
    const old = before.get(page.id)
    // A renamed or moved page keeps its id: its path tells (old → new), edited or not.
    const fromPath = old?.path !== undefined && old.path !== page.path ? old.path : undefined
    if (!old) changed.push({ page, change: 'added' })
    else if (old.oid !== page.oid || old.oid === undefined) changed.push({ page, change: 'edited', ...(fromPath ? { fromPath } : {}) })
    else if (fromPath) changed.push({ page, change: 'moved', fromPath })
  }
  for (const page of before.values()) if (!after.has(page.id)) changed.push({ page, change: 'removed' })

  const pages = await Promise.all(
    changed.slice(0, MAX_PAGES_SHOWN).map(async ({ page, change, fromPath }): Promise<ChangeRequestPageChange> => {
      const [was, now] = await Promise.all([
        change === 'added' ? '' : spaces.getPageInRevisionById(spaceId, baseId, page.id, { format: 'markdown' }).then((r) => markdownOf(r.data)),
        change === 'removed' ? '' : spaces.getPageInChangeRequestById(spaceId, changeRequestId, page.id, { format: 'markdown' }).then((r) => markdownOf(r.data)),
      ])
      const frontMatter = frontMatterChanges(was, now)
      return { pageId: page.id, title: page.title, ...(page.path ? { path: page.path } : {}), ...(fromPath ? { fromPath } : {}), change, before: was, after: now, ...(frontMatter.length > 0 ? { frontMatter } : {}) }
    }),
  )
  // Without oids (metadata off) every page looks edited: only the ones whose text differs (or that moved) are changes.
  const shown = pages
    .filter((p) => p.change !== 'edited' || p.before !== p.after || p.fromPath !== undefined)
    .map((p) => (p.change === 'edited' && p.before === p.after ? { ...p, change: 'moved' as const } : p))
  const afterFiles = new Map((afterRevision.files ?? []).map((f) => [f.id, f]))
  const files = await Promise.all(
    fileChanges(beforeRevision.files ?? [], afterRevision.files ?? []).map(async (file) => {
      const preview = file.change === 'removed' ? undefined : await imagePreview(gateway, afterFiles.get(file.id)!)
      return preview ? { ...file, preview } : file
    }),
  )
  const [was, now] = [outline(beforeRevision.pages), outline(afterRevision.pages)]
  const diff: ChangeRequestChanges = { pages: shown, files, ...(was !== now ? { summary: { before: was, after: now } } : {}), comments: await openThreads(gateway, spaceId, changeRequestId), revision: cr.revision }
  stored?.save(spaceId, changeRequestId, { revision: cr.revision, fetchedAt: new Date().toISOString(), data: diff })
  return diff
}
