/**
 * Property tests of the block-level page merge (seeded; a failure prints the
 * seed, CONTENT_SEED=<n> replays it, CONTENT_CASES=<n> runs that many of each).
 * Over 20,000 cases a run (with the 800 of merge-page-segments.test.ts): the checks in
 * the loops are plain comparisons, and `expect` only reports a failure, so
 * that a case costs what its merges cost.
 */
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import { mergePageBodies, mergePageFiles, type PageMergeResult } from '../../src/main/content'
import { mergeWholePages } from '../../src/main/content/merge/merge-page'
import { forEachSeed, type Random } from './support/random'
import { applyEdits, disjointIndexes, randomEdits, randomPage, renderPage, type BlockPage } from './support/page-edits'

const LONG = 600_000

/** A page and two writers' versions of it; `disjoint`: no block is touched by both. */
function scenario(random: Random, disjoint: boolean) {
  const page = randomPage(random)
  const [mainIndexes, branchIndexes] = disjoint
    ? disjointIndexes(random, page.blocks.length)
    : [0, 1].map(() => page.blocks.map((_, i) => i).filter(() => random.bool(0.3)))
  const mainEdits = randomEdits(random, page, mainIndexes, 'mainmark')
  const branchEdits = randomEdits(random, page, branchIndexes, 'branchmark')
  const main = applyEdits(page, mainEdits)
  const branch = applyEdits(page, branchEdits)
  const both = applyEdits(page, [...mainEdits, ...branchEdits])

  // Front matter and title: each side may change keys the other leaves alone.
  const keys = page.frontMatter.map(([key]) => key)
  const mainKey = keys.length > 0 && random.bool(0.4) ? random.pick(keys) : undefined
  const branchKey = random.pick(keys.filter((key) => !disjoint || key !== mainKey).concat(['']))
  const setKey = (target: BlockPage, key: string | undefined, value: string): void => {
    if (key) target.frontMatter = target.frontMatter.map(([k, v]) => [k, k === key ? value : v])
  }
  setKey(main, mainKey, 'main value')
  setKey(both, mainKey, 'main value')
  if (branchKey !== mainKey || !disjoint) {
    setKey(branch, branchKey, 'branch value')
    setKey(both, branchKey, 'branch value')
  }
  if (random.bool(0.2)) {
    branch.frontMatter = [...branch.frontMatter, ['emoji', 'x']]
    both.frontMatter = [...both.frontMatter, ['emoji', 'x']]
  }
  const titleSide = random.int(0, 3)
  if (titleSide === 0 || (!disjoint && titleSide === 2)) main.title += ' main title'
  if (titleSide === 1 || (!disjoint && titleSide === 2)) branch.title += ' branch title'
  both.title = titleSide === 0 ? main.title : titleSide === 1 ? branch.title : both.title
  return { base: renderPage(page), main: renderPage(main), branch: renderPage(branch), expected: renderPage(both) }
}

/** Every line the side has that the base has not. */
function addedLines(base: string, side: string): string[] {
  const before = new Set(base.split('\n'))
  return side.split('\n').filter((line) => !before.has(line))
}

/** What the merge lost or made up: added lines of a side in neither the result nor that side's conflicts, lines of the result no side has. */
function problems(base: string, main: string, branch: string, result: PageMergeResult): string[] {
  const found: string[] = []
  const baseLines = new Set(base.split('\n'))
  const resultLines = new Set(result.text.split('\n'))
  for (const [side, text] of [['main', main], ['branch', branch]] as const) {
    // A conflict names the innermost unit (a list item's paragraph, without its `* `): part of the line is enough there.
    const conflictLines = result.conflicts.flatMap((c) => c[side].split('\n')).filter((line) => line.trim() !== '' && !baseLines.has(line))
    for (const line of addedLines(base, text)) {
      if (!resultLines.has(line) && !conflictLines.some((part) => line.includes(part))) found.push(`${side}'s line ${JSON.stringify(line)} lost`)
    }
  }
  // Never re-stringified: every line of the result is a line of one of the sides.
  const known = new Set([...base.split('\n'), ...main.split('\n'), ...branch.split('\n')])
  for (const line of result.text.split('\n')) if (!known.has(line)) found.push(`line ${JSON.stringify(line)} made up`)
  for (const conflict of result.conflicts) if (conflict.main === conflict.branch) found.push(`conflict with two equal sides: ${JSON.stringify(conflict)}`)
  return found
}

/** Reports through `expect` (with the inputs) only when the cheap check failed. */
function same<T>(actual: T, expected: T, inputs: object): void {
  if (!isDeepStrictEqual(actual, expected)) expect({ ...inputs, actual }).toEqual({ ...inputs, actual: expected })
}

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

  it('bodies merge like files (the service stores bodies without the title)', () => {
    forEachSeed(1000, (random) => {
      const { base, main, branch, expected } = scenario(random, true)
      const body = (text: string): string => text.replace(/^(?:---\n[\s\S]*?\n---\n\n)?# [^\n]*\n*/, '')
      same(mergePageBodies(body(base), body(main), body(branch)), { text: body(expected), conflicts: [] }, { base, main, branch })
    })
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
