import { applyContentChanges } from '../../content/revision/apply'
import type { RevisionTree } from '../../content/types'
import { atLeast, type Role } from '../access/roles'
import { spaceRole } from '../access/space-access'
import { created, noContent, ok, type HandlerResult, type RequestContext, type Route } from '../http/context'
import { ApiError, badRequest, conflict, forbidden, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { newId } from '../store/ids'
import { OrganizationsRepository } from '../store/organizations'
import { createSpaceRevision, RevisionsRepository } from '../store/revisions'
import { SpacesRepository, type Space, type SpaceData } from '../store/spaces'
import { endPosition, planMove, refuseTransferOfSiteSpaces, requireTargetCollection, requireTopLevelCreate, type ContentPosition } from './collections'
import { checkMergeRuleUsers, requireOrg } from './organizations'
import { spaceJson } from './serializers/space'
import { apiUrl } from './urls'
import { deleted } from './serializers/deleted'

export interface SpaceAccess {
  space: Space
  role: Role
}

/**
 * The space if the caller can read it (404 otherwise, so its existence stays hidden) and holds at least
 * `needed` on it (403 otherwise). Spaces past their restore window are purged first. A deleted space
 * only exists for admins of it, and only where `allowDeleted` says so (reading and restoring it).
 */
export function requireSpace(ctx: RequestContext, spaceId: string, needed: Role = 'read', options: { allowDeleted?: boolean } = {}): SpaceAccess {
  const spaces = ctx.store.repo(SpacesRepository)
  spaces.purgeExpired()
  const space = spaces.get(spaceId)
  const role = space ? spaceRole(ctx.store, space, ctx.user.id) : null
  if (!space || !role) throw notFound(`Space ${spaceId} not found`)
  if (space.deletedAt && !(options.allowDeleted && role === 'admin')) throw notFound(`Space ${spaceId} not found`)
  if (!atLeast(role, needed)) throw forbidden(`This operation needs the ${needed} role on the space`)
  return { space, role }
}

const json = (ctx: RequestContext, space: Space) => spaceJson(ctx.store, space, ctx.user.id, ctx.origin)

// The spec's `Emoji` is a "Unicode codepoint or character of the emoji".
const EMOJI_CHARACTERS = /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Emoji_Component}|\u200d|\ufe0f)+$/u
const EMOJI_CODEPOINTS = /^[0-9a-f]{4,6}(?:-[0-9a-f]{4,6})*$/i

export function checkEmoji(emoji: string, where: string): string {
  if (!EMOJI_CODEPOINTS.test(emoji) && !(EMOJI_CHARACTERS.test(emoji) && /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(emoji))) {
    throw badRequest(`${where} must be an emoji character or its codepoint, e.g. "1f4d8"`)
  }
  return emoji
}

/**
 * The caller may put a space at this place (a collection of the organization, or its top level):
 * `create` on the collection or in the organization.
 */
function requirePlacement(ctx: RequestContext, orgId: string, collectionId: string | null, where: string) {
  if (collectionId !== null) requireTargetCollection(ctx, orgId, collectionId, where)
  else requireTopLevelCreate(ctx, orgId)
}

/** Whoever creates a space administrates it, even without the organization's admin role. */
function grantCreator(ctx: RequestContext, space: Space) {
  const member = ctx.store.repo(OrganizationsRepository).member(space.orgId, ctx.user.id)
  if (member?.role !== 'admin') ctx.store.repo(SpacesRepository).setUserRole(space.id, ctx.user.id, 'admin')
}

const withLocation = (ctx: RequestContext, space: Space): HandlerResult => ({
  ...created(json(ctx, space)),
  headers: { Location: apiUrl(ctx.origin, `/spaces/${space.id}`) },
})

// ---------------------------------------------------------------------------------------------

interface SpacePatch {
  editMode?: 'live' | 'locked'
  title?: string
  defaultLevel?: Role | 'inherit' | null
  language?: string
  mergeRules?: { type: string; rules?: Array<{ rule: string; users?: string[] }> }
  emoji?: string | null
  icon?: string | null
}

