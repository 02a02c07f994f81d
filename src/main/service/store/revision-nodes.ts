/**
 * A revision's tree as content-addressed nodes (table `revision_nodes`, migrations 006 and 007), the way git
 * stores trees: a node per page (its fields, its subpages by oid), the file list in chunks (and a node
 * listing them), and a root (the root pages by oid, the files node, tags and reusable contents).
 *
 * Revisions are immutable and a new one is derived from its parent by a few changes, sharing every page
 * and array it did not change (`shareUnchanged` in content/revision/tree.ts). Storing it serializes,
 * hashes and inserts only the objects this store has not stored before, found by identity: a small edit
 * of an 800-page space writes the page, its parent and the root, not 1.6 MB of JSON (issue 16). What is
 * known to be stored is only ever recorded once the transaction that wrote it has committed.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { RevisionTree, TreeFile, TreePage } from '../../content'
import { deepFreeze, frozenCopy } from '../../content/revision/tree'
import type { ServiceStore } from './service-store'

/** Oid of a node's data: sha-256, as the data is whatever a user wrote in their pages. */
const nodeOid = (data: string) => createHash('sha256').update(data).digest('base64url')

/** Content-defined chunks of the file list: a chunk ends after a file whose id hashes to 0 mod this (64 files on average). */
const FILES_PER_CHUNK = 64

/** FNV-1a of a file id: where the file list is cut, the same wherever the file stands in the list. */
function endsChunk(file: TreeFile): boolean {
  let hash = 0x811c9dc5
  for (let i = 0; i < file.id.length; i++) hash = Math.imul(hash ^ file.id.charCodeAt(i), 0x01000193)
  return (hash >>> 0) % FILES_PER_CHUNK === 0
}

interface RootNode extends Omit<RevisionTree, 'pages' | 'files'> {
  pages: string[]
  files: string
}

/** A chunk of files this store holds (committed), found by its first file; reused while a list has the very same file objects there. */
interface FileChunk {
  files: readonly TreeFile[]
  oid: string
}

export class RevisionNodes {
  /** Object -> oid of its node, for objects whose node this store holds (committed). */
  private readonly stored = new WeakMap<object, string>()
  /** Files whose blob was checked in a committed revision. */
  private readonly checkedFiles = new WeakSet<TreeFile>()
  private readonly chunks = new WeakMap<TreeFile, FileChunk>()

  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  /**
   * Stores `tree` (a frozen copy of it, see `frozenCopy`) and returns its root oid and that copy.
   * `missingBlob` is given, at once, the blobs the objects new to this store reference (those of objects
   * it holds were checked when they were stored) and answers one that is not stored, if any: an error.
   */
  write(input: RevisionTree, missingBlob: (oids: string[]) => string | undefined): { root: string; tree: RevisionTree } {
    const tree = frozenCopy(input)
    const fresh: Array<[object, string]> = []
    const freshChunks: FileChunk[] = []
    const freshFiles: TreeFile[] = []
    const insert = this.db.prepare('INSERT OR IGNORE INTO revision_nodes (oid, data) VALUES (?, ?)')
    const put = (object: object, data: string): string => {
      const oid = nodeOid(data)
      insert.run(oid, data)
      fresh.push([object, oid])
      return oid
    }
    // Checked together once the new objects are known: how to check depends on how many there are.
    const unchecked: string[] = []
    const requireBlob = (oid: string) => {
      unchecked.push(oid)
    }

    const pageNode = (page: TreePage): string => {
      const known = this.stored.get(page)
      if (known) return known
      const pages = page.pages.map(pageNode)
      if (page.bodyOid) requireBlob(page.bodyOid)
      return put(page, JSON.stringify({ ...page, pages }))
    }

    const chunkNode = (files: TreeFile[]): string => {
      const known = this.chunks.get(files[0])
      if (known && known.files.length === files.length && known.files.every((file, i) => file === files[i])) return known.oid
      for (const file of files) {
        if (this.checkedFiles.has(file)) continue
        requireBlob(file.blobOid)
        freshFiles.push(file)
      }
      const chunk: FileChunk = { files, oid: put(files, JSON.stringify(files)) }
      freshChunks.push(chunk)
      return chunk.oid
    }

    const filesNode = (files: readonly TreeFile[]): string => {
      const known = this.stored.get(files)
      if (known) return known
      const oids: string[] = []
      let start = 0
      files.forEach((file, i) => {
        if (endsChunk(file) || i === files.length - 1) {
          oids.push(chunkNode(files.slice(start, i + 1)))
          start = i + 1
        }
      })
      return put(files, JSON.stringify(oids))
    }

    let root = this.stored.get(tree)
    if (!root) {
      for (const content of tree.reusableContents ?? []) requireBlob(content.blobOid)
      const node: RootNode = { ...tree, pages: tree.pages.map(pageNode), files: filesNode(tree.files) }
      root = put(tree, JSON.stringify(node))
    }
    const missing = unchecked.length > 0 ? missingBlob(unchecked) : undefined
    if (missing !== undefined) throw new Error(`revision tree references blob ${missing}, which is not stored`)
    this.store.afterCommit(() => this.remember(fresh, freshChunks, freshFiles))
    return { root, tree }
  }

  /** The tree stored under `root`, frozen. */
  read(root: string): RevisionTree {
    const select = this.db.prepare('SELECT data FROM revision_nodes WHERE oid = ?')
    const loaded: Array<[object, string]> = []
    const chunks: FileChunk[] = []
    const files: TreeFile[] = []
    const node = <T>(oid: string): T => {
      const row = select.get(oid) as { data: string } | undefined
      if (!row) throw new Error(`revision node ${oid} is missing from the database`)
      return JSON.parse(row.data) as T
    }
    const page = (oid: string): TreePage => {
      const data = node<Omit<TreePage, 'pages'> & { pages: string[] }>(oid)
      const loadedPage = deepFreeze({ ...data, pages: data.pages.map(page) })
      loaded.push([loadedPage, oid])
      return loadedPage
    }
    const fileList = (oid: string): TreeFile[] => {
      const all: TreeFile[] = []
      for (const chunkOid of node<string[]>(oid)) {
        const chunk = deepFreeze(node<TreeFile[]>(chunkOid))
        chunks.push({ files: chunk, oid: chunkOid })
        all.push(...chunk)
      }
      files.push(...all)
      deepFreeze(all)
      loaded.push([all, oid])
      return all
    }
    const data = node<RootNode>(root)
    const tree = deepFreeze({ ...data, pages: data.pages.map(page), files: fileList(data.files) })
    loaded.push([tree, root])
    // Read inside a transaction, the rows may yet be rolled back.
    this.store.afterCommit(() => this.remember(loaded, chunks, files))
    return tree
  }

  private remember(nodes: Array<[object, string]>, chunks: FileChunk[], files: TreeFile[]) {
    for (const [object, oid] of nodes) this.stored.set(object, oid)
    for (const chunk of chunks) this.chunks.set(chunk.files[0], chunk)
    for (const file of files) this.checkedFiles.add(file)
  }
}
