/**
 * applyContentChanges: the semantics of `POST .../change-requests/{id}/content`
 * as a pure function from (tree, changes) to a new tree plus the blobs it
 * needs. The service persists the result; the sync engine uses it to predict
 * what the service will do.
 *
 * A batch is all-or-nothing: it runs on a private copy of the tree and any
 * invalid change throws a ContentError naming `changes[i]`, leaving the input
 * untouched.
 */
import { ContentError } from '../errors'
import { computeGitPaths } from '../gitsync/paths'
import { gitBlobOid, toBytes } from '../markdown/blob-oid'
import type { ParsedRuns } from '../markdown/links'
import type { ApplyEnv, ApplyResult, ChangedPage, ContentChange, RevisionTree, TreeFile } from '../types'
import type { Batch } from './batch'
import { batchLinkHint, batchLinkTargets, resolveBatchLinks, type BatchLinkTargets } from './batch-links'
import { insertFiles } from './file-changes'
import { deletePage, insertPage, updatePage } from './page-changes'
import { revertPage } from './revert'
import { copyOnWriteTree, findPages, indexPages, isDeeplyFrozen, locateWritablePage, shareUnchanged } from './tree'

export const MAX_CHANGES_PER_BATCH = 50

export interface ApplyOptions extends ApplyEnv {
  /**
   * Runs of the batch's bodies already parsed for their links (`parseLinksAhead` with `batchLinkHint`
   * of the batch's refs): a server parses large pages off its event loop first, and the apply then
   * parses nothing itself.
   */
  parsedLinks?: ParsedRuns
}

export function applyContentChanges(tree: RevisionTree, changes: ContentChange[], env: ApplyOptions): ApplyResult {
  if (!Array.isArray(changes) || changes.length === 0 || changes.length > MAX_CHANGES_PER_BATCH) {
    const count = Array.isArray(changes) ? changes.length : 0
    throw new ContentError(`a batch must have 1 to ${MAX_CHANGES_PER_BATCH} changes, got ${count}`)
  }
  checkRefs(tree, changes)

  const batch: Batch = {
    tree: copyOnWriteTree(tree),
    env,
    pageRefs: new Map(),
    fileRefs: new Map(),
    bodies: new Map(),
    fileBlobs: new Map(),
    touched: new Set(),
  }
  const insertedFiles: TreeFile[] = []
  changes.forEach((change, index) => {
    const operation: unknown = typeof change === 'object' && change !== null ? change.operation : undefined
    switch (operation) {
      case 'insert_page':
        return insertPage(batch, change as Extract<ContentChange, { operation: 'insert_page' }>, index)
      case 'update_page':
        return updatePage(batch, change as Extract<ContentChange, { operation: 'update_page' }>, index)
      case 'delete_page':
        return deletePage(batch, change as Extract<ContentChange, { operation: 'delete_page' }>, index)
      case 'revert_page':
        return revertPage(batch, change as Extract<ContentChange, { operation: 'revert_page' }>, index)
      case 'insert_files':
        insertedFiles.push(...insertFiles(batch, change as Extract<ContentChange, { operation: 'insert_files' }>, index))
        return
      default:
        throw new ContentError(`unknown operation ${JSON.stringify(operation)}`, index)
    }
  })

  const blobs = storeBodies(batch, env.parsedLinks)
  for (const [oid, bytes] of batch.fileBlobs) blobs.set(oid, bytes)
  // A stored revision's unchanged pages stay shared with it (see copyOnWriteTree); any other input tree is
  // its caller's, and the result must not share it.
  const result = isDeeplyFrozen(tree) ? shareUnchanged(tree, batch.tree) : batch.tree
  return { tree: result, blobs, changedPages: changedPages(tree, batch), insertedFiles }
}

/**
 * Refs are checked before anything runs: each is used once in the batch, and
 * none may be mistaken for an existing page (its id or its git path).
 */
