/**
 * Property tests of the block-level page merge, the half that checks nothing
 * is lost (seeded; CONTENT_SEED=<n> replays a case, CONTENT_CASES=<n> runs
 * that many): see merge-page-properties.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { mergePageFiles, type PageMergeResult } from '../../src/main/content'
import { mergeWholePages } from '../../src/main/content/merge/merge-page'
import { forEachSeed } from './support/random'
import { problems, same, scenario } from './support/merge-scenario'

const LONG = 600_000

describe('mergePageFiles (property: nothing lost)', () => {
  it('never loses an edit: each added line is in the result or in the conflict of that side; the kept side is the one asked for', () => {
    let conflicted = 0
    forEachSeed(5000, (random) => {
      const { base, main, branch } = scenario(random, false)
      const result = mergePageFiles(base, main, branch)
      same(problems(base, main, branch, result), [], { base, main, branch, result })
      same(result.conflicts.filter((conflict) => !result.text.includes(conflict.main)), [], { base, main, branch, result })
      if (random.bool(0.25)) {
        const kept = mergePageFiles(base, main, branch, { keep: 'branch' })
        same(kept.conflicts.map((c) => c.branch), result.conflicts.map((c) => c.branch), { base, main, branch, kept })
        same(kept.conflicts.filter((conflict) => !kept.text.includes(conflict.branch)), [], { base, main, branch, kept })
      }
      if (result.conflicts.length > 0) conflicted++
    })
    // The generator must produce real conflicts for the property to mean anything.
    expect(conflicted).toBeGreaterThan(Number(process.env.CONTENT_SEED === undefined) * 15)
  }, LONG)

  it('cutting the pages into segments changes nothing: the merge is the merge of the whole pages parsed at once', () => {
    // Up to blank lines: a conflict may start at its block instead of the blank lines before it (segments
    // end with them), and where both sides delete neighbouring blocks a blank line more may stay.
    const blanks = (text: string): string => text.replace(/\n{2,}/g, '\n\n').trim()
    const trimmed = (result: PageMergeResult) => ({ text: blanks(result.text), conflicts: result.conflicts.map((c) => [c.part, blanks(c.base), blanks(c.main), blanks(c.branch)]) })
    forEachSeed(300, (random) => {
      const { base, main, branch } = scenario(random, random.bool())
      same(trimmed(mergePageFiles(base, main, branch)), trimmed(mergeWholePages('file', base, main, branch)), { base, main, branch })
    })
  }, LONG)
})
