import { atLeast, type Role } from '../../access/roles'
import { spaceRole } from '../../access/space-access'
import { changeRequestCounters } from '../../store/change-requests'
import { openCommentCount } from '../../store/comments'
import type { ServiceStore } from '../../store/service-store'
import type { Space } from '../../store/spaces'
import { gitSyncStateJson } from '../../git/git-sync-state'
import { apiUrl, appUrl, publishedUrl } from '../urls'

export interface SpacePermissions {
  view: boolean
  access: boolean
  admin: boolean
  viewInviteLinks: boolean
  edit: boolean
  triggerGitSync: boolean
  comment: boolean
  merge: boolean
  review: boolean
  installIntegration: boolean
}

/**
 * What a role allows on a space. Handlers enforce the same rules, so the flags tell the truth:
 * - a locked space (`editMode: locked`) accepts no content changes from anyone, admins included, until
 *   it is unlocked; so `edit` and `merge` are false there;
 * - `review` and `merge` need the `review` role (it ranks above `edit`);
 * - a deleted space is only visible to admins, who may restore it and nothing else.
 */
export function spacePermissions(role: Role | null, space: Space): SpacePermissions {
  const live = space.deletedAt === null
  const writable = live && space.data.editMode !== 'locked'
  return {
    view: atLeast(role, 'read'),
    access: atLeast(role, 'read'),
    admin: atLeast(role, 'admin'),
    viewInviteLinks: live && atLeast(role, 'admin'),
    edit: writable && atLeast(role, 'edit'),
    triggerGitSync: writable && atLeast(role, 'edit'),
    comment: live && atLeast(role, 'comment'),
    merge: writable && atLeast(role, 'review'),
    review: live && atLeast(role, 'review'),
    installIntegration: live && atLeast(role, 'admin'),
  }
}

/** The spec's `Space` object as the caller `userId` sees it. */
export function spaceJson(store: ServiceStore, space: Space, userId: string, origin: string) {
  const role = spaceRole(store, space, userId)
  const counts = changeRequestCounters(store, space.id)
  const visibility = space.data.visibility
  return {
    object: 'space' as const,
    id: space.id,
    title: space.title,
    emoji: space.data.emoji ?? '',
    visibility,
    createdAt: space.createdAt,
    updatedAt: space.updatedAt,
    ...(space.deletedAt ? { deletedAt: space.deletedAt } : {}),
    editMode: space.data.editMode,
    mergeRules: space.data.mergeRules,
    urls: {
      location: apiUrl(origin, `/spaces/${space.id}`),
      app: appUrl(origin, `/spaces/${space.id}`),
      ...(visibility !== 'private' ? { published: publishedUrl(origin, `/spaces/${space.id}`) } : {}),
      ...(visibility === 'public' ? { public: publishedUrl(origin, `/spaces/${space.id}`) } : {}),
      ...(space.data.icon ? { icon: space.data.icon } : {}),
    },
    organization: space.orgId,
    ...(space.collectionId ? { parent: space.collectionId } : {}),
    ...(space.data.language ? { language: space.data.language } : {}),
    ...(space.data.gitSync ? { gitSync: gitSyncStateJson(space.id, space.data.gitSync) } : {}),
    revision: space.revisionId ?? '',
    defaultLevel: space.data.defaultLevel === undefined ? 'inherit' : space.data.defaultLevel,
    comments: openCommentCount(store, { spaceId: space.id }),
    ...counts,
    permissions: spacePermissions(role, space),
  }
}

export type SpaceJson = ReturnType<typeof spaceJson>
