/**
 * Working state of one `applyContentChanges` batch, shared by the handlers of
 * each change kind. The tree is a private copy: the input tree is never
 * touched, so a rejected batch leaves no trace (the API's atomicity). Of a
 * stored (frozen) revision only what a change writes is copied: a page is
 * written only through `requirePage` (or `locateWritablePage`), the files
 * through `writableFiles`.
 */
import { ContentError } from '../errors'
import type { ApplyEnv, RevisionTree, TreeFile, TreePage } from '../types'
import { locateWritablePage, type PageLocation } from './tree'

export interface Batch {
  tree: RevisionTree
  env: ApplyEnv
  /** insert_page `ref` -> id of the page it created. */
  pageRefs: Map<string, string>
  /** insert_files `ref` -> id of the file it created. */
  fileRefs: Map<string, string>
  /** Page id -> body text, for pages whose body this batch set (finalized after all changes). */
  bodies: Map<string, string>
  /** File bytes by blob id. */
  fileBlobs: Map<string, Uint8Array>
  /** Ids of pages touched, in the order first touched. */
  touched: Set<string>
}

/**
 * Page addressed by a change: its id, or the `ref` of a page inserted earlier in the batch. Writable, as
 * are its parent and siblings (see `locateWritablePage`).
 */
export function requirePage(batch: Batch, reference: unknown, field: string, index: number): PageLocation {
  if (typeof reference !== 'string' || reference === '') throw new ContentError(`${field} must be a page id`, index)
  const id = batch.pageRefs.get(reference) ?? reference
  const location = locateWritablePage(batch.tree, id)
  if (!location) throw new ContentError(`${field}: no page '${reference}' in the revision`, index)
  return location
}

/** The batch's file list, copied on the first write when it is still the stored revision's (frozen) own. */
export function writableFiles(batch: Batch): TreeFile[] {
  if (Object.isFrozen(batch.tree.files)) batch.tree.files = [...batch.tree.files]
  return batch.tree.files
}

/** The array a page is inserted into: `parent`'s subpages, or the root pages. */
export function childrenOf(batch: Batch, parent: TreePage | undefined): TreePage[] {
  return parent ? parent.pages : batch.tree.pages
}

/** Validates an `at` index against the number of pages it may be placed among. */
export function checkAt(at: unknown, siblingCount: number, index: number): number | undefined {
  if (at === undefined) return undefined
  if (typeof at !== 'number' || !Number.isInteger(at) || at < 0) throw new ContentError(`at must be a non-negative integer, got ${JSON.stringify(at)}`, index)
  if (at > siblingCount) throw new ContentError(`at ${at} is out of range: the target parent has ${siblingCount} page(s)`, index)
  return at
}

/** A fresh id from the environment, checked so a buggy generator cannot corrupt the tree. */
export function freshId(batch: Batch, taken: (id: string) => boolean, index: number): string {
  const id = batch.env.newId()
  if (taken(id)) throw new ContentError(`newId() returned '${id}', which is already in use`, index)
  return id
}
