/**
 * The SUMMARY.md line reader (content/gitsync/summary-lines.ts) against the full markdown parse it stands
 * in for: the same entries for every corpus tree's SUMMARY.md and for what renderSummary writes, and on
 * generated odd files either the same entries or none (the caller then parses them in full).
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { computeGitPaths, parseSummary, renderSummary } from '../../src/main/content'
import { parseSummaryTree } from '../../src/main/content/gitsync/summary'
import { readSummaryLines } from '../../src/main/content/gitsync/summary-lines'
import { GITSYNC_CORPUS } from '../support/gitsync-corpus'
import { rng } from '../support/rng'
import { Random } from './support/random'
import { randomTree } from './support/random-trees'

function corpusSummaries(): Array<[string, string]> {
  const found: Array<[string, string]> = []
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name === 'SUMMARY.md') found.push([path.relative(GITSYNC_CORPUS, full), fs.readFileSync(full, 'utf8')])
    }
  }
  walk(GITSYNC_CORPUS)
  return found
}

/** Pieces of lines, usual and odd, that generated files are made of. */
const LABELS = ['Home', 'Get started', 'Café au lait', 'Step 1: install', 'A (beta)', "It's", 'say "hi"', '*bold*', 'a_b', 'x `y`', 'a &amp; b', 'a\\*', 'www.example.com', 'me@x.io', 'a | b', '~~gone~~', '{% x %}', '  padded  ', 'Ünïcödé 文字', '1. numbered', '> quote', '#tag', '', '\u00a0nbsp']
const TARGETS = ['README.md', 'guide/install.md', './a.md', 'a%20b.md', '<with space.md>', 'https://example.com', '//cdn.example', 'mailto:x@y', 'a.md#part', 'caf%C3%A9.md', 'a(b).md', '<a(b).md>', 'a&amp;b.md', 'a\\_b.md', 'x.md "Link title"', 'x.md \'single\'', 'x.md (paren)', 'x.md ""', '%E0%A4%A.md', '']
const MARKERS = ['* ', '- ', '+ ', '*  ', '*     ', '1. ', '*', '* [ ] ']

function randomLine(r: ReturnType<typeof rng>, depth: number): string {
  const indent = ' '.repeat(r.chance(0.8) ? depth * 2 : r.int(9))
  if (r.chance(0.85)) return `${' '.repeat(depth * 2)}* [${r.pick(LABELS.slice(0, 6))}](${r.pick(TARGETS.slice(0, 3))})`
  const choice = r.int(20)
  if (choice === 0) return ''
  if (choice === 1) return r.pick(['***', '---', '___', '* * *', ' ***', '***  ', '- - -', '===', '--'])
  if (choice === 2) return `${r.pick(['#', '##', '###', '#######', ' ##', '##'])} ${r.pick(LABELS)}${r.chance(0.3) ? ` <a href="#s-${r.int(3)}" id="s-${r.int(3)}"></a>` : ''}${r.chance(0.1) ? ' ##' : ''}`
  if (choice === 3) return r.pick(['# Table of contents', 'Some paragraph text', '<!-- note -->', '```', '    code', '| a | b |', '[ref]: https://example.com', '\tindented', 'line\rcarriage', '> quote'])
  const marker = r.pick(MARKERS)
  if (choice === 4) return `${indent}${marker}${r.pick(LABELS)}`
  return `${indent}${marker}[${r.pick(LABELS)}](${r.pick(TARGETS)})${r.chance(0.1) ? ' trailing' : r.chance(0.1) ? '  ' : ''}`
}

describe('the SUMMARY.md line reader', () => {
  it('reads every corpus SUMMARY.md itself, as the markdown parser does', () => {
    const summaries = corpusSummaries()
    expect(summaries.length).toBeGreaterThan(0)
    for (const [name, text] of summaries) {
      const lines = readSummaryLines(text)
      expect(lines, name).toBeDefined()
      expect(lines, name).toEqual(parseSummaryTree(text))
      // Windows line endings read the same.
      expect(readSummaryLines(text.replace(/\n/g, '\r\n')), name).toEqual(parseSummaryTree(text.replace(/\n/g, '\r\n')))
    }
  })

  it('reads what renderSummary writes, as the markdown parser does', () => {
    let read = 0
    for (let seed = 1; seed <= 60; seed++) {
      const tree = randomTree(new Random(seed))
      const text = renderSummary(tree, computeGitPaths(tree))
      const lines = readSummaryLines(text)
      if (lines) read++
      expect(lines ?? parseSummaryTree(text), `seed ${seed}\n${text}`).toEqual(parseSummaryTree(text))
    }
    expect(read).toBeGreaterThan(15)
  })

  it('gives the markdown parser\'s entries or none on generated odd files', () => {
    let read = 0
    const runs = 3000
    for (let seed = 1; seed <= runs; seed++) {
      const r = rng(seed)
      const lines: string[] = []
      let depth = 0
      for (let i = r.int(12) + 1; i > 0; i--) {
        lines.push(randomLine(r, depth))
        depth = Math.max(0, Math.min(4, depth + r.int(3) - 1))
      }
      const text = lines.join(r.chance(0.1) ? '\r\n' : '\n')
      const light = readSummaryLines(text)
      if (light === undefined) continue
      read++
      expect(light, `seed ${seed}:\n${text}`).toEqual(parseSummaryTree(text))
    }
    // Enough of them are read by lines for the comparison to mean something.
    expect(read).toBeGreaterThan(runs / 10)
  })

  it.each([
    ['nested by four spaces', '* [A](a.md)\n    * [B](a/b.md)\n        * [C](a/b/c.md)\n* [D](d.md)\n'],
    ['a sibling indented less than its parent\'s content', '* [A](a.md)\n  * [B](b.md)\n   * [C](c.md)\n * [D](d.md)\n'],
    ['blank lines inside a list', '* [A](a.md)\n\n  * [B](b.md)\n\n\n* [C](c.md)\n'],
    ['a separator after a group', '## G\n\n* [A](a.md)\n\n***\n\n* [B](b.md)\n'],
    ['a dashed separator right after an item', '## G\n* [A](a.md)\n---\n* [B](b.md)\n'],
    ['a heading right after an item', '* [A](a.md)\n## G <a href="#g-1" id="g-1"></a>\n* [B](b.md)\n'],
    ['an entry without a link', '* Group title\n  * [A](a.md)\n'],
    ['link pages and titles', '* [Site](https://example.com)\n* [A](<a b.md> "Shown title")\n* [C](./c%20d.md)\n'],
    ['emphasis in a title', '* [*A*](a.md)\n'],
    ['an ordered list', '1. [A](a.md)\n2. [B](b.md)\n'],
    ['an indented code block', '* [A](a.md)\n\n      * [B](b.md)\n'],
    ['a fenced block', '```\n* [A](a.md)\n```\n'],
    ['a paragraph continued lazily', '* [A](a.md)\ncontinued\n'],
    ['tabs', '*\t[A](a.md)\n\t* [B](b.md)\n'],
    ['front matter look-alike', '---\ntitle: x\n---\n* [A](a.md)\n'],
  ])('%s: parseSummary gives the markdown parser\'s entries', (_name, text) => {
    expect(parseSummary(text)).toEqual(parseSummaryTree(text))
  })
})
