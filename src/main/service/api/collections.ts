import { atLeast, type Role } from '../access/roles'
import { spaceRole } from '../access/space-access'
import { created, noContent, ok, type HandlerResult, type RequestContext, type Route } from '../http/context'
import { ApiError, badRequest, conflict, forbidden, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { CollectionsRepository, type Collection, type CollectionLevel } from '../store/collections'
import { OrganizationsRepository } from '../store/organizations'
import { SitesRepository } from '../store/sites'
import { SpacesRepository } from '../store/spaces'
import { requireOrg } from './organizations'
import { collectionJson, collectionRole } from './serializers/collection'
import { spaceJson } from './serializers/space'
import { apiUrl } from './urls'
import { deleted } from './serializers/deleted'

// ---------------------------------------------------------------------------------------------
// Ordering: spaces and collections sharing a parent (a collection, or the organization's top level
// when null) form one ordered list; `position` says where each sits among both kinds.
// ---------------------------------------------------------------------------------------------

/** Spec `SpacePointer` / `CollectionPointer`. */
export type ContentPointer = { type: 'space'; space: string } | { type: 'collection'; collection: string }

/** Spec `ContentPosition`: the moved item lands after `after` and/or before `before`. */
export interface ContentPosition {
  before?: ContentPointer
  after?: ContentPointer
}

export interface ContentItem {
  kind: 'space' | 'collection'
  id: string
}

interface OrderedItem extends ContentItem {
  position: number
  createdAt: string
}

const itemKey = (item: ContentItem) => `${item.kind}:${item.id}`
const pointerKey = (p: ContentPointer) => (p.type === 'space' ? `space:${p.space}` : `collection:${p.collection}`)

function siblings(ctx: RequestContext, orgId: string, parentId: string | null): OrderedItem[] {
  const collections = ctx.store
    .repo(CollectionsRepository)
    .children(orgId, parentId)
    .map((c): OrderedItem => ({ kind: 'collection', id: c.id, position: c.position, createdAt: c.createdAt }))
  const spaceRepo = ctx.store.repo(SpacesRepository)
  const spaces = (parentId === null ? spaceRepo.listByOrg(orgId).filter((s) => s.collectionId === null) : spaceRepo.listByCollection(parentId))
    .filter((s) => s.orgId === orgId)
    .map((s): OrderedItem => ({ kind: 'space', id: s.id, position: s.position, createdAt: s.createdAt }))
  return [...collections, ...spaces].sort((a, b) => a.position - b.position || a.createdAt.localeCompare(b.createdAt))
}

export interface MovePlan {
  /** False when the item already sits exactly there. */
  changed: boolean
  /** Renumbers the target parent's items; the caller re-parents the moved item itself. */
  apply(): void
}

/**
 * Where `item` lands under `targetParent`: at the end unless `position` says otherwise. A pointer that
 * names anything but another item of the target parent, or a `before`/`after` pair that are not
 * neighbours, is an invalid position (400).
 */
export function planMove(
  ctx: RequestContext,
  orgId: string,
  item: ContentItem,
  currentParent: string | null,
  targetParent: string | null,
  position: ContentPosition | undefined,
): MovePlan {
  const current = siblings(ctx, orgId, targetParent)
  const others = current.filter((s) => itemKey(s) !== itemKey(item))
  const find = (pointer: ContentPointer, name: string) => {
    const index = others.findIndex((s) => itemKey(s) === pointerKey(pointer))
    if (index < 0) throw badRequest(`Invalid position: body/position/${name} does not name another item of the target collection`)
    return index
  }
  let index = others.length
  if (position?.after) index = find(position.after, 'after') + 1
  if (position?.before) {
    const before = find(position.before, 'before')
    if (position.after && before !== index) throw badRequest('Invalid position: body/position/after and body/position/before are not neighbours')
    index = before
  }
  const next: ContentItem[] = [...others.slice(0, index), item, ...others.slice(index)]
  const changed = currentParent !== targetParent || next.map(itemKey).join('\n') !== current.map(itemKey).join('\n')
  return {
    changed,
    apply() {
      const spaces = ctx.store.repo(SpacesRepository)
      const collections = ctx.store.repo(CollectionsRepository)
      next.forEach((s, i) => (s.kind === 'space' ? spaces.setPosition(s.id, i) : collections.setPosition(s.id, i)))
    },
  }
}

/** A position after every current item of the parent. */
export function endPosition(ctx: RequestContext, orgId: string, parentId: string | null): number {
  const list = siblings(ctx, orgId, parentId)
  return list.length === 0 ? 0 : Math.max(...list.map((s) => s.position)) + 1
}

// ---------------------------------------------------------------------------------------------
// Access
// ---------------------------------------------------------------------------------------------

/** A collection the caller can see (404 otherwise) with at least the `needed` role (403 otherwise). */
export function requireCollection(ctx: RequestContext, collectionId: string, needed: Role = 'read'): Collection {
  const collection = ctx.store.repo(CollectionsRepository).get(collectionId)
  const role = collection && collectionRole(ctx.store, collection, ctx.user.id)
  if (!collection || !atLeast(role, 'read')) throw notFound(`Collection ${collectionId} not found`)
  if (!atLeast(role, needed)) throw forbidden(`This operation needs the ${needed} role on the collection`)
  return collection
}

/**
 * A parent named in a request body: a collection of the organization the caller can see, else an
 * invalid collection (400). Placing content in it needs the `create` role there (403).
 */
export function requireTargetCollection(ctx: RequestContext, orgId: string, collectionId: string, where: string): Collection {
  const collection = ctx.store.repo(CollectionsRepository).get(collectionId)
  const role = collection && collection.orgId === orgId ? collectionRole(ctx.store, collection, ctx.user.id) : null
  if (!collection || !atLeast(role, 'read')) throw badRequest(`Invalid collection: ${where} names no collection of the organization`)
  if (!atLeast(role, 'create')) throw forbidden('Adding content to this collection needs the create role on it')
  return collection
}

/** Placing content at an organization's top level needs the `create` role in the organization. */
export function requireTopLevelCreate(ctx: RequestContext, orgId: string) {
  const member = ctx.store.repo(OrganizationsRepository).member(orgId, ctx.user.id)
  if (!atLeast(member?.role, 'create')) throw forbidden('Adding content to the organization needs the create role in it')
}

const json = (ctx: RequestContext, collection: Collection) => collectionJson(ctx.store, collection, ctx.user.id, ctx.origin)

// ---------------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------------

interface CollectionPatch {
  title?: string
  description?: string
  defaultLevel?: CollectionLevel
}

function updateCollection(ctx: RequestContext) {
  const collection = requireCollection(ctx, ctx.params.collectionId, 'admin')
  const body = ctx.body as CollectionPatch
  const updated = ctx.store.repo(CollectionsRepository).update(collection.id, {
    title: body.title,
    description: body.description,
    defaultLevel: body.defaultLevel,
  })
  return ok(json(ctx, updated))
}

/**
 * The spec names both outcomes: 205 "Collection has been deleted", 204 "Collection did not exist" (also
 * for one the caller cannot see). Spaces inside go to the trash, restorable for 7 days.
 */
function deleteCollection(ctx: RequestContext): HandlerResult {
  const collections = ctx.store.repo(CollectionsRepository)
  const existing = collections.get(ctx.params.collectionId)
  if (!existing || !atLeast(collectionRole(ctx.store, existing, ctx.user.id), 'read')) return noContent()
  const collection = requireCollection(ctx, existing.id, 'admin')
  const spaces = ctx.store.repo(SpacesRepository)
  const now = ctx.store.now()
  for (const c of collections.subtree(collection.id)) {
    for (const space of spaces.listByCollection(c.id)) spaces.markDeleted(space.id, now)
  }
  // Spaces keep no link to a deleted collection (ON DELETE SET NULL): restored, they return to the top level.
  collections.delete(collection.id)
  return deleted(true)
}

function listSpacesInCollection(ctx: RequestContext) {
  const collection = requireCollection(ctx, ctx.params.collectionId)
  const spaces = ctx.store.repo(SpacesRepository)
  spaces.purgeExpired()
  const visible = spaces.listByCollection(collection.id).filter((s) => atLeast(spaceRole(ctx.store, s, ctx.user.id), 'read'))
  return ok(paginate(visible, ctx.query, (s) => spaceJson(ctx.store, s, ctx.user.id, ctx.origin)))
}

interface MoveBody {
  parent?: string | null
  position?: ContentPosition
}

function moveCollection(ctx: RequestContext) {
  const collection = requireCollection(ctx, ctx.params.collectionId, 'admin')
  const body = ctx.body as MoveBody
  const collections = ctx.store.repo(CollectionsRepository)
  const target = body.parent === undefined ? collection.parentId : body.parent
  if (target !== null) {
    requireTargetCollection(ctx, collection.orgId, target, 'body/parent')
    if (collections.subtree(collection.id).some((c) => c.id === target)) {
      throw badRequest('Invalid collection: a collection cannot move into itself or one of its own collections')
    }
  } else if (target !== collection.parentId) {
    requireTopLevelCreate(ctx, collection.orgId)
  }
  const plan = planMove(ctx, collection.orgId, { kind: 'collection', id: collection.id }, collection.parentId, target, body.position)
  if (!plan.changed) throw conflict('No update: the collection is already at that place')
  collections.update(collection.id, { parentId: target })
  plan.apply()
  return ok(json(ctx, collections.get(collection.id) ?? collection))
}

/**
 * Sites publish spaces of their own organization only: a space a site shows cannot leave it (412) until
 * it is taken off the site, or the site would go on showing another organization's content.
 */
export function refuseTransferOfSiteSpaces(ctx: RequestContext, orgId: string, spaceIds: string[]) {
  const sites = ctx.store.repo(SitesRepository)
  for (const spaceId of spaceIds) {
    const siteIds = [...sites.siteIdsWithSpace(orgId, spaceId)]
    if (siteIds.length > 0) {
      throw new ApiError(412, `The space ${spaceId} cannot be moved: site ${siteIds.join(', ')} publishes it; remove it from the site first`)
    }
  }
}

/**
 * Moves the collection, the collections nested in it and all their spaces (trashed ones too) to the
 * target organization's top level. A collection nested in another cannot be moved (412): its parent
 * stays behind, so it must be moved to the top level first.
 */
function transferCollection(ctx: RequestContext) {
  const collection = requireCollection(ctx, ctx.params.collectionId, 'admin')
  const { organization } = ctx.body as { organization: string }
  const target = requireOrg(ctx, organization)
  if (target.org.id === collection.orgId) throw conflict('No update: the collection already belongs to that organization')
  if (!atLeast(target.member.role, 'create')) throw forbidden('Transferring content needs the create role in the target organization')
  if (collection.parentId) throw new ApiError(412, 'The collection cannot be moved: it is nested in another collection; move it to the top level first')
  const collections = ctx.store.repo(CollectionsRepository)
  const spaces = ctx.store.repo(SpacesRepository)
  const subtree = collections.subtree(collection.id)
  refuseTransferOfSiteSpaces(
    ctx,
    collection.orgId,
    subtree.flatMap((c) => spaces.allInCollection(c.id).map((space) => space.id)),
  )
  const position = endPosition(ctx, target.org.id, null)
  for (const c of subtree) {
    collections.update(c.id, { orgId: target.org.id, ...(c.id === collection.id ? { position } : {}) })
    for (const space of spaces.allInCollection(c.id)) spaces.update(space.id, { orgId: target.org.id })
  }
  return ok(json(ctx, collections.get(collection.id) ?? collection))
}

/** Parents before their children, siblings in order. */
function collectionsInTreeOrder(ctx: RequestContext, orgId: string, nested: boolean): Collection[] {
  const collections = ctx.store.repo(CollectionsRepository)
  const out: Collection[] = []
  const walk = (parentId: string | null) => {
    for (const c of collections.children(orgId, parentId)) {
      out.push(c)
      if (nested) walk(c.id)
    }
  }
  walk(null)
  return out
}

function listCollectionsInOrganization(ctx: RequestContext) {
  const { org } = requireOrg(ctx, ctx.params.organizationId)
  const nested = ctx.query.nested !== false
  const visible = collectionsInTreeOrder(ctx, org.id, nested).filter((c) => atLeast(collectionRole(ctx.store, c, ctx.user.id), 'read'))
  return ok(paginate(visible, ctx.query, (c) => json(ctx, c)))
}

function createCollection(ctx: RequestContext): HandlerResult {
  const { org } = requireOrg(ctx, ctx.params.organizationId)
  const body = (ctx.body ?? {}) as { title?: string; parent?: string }
  const parentId = body.parent ?? null
  if (parentId !== null) requireTargetCollection(ctx, org.id, parentId, 'body/parent')
  else requireTopLevelCreate(ctx, org.id)
  const collection = ctx.store.repo(CollectionsRepository).create({
    orgId: org.id,
    parentId,
    title: body.title ?? 'Untitled',
    position: endPosition(ctx, org.id, parentId),
  })
  return { ...created(json(ctx, collection)), headers: { Location: apiUrl(ctx.origin, `/collections/${collection.id}`) } }
}

const inTransaction = (handler: (ctx: RequestContext) => HandlerResult) => (ctx: RequestContext) => ctx.store.transaction(() => handler(ctx))

export const collectionRoutes: Route[] = [
  { operationId: 'getCollectionById', handler: (ctx) => ok(json(ctx, requireCollection(ctx, ctx.params.collectionId))) },
  { operationId: 'updateCollectionById', handler: inTransaction(updateCollection) },
  { operationId: 'deleteCollectionById', handler: inTransaction(deleteCollection) },
  { operationId: 'listSpacesInCollectionById', handler: listSpacesInCollection },
  { operationId: 'moveCollection', handler: inTransaction(moveCollection) },
  { operationId: 'transferCollection', handler: inTransaction(transferCollection) },
  { operationId: 'listCollectionsInOrganizationById', handler: listCollectionsInOrganization },
  { operationId: 'createCollection', handler: inTransaction(createCollection) },
]