function checkRefs(tree: RevisionTree, changes: ContentChange[]): void {
  // Worked out on the first ref: most batches have none, and every file's path is not free in a large space.
  let paths: Set<string> | undefined
  let pageIds: Map<string, unknown> | undefined
  const firstUse = new Map<string, number>()
  changes.forEach((change, index) => {
    const refs: unknown[] = []
    if (change?.operation === 'insert_page' && change.ref !== undefined) refs.push(change.ref)
    if (change?.operation === 'insert_files' && Array.isArray(change.files)) {
      for (const file of change.files) if (file?.ref !== undefined) refs.push(file.ref)
    }
    for (const ref of refs) {
      if (typeof ref !== 'string' || ref === '') throw new ContentError('ref must be a non-empty string', index)
      const previous = firstUse.get(ref)
      if (previous !== undefined) throw new ContentError(`duplicate ref '${ref}' (first used by changes[${previous}])`, index)
      pageIds ??= indexPages(tree)
      paths ??= new Set(Array.from(computeGitPaths(tree).values(), (path) => path.toLowerCase()))
      if (pageIds.has(ref)) throw new ContentError(`ref '${ref}' is the id of an existing page`, index)
      if (paths.has(ref.toLowerCase()) || paths.has(`${ref}.md`.toLowerCase())) {
        throw new ContentError(`ref '${ref}' collides with the path of an existing page`, index)
      }
      firstUse.set(ref, index)
    }
  })
}

/** Resolves batch-time links in the bodies this batch wrote, then stores them content-addressed. */
function storeBodies(batch: Batch, parsedLinks: ParsedRuns | undefined): Map<string, Uint8Array> {
  const blobs = new Map<string, Uint8Array>()
  if (batch.bodies.size === 0) return blobs
  // A page's path is read only when one of its links resolves to a target (most bodies have no batch-time
  // link), and does not depend on the files: the paths of every page (and of thousands of files) are
  // worked out only then, not on every small write of a large space.
  let paths: Map<string, string> | undefined
  const pagePath = (id: string) => (paths ??= computeGitPaths({ pages: batch.tree.pages, files: [] })).get(id)
  const targets = lazyTargets(batch)
  const pages = findPages(batch.tree, new Set(batch.bodies.keys()))
  for (const [id, body] of batch.bodies) {
    // A page given a body was looked up writable (requirePage) or made by the batch; a frozen one here
    // would be a handler that wrote around requirePage, and is made writable rather than fail.
    const found = pages.get(id)
    const page = found && Object.isFrozen(found) ? locateWritablePage(batch.tree, id)?.page : found
    if (!page) continue
    const bytes = toBytes(resolveBatchLinks(body, () => pagePath(id), targets, parsedLinks))
    page.bodyOid = gitBlobOid(bytes)
    blobs.set(page.bodyOid, bytes)
  }
  return blobs
}

/**
 * The batch's link targets, computed on the first read of anything but the hint: `resolveBatchLinks`
 * reads them only for a link its hint let through, which most bodies do not have.
 */
function lazyTargets(batch: Batch): BatchLinkTargets {
  let targets: BatchLinkTargets | undefined
  const resolved = () => (targets ??= batchLinkTargets(batch.tree, computeGitPaths(batch.tree), batch.pageRefs, batch.fileRefs))
  return {
    hint: batchLinkHint([...batch.pageRefs.keys(), ...batch.fileRefs.keys()]),
    get paths() {
      return resolved().paths
    },
    get pageRefs() {
      return resolved().pageRefs
    },
    get fileRefs() {
      return resolved().fileRefs
    },
    get slugPaths() {
      return resolved().slugPaths
    },
    get gitPaths() {
      return resolved().gitPaths
    },
  }
}

/** Net effect per touched page, comparing the tree before and after the batch. */
function changedPages(before: RevisionTree, batch: Batch): ChangedPage[] {
  const old = findPages(before, batch.touched)
  const now = findPages(batch.tree, batch.touched)
  const refs = new Map(Array.from(batch.pageRefs, ([ref, id]) => [id, ref]))
  const out: ChangedPage[] = []
  for (const id of batch.touched) {
    const after = now.get(id)
    const previous = old.get(id)
    if (after && !previous) {
      const ref = refs.get(id)
      out.push(ref === undefined ? { id, title: after.title, operation: 'created' } : { id, title: after.title, operation: 'created', ref })
    } else if (after) {
      out.push({ id, title: after.title, operation: 'updated' })
    } else if (previous) {
      out.push({ id, title: previous.title, operation: 'deleted' })
    }
  }
  return out
}