function updateSpace(ctx: RequestContext) {
  const { space } = requireSpace(ctx, ctx.params.spaceId, 'admin')
  const body = ctx.body as SpacePatch
  const data: Partial<SpaceData> = {}
  if (body.editMode !== undefined) data.editMode = body.editMode
  if (body.defaultLevel !== undefined) data.defaultLevel = body.defaultLevel
  if (body.language !== undefined) data.language = body.language
  if (body.mergeRules !== undefined) {
    checkMergeRuleUsers(ctx, space.orgId, body.mergeRules, 'body/mergeRules')
    data.mergeRules = body.mergeRules
  }
  // A space shows an emoji or an icon: setting one clears the other; null clears what is given.
  if (body.emoji !== undefined) {
    data.emoji = body.emoji === null ? undefined : checkEmoji(body.emoji, 'body/emoji')
    if (body.emoji !== null) data.icon = undefined
  }
  if (body.icon !== undefined) {
    data.icon = body.icon ?? undefined
    if (body.icon !== null) data.emoji = undefined
  }
  const updated = ctx.store.repo(SpacesRepository).update(space.id, { title: body.title, data })
  return ok(json(ctx, updated))
}

/**
 * Deleting moves the space to the trash (`deletedAt`), restorable for 7 days, then it is removed for
 * good. The spec names both outcomes: 205 "Space has been deleted", 204 "Space did not exist" (also
 * for a space already in the trash, or one the caller cannot see, whose existence stays hidden).
 */
function deleteSpace(ctx: RequestContext): HandlerResult {
  const spaces = ctx.store.repo(SpacesRepository)
  spaces.purgeExpired()
  const existing = spaces.get(ctx.params.spaceId)
  if (!existing || existing.deletedAt || !spaceRole(ctx.store, existing, ctx.user.id)) return noContent()
  const { space } = requireSpace(ctx, existing.id, 'admin')
  spaces.markDeleted(space.id, ctx.store.now())
  return deleted(true)
}

function restoreSpace(ctx: RequestContext) {
  const { space } = requireSpace(ctx, ctx.params.spaceId, 'admin', { allowDeleted: true })
  if (!space.deletedAt) throw badRequest('The space is not deleted')
  const spaces = ctx.store.repo(SpacesRepository)
  spaces.markDeleted(space.id, null)
  return ok(json(ctx, spaces.get(space.id) ?? space))
}

const EMPTY_TREE: RevisionTree = { pages: [], files: [] }

/** A copy next to the original: same settings and the current content, as a new first revision. */
function duplicateSpace(ctx: RequestContext): HandlerResult {
  const { space } = requireSpace(ctx, ctx.params.spaceId, 'read')
  requirePlacement(ctx, space.orgId, space.collectionId, 'the space\'s collection')
  const spaces = ctx.store.repo(SpacesRepository)
  const current = space.revisionId ? ctx.store.repo(RevisionsRepository).get(space.revisionId) : undefined
  const { shareKey: _shareKey, ...data } = space.data
  const copy = spaces.create({ orgId: space.orgId, collectionId: space.collectionId, title: `${space.title} (copy)`.slice(0, 50), data })
  createSpaceRevision(ctx.store, copy.id, current?.tree ?? EMPTY_TREE, undefined, [], {
    createdBy: ctx.user.id,
    message: `Duplicated from space ${space.id}`,
  })
  grantCreator(ctx, copy)
  return withLocation(ctx, spaces.get(copy.id) ?? copy)
}

interface MoveBody {
  parent?: string | null
  position?: ContentPosition
}

function moveSpace(ctx: RequestContext) {
  const { space } = requireSpace(ctx, ctx.params.spaceId, 'admin')
  const body = ctx.body as MoveBody
  const target = body.parent === undefined ? space.collectionId : body.parent
  if (target !== space.collectionId) requirePlacement(ctx, space.orgId, target, 'body/parent')
  else if (target !== null) requireTargetCollection(ctx, space.orgId, target, 'body/parent')
  const plan = planMove(ctx, space.orgId, { kind: 'space', id: space.id }, space.collectionId, target, body.position)
  if (!plan.changed) throw conflict('No update: the space is already at that place')
  const spaces = ctx.store.repo(SpacesRepository)
  spaces.update(space.id, { collectionId: target })
  plan.apply()
  return ok(json(ctx, spaces.get(space.id) ?? space))
}

/**
 * Moves the space to the top level of another organization the caller creates content in. A space
 * filed in a collection cannot be moved (412): the collection stays behind, so move the space out of it
 * first, or transfer the whole collection. Nor can a space that a site of its organization publishes.
 * Explicit user grants travel with the space.
 */
