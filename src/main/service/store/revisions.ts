import type Database from 'better-sqlite3'
import type { RevisionTree } from '../../content'
import { newId } from './ids'
import { parseJson } from './json'
import { deepFreeze } from '../../content/revision/tree'
import { RevisionNodes } from './revision-nodes'
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

/** Blobs of a new revision looked up one by one in the database; beyond, the parents' blobs are gathered first (see `create`). */
const LOOKUPS_BEFORE_PARENT_BLOBS = 16

const REVISION_TYPES: ReadonlySet<string> = new Set(['edits', 'merge', 'rollback', 'update'])

function referencedBlobs(tree: RevisionTree | undefined): string[] {
  if (!tree) return []
  const oids = [...tree.files, ...(tree.reusableContents ?? [])].map((item) => item.blobOid)
  const walk = (pages: RevisionTree['pages']) => {
    for (const page of pages) {
      if (page.bodyOid) oids.push(page.bodyOid)
      walk(page.pages)
    }
  }
  walk(tree.pages)
  return oids
}

/** `revisions.tree` of a revision stored as nodes; a row from before migration 006 holds the whole tree. */
interface StoredTree {
  root: string
}

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

  private readonly nodes: RevisionNodes

  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {
    this.nodes = new RevisionNodes(db, store)
  }

  /**
   * Stores a new revision. Only what the tree does not share with revisions already stored is written
   * (store/revision-nodes.ts); every blob it references must be stored or be in `blobs`. The revision's
   * tree is a frozen copy of `input.tree`, sharing only what was frozen already: the caller's tree and
   * the revision never share state that can change.
   */
  create(input: CreateRevisionInput): Revision {
    const row: Omit<RevisionRow, 'tree'> = {
      id: newId(),
      space_id: input.spaceId,
      parents: JSON.stringify(input.parents),
      type: input.type && REVISION_TYPES.has(input.type) ? input.type : 'edits',
      message: input.message ?? null,
      created_by: input.createdBy ?? null,
      created_at: this.store.now(),
    }
    const tree = this.store.transaction(() => {
      if (input.blobs) this.putBlobs(input.blobs)
      // Blobs of objects this store holds were checked when they were stored (revision-nodes.ts); of the
      // rest, those stored with this revision are there, and those the parents reference were checked with
      // them. But gathering the parents' blobs walks the whole space (8,800 oids at 800 pages: a
      // millisecond, more than all else a small write does), while a small write has one or two left (the
      // pages above the page it changed, their bodies unchanged): a few are looked up by the blobs' key,
      // a few microseconds each, and only many (a merge, an import, a tree given anew) are first
      // checked against the parents' blobs.
      const stored = this.nodes.write(input.tree, (oids) => {
        const unknown = [...new Set(oids)].filter((oid) => input.blobs?.has(oid) !== true)
        const inherited = unknown.length > LOOKUPS_BEFORE_PARENT_BLOBS ? new Set(input.parents.flatMap((id) => referencedBlobs(this.get(id)?.tree))) : undefined
        return unknown.find((oid) => inherited?.has(oid) !== true && !this.hasBlob(oid))
      })
      const storedTree: StoredTree = { root: stored.root }
      this.db
        .prepare(
          `INSERT INTO revisions (id, space_id, parents, tree, type, message, created_by, created_at)
           VALUES (@id, @space_id, @parents, @tree, @type, @message, @created_by, @created_at)`,
        )
        .run({ ...row, tree: JSON.stringify(storedTree) })
      return stored.tree
    })
    const revision = this.toRevision(row, tree)
    // Kept once committed: an enclosing transaction may still roll the insert back.
    this.store.afterCommit(() => this.remember(revision))
    return revision
  }

  private toRevision(row: Omit<RevisionRow, 'tree'>, tree: RevisionTree): Revision {
    return deepFreeze({
      id: row.id,
      spaceId: row.space_id,
      parents: parseJson<string[]>(row.parents, []),
      tree,
      type: REVISION_TYPES.has(row.type) ? (row.type as RevisionType) : 'edits',
      message: row.message,
      createdBy: row.created_by,
      createdAt: row.created_at,
    })
  }

  private readTree(column: string): RevisionTree {
    const stored = parseJson<StoredTree | RevisionTree>(column, { pages: [], files: [] })
    if ('root' in stored && typeof stored.root === 'string') return this.nodes.read(stored.root)
    return deepFreeze(stored as RevisionTree)
  }

  /** The returned object is shared and frozen: `applyContentChanges` derives a new tree from it, sharing what it does not change. */
  get(id: string): Revision | undefined {
    const cached = this.cache.get(id)
    if (cached) {
      this.remember(cached)
      return cached
    }
    const row = this.db.prepare('SELECT * FROM revisions WHERE id = ?').get(id) as RevisionRow | undefined
    if (!row) return undefined
    const revision = this.toRevision(row, this.readTree(row.tree))
    // Read inside a transaction, the row may yet be rolled back.
    this.store.afterCommit(() => this.remember(revision))
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
