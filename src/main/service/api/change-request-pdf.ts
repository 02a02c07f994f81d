import { gitBlobOid, parsePageMarkdown, type TreePage } from '../../content'
import { ok, type RequestContext, type Route } from '../http/context'
import { notFound } from '../http/errors'
import { RevisionsRepository } from '../store/revisions'
import { changeRequestRevision, requireChangeRequest, requireSpace } from './content-access'
import { signedDownloadUrl } from './downloads'
import { renderPdf, type PdfSection } from './pdf-document'
import { RevisionView } from './serializers/revision'

/** The spec promises the print URL works for an hour. */
const PDF_LINK_SECONDS = 3600

/**
 * GET .../pdf: renders the change request's pages (or one page, with its subpages unless `only`) into
 * a PDF, stores it content-addressed and answers a signed link to it.
 */
function getChangeRequestPDF(ctx: RequestContext) {
  const { space } = requireSpace(ctx, 'view')
  const cr = requireChangeRequest(ctx, space)
  const view = new RevisionView(ctx.store, changeRequestRevision(ctx, cr), { origin: ctx.origin, metadata: false })
  let roots = view.tree.pages
  if (typeof ctx.query.page === 'string') {
    const page = view.findPage(ctx.query.page)
    if (!page) throw notFound(`Page ${ctx.query.page} could not be found in change request #${cr.number}`)
    roots = [ctx.query.only === true ? { ...page, pages: [] } : page]
  }
  const sections: PdfSection[] = []
  const add = (pages: TreePage[], depth: number) => {
    for (const page of pages) {
      const body = page.type === 'document' ? parsePageMarkdown(view.markdown(page)).body : (page.href ?? '')
      sections.push({ heading: `${'  '.repeat(depth)}${page.title}`, lines: body === '' ? [] : body.split('\n') })
      add(page.pages, depth + 1)
    }
  }
  add(roots, 0)
  const pdf = renderPdf(`Change request #${cr.number}: ${cr.subject || 'Untitled'}`, sections)
  const oid = gitBlobOid(pdf)
  ctx.store.repo(RevisionsRepository).putBlobs(new Map([[oid, pdf]]))
  const expiresAt = Math.floor(ctx.store.clock().getTime() / 1000) + PDF_LINK_SECONDS
  return ok({ url: signedDownloadUrl(ctx.content.fileOrigin || ctx.origin, { oid, name: `change-request-${cr.number}.pdf`, contentType: 'application/pdf', expiresAt }) })
}

export const changeRequestPdfRoutes: Route[] = [{ operationId: 'getChangeRequestPDF', handler: getChangeRequestPDF }]
