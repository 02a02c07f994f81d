/**
 * mergeTrees: page-level three-way merge of two trees that diverged from a
 * common base (a change request and the main content, or local and remote in
 * the sync engine).
 *
 * Per page (and per file):
 * - changed on one side only: that side's version;
 * - changed on both sides to the same content: fine, main's version;
 * - changed differently on both: the branch's version, and the id is listed
 *   in `conflicts` so the caller can keep the other version as a copy;
 * - edited on one side and deleted on the other: the edit wins (no lost work);
 * - added on either side: kept.
 * Placement (parent and position) is decided separately from content: a page
 * the branch moved goes where the branch put it, every other page where main
 * has it. Order follows main, with the branch's insertions and moves placed
 * after the sibling that precedes them in the branch. A page whose parent did
 * not survive goes up to the nearest surviving ancestor.
 *
 * With a body reader (options.readBody), a page both sides edited merges
 * field by field and its body block by block (mergePageVersions): it is a
 * conflict only where both changed the same field, metadata key or block, and
 * merged bodies come back in `blobs` for the caller to store. Without one,
 * such a page is a conflict and keeps the branch's version whole.
 */
import { uniqueSlug } from '../gitsync/slug'
import type { RevisionTree, TreeFile, TreePage } from '../types'
import { childLists, movedPages, pageContentChanges, parentIds, sameFile, samePageVersion, sameValue } from './compare'
import { mergePageVersions, type BodyReader } from './merge-page-versions'
import { flattenPages } from './tree'

export interface MergeResult {
  tree: RevisionTree
  /** Ids of pages and files changed differently on both sides (the branch's version was kept). */
  conflicts: string[]
  /** Page bodies the merge wrote (merged block by block), keyed by blob id; absent when there are none. */
  blobs?: Map<string, Uint8Array>
}

export interface MergeOptions {
  /** Reads stored page bodies, so that pages both sides edited merge block by block. */
  readBody?: BodyReader
}

type Side = 'main' | 'branch'

interface Decision {
  /** The version kept (its `pages` are ignored; children are rebuilt). */
  page: TreePage
  /** Whose parent and position the page takes. */
  placement: Side
}

/** Everything the merge needs to know about one side. */
interface SideView {
  pages: Map<string, TreePage>
  parents: Map<string, string | undefined>
  children: Map<string | undefined, string[]>
  moved: Set<string>
  order: string[]
}

export function mergeTrees(base: RevisionTree, main: RevisionTree, branch: RevisionTree, options: MergeOptions = {}): MergeResult {
  const conflicts: string[] = []
  const blobs = new Map<string, Uint8Array>()
  const sides = { base: view(base, base), main: view(base, main), branch: view(base, branch) }
  const decisions = decidePages(sides, conflicts, { readBody: options.readBody, blobs })
  const parents = resolveParents(decisions, sides)
  const children = orderChildren(decisions, parents, sides)

  const build = (parent: string | undefined): TreePage[] =>
    (children.get(parent) ?? []).map((id) => {
      const { page } = decisions.get(id) as Decision
      return { ...structuredClone({ ...page, pages: [] }), pages: build(id) }
    })
  const pages = build(undefined)
  dedupeSlugs(pages)
  // Tags change only by a Git import of the space (main): the branch's are taken only where it changed them.
  const tags = sameValue(branch.tags ?? [], base.tags ?? []) ? main.tags : branch.tags
  // Reusable contents too (no content change writes them): main's, unless the branch has others.
  const reusableContents = sameValue(branch.reusableContents ?? [], base.reusableContents ?? []) ? main.reusableContents : branch.reusableContents
  const tree: RevisionTree = {
    pages,
    files: mergeFiles(base.files, main.files, branch.files, conflicts),
    ...(tags && tags.length > 0 ? { tags } : {}),
    ...(reusableContents && reusableContents.length > 0 ? { reusableContents } : {}),
  }
  return blobs.size > 0 ? { tree, conflicts, blobs } : { tree, conflicts }
}

