import { ContentError, applyContentChanges, type ContentChange } from '../../content'
import type { RequestContext, Route } from '../http/context'
import { badRequest } from '../http/errors'
import type { ChangeRequest } from '../store/change-requests'
import { newId } from '../store/ids'
import { createSpaceRevision } from '../store/revisions'
import type { Space } from '../store/spaces'
import { writeChangeRequestContent } from './change-request-content'
import { currentRevision, requireChangeRequest, requireSpace } from './content-access'

/**
 * The built-in space templates: starter page structures written as Git Sync markdown, applied with the
 * same batch semantics as a content write (pages are appended after any existing ones).
 */
interface TemplatePage {
  markdown: string
  pages?: TemplatePage[]
}

const TEMPLATES: Record<string, TemplatePage[]> = {
  blank: [{ markdown: '# Untitled\n' }],
  'product-docs': [
    { markdown: '# Introduction\n\nWhat the product does and who it is for.\n' },
    {
      markdown: '# Getting started\n\nThe shortest path from nothing to a working setup.\n',
      pages: [
        { markdown: '# Quickstart\n\n1. Install.\n2. Configure.\n3. Run.\n' },
        { markdown: '# Installation\n\n{% hint style="info" %}\nCheck the requirements first.\n{% endhint %}\n' },
      ],
    },
    { markdown: '# Guides\n\nStep-by-step guides for common tasks.\n' },
    { markdown: '# FAQ\n\nAnswers to the questions people ask most.\n' },
  ],
  'api-docs': [
    { markdown: '# Overview\n\nWhat the API offers and how to authenticate.\n' },
    { markdown: '# Authentication\n\nEvery request carries a bearer token.\n' },
    { markdown: '# Reference\n\nEndpoints, parameters and responses.\n' },
    { markdown: '# Changelog\n\nChanges to the API, newest first.\n' },
  ],
  'internal-wiki': [
    { markdown: '# Welcome\n\nWhat this wiki holds and how to contribute.\n' },
    { markdown: '# Team\n\nWho we are and how we work.\n' },
    { markdown: '# Processes\n\nHow recurring work gets done.\n' },
    { markdown: '# Onboarding\n\nA new teammate\'s first week.\n' },
  ],
}

const SPACE_TEMPLATE_IDS = Object.keys(TEMPLATES)

function templateChanges(id: string): ContentChange[] {
  const pages = TEMPLATES[id]
  if (!pages) throw badRequest(`Unknown template '${id}'; available templates: ${SPACE_TEMPLATE_IDS.join(', ')}`)
  const changes: ContentChange[] = []
  let counter = 0
  const add = (list: TemplatePage[], into: string | undefined) => {
    for (const page of list) {
      const ref = `template-page-${++counter}`
      changes.push({ operation: 'insert_page', document: { markdown: page.markdown }, ref, ...(into ? { into } : {}) })
      if (page.pages) add(page.pages, ref)
    }
  }
  add(pages, undefined)
  return changes
}

export function applyTemplateToChangeRequest(ctx: RequestContext, space: Space, cr: ChangeRequest, template: { id: string }): ChangeRequest {
  return writeChangeRequestContent(ctx, space, cr, templateChanges(template.id), `Apply template ${template.id}`).changeRequest
}

function applyTemplateToSpace(ctx: RequestContext) {
  const { space } = requireSpace(ctx, 'edit')
  const body = ctx.body as { id: string; changeRequestId?: string }
  if (body.changeRequestId !== undefined) {
    const cr = requireChangeRequest(ctx, space, body.changeRequestId)
    applyTemplateToChangeRequest(ctx, space, cr, body)
    return { status: 201 }
  }
  const changes = templateChanges(body.id)
  ctx.store.transaction(() => {
    const head = space.revisionId ? currentRevision(ctx, space) : undefined
    let tree
    let blobs
    try {
      ;({ tree, blobs } = applyContentChanges(head?.tree ?? { pages: [], files: [] }, changes, { newId: () => newId(), now: ctx.store.now() }))
    } catch (error) {
      if (error instanceof ContentError) throw badRequest(error.message)
      throw error
    }
    createSpaceRevision(ctx.store, space.id, tree, blobs, head ? [head.id] : [], { createdBy: ctx.user.id, message: `Apply template ${body.id}` })
  })
  return { status: 201 }
}

export const applyTemplateRoute: Route = { operationId: 'applyTemplateToSpace', handler: applyTemplateToSpace }
