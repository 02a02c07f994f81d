/**
 * Full-text search over the current revision of spaces: titles, descriptions and page bodies.
 * Each revision's index is built on first use and kept in memory per store (revisions never change).
 * Organization search covers the organization's spaces the caller may read, results grouped by space.
 */
import { atLeast } from '../access/roles'
import { spaceRole } from '../access/space-access'
import type { RequestContext, Route } from '../http/context'
import { ok } from '../http/context'
import { badRequest } from '../http/errors'
import { paginate } from '../http/pagination'
import { RevisionCache, SearchIndex, type PageHit } from '../content-index'
import { RevisionsRepository, type Revision } from '../store/revisions'
import type { ServiceStore } from '../store/service-store'
import { SpacesRepository, type Space } from '../store/spaces'
import { requireSpace } from './content-access'
import { requireOrg } from './organizations'
import { appUrl } from './urls'

const caches = new WeakMap<ServiceStore, RevisionCache<SearchIndex>>()

function searchIndex(store: ServiceStore, revision: Revision): SearchIndex {
  let cache = caches.get(store)
  if (!cache) caches.set(store, (cache = new RevisionCache<SearchIndex>()))
  const revisions = store.repo(RevisionsRepository)
  return cache.get(revision.id, () => new SearchIndex({ tree: revision.tree, readBlob: (oid) => revisions.blob(oid)?.toString('utf8') }))
}

/** The spec bounds the length (checked before the handler runs); a query of blanks asks for nothing. */
function requireQuery(ctx: RequestContext): string {
  const query = typeof ctx.query.query === 'string' ? ctx.query.query : ''
  if (query.trim() === '') throw badRequest('query/query must not be empty')
  return query
}

function searchSpace(store: ServiceStore, space: Space, query: string): PageHit[] {
  const revision = space.revisionId ? store.repo(RevisionsRepository).get(space.revisionId) : undefined
  return revision ? searchIndex(store, revision).search(query) : []
}

/** The spec's `SearchPageResult`; `rank` is the hit's one-based place in the whole ranked result. */
function pageResult(origin: string, space: Space, hit: PageHit, rank: number) {
  const { page, path, ancestors } = hit.entry
  const pageUrl = appUrl(origin, `/spaces/${space.id}/page/${page.id}`)
  return {
    id: page.id,
    title: page.title,
    description: hit.description,
    path,
    score: hit.score,
    rank,
    resultType: hit.resultType,
    sections: hit.sections.map((section) => ({
      // Heading sections are named by their anchor; the text before the first heading by the page.
      id: section.anchor ?? page.id,
      title: section.title,
      path: section.anchor === undefined ? path : `${path}#${section.anchor}`,
      score: section.score,
      resultType: 'section' as const,
      body: section.body,
      urls: { app: section.anchor === undefined ? pageUrl : `${pageUrl}#${encodeURIComponent(section.anchor)}` },
    })),
    ancestors: ancestors.map((ancestor) => ({ title: ancestor.title })),
    urls: { app: pageUrl },
  }
}

export const searchRoutes: Route[] = [
  {
    operationId: 'searchSpaceContent',
    handler: (ctx) => {
      const query = requireQuery(ctx)
      const { space } = requireSpace(ctx, 'view')
      const hits = searchSpace(ctx.store, space, query)
      const ranked = hits.map((hit, index) => ({ hit, rank: index + 1 }))
      return ok(paginate(ranked, ctx.query, ({ hit, rank }) => pageResult(ctx.origin, space, hit, rank)))
    },
  },
  {
    operationId: 'searchOrganizationContent',
    handler: (ctx) => {
      const query = requireQuery(ctx)
      const { org } = requireOrg(ctx, ctx.params.organizationId)
      const readable = ctx.store
        .repo(SpacesRepository)
        .listByOrg(org.id)
        .filter((space) => atLeast(spaceRole(ctx.store, space, ctx.user.id), 'read'))
      const hits = readable.flatMap((space) => searchSpace(ctx.store, space, query).map((hit) => ({ space, hit })))
      // One ranking across spaces; a stable sort keeps space order, then page order, among equal scores.
      hits.sort((a, b) => b.hit.score - a.hit.score)
      const bySpace = new Map<string, { space: Space; score: number; pages: ReturnType<typeof pageResult>[] }>()
      hits.forEach(({ space, hit }, index) => {
        let group = bySpace.get(space.id)
        if (!group) bySpace.set(space.id, (group = { space, score: hit.score, pages: [] }))
        group.pages.push(pageResult(ctx.origin, space, hit, index + 1))
      })
      return ok(
        paginate([...bySpace.values()], ctx.query, (group) => ({
          type: 'space' as const,
          id: group.space.id,
          title: group.space.title,
          score: group.score,
          pages: group.pages,
        })),
      )
    },
  },
]
