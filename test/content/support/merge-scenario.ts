/**
 * Two writers' versions of a random block page, and the checks of the page
 * merge property tests (merge-page-properties, merge-page-lost).
 */
import { isDeepStrictEqual } from 'node:util'
import { expect } from 'vitest'
import type { PageMergeResult } from '../../../src/main/content'
import type { Random } from './random'
import { applyEdits, disjointIndexes, randomEdits, randomPage, renderPage, type BlockPage } from './page-edits'

/** A page and two writers' versions of it; `disjoint`: no block is touched by both. */
export function scenario(random: Random, disjoint: boolean) {
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
export function problems(base: string, main: string, branch: string, result: PageMergeResult): string[] {
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
export function same<T>(actual: T, expected: T, inputs: object): void {
  if (!isDeepStrictEqual(actual, expected)) expect({ ...inputs, actual }).toEqual({ ...inputs, actual: expected })
}
