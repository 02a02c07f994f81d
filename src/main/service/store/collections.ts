import type Database from 'better-sqlite3'
import type { Role } from '../access/roles'
import { newId } from './ids'
import type { ServiceStore } from './service-store'

export type CollectionLevel = Role | 'inherit' | null

export interface Collection {
  id: string
  orgId: string
  parentId: string | null
  title: string
  description: string | null
  defaultLevel: CollectionLevel
  position: number
  createdAt: string
}

interface CollectionRow {
  id: string
  org_id: string
  parent_id: string | null
  title: string
  description: string | null
  default_level: CollectionLevel
  position: number
  created_at: string
}

const toCollection = (row: CollectionRow): Collection => ({
  id: row.id,
  orgId: row.org_id,
  parentId: row.parent_id,
  title: row.title,
  description: row.description,
  defaultLevel: row.default_level,
  position: row.position,
  createdAt: row.created_at,
})

/** Collections group spaces (and other collections) inside an organization. */
export class CollectionsRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(input: {
    orgId: string
    title: string
    parentId?: string | null
    description?: string | null
    defaultLevel?: CollectionLevel
    position?: number
    id?: string
  }): Collection {
    const parentId = input.parentId ?? null
    const collection: Collection = {
      id: input.id ?? newId(),
      orgId: input.orgId,
      parentId,
      title: input.title,
      description: input.description ?? null,
      defaultLevel: input.defaultLevel === undefined ? 'inherit' : input.defaultLevel,
      position: input.position ?? this.nextPosition(input.orgId, parentId),
      createdAt: this.store.now(),
    }
    this.db
      .prepare(
        `INSERT INTO collections (id, org_id, parent_id, title, description, default_level, position, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        collection.id,
        collection.orgId,
        collection.parentId,
        collection.title,
        collection.description,
        collection.defaultLevel,
        collection.position,
        collection.createdAt,
      )
    return collection
  }

  get(id: string): Collection | undefined {
    const row = this.db.prepare('SELECT * FROM collections WHERE id = ?').get(id) as CollectionRow | undefined
    return row && toCollection(row)
  }

  listByOrg(orgId: string): Collection[] {
    return (this.db.prepare('SELECT * FROM collections WHERE org_id = ? ORDER BY position, rowid').all(orgId) as CollectionRow[]).map(toCollection)
  }

  /** Direct children of a parent collection, or the organization's top level when `parentId` is null. */
  children(orgId: string, parentId: string | null): Collection[] {
    const rows =
      parentId === null
        ? this.db.prepare('SELECT * FROM collections WHERE org_id = ? AND parent_id IS NULL ORDER BY position, rowid').all(orgId)
        : this.db.prepare('SELECT * FROM collections WHERE org_id = ? AND parent_id = ? ORDER BY position, rowid').all(orgId, parentId)
    return (rows as CollectionRow[]).map(toCollection)
  }

  /** The collection and every collection nested below it, parents before children. */
  subtree(id: string): Collection[] {
    const root = this.get(id)
    if (!root) return []
    const out: Collection[] = [root]
    for (let i = 0; i < out.length; i++) out.push(...this.children(out[i].orgId, out[i].id))
    return out
  }

  /** Ancestors of a collection, nearest first. */
  ancestors(id: string): Collection[] {
    const out: Collection[] = []
    const seen = new Set<string>([id])
    let current = this.get(id)
    while (current?.parentId && !seen.has(current.parentId)) {
      seen.add(current.parentId)
      current = this.get(current.parentId)
      if (current) out.push(current)
    }
    return out
  }

  update(
    id: string,
    patch: { title?: string; description?: string | null; defaultLevel?: CollectionLevel; parentId?: string | null; orgId?: string; position?: number },
  ): Collection {
    const current = this.get(id)
    if (!current) throw new Error(`collection ${id} does not exist`)
    const next: Collection = {
      ...current,
      title: patch.title ?? current.title,
      description: patch.description === undefined ? current.description : patch.description,
      defaultLevel: patch.defaultLevel === undefined ? current.defaultLevel : patch.defaultLevel,
      parentId: patch.parentId === undefined ? current.parentId : patch.parentId,
      orgId: patch.orgId ?? current.orgId,
      position: patch.position ?? current.position,
    }
    this.db
      .prepare('UPDATE collections SET title = ?, description = ?, default_level = ?, parent_id = ?, org_id = ?, position = ? WHERE id = ?')
      .run(next.title, next.description, next.defaultLevel, next.parentId, next.orgId, next.position, id)
    return next
  }

  setPosition(id: string, position: number) {
    this.db.prepare('UPDATE collections SET position = ? WHERE id = ?').run(position, id)
  }

  /** Deletes the collection; nested collections go with it (ON DELETE CASCADE). */
  delete(id: string) {
    this.db.prepare('DELETE FROM collections WHERE id = ?').run(id)
  }

  nextPosition(orgId: string, parentId: string | null): number {
    const row =
      parentId === null
        ? this.db.prepare('SELECT COALESCE(MAX(position), -1) + 1 AS p FROM collections WHERE org_id = ? AND parent_id IS NULL').get(orgId)
        : this.db.prepare('SELECT COALESCE(MAX(position), -1) + 1 AS p FROM collections WHERE org_id = ? AND parent_id = ?').get(orgId, parentId)
    return (row as { p: number }).p
  }
}
