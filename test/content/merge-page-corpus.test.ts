/**
 * The block-level page merge on real Git Sync pages (../shared/corpus, read in
 * place): units give the page back byte for byte, and two writers' edits of
 * different blocks anywhere in a page (inside lists, GitBook blocks, front
 * matter) merge into exactly the page with both edits.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { mergePageFiles } from '../../src/main/content'
import { pageFileUnits, unitsText, type Unit } from '../../src/main/content/merge/units'
import { Random } from './support/random'

const CORPUS = fileURLToPath(new URL('../../../shared/corpus/gitsync', import.meta.url))
const LONG = 600_000

function pages(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return pages(path)
    return entry.name.endsWith('.md') ? [path] : []
  })
}

/** Leaf units (no parts) with their offset in the page. */
function leaves(units: Unit[], offset = 0, out: Array<{ unit: Unit; offset: number }> = []): Array<{ unit: Unit; offset: number }> {
  for (const unit of units) {
    if (unit.children) leaves(unit.children, offset, out)
    else out.push({ unit, offset })
    offset += unit.text.length
  }
  return out
}

function expectExactParts(units: Unit[]): void {
  for (const unit of units) {
    if (!unit.children) continue
    expect(unitsText(unit.children)).toBe(unit.text)
    expectExactParts(unit.children)
  }
}

/** Offset in the page where a writer can append a word to a line without changing which block it is. */
function editPoint(leaf: { unit: Unit; offset: number }): number | undefined {
  if (leaf.unit.kind === 'gap' || leaf.unit.kind === 'tag' || leaf.unit.kind === 'frontMatter') return undefined
  let at = 0
  for (const line of leaf.unit.text.split('\n')) {
    if (/^[ \t]*[\p{L}\p{N}*#>]/u.test(line) && !line.includes('{%') && !/^[ \t]*(?:\*\s*){3,}$/.test(line)) return leaf.offset + at + line.replace(/\r$/, '').length
    at += line.length + 1
  }
  return undefined
}

const insert = (text: string, at: number, word: string): string => `${text.slice(0, at)} ${word}${text.slice(at)}`

describe('mergePageFiles on the corpus', () => {
  const files = pages(CORPUS)

  it('finds the corpus', () => {
    expect(files.length).toBeGreaterThan(200)
  })

  it('cuts every page into units that give it back byte for byte, and merges a page with itself into itself', () => {
    for (const file of files) {
      const text = readFileSync(file, 'utf8')
      const units = pageFileUnits(text)
      expect(unitsText(units), file).toBe(text)
      expectExactParts(units)
    }
    for (const file of files.slice(0, 15)) {
      const text = readFileSync(file, 'utf8')
      expect(mergePageFiles(text, text, text)).toEqual({ text, conflicts: [] })
    }
  }, LONG)

  it('merges two writers editing different blocks of a real page into the page with both edits; the same block is a conflict naming it', () => {
    const random = new Random(15)
    let merged = 0
    let conflicts = 0
    for (const file of files.filter(() => random.bool(0.15))) {
      const text = readFileSync(file, 'utf8')
      const points = [...new Set(leaves(pageFileUnits(text)).map(editPoint).filter((at): at is number => at !== undefined))]
      if (points.length < 2) continue
      const [first, second] = [random.pick(points), random.pick(points)].sort((a, b) => a - b)
      if (first === second) continue
      const main = insert(text, first, 'mainedit')
      const branch = insert(text, second, 'branchedit')
      const both = insert(insert(text, second, 'branchedit'), first, 'mainedit')
      expect(mergePageFiles(text, main, branch), file).toEqual({ text: both, conflicts: [] })
      merged++

      const clash = mergePageFiles(text, main, insert(text, first, 'otheredit'))
      expect(clash.conflicts, file).toHaveLength(1)
      expect(clash.text).toBe(main)
      const [conflict] = clash.conflicts
      expect(conflict.main).toContain('mainedit')
      expect(conflict.branch).toContain('otheredit')
      expect(main.split('\n')[conflict.line - 1]).toContain(conflict.main.split('\n')[0])
      conflicts++
    }
    expect(merged).toBeGreaterThan(20)
    expect(conflicts).toBe(merged)
  }, LONG)
})
