/**
 * The merge cuts pages into segments by a line scan (segments.ts) and parses
 * only the stretches both sides changed. These tests hold the scan to the
 * parser: the units of a page are the units of its segments one after the
 * other, on every real page of the corpus and on random pages of tricky
 * markdown, edited line by line; and merges of such pages never make up a
 * line nor lose one (seeded; CONTENT_SEED=<n> replays a case).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import { mergePageBodies, mergePageFiles, type PageMergeResult } from '../../src/main/content'
import { pageSegments } from '../../src/main/content/merge/segments'
import { pageBodyUnits, pageFileUnits, type Unit } from '../../src/main/content/merge/units'
import { forEachSeed } from './support/random'
import { editLines, trickyPage } from './support/tricky-markdown'

const CORPUS = fileURLToPath(new URL('../../../shared/corpus/gitsync', import.meta.url))
const LONG = 600_000

function pages(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return pages(path)
    return entry.name.endsWith('.md') ? [path] : []
  })
}

/** Units of the page parsed segment by segment (the first holds the front matter and the title). */
function unitsBySegment(text: string, kind: 'file' | 'body'): Unit[] {
  return pageSegments(text, kind).flatMap((segment, i) => (kind === 'file' && i === 0 ? pageFileUnits(segment) : pageBodyUnits(segment)))
}

function expectSameUnits(text: string, kind: 'file' | 'body'): void {
  const segments = pageSegments(text, kind)
  if (segments.join('') !== text) throw new Error(`segments do not give back ${JSON.stringify(text)}`)
  const whole = kind === 'file' ? pageFileUnits(text) : pageBodyUnits(text)
  if (!isDeepStrictEqual(unitsBySegment(text, kind), whole)) expect({ text, segments, units: unitsBySegment(text, kind) }).toEqual({ text, segments, units: whole })
}

/** Lines as the parser sees them (a lone CR ends one too). */
const lines = (text: string): string[] => text.split(/\r\n|\n|\r/)

/** Lines of the result that no side has, and added lines of a side that are neither in the result nor in a conflict. */
function problems(base: string, main: string, branch: string, result: PageMergeResult): string[] {
  const known = new Set([...lines(base), ...lines(main), ...lines(branch)])
  const out = lines(result.text)
  const made = out.filter((line) => !known.has(line)).map((line) => `made up: ${JSON.stringify(line)}`)
  const resultLines = new Set(out)
  const baseLines = new Set(lines(base))
  const lost = (['main', 'branch'] as const).flatMap((side) => {
    const text = side === 'main' ? main : branch
    const inConflicts = result.conflicts.map((c) => c[side]).join('\n')
    return lines(text)
      .filter((line) => !baseLines.has(line) && !resultLines.has(line) && !inConflicts.includes(line.trim()))
      .map((line) => `${side}'s ${JSON.stringify(line)} lost`)
  })
  return [...made, ...lost]
}

describe('page segments', () => {
  it('cut every corpus page where the parser sees the same units', () => {
    const files = pages(CORPUS)
    expect(files.length).toBeGreaterThan(200)
    let segments = 0
    for (const file of files) {
      const text = readFileSync(file, 'utf8')
      expectSameUnits(text, 'file')
      segments += pageSegments(text, 'file').length
    }
    // The cut must be worth it: most top-level blocks start a segment.
    expect(segments).toBeGreaterThan(files.length * 10)
  }, LONG)

  it('cut random tricky pages, and line edits of them, where the parser sees the same units', () => {
    forEachSeed(400, (random) => {
      const page = trickyPage(random)
      expectSameUnits(page, 'file')
      expectSameUnits(editLines(random, page, 'edit'), 'file')
      expectSameUnits(page.replace(/^(?:\uFEFF)?(?:---[\s\S]*?\n---\r?\n)?/, ''), 'body')
    })
  }, LONG)

  it('never cut inside a fence, an HTML comment, a GitBook block or before a list item, and keep the front matter with the title', () => {
    const page = ['---', 'a: 1', '', 'b: 2', '---', '', '# Title', '', '```', 'x', '', 'y', '```', '', '<!--', '', '-->', '', '{% hint %}', 'h', '', 'i', '{% endhint %}', '', '* a', '', '* b', '', 'End', ''].join('\n')
    expect(pageSegments(page, 'file')).toEqual([
      '---\na: 1\n\nb: 2\n---\n\n# Title\n\n',
      '```\nx\n\ny\n```\n\n',
      '<!--\n\n-->\n\n',
      '{% hint %}\nh\n\ni\n{% endhint %}\n\n* a\n\n* b\n\n',
      'End\n',
    ])
  })

  it('merges of tricky pages edited line by line never make up a line nor lose one', () => {
    forEachSeed(400, (random) => {
      const base = trickyPage(random)
      const [main, branch] = [editLines(random, base, 'main'), editLines(random, base, 'branch')]
      const found = [...problems(base, main, branch, mergePageFiles(base, main, branch)), ...problems(base, branch, main, mergePageBodies(base, branch, main, { keep: 'branch' }))]
      if (found.length > 0) expect({ base, main, branch, found }).toEqual({ base, main, branch, found: [] })
    })
  }, LONG)
})
