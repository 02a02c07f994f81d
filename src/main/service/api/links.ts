/**
 * Link reports and file backlinks, computed from the real page content of a revision.
 *
 * Reports are computed once per revision (revisions are immutable) and kept in memory per store.
 * `stats.broken.changeRequest` counts the broken links that the space's unmerged change requests
 * (status `open` or `draft`) would add: for each of them, the broken targets of its head revision
 * that are not already broken in the space's current revision, summed over the change requests.
 * For one page's report only that page's links are compared; for a report inside a change request,
 * only that change request counts. A target broken in main is therefore never counted twice.
 */
import { parseLinksAhead, type ChunkLinks } from '../../content/markdown/links'
import { giveBackTurn } from '../../content/markdown/turn-clock'
import { LinkParseError, parseRunsOffThread } from '../link-workers/pool'
import { findPage, walkPages } from '../../content/revision/tree'
import type { Route, RequestContext } from '../http/context'
import { ok } from '../http/context'
import { notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { RevisionCache, RevisionLinks, linkStats, newlyBroken, type LinkReportEntry, type LinkTarget } from '../content-index'
import { ChangeRequestsRepository } from '../store/change-requests'
import { RevisionsRepository, type Revision } from '../store/revisions'
import type { ServiceStore } from '../store/service-store'
import type { Space } from '../store/spaces'
import { changeRequestRevision, requireChangeRequest, requireSpace } from './content-access'

const caches = new WeakMap<ServiceStore, RevisionCache<Promise<RevisionLinks>>>()

/** Below this many characters of page bodies in all, a revision's links are parsed on the request's turn (see change-request-content.ts). */
const PARSE_AHEAD_ABOVE_CHARS = 4 * 1024

/**
 * The resolved links of a revision, computed on first use; requests for the same revision meanwhile
 * share the computation. Page bodies are parsed in worker threads first (remark takes seconds over a
 * large page, and the event loop must keep answering), then the report is built from those parses.
 */
function revisionLinks(ctx: RequestContext, revision: Revision): Promise<RevisionLinks> {
  let cache = caches.get(ctx.store)
  if (!cache) caches.set(ctx.store, (cache = new RevisionCache<Promise<RevisionLinks>>()))
  const revisions = ctx.store.repo(RevisionsRepository)
  const origin = ctx.origin
  // In-app detection depends on the origin, so it is part of the key.
  return cache.get(`${origin} ${revision.id}`, async () => {
    const bodies = new Map<string, string>()
    walkPages(revision.tree, ({ page }) => {
      if (page.bodyOid === undefined || bodies.has(page.bodyOid)) return
      const body = revisions.blob(page.bodyOid)?.toString('utf8')
      if (body !== undefined) bodies.set(page.bodyOid, body)
    })
    let parsedLinks: Map<string, ChunkLinks> | undefined
    if ([...bodies.values()].reduce((sum, body) => sum + body.length, 0) >= PARSE_AHEAD_ABOVE_CHARS) {
      parsedLinks = new Map()
      const parses = await Promise.all(
        [...bodies].map(async ([oid, body]) => {
          try {
            return await parseLinksAhead(body, undefined, parseRunsOffThread)
          } catch (error) {
            // A stored page remark cannot parse (in time) reports no links rather than failing every
            // report of its revision, or being parsed again here on the event loop.
            if (!(error instanceof LinkParseError)) throw error
            bodies.delete(oid)
            return new Map()
          }
        }),
      )
      for (const runs of parses) for (const [text, links] of runs) parsedLinks.set(text, links)
    }
    const source = { tree: revision.tree, readBlob: (oid: string) => bodies.get(oid), parsedLinks }
    return RevisionLinks.build(source, origin, giveBackTurn)
  })
}

/** Lets the event loop answer what else is waiting before the next slice of a large report. */

function spaceHead(ctx: RequestContext, space: Space): Revision | undefined {
  return space.revisionId ? ctx.store.repo(RevisionsRepository).get(space.revisionId) : undefined
}

/** Head revisions of the change requests that may still be merged. */
function unmergedChangeRequestHeads(ctx: RequestContext, space: Space): Revision[] {
  const revisions = ctx.store.repo(RevisionsRepository)
  return ctx.store
    .repo(ChangeRequestsRepository)
    .listBySpace(space.id, { statuses: ['open', 'draft'] })
    .flatMap((cr) => revisions.get(cr.revisionId) ?? [])
}

interface ReportScope {
  space: Space
  revision: Revision | undefined
  pageId?: string
  /** Revisions whose newly broken links `stats.broken.changeRequest` counts, against `baseline`. */
  changeRequestHeads: Revision[]
  baseline: Revision | undefined
}

async function linkReport(ctx: RequestContext, scope: ReportScope) {
  const entriesOf = async (revision: Revision | undefined): Promise<LinkReportEntry[]> =>
    revision ? (await revisionLinks(ctx, revision)).entriesInSlices(scope.pageId, giveBackTurn) : []
  const entries = await entriesOf(scope.revision)
  const baseline = scope.baseline === scope.revision ? entries : await entriesOf(scope.baseline)
  const heads = await Promise.all(scope.changeRequestHeads.map(entriesOf))
  const changeRequest = heads.reduce((sum, head) => sum + newlyBroken(head, baseline), 0)
  const stats = linkStats(entries)
  const status = typeof ctx.query.status === 'string' ? ctx.query.status : undefined
  const shown = status ? entries.filter((entry) => entry.status === status) : entries
  const versionContext = scope.revision?.id ?? ''
  const where = { organization: scope.space.orgId, space: scope.space.id, versionContext }
  return {
    ...paginate(shown, ctx.query, (entry) => ({
      status: entry.status,
      relation: 'reference',
      targetReference: targetReference(entry.target, where),
      locationReferences: entry.pageIds.map((page) => ({ kind: 'page', ...where, page })),
    })),
    stats: { total: stats.total, broken: { total: stats.broken, changeRequest } },
  }
}

/** A URL is not inside the space, so it carries no space context. */
function targetReference(target: LinkTarget, where: { organization: string; space: string; versionContext: string }) {
  return target.kind === 'url' ? target : { ...target, ...where }
}

function requirePage(revision: Revision | undefined, pageId: string, where: string) {
  if (!revision || !findPage(revision.tree, pageId)) throw notFound(`Page ${pageId} could not be found in ${where}`)
}

async function backlinks(ctx: RequestContext, space: Space, revision: Revision | undefined, fileId: string, where: string) {
  if (!revision || !revision.tree.files.some((file) => file.id === fileId)) throw notFound(`File ${fileId} could not be found in ${where}`)
  const pages = (await revisionLinks(ctx, revision)).fileBacklinks(fileId)
  return paginate(pages, ctx.query, (page) => ({
    kind: 'page',
    organization: space.orgId,
    space: space.id,
    versionContext: revision.id,
    page,
    file: fileId,
  }))
}

export const linkRoutes: Route[] = [
  {
    operationId: 'listSpaceLinks',
    handler: async (ctx) => {
      const { space } = requireSpace(ctx, 'view')
      const revision = spaceHead(ctx, space)
      return ok(await linkReport(ctx, { space, revision, changeRequestHeads: unmergedChangeRequestHeads(ctx, space), baseline: revision }))
    },
  },
  {
    operationId: 'listPageLinks',
    handler: async (ctx) => {
      const { space } = requireSpace(ctx, 'view')
      const revision = spaceHead(ctx, space)
      const pageId = ctx.params.pageId
      requirePage(revision, pageId, `space ${space.id}`)
      return ok(await linkReport(ctx, { space, revision, pageId, changeRequestHeads: unmergedChangeRequestHeads(ctx, space), baseline: revision }))
    },
  },
  {
    operationId: 'listPageLinksInChangeRequest',
    handler: async (ctx) => {
      const { space } = requireSpace(ctx, 'view')
      const cr = requireChangeRequest(ctx, space)
      const revision = changeRequestRevision(ctx, cr)
      const pageId = ctx.params.pageId
      requirePage(revision, pageId, `change request #${cr.number}`)
      return ok(await linkReport(ctx, { space, revision, pageId, changeRequestHeads: [revision], baseline: spaceHead(ctx, space) }))
    },
  },
  {
    operationId: 'listFileBacklinks',
    handler: async (ctx) => {
      const { space } = requireSpace(ctx, 'view')
      return ok(await backlinks(ctx, space, spaceHead(ctx, space), ctx.params.fileId, `space ${space.id}`))
    },
  },
  {
    operationId: 'listFileBacklinksInChangeRequest',
    handler: async (ctx) => {
      const { space } = requireSpace(ctx, 'view')
      const cr = requireChangeRequest(ctx, space)
      return ok(await backlinks(ctx, space, changeRequestRevision(ctx, cr), ctx.params.fileId, `change request #${cr.number}`))
    },
  },
]