function view(base: RevisionTree, tree: RevisionTree): SideView {
  const order = flattenPages(tree)
  return {
    pages: new Map(order.map((page) => [page.id, page])),
    parents: parentIds(tree),
    children: childLists(tree),
    moved: movedPages(base, tree),
    order: order.map((page) => page.id),
  }
}

/* ---------------------------- which version wins --------------------------- */

function decidePages(
  sides: Record<'base' | Side, SideView>,
  conflicts: string[],
  bodies: { readBody?: BodyReader; blobs: Map<string, Uint8Array> },
): Map<string, Decision> {
  const { base, main, branch } = sides
  const decisions = new Map<string, Decision>()
  const ids = [...new Set([...main.order, ...branch.order])]
  for (const id of ids) {
    const original = base.pages.get(id)
    const ours = main.pages.get(id)
    const theirs = branch.pages.get(id)

    if (!original) {
      // Added on one side, or (rarely, e.g. both replayed the same change) on both.
      if (ours && theirs && pageContentChanges(ours, theirs).length > 0) conflicts.push(id)
      if (ours && (!theirs || samePageVersion(ours, theirs))) decisions.set(id, { page: ours, placement: 'main' })
      else if (theirs) decisions.set(id, { page: theirs, placement: 'branch' })
      continue
    }

    const placed = (side: SideView): boolean => side.parents.get(id) !== base.parents.get(id) || side.moved.has(id)
    const edited = (page: TreePage | undefined): boolean => page !== undefined && pageContentChanges(original, page).length > 0

    if (!ours || !theirs) {
      // Deleted on at least one side: survives only if the other side changed it.
      const [survivor, side, placement] = ours ? [ours, main, 'main' as const] : [theirs, branch, 'branch' as const]
      if (survivor && (edited(survivor) || placed(side))) decisions.set(id, { page: survivor, placement })
      continue
    }

    const oursChanged = !samePageVersion(original, ours)
    const theirsChanged = !samePageVersion(original, theirs)
    // Content decides which side changed: a branch page reverted to the base (or touched without a change)
    // must not override main's edit just because its timestamp moved.
    let page = edited(theirs) ? theirs : edited(ours) ? ours : theirsChanged && !oursChanged ? theirs : ours
    let conflicted = placed(main) && placed(branch) && main.parents.get(id) !== branch.parents.get(id)
    if (edited(ours) && edited(theirs) && pageContentChanges(ours, theirs).length > 0) {
      if (bodies.readBody) {
        const merged = mergePageVersions(original, ours, theirs, bodies.readBody)
        page = merged.page
        conflicted ||= merged.conflict
        if (merged.blob) bodies.blobs.set(merged.blob.oid, merged.blob.bytes)
      } else {
        conflicted = true
      }
    }
    if (conflicted) conflicts.push(id)
    decisions.set(id, { page, placement: placed(branch) ? 'branch' : 'main' })
  }
  return decisions
}

/* ------------------------------- where it goes ----------------------------- */

/**
 * Parent of each kept page: its placement side's parent, or the nearest
 * ancestor (on that side) that survived. Combining two sides' moves can make
 * a cycle (main puts A under B, the branch B under A): a page caught in one
 * falls back to main's placement, then to the root.
 */
function resolveParents(decisions: Map<string, Decision>, sides: Record<Side, SideView>): Map<string, string | undefined> {
  const parents = new Map<string, string | undefined>()
  const surviving = (id: string, placement: Side): string | undefined => {
    const side = sides[placement]
    let parent = side.parents.get(id)
    while (parent !== undefined && !decisions.has(parent)) parent = side.parents.get(parent)
    return parent
  }
  for (const [id, decision] of decisions) parents.set(id, surviving(id, decision.placement))

  for (const [id, decision] of decisions) {
    while (inCycle(id, parents)) {
      if (decision.placement === 'branch' && sides.main.pages.has(id)) {
        decision.placement = 'main'
        parents.set(id, surviving(id, 'main'))
      } else {
        parents.set(id, undefined)
      }
    }
  }
  return parents
}

