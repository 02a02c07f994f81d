import { GitBookAPIError } from '@gitbook/api'
import { gitBlobOid } from '../../content'
import type { RemotePageRow } from '../cache/cache-repository'
import { ServiceUnreachableError } from '../gateway/api-gateway'
import type { JournalEntry } from '../sync/plan-types'
import { remoteRows } from '../sync/remote-snapshot'
import type { SpacePusherOptions } from './pusher-context'
import type { LocalFiles } from './push-types'

/** Base and main texts of a page both sides changed, for the planner's block merge. */
export type MergeTexts = Map<string, { base: string; main: string; mainOid: string }>

/**
 * Main as the service has it now. A push (the watcher's, between passes) must not plan against the
 * last pass's view: a change request opened now is based on today's main, and a page edited or
 * deleted against an older main would undo what others merged since. One request when main has not
 * moved; offline (or refused for a while), the last view stands.
 */
export async function refreshMain(o: SpacePusherOptions) {
  const { cache, gateway, spaceId } = o
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

/**
 * Base and main texts of the pages both the writer and main changed since the merge base, for the
 * planner's block merge (main as it is now, maybe newer than the last sync down saw). A page whose
 * base text is not kept, or that cannot be fetched now, is left out (it gets a conflicted copy).
 */
export async function mergeTexts(o: SpacePusherOptions, journal: readonly JournalEntry[], pages: readonly RemotePageRow[], local: LocalFiles): Promise<MergeTexts> {
  const texts: MergeTexts = new Map()
  const mainOids = new Map(pages.map((p) => [p.id, p.gitOid]))
  for (const j of journal) {
    const mainOid = mainOids.get(j.id)
    const file = local.get(j.path)
    if (j.kind !== 'page' || !mainOid || mainOid === j.oid || !file || file.hash === j.baseHash || file.text === undefined) continue
    const base = o.cache.pageBases.text(o.spaceId, j.oid)
    if (base === undefined) continue
    let page: { markdown: string; oid: string }
    try {
      page = await mainPage(o, j.id)
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
  const page = (await o.gateway.client.spaces.getPageById(o.spaceId, pageId, { format: 'markdown' })).data
  const markdown = 'markdown' in page && typeof page.markdown === 'string' ? page.markdown : ''
  return { markdown, oid: 'git' in page && page.git ? page.git.oid : gitBlobOid(markdown) }
}
