/**
 * The linear link scanner (issue 16) against its oracle, remark: on every run it accepts it must give
 * exactly what remark gives (links, their ranges and syntax, code ranges). Random markdown mixing the
 * constructs that make links subtle, the real Git Sync corpus page by page, and hostile input whose
 * scanning must stay linear.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { topLevelChunks } from '../../src/main/content/markdown/blocks'
import { parseChunkLinks, parseChunkLinksWithRemark } from '../../src/main/content/markdown/chunk-links'
import { scanChunkLinks } from '../../src/main/content/markdown/link-scanner'
import { splitPageMarkdown } from '../../src/main/content/markdown/page-file'
import { GITSYNC_CORPUS } from '../support/gitsync-corpus'
import { random, randomMarkdown } from './support/random-markdown'

describe('link scanner against remark', () => {
  it('gives what remark gives on every random run it accepts', () => {
    const rnd = random(16)
    const counts = { documents: 0, accepted: 0, links: 0, autolinks: 0, attributes: 0, code: 0 }
    for (let i = 0; i < 4000; i++) {
      const text = randomMarkdown(rnd)
      counts.documents++
      const scanned = scanChunkLinks(text)
      if (!scanned) continue
      counts.accepted++
      counts.links += scanned.links.filter((link) => link.syntax === 'markdown').length
      counts.autolinks += scanned.links.filter((link) => link.syntax === 'autolink').length
      counts.attributes += scanned.links.filter((link) => link.syntax === 'attribute').length
      counts.code += scanned.code.length
      expect({ text, ...scanned }).toEqual({ text, ...parseChunkLinksWithRemark(text) })
    }
    // Not a vacuous pass: the scanner accepted many runs, with links, bare URLs, HTML and code among them.
    expect(counts.accepted).toBeGreaterThan(counts.documents / 10)
    expect(counts.links).toBeGreaterThan(500)
    expect(counts.autolinks).toBeGreaterThan(100)
    expect(counts.attributes).toBeGreaterThan(200)
    expect(counts.code).toBeGreaterThan(500)
  })

  it('answers a run without any link, code or URL trigger at once, with nothing', () => {
    expect(scanChunkLinks('# Title\n\nPlain prose, with *emphasis* and a list.\n\n- one\n- two\n')).toEqual({ links: [], code: [] })
  })

  it('gives what remark gives on the Git Sync corpus, page by page, and reads most of its plain runs', () => {
    const pages: string[] = []
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name)
        if (entry.isDirectory()) walk(file)
        else if (entry.name.endsWith('.md')) pages.push(file)
      }
    }
    walk(GITSYNC_CORPUS)
    expect(pages.length).toBeGreaterThan(100)
    let runs = 0
    let scanned = 0
    for (const page of pages) {
      const { body } = splitPageMarkdown(fs.readFileSync(page, 'utf8'))
      // Runs as `extractLinks` cuts them; the page's result with the scanner must be remark's.
      const texts = topLevelChunks(body, 8 * 1024).map(([from, to]) => body.slice(from, to))
      runs += texts.length
      scanned += texts.filter((text) => scanChunkLinks(text) !== undefined).length
      expect({ page, runs: texts.map(parseChunkLinks) }).toEqual({ page, runs: texts.map(parseChunkLinksWithRemark) })
    }
    console.log(`corpus: ${scanned} of ${runs} runs scanned (${Math.round((100 * scanned) / runs)} %), the rest parsed by remark`)
    expect(scanned / runs).toBeGreaterThan(0.25)
  })
})

describe('link scanner on hostile input', () => {
  /** CPU time of `work`, in microseconds, the best of a few tries (other work on the machine only adds). */
  const cpu = (work: () => unknown): number => {
    let best = Infinity
    for (let i = 0; i < 3; i++) {
      const before = process.cpuUsage()
      work()
      const used = process.cpuUsage(before)
      best = Math.min(best, used.user + used.system)
    }
    return Math.max(best, 1)
  }
  const SIZE = 5 * 1024 * 1024
  const repeat = (unit: string): string => unit.repeat(Math.ceil(SIZE / unit.length))

  it.each([
    ['[[[[', repeat('[')],
    [']]]]', repeat(']')],
    ['[a](b) links', repeat('[a](b) ')],
    ['code spans', repeat('`a` ')],
    ['backtick runs that never close', '`` ' + repeat('` ')],
    ['open parentheses', '[a](' + repeat('(')],
    ['an unclosed destination', '[a](' + repeat('b')],
    ['bare URLs', repeat('https://a.example/b ')],
    ['http words', repeat('http ')],
    ['escapes', repeat('\\[')],
    ['list markers', repeat('- ')],
    ['short lines of brackets', repeat('[a\n')],
    ['a fence of many lines', '```\n' + repeat('``\n')],
    ['inline tags', repeat('<a href="x" id="y">t</a> ')],
    ['an unclosed attribute', '<a b="' + repeat('c ')],
    ['tag openers', repeat('<a ')],
    ['an HTML block of tags', '<div>\n' + repeat('<a href="x.md"><img src="y.png"></a>\n')],
    ['an HTML block of src attributes', '<div>\n<img' + repeat(' src="a"')],
  ])('scans a 5 MB line of %s in time linear in its size', (_, text) => {
    // The plain pass: one read of every character. The scanner does a few tens of times that where it
    // finds a link or a tag every few characters (measured: 3 to 36, the same at 1 MB and at 5 MB); a
    // pass that went back over the text would be thousands of times slower at this size.
    const plain = cpu(() => {
      let sum = 0
      for (let i = 0; i < text.length; i++) sum = (sum + text.charCodeAt(i)) | 0
      return sum
    })
    const scan = cpu(() => scanChunkLinks(text))
    expect(scan / plain).toBeLessThan(100)
  })
})
