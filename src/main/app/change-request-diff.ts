import type { RevisionPage } from '@gitbook/api'
import type { ChangeRequestChanges, ChangeRequestPageChange } from '../../shared/contract'
import { paginate, type ApiGateway } from '../engine'
import { fromApiError } from './errors'

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
 * change request's. Each changed page comes with both texts; the renderer diffs them word by word.
 */
export async function changeRequestChanges(gateway: ApiGateway, spaceId: string, changeRequestId: string): Promise<ChangeRequestChanges> {
  const spaces = gateway.client.spaces
  try {
    const cr = (await spaces.getChangeRequestById(spaceId, changeRequestId)).data
    const baseId = cr.revisionMergedAncestor ?? cr.revisionInitial
    const [after, before] = await Promise.all([
      spaces.getRevisionOfChangeRequestById(spaceId, changeRequestId).then((r) => documentPages(r.data.pages)),
      spaces.getRevisionById(spaceId, baseId).then((r) => documentPages(r.data.pages)),
    ])
    const changed: Array<{ page: PageAt; change: ChangeRequestPageChange['change'] }> = []
    for (const page of after.values()) {
      const old = before.get(page.id)
      if (!old) changed.push({ page, change: 'added' })
      else if (old.oid !== page.oid || old.oid === undefined) changed.push({ page, change: 'edited' })
    }
    for (const page of before.values()) if (!after.has(page.id)) changed.push({ page, change: 'removed' })

    const pages = await Promise.all(
      changed.slice(0, MAX_PAGES_SHOWN).map(async ({ page, change }): Promise<ChangeRequestPageChange> => {
        const [was, now] = await Promise.all([
          change === 'added' ? '' : spaces.getPageInRevisionById(spaceId, baseId, page.id, { format: 'markdown' }).then((r) => markdownOf(r.data)),
          change === 'removed' ? '' : spaces.getPageInChangeRequestById(spaceId, changeRequestId, page.id, { format: 'markdown' }).then((r) => markdownOf(r.data)),
        ])
        return { pageId: page.id, title: page.title, ...(page.path ? { path: page.path } : {}), change, before: was, after: now }
      }),
    )
    // Without oids (metadata off) every page looks edited: only the ones whose text differs are changes.
    return { pages: pages.filter((p) => p.change !== 'edited' || p.before !== p.after), comments: await openThreads(gateway, spaceId, changeRequestId) }
  } catch (error) {
    throw fromApiError(error, 'Reading what the change request changes')
  }
}
