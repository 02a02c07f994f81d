import { ok, type RequestContext, type Route } from '../http/context'
import { notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { SiteShareLinksRepository, type SiteShareLink } from '../store/site-share-links'
import { loadSite } from './site-access'
import { shareLinkJson, siteLocation } from './serializers/site'

// Share links hand out the keys that open `share-link` sites: only site admins see or make them.
function linkOf(ctx: RequestContext, siteId: string): SiteShareLink {
  const link = ctx.store.repo(SiteShareLinksRepository).get(siteId, ctx.params.shareLinkId)
  if (!link) throw notFound(`No share link ${ctx.params.shareLinkId} on site ${siteId}`)
  return link
}

export const siteShareLinkRoutes: Route[] = [
  {
    operationId: 'listSiteShareLinks',
    handler: (ctx) => {
      const { site, view } = loadSite(ctx, 'admin')
      const search = typeof ctx.query.search === 'string' ? ctx.query.search.toLowerCase() : undefined
      const links = ctx.store
        .repo(SiteShareLinksRepository)
        .list(site.id)
        .filter((l) => !search || (l.name ?? '').toLowerCase().includes(search) || l.key.toLowerCase().includes(search))
      return ok(paginate(links, ctx.query, (l) => shareLinkJson(view, l)))
    },
  },
  {
    operationId: 'createSiteShareLink',
    handler: (ctx) => {
      const { site, view } = loadSite(ctx, 'admin')
      const link = ctx.store.repo(SiteShareLinksRepository).create(site.id, (ctx.body as { name: string }).name)
      return { status: 201, body: shareLinkJson(view, link), headers: { Location: `${siteLocation(site, ctx.origin)}/share-links/${link.id}` } }
    },
  },
  {
    operationId: 'updateSiteShareLinkById',
    handler: (ctx) => {
      const { site, view } = loadSite(ctx, 'admin')
      linkOf(ctx, site.id)
      const updated = ctx.store.repo(SiteShareLinksRepository).update(site.id, ctx.params.shareLinkId, ctx.body as { name?: string; active?: boolean })
      return ok(shareLinkJson(view, updated as SiteShareLink))
    },
  },
  {
    operationId: 'deleteSiteShareLinkById',
    handler: (ctx) => {
      const { site } = loadSite(ctx, 'admin')
      return { status: ctx.store.repo(SiteShareLinksRepository).delete(site.id, ctx.params.shareLinkId) ? 205 : 204 }
    },
  },
]
