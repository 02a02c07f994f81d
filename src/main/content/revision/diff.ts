/**
 * diffTrees: what a tree changed relative to a base, per page and per file.
 * Used for change lists (what a sync will push) and by merges.
 */
import type { RevisionTree } from '../types'
import { movedPages, pageContentChanges, parentIds, sameFile, type PageChangeKind } from './compare'
import { flattenPages } from './tree'

export type { PageChangeKind }

export interface PageDiff {
  id: string
  changes: PageChangeKind[]
}

export interface TreeDiff {
  /** Page ids in `other` only, in its document order. */
  added: string[]
  /** Page ids in `base` only, in its document order. */
  removed: string[]
  /** Pages in both that differ, in `other`'s document order. `parent` / `position`: moved. */
  changed: PageDiff[]
  files: { added: string[]; removed: string[]; changed: string[] }
  /** Reusable content ids, by the same rule as files; present only when one of them differs. */
  reusableContents?: { added: string[]; removed: string[]; changed: string[] }
}

export function diffTrees(base: RevisionTree, other: RevisionTree): TreeDiff {
  const basePages = new Map(flattenPages(base).map((page) => [page.id, page]))
  const otherPages = flattenPages(other)
  const otherIds = new Set(otherPages.map((page) => page.id))
  const baseParents = parentIds(base)
  const otherParents = parentIds(other)
  const moved = movedPages(base, other)

  const changed: PageDiff[] = []
  for (const page of otherPages) {
    const before = basePages.get(page.id)
    if (!before) continue
    const changes = pageContentChanges(before, page)
    if (baseParents.get(page.id) !== otherParents.get(page.id)) changes.push('parent')
    else if (moved.has(page.id)) changes.push('position')
    if (changes.length > 0) changed.push({ id: page.id, changes })
  }

  const reusableContents = diffReusableContents(base, other)
  const baseFiles = new Map(base.files.map((file) => [file.id, file]))
  const otherFileIds = new Set(other.files.map((file) => file.id))
  return {
    added: otherPages.filter((page) => !basePages.has(page.id)).map((page) => page.id),
    removed: [...basePages.keys()].filter((id) => !otherIds.has(id)),
    changed,
    files: {
      added: other.files.filter((file) => !baseFiles.has(file.id)).map((file) => file.id),
      removed: base.files.filter((file) => !otherFileIds.has(file.id)).map((file) => file.id),
      changed: other.files.filter((file) => {
        const before = baseFiles.get(file.id)
        return before !== undefined && !sameFile(before, file)
      }).map((file) => file.id),
    },
    ...(reusableContents ? { reusableContents } : {}),
  }
}

function diffReusableContents(base: RevisionTree, other: RevisionTree): TreeDiff['reusableContents'] {
  const before = new Map((base.reusableContents ?? []).map((content) => [content.id, content]))
  const after = other.reusableContents ?? []
  const afterIds = new Set(after.map((content) => content.id))
  const added = after.filter((content) => !before.has(content.id)).map((content) => content.id)
  const removed = [...before.keys()].filter((id) => !afterIds.has(id))
  const changed = after
    .filter((content) => {
      const old = before.get(content.id)
      return old !== undefined && (old.title !== content.title || old.slug !== content.slug || old.blobOid !== content.blobOid)
    })
    .map((content) => content.id)
  return added.length + removed.length + changed.length > 0 ? { added, removed, changed } : undefined
}
