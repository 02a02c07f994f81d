import { randomBytes } from 'node:crypto'
import { applyContentChanges, type ContentChange } from '../../src/main/content'
import type { Role } from '../../src/main/service/access/roles'
import type { LocalService } from '../../src/main/service/local-service'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { createSpaceRevision, RevisionsRepository } from '../../src/main/service/store/revisions'
import { SpacesRepository } from '../../src/main/service/store/spaces'

export interface ArrangedSpace {
  orgId: string
  spaceId: string
  revisionId: string
  /** Page ids by the `ref` of the insert_page that made them. */
  pages: Record<string, string>
}

const fixtureId = () => randomBytes(10).toString('hex')

/**
 * An organization owned by the service owner and a space with content, arranged through the store
 * (the spaces HTTP API belongs to another family). `pages` are insert_page changes with refs.
 */
export function arrangeSpace(service: LocalService, changes: ContentChange[], options: { orgId?: string; title?: string } = {}): ArrangedSpace {
  const store = service.store
  const orgId = options.orgId ?? store.repo(OrganizationsRepository).create({ title: 'Fixture org', owner: service.ownerId }).id
  const space = store.repo(SpacesRepository).create({ orgId, title: options.title ?? 'Fixture space' })
  const result = applyContentChanges({ pages: [], files: [] }, changes, { newId: fixtureId, now: store.now() })
  const revision = createSpaceRevision(store, space.id, result.tree, result.blobs, [])
  const pages: Record<string, string> = {}
  for (const change of result.changedPages) if (change.ref) pages[change.ref] = change.id
  return { orgId, spaceId: space.id, revisionId: revision.id, pages }
}

/** Moves the space on outside any change request, as a live edit would. */
export function editSpaceDirectly(service: LocalService, spaceId: string, changes: ContentChange[]): string {
  const store = service.store
  const space = store.repo(SpacesRepository).get(spaceId)
  if (!space?.revisionId) throw new Error('space has no revision')
  const head = store.repo(RevisionsRepository).get(space.revisionId)
  if (!head) throw new Error('missing head revision')
  const result = applyContentChanges(head.tree, changes, { newId: fixtureId, now: store.now() })
  return createSpaceRevision(store, spaceId, result.tree, result.blobs, [head.id]).id
}

export function grant(service: LocalService, spaceId: string, userId: string, role: Role) {
  service.store.repo(SpacesRepository).setUserRole(spaceId, userId, role)
}

export const page = (ref: string, markdown: string, extra: Partial<Extract<ContentChange, { operation: 'insert_page' }>> = {}): ContentChange => ({
  operation: 'insert_page',
  ref,
  document: { markdown },
  ...extra,
})
