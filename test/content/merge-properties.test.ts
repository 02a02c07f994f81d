/**
 * Property tests of mergeTrees over trees edited by random batches (seeded;
 * a failure prints the seed, CONTENT_SEED=<n> replays it).
 */
import { describe, expect, it } from 'vitest'
import { computeGitPaths, diffTrees, flattenPages, mergeTrees } from '../../src/main/content'
import { forEachSeed } from './support/random'

/** Room for larger CONTENT_CASES runs. */
const LONG = 600_000
import { applyRandom, randomTree } from './support/random-trees'

describe('mergeTrees (property)', () => {
  it('merge(base, x, base) == x and merge(base, base, x) == x', () => {
    forEachSeed(300, (random) => {
      const base = randomTree(random)
      const x = applyRandom(random, base, '2024-05-01T00:00:00.000Z')
      expect(mergeTrees(base, x, base)).toEqual({ tree: x, conflicts: [] })
      expect(mergeTrees(base, base, x)).toEqual({ tree: x, conflicts: [] })
      expect(mergeTrees(base, x, x)).toEqual({ tree: x, conflicts: [] })
    })
  }, LONG)

  it('never loses a page edited or added on either side, and keeps the result valid', () => {
    forEachSeed(300, (random) => {
      const base = randomTree(random)
      const main = applyRandom(random, base, '2024-06-01T00:00:00.000Z')
      const branch = applyRandom(random, base, '2024-06-02T00:00:00.000Z')
      const { tree, conflicts } = mergeTrees(base, main, branch)
      const merged = new Map(flattenPages(tree).map((p) => [p.id, p]))

      for (const side of [main, branch]) {
        const diff = diffTrees(base, side)
        const edited = diff.changed.filter((c) => c.changes.some((k) => k !== 'parent' && k !== 'position')).map((c) => c.id)
        for (const id of [...diff.added, ...edited]) expect(merged.has(id), `page ${id} lost`).toBe(true)
        for (const id of diff.files.added) expect(tree.files.some((f) => f.id === id)).toBe(true)
      }
      // Changed only on the branch: the branch's version. Changed on both: branch's, with a conflict.
      const mainChanged = new Set(diffTrees(base, main).changed.map((c) => c.id))
      for (const change of diffTrees(base, branch).changed) {
        if (change.changes.some((k) => k !== 'parent' && k !== 'position')) {
          const page = merged.get(change.id)
          const theirs = flattenPages(branch).find((p) => p.id === change.id)
          expect(page?.bodyOid).toBe(theirs?.bodyOid)
          expect(page?.title).toBe(theirs?.title)
        }
        if (!mainChanged.has(change.id)) expect(conflicts).not.toContain(change.id)
      }
      // Deleted on both sides: gone.
      const inMain = new Set(flattenPages(main).map((p) => p.id))
      const inBranch = new Set(flattenPages(branch).map((p) => p.id))
      for (const page of flattenPages(base)) if (!inMain.has(page.id) && !inBranch.has(page.id)) expect(merged.has(page.id)).toBe(false)

      const ids = flattenPages(tree).map((p) => p.id)
      expect(new Set(ids).size).toBe(ids.length)
      // Page files are apart on any disk; asset names may differ by case alone, as in a git tree (Image.png
      // beside image.png; the client gives one a local name where the disk folds case).
      const paths = [...computeGitPaths(tree).values()].map((p) => (p.startsWith('.gitbook/assets/') ? p : p.toLowerCase()))
      expect(new Set(paths).size).toBe(paths.length)
    })
  }, LONG)
})
