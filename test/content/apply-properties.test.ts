/**
 * Property tests of applyContentChanges over random batches (seeded; a
 * failure prints the seed, CONTENT_SEED=<n> replays it).
 */
import { describe, expect, it } from 'vitest'
import { emptyTree } from './support/generators'
import { forEachSeed } from './support/random'

/** Room for larger CONTENT_CASES runs. */
const LONG = 600_000
import { applyRandom, checkInvariants, randomTree } from './support/random-trees'

describe('applyContentChanges (property)', () => {
  it('keeps ids, paths and slugs unique and every page file round-trippable', () => {
    forEachSeed(300, (random) => {
      let tree = emptyTree()
      for (let i = 0; i < 4; i++) {
        tree = applyRandom(random, tree, `2024-03-0${i + 1}T00:00:00.000Z`)
        checkInvariants(tree)
      }
    })
  }, LONG)

  it('never modifies its input', () => {
    forEachSeed(100, (random) => {
      const tree = randomTree(random)
      const copy = structuredClone(tree)
      applyRandom(random, tree, '2024-04-01T00:00:00.000Z')
      expect(tree).toEqual(copy)
    })
  }, LONG)
})
