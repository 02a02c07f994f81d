/**
 * Property tests of the block-level page merge (seeded; a failure prints the
 * seed, CONTENT_SEED=<n> replays it, CONTENT_CASES=<n> runs more).
 */
import { describe, expect, it } from 'vitest'
import { mergePageBodies, mergePageFiles, type PageMergeResult } from '../../src/main/content'
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

function expectNothingLost(base: string, main: string, branch: string, result: PageMergeResult): void {
  const baseLines = new Set(base.split('\n'))
  const resultLines = new Set(result.text.split('\n'))
  for (const [side, text] of [['main', main], ['branch', branch]] as const) {
    // A conflict names the innermost unit (a list item's paragraph, without its `* `): part of the line is enough there.
    const conflictLines = result.conflicts.flatMap((c) => c[side].split('\n')).filter((line) => line.trim() !== '' && !baseLines.has(line))
    for (const line of addedLines(base, text)) {
      const kept = resultLines.has(line) || conflictLines.some((part) => line.includes(part))
      expect(kept, `${side}'s line ${JSON.stringify(line)} lost`).toBe(true)
    }
  }
  // Never re-stringified: every line of the result is a line of one of the sides.
  const known = new Set([...base.split('\n'), ...main.split('\n'), ...branch.split('\n')])
  for (const line of result.text.split('\n')) expect(known.has(line), `line ${JSON.stringify(line)} made up`).toBe(true)
  for (const conflict of result.conflicts) expect(conflict.main).not.toBe(conflict.branch)
}

describe('mergePageFiles (property)', () => {
  it('merge(base, x, base) == x, merge(base, base, x) == x, merge(base, x, x) == x', () => {
    forEachSeed(100, (random) => {
      const { base, main, branch } = scenario(random, false)
      for (const x of [main, branch]) {
        expect(mergePageFiles(base, x, base)).toEqual({ text: x, conflicts: [] })
        expect(mergePageFiles(base, base, x)).toEqual({ text: x, conflicts: [] })
        expect(mergePageFiles(base, x, x)).toEqual({ text: x, conflicts: [] })
      }
    })
  }, LONG)

  it('edits of disjoint blocks, keys and the title all survive, with no conflict, whichever side is main', () => {
    forEachSeed(150, (random) => {
      const { base, main, branch, expected } = scenario(random, true)
      expect(mergePageFiles(base, main, branch)).toEqual({ text: expected, conflicts: [] })
      expect(mergePageFiles(base, branch, main).conflicts).toEqual([])
    })
  }, LONG)

  it('never loses an edit: each added line is in the result or in the conflict of that side; the kept side is the one asked for', () => {
    let conflicted = 0
    forEachSeed(150, (random) => {
      const { base, main, branch } = scenario(random, false)
      const result = mergePageFiles(base, main, branch)
      expectNothingLost(base, main, branch, result)
      for (const conflict of result.conflicts) expect(result.text).toContain(conflict.main)
      const kept = mergePageFiles(base, main, branch, { keep: 'branch' })
      expect(kept.conflicts.map((c) => c.branch)).toEqual(result.conflicts.map((c) => c.branch))
      for (const conflict of kept.conflicts) expect(kept.text).toContain(conflict.branch)
      if (result.conflicts.length > 0) conflicted++
    })
    // The generator must produce real conflicts for the property to mean anything.
    expect(conflicted).toBeGreaterThan(15)
  }, LONG)

  it('bodies merge like files (the service stores bodies without the title)', () => {
    forEachSeed(80, (random) => {
      const { base, main, branch, expected } = scenario(random, true)
      const body = (text: string): string => text.replace(/^(?:---\n[\s\S]*?\n---\n\n)?# [^\n]*\n*/, '')
      const result = mergePageBodies(body(base), body(main), body(branch))
      expect(result).toEqual({ text: body(expected), conflicts: [] })
    })
  }, LONG)
})
