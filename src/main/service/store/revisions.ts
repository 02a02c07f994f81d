import type Database from 'better-sqlite3'
import type { RevisionTree } from '../../content'
import { newId } from './ids'
import { parseJson } from './json'
import type { ServiceStore } from './service-store'
import { SpacesRepository } from './spaces'

/** Spec `Revision.type`: how the revision came to be. */
export type RevisionType = 'edits' | 'merge' | 'rollback' | 'update'

/** An immutable snapshot of a space's (or a change request's) content. */
export interface Revision {
  id: string
  spaceId: string
  /** Parent revision ids; empty for a space's first revision. A merge has [space head, change request head]. */
  parents: string[]
  tree: RevisionTree
  type: RevisionType
  message: string | null
  createdBy: string | null
  createdAt: string
}

export interface CreateRevisionInput {
  spaceId: string
  parents: string[]
  tree: RevisionTree
  /** Blobs the tree references that may not be stored yet, keyed by git blob oid. */
  blobs?: Map<string, Uint8Array>
  type?: RevisionType | string
  message?: string
  createdBy?: string
}

interface RevisionRow {
  id: string
  space_id: string
  parents: string
  tree: string
  type: string
  message: string | null
  created_by: string | null
  created_at: string
}

const CACHED_REVISIONS = 256

const REVISION_TYPES: ReadonlySet<string> = new Set(['edits', 'merge', 'rollback', 'update'])

function referencedBlobs(tree: RevisionTree): string[] {
  const oids = new Set<string>([...tree.files, ...(tree.reusableContents ?? [])].map((item) => item.blobOid))
  const walk = (pages: RevisionTree['pages']) => {
    for (const page of pages) {
      if (page.bodyOid) oids.add(page.bodyOid)
      walk(page.pages)
    }
  }
  walk(tree.pages)
  return [...oids]
}

/** Revisions handed out are frozen: an accidental in-place edit of a stored tree throws instead of corrupting it. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}

const toRevision = (row: RevisionRow): Revision => deepFreeze({
  id: row.id,
  spaceId: row.space_id,
  parents: parseJson<string[]>(row.parents, []),
  tree: parseJson<RevisionTree>(row.tree, { pages: [], files: [] }),
  type: REVISION_TYPES.has(row.type) ? (row.type as RevisionType) : 'edits',
  message: row.message,
  createdBy: row.created_by,
  createdAt: row.created_at,
})

/**
 * Revisions and the content-addressed blobs they reference. Rows are only ever inserted: a write to a
 * space or change request makes a new revision whose parents point at the old one.
 */
export class RevisionsRepository {
  // Trees are immutable, so a parsed revision stays valid; the most recently used ones are kept.
  private readonly cache = new Map<string, Revision>()
  // Prepared once: page reads fetch a blob each.
  private blobQuery: Database.Statement | undefined
  private hasBlobQuery: Database.Statement | undefined

  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(input: CreateRevisionInput): Revision {
    const row: RevisionRow = {
      id: newId(),
      space_id: input.spaceId,
      parents: JSON.stringify(input.parents),
      tree: JSON.stringify(input.tree),
      type: input.type && REVISION_TYPES.has(input.type) ? input.type : 'edits',
      message: input.message ?? null,
      created_by: input.createdBy ?? null,
      created_at: this.store.now(),
    }
    this.store.transaction(() => {
      if (input.blobs) this.putBlobs(input.blobs)
      // A parent's blobs were checked when it was stored: only the oids new to this tree are looked up,
      // so a small edit of a large space does not query every blob of the space.
      const inherited = new Set(input.parents.flatMap((id) => {
        const parent = this.get(id)
        return parent ? referencedBlobs(parent.tree) : []
      }))
      const missing = referencedBlobs(input.tree).find((oid) => !inherited.has(oid) && !input.blobs?.has(oid) && !this.hasBlob(oid))
      if (missing) throw new Error(`revision tree references blob ${missing}, which is not stored`)
      this.db
        .prepare(
          `INSERT INTO revisions (id, space_id, parents, tree, type, message, created_by, created_at)
           VALUES (@id, @space_id, @parents, @tree, @type, @message, @created_by, @created_at)`,
        )
        .run(row)
    })
    // Built from the stored JSON, so the caller's `tree` object and the revision never share state.
    // Not cached here: an enclosing transaction may still roll the insert back.
    return toRevision(row)
  }

  /** The returned object is shared and frozen: clone the tree (`structuredClone`) to derive a new one. */
  get(id: string): Revision | undefined {
    const cached = this.cache.get(id)
    if (cached) {
      this.remember(cached)
      return cached
    }
    const row = this.db.prepare('SELECT * FROM revisions WHERE id = ?').get(id) as RevisionRow | undefined
    if (!row) return undefined
    const revision = toRevision(row)
    this.remember(revision)
    return revision
  }

  private remember(revision: Revision) {
    this.cache.delete(revision.id)
    this.cache.set(revision.id, revision)
    if (this.cache.size > CACHED_REVISIONS) this.cache.delete(this.cache.keys().next().value as string)
  }

  /** A revision only if it belongs to the space: ids from another space are reported as unknown. */
  getInSpace(spaceId: string, id: string): Revision | undefined {
    const revision = this.get(id)
    return revision && revision.spaceId === spaceId ? revision : undefined
  }

  blob(oid: string): Buffer | undefined {
    this.blobQuery ??= this.db.prepare('SELECT data FROM blobs WHERE oid = ?')
    const row = this.blobQuery.get(oid) as { data: Buffer } | undefined
    return row?.data
  }

  hasBlob(oid: string): boolean {
    this.hasBlobQuery ??= this.db.prepare('SELECT 1 FROM blobs WHERE oid = ?')
    return this.hasBlobQuery.get(oid) !== undefined
  }

  /** Content-addressed: storing an oid twice is a no-op. */
  putBlobs(blobs: Map<string, Uint8Array>) {
    const insert = this.db.prepare('INSERT OR IGNORE INTO blobs (oid, data) VALUES (?, ?)')
    this.store.transaction(() => {
      for (const [oid, bytes] of blobs) insert.run(oid, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    })
  }
}

/** Stores a new revision of the space and makes it the space's current revision, atomically. */
export function createSpaceRevision(
  store: ServiceStore,
  spaceId: string,
  tree: RevisionTree,
  blobs: Map<string, Uint8Array> | undefined,
  parents: string[],
  options: { type?: RevisionType; message?: string; createdBy?: string } = {},
): Revision {
  return store.transaction(() => {
    const revision = store.repo(RevisionsRepository).create({ spaceId, parents, tree, blobs, ...options })
    store.repo(SpacesRepository).setRevision(spaceId, revision.id)
    return revision
  })
}