function transferSpace(ctx: RequestContext) {
  const { space } = requireSpace(ctx, ctx.params.spaceId, 'admin')
  const { organization } = ctx.body as { organization: string }
  const target = requireOrg(ctx, organization)
  if (target.org.id === space.orgId) throw conflict('No update: the space already belongs to that organization')
  if (!atLeast(target.member.role, 'create')) throw forbidden('Transferring content needs the create role in the target organization')
  if (space.collectionId) throw new ApiError(412, 'The space cannot be moved: it is in a collection; move it to the top level first')
  refuseTransferOfSiteSpaces(ctx, space.orgId, [space.id])
  const spaces = ctx.store.repo(SpacesRepository)
  const updated = spaces.update(space.id, { orgId: target.org.id, position: endPosition(ctx, target.org.id, null) })
  return ok(json(ctx, updated))
}

function listSpacesInOrganization(ctx: RequestContext) {
  const { org } = requireOrg(ctx, ctx.params.organizationId)
  const spaces = ctx.store.repo(SpacesRepository)
  spaces.purgeExpired()
  const visible = spaces.listByOrg(org.id).filter((s) => atLeast(spaceRole(ctx.store, s, ctx.user.id), 'read'))
  return ok(paginate(visible, ctx.query, (s) => json(ctx, s)))
}

interface CreateSpaceBody {
  title?: string
  emoji?: string
  parent?: string
  language?: string
  editMode?: 'live' | 'locked'
  template?: unknown
  computedSource?: unknown
  empty?: boolean
}

/** The first page of a new space, as GitBook starts one: empty, written as the README by Git Sync. */
function initialTree(ctx: RequestContext): { tree: RevisionTree; blobs: Map<string, Uint8Array> } {
  const result = applyContentChanges(EMPTY_TREE, [{ operation: 'insert_page', title: 'Introduction', document: { markdown: '' } }], {
    newId: () => newId(),
    now: ctx.store.now(),
  })
  return { tree: result.tree, blobs: result.blobs }
}

function createSpace(ctx: RequestContext): HandlerResult {
  const { org } = requireOrg(ctx, ctx.params.organizationId)
  const body = (ctx.body ?? {}) as CreateSpaceBody
  if (body.template !== undefined) throw badRequest('body/template: space templates are not available in the local service')
  if (body.computedSource !== undefined) throw badRequest('body/computedSource: computed content sources are not available in the local service')
  const parent = body.parent ?? null
  requirePlacement(ctx, org.id, parent, 'body/parent')
  const data: Partial<SpaceData> = {}
  if (body.emoji !== undefined) data.emoji = checkEmoji(body.emoji, 'body/emoji')
  if (body.language !== undefined) data.language = body.language
  if (body.editMode !== undefined) data.editMode = body.editMode
  const spaces = ctx.store.repo(SpacesRepository)
  const space = spaces.create({ orgId: org.id, collectionId: parent, title: body.title ?? 'Untitled', data })
  spaces.setPosition(space.id, endPosition(ctx, org.id, parent))
  const content = body.empty ? { tree: EMPTY_TREE, blobs: new Map<string, Uint8Array>() } : initialTree(ctx)
  createSpaceRevision(ctx.store, space.id, content.tree, content.blobs, [], { createdBy: ctx.user.id, message: 'Create space' })
  grantCreator(ctx, space)
  return withLocation(ctx, spaces.get(space.id) ?? space)
}

const inTransaction = (handler: (ctx: RequestContext) => HandlerResult) => (ctx: RequestContext) => ctx.store.transaction(() => handler(ctx))

export const spaceRoutes: Route[] = [
  // `shareKey` resolves published URLs of share-link sites; the local service's URLs do not need it.
  { operationId: 'getSpaceById', handler: (ctx) => ok(json(ctx, requireSpace(ctx, ctx.params.spaceId, 'read', { allowDeleted: true }).space)) },
  { operationId: 'updateSpaceById', handler: inTransaction(updateSpace) },
  { operationId: 'deleteSpaceById', handler: inTransaction(deleteSpace) },
  { operationId: 'restoreSpace', handler: inTransaction(restoreSpace) },
  { operationId: 'duplicateSpace', handler: inTransaction(duplicateSpace) },
  { operationId: 'moveSpace', handler: inTransaction(moveSpace) },
  { operationId: 'transferSpace', handler: inTransaction(transferSpace) },
  { operationId: 'listSpacesInOrganizationById', handler: listSpacesInOrganization },
  { operationId: 'createSpace', handler: inTransaction(createSpace) },
]
