/**
 * A batch applied to a stored (deeply frozen) revision copies only the pages it writes (tree.ts
 * `copyOnWriteTree`, `locateWritablePage`), where any other input is deep-copied whole: both must give
 * the same result, and the frozen one must share with its input every page the batch did not touch.
 * Seeded random batches (inserts by ref, updates, moves, deletes, files, reverts to an older tree);
 * a failure prints the seed, CONTENT_SEED=<n> replays it.
 */
import { describe, expect, it } from 'vitest'
import { applyContentChanges, type ApplyResult, type ContentChange, type RevisionTree, type TreePage } from '../../src/main/content'
import { frozenCopy } from '../../src/main/content/revision/tree'
import { changeBatch } from './support/generators'
import { forEachSeed, type Random } from './support/random'
import { applyRandom, randomTree } from './support/random-trees'

const NOW = '2024-05-01T00:00:00.000Z'

/** The same ids on every run of a batch, unlike the generators' (unique across the test run). */
function sameIds(): () => string {
  let n = 0
  return () => `cow${n++}`
}

function pagesById(tree: RevisionTree): Map<string, TreePage> {
  const pages = new Map<string, TreePage>()
  const walk = (list: readonly TreePage[]) => {
    for (const page of list) {
      pages.set(page.id, page)
      walk(page.pages)
    }
  }
  walk(tree.pages)
  return pages
}

function subtreeIds(page: TreePage): string[] {
  return [page.id, ...page.pages.flatMap(subtreeIds)]
}

/** Reverts of a few pages of `base` or `tree` (some missing from one of them), appended to `changes`. */
function withReverts(random: Random, changes: ContentChange[], tree: RevisionTree, base: RevisionTree): ContentChange[] {
  const ids = [...new Set([...pagesById(tree).keys(), ...pagesById(base).keys()])]
  if (ids.length === 0 || !random.bool(0.4)) return changes
  const reverts = random.many(random.int(1, 2), (): ContentChange => ({ operation: 'revert_page', page: random.pick(ids) }))
  return [...changes, ...reverts]
}

type Outcome = { result: ApplyResult } | { error: string }

function outcome(apply: () => ApplyResult): Outcome {
  try {
    return { result: apply() }
  } catch (error) {
    return { error: String(error) }
  }
}

describe('applyContentChanges on a stored revision (copy on write)', () => {
  it('gives what a deep copy gives, and shares every page the batch did not touch', () => {
    let compared = 0
    let shared = 0
    forEachSeed(300, (random) => {
      const base = randomTree(random)
      const tree = applyRandom(random, base, '2024-04-01T00:00:00.000Z')
      const changes = withReverts(random, changeBatch(random, tree), tree, base)
      const stored = frozenCopy(tree)
      const storedBase = frozenCopy(base)

      const plain = outcome(() => applyContentChanges(structuredClone(tree), changes, { newId: sameIds(), now: NOW, base: structuredClone(base) }))
      const frozen = outcome(() => applyContentChanges(stored, changes, { newId: sameIds(), now: NOW, base: storedBase }))
      if ('error' in plain) {
        expect(frozen).toEqual(plain)
        return
      }
      if ('error' in frozen) throw new Error(`the stored revision's batch failed where the deep copy's did not: ${frozen.error}`)
      expect(frozen.result.tree).toEqual(plain.result.tree)
      expect([...frozen.result.blobs.keys()]).toEqual([...plain.result.blobs.keys()])
      expect(frozen.result.changedPages).toEqual(plain.result.changedPages)
      expect(frozen.result.insertedFiles).toEqual(plain.result.insertedFiles)
      compared++

      // A page none of whose subtree the batch touched (before or after) is the stored page itself.
      const touched = new Set(frozen.result.changedPages.map((change) => change.id))
      const before = pagesById(stored)
      for (const [id, page] of pagesById(frozen.result.tree)) {
        const was = before.get(id)
        if (!was || [...subtreeIds(page), ...subtreeIds(was)].some((child) => touched.has(child))) continue
        expect(page, `page ${id}, untouched`).toBe(was)
        shared++
      }
      if (frozen.result.insertedFiles.length === 0) expect(frozen.result.tree.files).toBe(stored.files)
    })
    // Most batches are valid, and most trees keep pages the batch did not touch.
    expect(compared).toBeGreaterThan(150)
    expect(shared).toBeGreaterThan(300)
  }, 120_000)
})
