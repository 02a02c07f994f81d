import { atLeast } from '../access/roles'
import { spaceRole } from '../access/space-access'
import { created, ok, type RequestContext, type Route } from '../http/context'
import { badRequest, conflict, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { ChangeRequestsRepository, type ChangeRequestFilter, type ChangeRequestLink, type ChangeRequestStatus } from '../store/change-requests'
import { newId } from '../store/ids'
import { OrganizationsRepository } from '../store/organizations'
import { createSpaceRevision } from '../store/revisions'
import { SpacesRepository } from '../store/spaces'
import type { JSONDocument } from '../../content'
import { changeRequestContentRoutes } from './change-request-content'
import { changeRequestMergeRoutes } from './change-request-merge'
import { changeRequestPdfRoutes } from './change-request-pdf'
import { currentRevision, requireChangeRequest, requireSpace } from './content-access'
import { changeRequestJson } from './serializers/change-request'
import { applyTemplateToChangeRequest } from './space-templates'

/** The spec's `ChangeRequestSubject` limit; a longer subject could not be served back. */
const MAX_SUBJECT = 100

export function checkSubject(subject: unknown): string | undefined {
  if (subject === undefined) return undefined
  if (typeof subject !== 'string') throw badRequest('body/subject must be a string')
  if (subject.length > MAX_SUBJECT) throw badRequest(`body/subject must be at most ${MAX_SUBJECT} characters`)
  return subject
}

function filterFrom(query: Record<string, unknown>, statuses: ChangeRequestStatus[]): ChangeRequestFilter {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined)
  return {
    statuses,
    creator: text('creator'),
    contributor: text('contributor'),
    requestedReviewer: text('requestedReviewer'),
    orderBy: query.orderBy === 'createdAt' ? 'createdAt' : 'updatedAt',
  }
}

/**
 * Filters on associations this service never makes (site topics, style guide runs, findings) match no
 * change request, which is the truth here.
 */
function hasUnmatchableFilter(query: Record<string, unknown>): boolean {
  return ['topic', 'site', 'styleguideRun'].some((name) => query[name] !== undefined) || query.finding === 'all'
}

function createChangeRequest(ctx: RequestContext) {
  const { space } = requireSpace(ctx, 'edit')
  const body = (ctx.body ?? {}) as { subject?: unknown; template?: { id: string; params?: unknown } }
  const subject = checkSubject(body.subject)
  const cr = ctx.store.transaction(() => {
    // A space that never had content gets an empty first revision to branch from.
    const base = space.revisionId ? currentRevision(ctx, space) : createSpaceRevision(ctx.store, space.id, { pages: [], files: [] }, undefined, [])
    const crs = ctx.store.repo(ChangeRequestsRepository)
    const fresh = crs.create({ spaceId: space.id, createdBy: ctx.user.id, subject, revisionId: base.id, baseRevisionId: base.id, status: 'draft' })
    return body.template ? applyTemplateToChangeRequest(ctx, space, fresh, body.template) : fresh
  })
  return created(changeRequestJson(ctx.store, cr, ctx.origin))
}

function listChangeRequestsForSpace(ctx: RequestContext) {
  const { space } = requireSpace(ctx, 'view')
  const status = (ctx.query.status as ChangeRequestStatus | undefined) ?? 'open'
  const items = hasUnmatchableFilter(ctx.query) ? [] : ctx.store.repo(ChangeRequestsRepository).listBySpace(space.id, filterFrom(ctx.query, [status]))
  return ok(paginate(items, ctx.query, (cr) => changeRequestJson(ctx.store, cr, ctx.origin)))
}

function listChangeRequestsForOrganization(ctx: RequestContext) {
  const orgId = ctx.params.organizationId ?? ''
  const org = ctx.store.repo(OrganizationsRepository).get(orgId)
  if (!org || !ctx.store.repo(OrganizationsRepository).member(orgId, ctx.user.id)) throw notFound(`Organization ${orgId} could not be found`)
  const wantedSpace = typeof ctx.query.space === 'string' ? ctx.query.space : undefined
  const spaceIds = ctx.store
    .repo(SpacesRepository)
    .listByOrg(orgId)
    .filter((space) => (wantedSpace === undefined || space.id === wantedSpace) && atLeast(spaceRole(ctx.store, space, ctx.user.id), 'read'))
    .map((space) => space.id)
  const statuses = (ctx.query.status as ChangeRequestStatus[] | undefined) ?? ['open']
  const items = hasUnmatchableFilter(ctx.query) ? [] : ctx.store.repo(ChangeRequestsRepository).listBySpaces(spaceIds, filterFrom(ctx.query, statuses))
  return ok(paginate(items, ctx.query, (cr) => changeRequestJson(ctx.store, cr, ctx.origin)))
}

function getChangeRequestById(ctx: RequestContext) {
  const { space } = requireSpace(ctx, 'view')
  return ok(changeRequestJson(ctx.store, requireChangeRequest(ctx, space), ctx.origin))
}

interface ChangeRequestPatch {
  subject?: string
  description?: JSONDocument
  links?: Array<{ id?: string; ref: { kind: 'url'; url: string }; title?: string }>
  status?: 'draft' | 'open' | 'archived'
}

/** `links` replace the list: an entry with the `id` of an existing link updates it, one without adds a link. */
function nextLinks(current: ChangeRequestLink[], input: NonNullable<ChangeRequestPatch['links']>): ChangeRequestLink[] {
  return input.map((link) => {
    if (link.id !== undefined && !current.some((existing) => existing.id === link.id)) {
      throw badRequest(`body/links: no link ${link.id} on this change request`)
    }
    return { id: link.id ?? newId(), ref: { kind: 'url', url: link.ref.url }, ...(link.title !== undefined ? { title: link.title } : {}) }
  })
}

function updateChangeRequestById(ctx: RequestContext) {
  const { space } = requireSpace(ctx, 'edit')
  const cr = requireChangeRequest(ctx, space)
  const patch = (ctx.body ?? {}) as ChangeRequestPatch
  if (cr.status === 'merged' && (patch.status !== undefined || patch.subject !== undefined || patch.description !== undefined)) {
    throw conflict(`Change request #${cr.number} is merged: its subject, description and status can no longer change`)
  }
  const subject = checkSubject(patch.subject)
  const updated = ctx.store.repo(ChangeRequestsRepository).update(cr.id, {
    subject,
    status: patch.status,
    data: {
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.links !== undefined ? { links: nextLinks(cr.data.links ?? [], patch.links) } : {}),
    },
  })
  return ok(changeRequestJson(ctx.store, updated, ctx.origin))
}

export const changeRequestRoutes: Route[] = [
  { operationId: 'createChangeRequest', handler: createChangeRequest },
  { operationId: 'listChangeRequestsForSpace', handler: listChangeRequestsForSpace },
  { operationId: 'listChangeRequestsForOrganization', handler: listChangeRequestsForOrganization },
  { operationId: 'getChangeRequestById', handler: getChangeRequestById },
  { operationId: 'updateChangeRequestById', handler: updateChangeRequestById },
  ...changeRequestMergeRoutes,
  ...changeRequestPdfRoutes,
  ...changeRequestContentRoutes,
]