function inCycle(id: string, parents: Map<string, string | undefined>): boolean {
  const seen = new Set<string>([id])
  for (let parent = parents.get(id); parent !== undefined; parent = parents.get(parent)) {
    if (seen.has(parent)) return true
    seen.add(parent)
  }
  return false
}

/**
 * Sibling order: main's order for pages main places where main has them, then
 * branch-placed pages inserted after their preceding branch sibling (or before
 * their following one), then anything left (pages whose parent vanished) at
 * the end of their new parent.
 */
function orderChildren(
  decisions: Map<string, Decision>,
  parents: Map<string, string | undefined>,
  sides: Record<Side, SideView>,
): Map<string | undefined, string[]> {
  const children = new Map<string | undefined, string[]>()
  const listOf = (parent: string | undefined): string[] => {
    if (!children.has(parent)) children.set(parent, [])
    return children.get(parent) as string[]
  }
  const placed = new Set<string>()

  for (const id of sides.main.order) {
    const decision = decisions.get(id)
    if (decision?.placement === 'main' && parents.get(id) === sides.main.parents.get(id)) {
      listOf(parents.get(id)).push(id)
      placed.add(id)
    }
  }

  for (const id of sides.branch.order) {
    const decision = decisions.get(id)
    const parent = parents.get(id)
    if (decision?.placement !== 'branch' || parent !== sides.branch.parents.get(id) || placed.has(id)) continue
    insertByNeighbours(listOf(parent), id, sides.branch.children.get(parent) ?? [])
    placed.add(id)
  }

  for (const id of [...sides.main.order, ...sides.branch.order]) {
    if (decisions.has(id) && !placed.has(id)) {
      listOf(parents.get(id)).push(id)
      placed.add(id)
    }
  }
  return children
}

/** Inserts `id` into `list` next to the nearest of its neighbours in `order` that is already there. */
function insertByNeighbours(list: string[], id: string, order: string[]): void {
  const at = order.indexOf(id)
  for (let i = at - 1; i >= 0; i--) {
    const index = list.indexOf(order[i])
    if (index !== -1) return void list.splice(index + 1, 0, id)
  }
  for (let i = at + 1; i < order.length; i++) {
    const index = list.indexOf(order[i])
    if (index !== -1) return void list.splice(index, 0, id)
  }
  list.push(id)
}

/** Pages added on both sides may share a slug under one parent; the later one gets a suffix. */
function dedupeSlugs(pages: TreePage[]): void {
  const seen: string[] = []
  for (const page of pages) {
    if (seen.some((slug) => slug.toLowerCase() === page.slug.toLowerCase())) page.slug = uniqueSlug(page.slug, seen)
    seen.push(page.slug)
    dedupeSlugs(page.pages)
  }
}

/* ---------------------------------- files ---------------------------------- */

function mergeFiles(base: TreeFile[], main: TreeFile[], branch: TreeFile[], conflicts: string[]): TreeFile[] {
  const byId = (files: TreeFile[]): Map<string, TreeFile> => new Map(files.map((file) => [file.id, file]))
  const [original, ours, theirs] = [byId(base), byId(main), byId(branch)]
  const kept = new Map<string, TreeFile>()
  for (const id of new Set([...ours.keys(), ...theirs.keys()])) {
    const before = original.get(id)
    const mine = ours.get(id)
    const other = theirs.get(id)
    const changed = (file: TreeFile | undefined): boolean => file !== undefined && (!before || !sameFile(before, file))
    if (mine && other) {
      if (changed(mine) && changed(other) && !sameFile(mine, other)) conflicts.push(id)
      kept.set(id, changed(other) ? other : mine)
    } else if (!before || changed(mine ?? other)) {
      kept.set(id, (mine ?? other) as TreeFile)
    }
  }
  const order = main.map((file) => file.id).filter((id) => kept.has(id))
  const branchOrder = branch.map((file) => file.id)
  for (const id of branchOrder) if (kept.has(id) && !order.includes(id)) insertByNeighbours(order, id, branchOrder)
  return order.map((id) => structuredClone(kept.get(id) as TreeFile))
}
