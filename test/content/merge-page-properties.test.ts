/**
 * Property tests of the block-level page merge (seeded; a failure prints the
 * seed, CONTENT_SEED=<n> replays it, CONTENT_CASES=<n> runs that many of each).
 * Over 20,000 cases a run, with merge-page-lost.test.ts (a file of its own, so
 * that the two run side by side) and the 800 of merge-page-segments.test.ts:
 * the checks in the loops are plain comparisons, and `expect` only reports a
 * failure, so that a case costs what its merges cost.
 */
import { describe, it } from 'vitest'
import { mergePageBodies, mergePageFiles } from '../../src/main/content'
import { forEachSeed } from './support/random'
import { same, scenario } from './support/merge-scenario'

const LONG = 600_000

describe('mergePageFiles (property)', () => {
  it('merge(base, x, base) == x, merge(base, base, x) == x, merge(base, x, x) == x', () => {
    forEachSeed(7000, (random) => {
      const { base, main, branch } = scenario(random, false)
      for (const x of [main, branch]) {
        const clean = { text: x, conflicts: [] }
        same(mergePageFiles(base, x, base), clean, { base, x, merge: 'x, base' })
        same(mergePageFiles(base, base, x), clean, { base, x, merge: 'base, x' })
        same(mergePageFiles(base, x, x), clean, { base, x, merge: 'x, x' })
      }
    })
  }, LONG)

  it('edits of disjoint blocks, keys and the title all survive, with no conflict, whichever side is main', () => {
    forEachSeed(6000, (random) => {
      const { base, main, branch, expected } = scenario(random, true)
      same(mergePageFiles(base, main, branch), { text: expected, conflicts: [] }, { base, main, branch })
      same(mergePageFiles(base, branch, main).conflicts, [], { base, main: branch, branch: main })
    })
  }, LONG)

  it('bodies merge like files (the service stores bodies without the title)', () => {
    forEachSeed(1000, (random) => {
      const { base, main, branch, expected } = scenario(random, true)
      const body = (text: string): string => text.replace(/^(?:---\n[\s\S]*?\n---\n\n)?# [^\n]*\n*/, '')
      same(mergePageBodies(body(base), body(main), body(branch)), { text: body(expected), conflicts: [] }, { base, main, branch })
    })
  }, LONG)

})
