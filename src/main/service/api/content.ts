import type { TreePage } from '../../content'
import { ok, type HandlerResult, type RequestContext, type Route } from '../http/context'
import { notFound } from '../http/errors'
import { JsonPieces } from '../http/json-pieces'
import { paginate } from '../http/pagination'
import { ChangeRequestsRepository } from '../store/change-requests'
import type { Revision } from '../store/revisions'
import {
  changeRequestRevision,
  currentRevision,
  requireChangeRequest,
  requireRevision,
  requireSpace,
} from './content-access'
import { changeRequestJson } from './serializers/change-request'
import { RevisionView, type MarkdownRefs, type PageFormat } from './serializers/revision'
import { applyTemplateRoute } from './space-templates'

/** Which revision an operation reads: the space's current one, a given one, or a change request's head. */
type RevisionSource = (ctx: RequestContext) => Revision

const spaceContent: RevisionSource = (ctx) => currentRevision(ctx, requireSpace(ctx, 'view').space)
const revisionContent: RevisionSource = (ctx) => requireRevision(ctx, requireSpace(ctx, 'view').space)
const changeRequestContent: RevisionSource = (ctx) => {
  const { space } = requireSpace(ctx, 'view')
  return changeRequestRevision(ctx, requireChangeRequest(ctx, space))
}

function revisionView(ctx: RequestContext, revision: Revision): RevisionView {
  return new RevisionView(ctx.store, revision, {
    origin: ctx.origin,
    metadata: ctx.query.metadata !== false,
    fileOrigin: ctx.content.fileOrigin,
    // `computed=false` ("content will not be computed"): a tree without the markdown rendered for each page, as the hosted service's.
    treeMarkdown: ctx.content.treeMarkdown && ctx.query.computed !== false,
  })
}

/** A merge revision names the change request it came from. */
function revisionJson(ctx: RequestContext, revision: Revision) {
  const merged = revision.type === 'merge' ? ctx.store.repo(ChangeRequestsRepository).byMergedRevision(revision.id) : undefined
  return revisionView(ctx, revision).revisionJson(merged && changeRequestJson(ctx.store, merged, ctx.origin))
}

/** Pages default to the JSON document, like the hosted service; `format=markdown` gives the Git Sync file. */
const pageFormat = (ctx: RequestContext): PageFormat => (ctx.query.format === 'markdown' ? 'markdown' : 'document')
const markdownRefs = (ctx: RequestContext): MarkdownRefs => (ctx.query['format.markdown.refs'] === 'stable' ? 'stable' : 'relative')

const getRevision = (source: RevisionSource) => (ctx: RequestContext) => ok(revisionJson(ctx, source(ctx)))

const listPages = (source: RevisionSource) => (ctx: RequestContext) => ok({ pages: revisionView(ctx, source(ctx)).pagesJson() })

const listFiles = (source: RevisionSource) => (ctx: RequestContext) => {
  const view = revisionView(ctx, source(ctx))
  return ok(paginate(view.tree.files, ctx.query, (file) => view.fileJson(file)))
}

const getFile = (source: RevisionSource) => (ctx: RequestContext) => {
  const view = revisionView(ctx, source(ctx))
  const file = view.findFile(ctx.params.fileId ?? '')
  if (!file) throw notFound(`File ${ctx.params.fileId ?? ''} could not be found in revision ${view.revision.id}`)
  return ok(view.fileJson(file))
}

const reusableContent = (view: RevisionView, id: string) => {
  const content = view.findReusableContent(id)
  if (!content) throw notFound(`Reusable content ${id} could not be found in revision ${view.revision.id}`)
  return content
}

const getReusableContent = (source: RevisionSource) => (ctx: RequestContext) => {
  const view = revisionView(ctx, source(ctx))
  return ok(view.reusableContentJson(reusableContent(view, ctx.params.reusableContentId ?? '')))
}

/** An answer of the view: an object, or JSON already made in pieces (a large document converted in a worker). */
const answer = (result: object): HandlerResult => (result instanceof JsonPieces ? { status: 200, body: result } : ok(result))

const getReusableContentDocument = (source: RevisionSource) => async (ctx: RequestContext) => {
  const view = revisionView(ctx, source(ctx))
  return answer(await view.reusableContentDocument(reusableContent(view, ctx.params.reusableContentId ?? '')))
}

const getPage = (source: RevisionSource) => async (ctx: RequestContext) => {
  const view = revisionView(ctx, source(ctx))
  const page = view.findPage(ctx.params.pageId ?? '')
  if (!page) throw notFound(`Page ${ctx.params.pageId ?? ''} could not be found in revision ${view.revision.id}`)
  return answer(await view.pageAnswer(page, pageFormat(ctx), markdownRefs(ctx)))
}

/** By path: documents and groups only (the spec's answer has no link pages). */
const getPageByPath = (source: RevisionSource) => async (ctx: RequestContext) => {
  const view = revisionView(ctx, source(ctx))
  const path = ctx.params.pagePath ?? ''
  const page: TreePage | undefined = view.pageByPath(path)
  if (!page || page.type === 'link') throw notFound(`No page at path '${path}' in revision ${view.revision.id}`)
  return answer(await view.pageAnswer(page, pageFormat(ctx), markdownRefs(ctx)))
}

export const contentRoutes: Route[] = [
  { operationId: 'getCurrentRevision', handler: getRevision(spaceContent) },
  { operationId: 'listPages', handler: listPages(spaceContent) },
  { operationId: 'listFiles', handler: listFiles(spaceContent) },
  { operationId: 'getFileById', handler: getFile(spaceContent) },
  { operationId: 'getPageById', handler: getPage(spaceContent) },
  { operationId: 'getPageByPath', handler: getPageByPath(spaceContent) },
  { operationId: 'getReusableContentById', handler: getReusableContent(spaceContent) },
  { operationId: 'getRevisionById', handler: getRevision(revisionContent) },
  { operationId: 'listPagesInRevisionById', handler: listPages(revisionContent) },
  { operationId: 'listFilesInRevisionById', handler: listFiles(revisionContent) },
  { operationId: 'getFileInRevisionById', handler: getFile(revisionContent) },
  { operationId: 'getPageInRevisionById', handler: getPage(revisionContent) },
  { operationId: 'getPageInRevisionByPath', handler: getPageByPath(revisionContent) },
  { operationId: 'getReusableContentInRevisionById', handler: getReusableContent(revisionContent) },
  { operationId: 'getReusableContentDocumentInRevisionById', handler: getReusableContentDocument(revisionContent) },
  { operationId: 'getRevisionOfChangeRequestById', handler: getRevision(changeRequestContent) },
  { operationId: 'listPagesInChangeRequest', handler: listPages(changeRequestContent) },
  { operationId: 'listFilesInChangeRequestById', handler: listFiles(changeRequestContent) },
  { operationId: 'getFileInChangeRequestById', handler: getFile(changeRequestContent) },
  { operationId: 'getPageInChangeRequestById', handler: getPage(changeRequestContent) },
  { operationId: 'getPageInChangeRequestByPath', handler: getPageByPath(changeRequestContent) },
  { operationId: 'getReusableContentInChangeRequestById', handler: getReusableContent(changeRequestContent) },
  applyTemplateRoute,
]
