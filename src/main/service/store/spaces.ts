import type Database from 'better-sqlite3'
import type { Role } from '../access/roles'
import type { GitSyncRecord } from '../git/git-sync-state'
import { newId } from './ids'
import { parseJson } from './json'
import type { ServiceStore } from './service-store'

export type SpaceVisibility = 'public' | 'unlisted' | 'share-link' | 'visitor-auth' | 'in-collection' | 'private'

/** Space fields kept as JSON: the API shape's settings. */
export interface SpaceData {
  emoji?: string
  visibility: SpaceVisibility
  editMode: 'live' | 'locked'
  language?: string
  /** Icon image URL; a space shows either an emoji or an icon. */
  icon?: string
  defaultLevel?: Role | 'inherit' | null
  mergeRules: Record<string, unknown>
  shareKey?: string
  /** The Git Sync repository and its last import or export (`git/info`). */
  gitSync?: GitSyncRecord
}

export interface Space {
  id: string
  orgId: string
  collectionId: string | null
  title: string
  revisionId: string | null
  position: number
  createdAt: string
  updatedAt: string
  deletedAt: string | null
  data: SpaceData
}

interface SpaceRow {
  id: string
  org_id: string
  collection_id: string | null
  title: string
  revision_id: string | null
  position: number
  created_at: string
  updated_at: string
  deleted_at: string | null
  data: string
}

const toSpace = (row: SpaceRow): Space => ({
  id: row.id,
  orgId: row.org_id,
  collectionId: row.collection_id,
  title: row.title,
  revisionId: row.revision_id,
  position: row.position,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  deletedAt: row.deleted_at,
  data: parseJson<SpaceData>(row.data, { visibility: 'private', editMode: 'live', mergeRules: { type: 'inherit' } }),
})

export class SpacesRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(input: { orgId: string; title: string; collectionId?: string | null; id?: string; data?: Partial<SpaceData> }): Space {
    const now = this.store.now()
    const position =
      (this.db.prepare('SELECT COALESCE(MAX(position), -1) + 1 AS p FROM spaces WHERE org_id = ?').get(input.orgId) as { p: number }).p
    const space: Space = {
      id: input.id ?? newId(),
      orgId: input.orgId,
      collectionId: input.collectionId ?? null,
      title: input.title,
      revisionId: null,
      position,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
      data: { visibility: 'private', editMode: 'live', mergeRules: { type: 'inherit' }, defaultLevel: 'inherit', ...input.data },
    }
    this.db
      .prepare(
        `INSERT INTO spaces (id, org_id, collection_id, title, revision_id, position, created_at, updated_at, deleted_at, data)
         VALUES (?, ?, ?, ?, NULL, ?, ?, ?, NULL, ?)`,
      )
      .run(space.id, space.orgId, space.collectionId, space.title, space.position, now, now, JSON.stringify(space.data))
    return space
  }

  /** Includes spaces in their deletion window; callers decide whether a deleted space is visible. */
  get(id: string): Space | undefined {
    const row = this.db.prepare('SELECT * FROM spaces WHERE id = ?').get(id) as SpaceRow | undefined
    return row && toSpace(row)
  }

  listByOrg(orgId: string): Space[] {
    return (this.db.prepare('SELECT * FROM spaces WHERE org_id = ? AND deleted_at IS NULL ORDER BY position, rowid').all(orgId) as SpaceRow[]).map(toSpace)
  }

  listByCollection(collectionId: string): Space[] {
    return (
      this.db.prepare('SELECT * FROM spaces WHERE collection_id = ? AND deleted_at IS NULL ORDER BY position, rowid').all(collectionId) as SpaceRow[]
    ).map(toSpace)
  }

  update(id: string, patch: { title?: string; collectionId?: string | null; orgId?: string; position?: number; data?: Partial<SpaceData> }): Space {
    const current = this.get(id)
    if (!current) throw new Error(`space ${id} does not exist`)
    const next: Space = {
      ...current,
      title: patch.title ?? current.title,
      collectionId: patch.collectionId === undefined ? current.collectionId : patch.collectionId,
      orgId: patch.orgId ?? current.orgId,
      position: patch.position ?? current.position,
      updatedAt: this.store.now(),
      data: { ...current.data, ...patch.data },
    }
    this.db
      .prepare('UPDATE spaces SET title = ?, collection_id = ?, org_id = ?, position = ?, updated_at = ?, data = ? WHERE id = ?')
      .run(next.title, next.collectionId, next.orgId, next.position, next.updatedAt, JSON.stringify(next.data), id)
    return next
  }

  setRevision(id: string, revisionId: string) {
    this.db.prepare('UPDATE spaces SET revision_id = ?, updated_at = ? WHERE id = ?').run(revisionId, this.store.now(), id)
  }

  markDeleted(id: string, at: string | null) {
    this.db.prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?').run(at, id)
  }

  /** Every space filed in the collection, deleted ones included. */
  allInCollection(collectionId: string): Space[] {
    return (this.db.prepare('SELECT * FROM spaces WHERE collection_id = ? ORDER BY position, rowid').all(collectionId) as SpaceRow[]).map(toSpace)
  }

  /** Reordering siblings is not an edit of the space: `updatedAt` stays. */
  setPosition(id: string, position: number) {
    this.db.prepare('UPDATE spaces SET position = ? WHERE id = ?').run(position, id)
  }

  /** Deleted spaces are restorable for this long, then removed for good. */
  static readonly RETENTION_MS = 7 * 24 * 60 * 60 * 1000

  /** The instant before which a deleted space is past its restore window. */
  retentionCutoff(): string {
    return new Date(Date.parse(this.store.now()) - SpacesRepository.RETENTION_MS).toISOString()
  }

  /** Removes spaces past their restore window; run lazily whenever spaces are read. */
  purgeExpired(): number {
    return this.purgeDeletedBefore(this.retentionCutoff())
  }

  /** Removes spaces whose deletion window has passed, for good. */
  purgeDeletedBefore(cutoff: string): number {
    return this.db.prepare('DELETE FROM spaces WHERE deleted_at IS NOT NULL AND deleted_at < ?').run(cutoff).changes
  }

  userRole(spaceId: string, userId: string): Role | null | undefined {
    const row = this.db.prepare('SELECT role FROM space_users WHERE space_id = ? AND user_id = ?').get(spaceId, userId) as
      | { role: Role | null }
      | undefined
    return row ? row.role : undefined
  }

  users(spaceId: string): Array<{ userId: string; role: Role | null }> {
    return (this.db.prepare('SELECT user_id, role FROM space_users WHERE space_id = ? ORDER BY rowid').all(spaceId) as Array<{ user_id: string; role: Role | null }>).map(
      (r) => ({ userId: r.user_id, role: r.role }),
    )
  }

  setUserRole(spaceId: string, userId: string, role: Role | null) {
    this.db
      .prepare('INSERT INTO space_users (space_id, user_id, role) VALUES (?, ?, ?) ON CONFLICT(space_id, user_id) DO UPDATE SET role = excluded.role')
      .run(spaceId, userId, role)
  }

  removeUser(spaceId: string, userId: string): boolean {
    return this.db.prepare('DELETE FROM space_users WHERE space_id = ? AND user_id = ?').run(spaceId, userId).changes > 0
  }

  teams(spaceId: string): Array<{ teamId: string; role: Role | null }> {
    return (this.db.prepare('SELECT team_id, role FROM space_teams WHERE space_id = ? ORDER BY rowid').all(spaceId) as Array<{ team_id: string; role: Role | null }>).map(
      (r) => ({ teamId: r.team_id, role: r.role }),
    )
  }

  teamRole(spaceId: string, teamId: string): Role | null | undefined {
    const row = this.db.prepare('SELECT role FROM space_teams WHERE space_id = ? AND team_id = ?').get(spaceId, teamId) as { role: Role | null } | undefined
    return row ? row.role : undefined
  }

  setTeamRole(spaceId: string, teamId: string, role: Role | null) {
    this.db
      .prepare('INSERT INTO space_teams (space_id, team_id, role) VALUES (?, ?, ?) ON CONFLICT(space_id, team_id) DO UPDATE SET role = excluded.role')
      .run(spaceId, teamId, role)
  }

  removeTeam(spaceId: string, teamId: string): boolean {
    return this.db.prepare('DELETE FROM space_teams WHERE space_id = ? AND team_id = ?').run(spaceId, teamId).changes > 0
  }

  /** Roles the user holds on the space through the teams they belong to (for `spaceRole`). */
  teamRolesOfUser(spaceId: string, userId: string): Role[] {
    const rows = this.db
      .prepare('SELECT st.role FROM space_teams st JOIN team_members tm ON tm.team_id = st.team_id WHERE st.space_id = ? AND tm.user_id = ? AND st.role IS NOT NULL')
      .all(spaceId, userId) as Array<{ role: Role }>
    return rows.map((r) => r.role)
  }

  /** Members of the teams granted a role on the space. */
  teamMemberIds(spaceId: string): string[] {
    const rows = this.db
      .prepare('SELECT DISTINCT tm.user_id FROM space_teams st JOIN team_members tm ON tm.team_id = st.team_id WHERE st.space_id = ?')
      .all(spaceId) as Array<{ user_id: string }>
    return rows.map((r) => r.user_id)
  }

  collectionDefaultLevel(collectionId: string): Role | null | undefined {
    const row = this.db.prepare('SELECT default_level, parent_id FROM collections WHERE id = ?').get(collectionId) as
      | { default_level: Role | 'inherit' | null; parent_id: string | null }
      | undefined
    if (!row) return undefined
    if (row.default_level === 'inherit' || row.default_level === null) return row.parent_id ? this.collectionDefaultLevel(row.parent_id) : undefined
    return row.default_level
  }
}
