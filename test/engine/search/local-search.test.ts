import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CacheRepository } from '../../../src/main/engine/cache/cache-repository'
import { openCacheDatabase } from '../../../src/main/engine/cache/open-cache'
import { EmptyQueryError, ftsExpression } from '../../../src/main/engine/search/query-syntax'
import { SearchKeeper } from '../../../src/main/engine/search/search-keeper'
import type { SearchedSpace } from '../../../src/main/engine/search/workspace-search'

/**
 * Issue 28, offline search: the index over a space folder (real files, the real cache in SQLite FTS5),
 * queried with nothing but the folder (no service: gateway undefined).
 */

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })))

function space(files: Record<string, string>): { cache: CacheRepository; keeper: SearchKeeper; spaces: SearchedSpace[]; folder: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-search-'))
  dirs.push(dir)
  const folder = path.join(dir, 'Docs')
  for (const [relative, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(folder, relative)), { recursive: true })
    fs.writeFileSync(path.join(folder, relative), text)
  }
  fs.mkdirSync(folder, { recursive: true })
  const cache = new CacheRepository(openCacheDatabase(path.join(dir, 'cache.db')))
  return { cache, keeper: new SearchKeeper(cache), spaces: [{ spaceId: 's1', title: 'Docs', folder }], folder }
}

const text = (parts: Array<{ text: string; match?: true }>) => parts.map((p) => (p.match ? `[${p.text}]` : p.text)).join('')

describe('offline full-text search of a space folder', () => {
  const s = space({
    'README.md': '# Welcome\n\nThe garden of tomatoes grows here.\n',
    'guides/tomato-care.md': '# Tomato care\n\nWater them well.\n',
    'guides/soil.md': '# Soil\n\nSome say tomato twice: tomato plants like rich soil.\n\n## Compost heap\n\nTurn the heap weekly.\n',
    'guides/hints.md': '# Hints\n\n{% hint style="warning" %}\nNever overwater the **seedlings** in [spring](soil.md).\n{% endhint %}\n\n```bash\nquire sync --once\n```\n',
    'SUMMARY.md': '# Table of contents\n\n* [Tomato care](guides/tomato-care.md)\n',
    '.gitbook/includes/x.md': 'tomato include\n',
  })
  const search = (q: string, o = {}) => s.keeper.search(undefined, s.spaces, q, o)

  it('finds words at their line, the title counting most; prefix and phrase queries; block markup stripped, code searchable', async () => {
    const tomato = await search('tomato')
    // The page titled Tomato beats the page saying it twice in its text; SUMMARY.md and includes are not pages.
    expect(tomato.results.map((r) => r.path)).toEqual(['guides/tomato-care.md', 'guides/soil.md'])
    expect(tomato.results[1]).toMatchObject({ source: 'local', line: 3, file: path.join(s.folder, 'guides', 'soil.md') })
    expect(text(tomato.results[1].snippet)).toBe('Some say [tomato] twice: [tomato] plants like rich soil.')
    expect(tomato.remote).toEqual({ asked: false, reason: 'not signed in' })

    expect((await search('tomat*')).results.map((r) => r.path).sort()).toEqual(['README.md', 'guides/soil.md', 'guides/tomato-care.md'])
    expect((await search('"tomato plants"')).results.map((r) => r.path)).toEqual(['guides/soil.md'])
    expect((await search('"plants tomato"')).results).toEqual([])
    // A heading counts more than the text: the heap's heading page first.
    expect((await search('compost')).results[0]).toMatchObject({ path: 'guides/soil.md', line: 5 })

    const hint = (await search('seedlings spring')).results
    expect(hint).toHaveLength(1)
    expect(hint[0]).toMatchObject({ path: 'guides/hints.md', line: 4 })
    expect(text(hint[0].snippet)).toBe('Never overwater the [seedlings] in [spring].')
    expect((await search('hint style warning')).results).toEqual([])
    expect((await search('quire sync --once')).results[0]).toMatchObject({ path: 'guides/hints.md', line: 8 })
  })

  it('sees an unsent edit, a new file and a deleted file at the next query', async () => {
    fs.writeFileSync(path.join(s.folder, 'guides', 'tomato-care.md'), '# Tomato care\n\nWater them well.\n\nAn unsent zucchini note.\n')
    fs.writeFileSync(path.join(s.folder, 'new-page.md'), '# New\n\nzucchini bread\n')
    expect((await search('zucchini')).results.map((r) => `${r.path}:${r.line}`).sort()).toEqual(['guides/tomato-care.md:5', 'new-page.md:3'])
    fs.rmSync(path.join(s.folder, 'new-page.md'))
    expect((await search('zucchini')).results.map((r) => r.path)).toEqual(['guides/tomato-care.md'])
  })

  it('never throws on FTS syntax in a query; an empty query is a clear error', async () => {
    for (const hostile of ['foo"', '-bar', 'AND', 'OR NOT', '(x', 'x)', 'NEAR(a b)', 'title:x', '^tomato', 'tomato"', '"tomato', 'to"ma"to', "it's", '{% hint %}', 'a:b:c', 'x OR', 'body:* x']) {
      await expect(search(hostile), hostile).resolves.toBeDefined()
    }
    expect((await search('tomato"')).results.length).toBe(2)
    expect((await search('-tomato')).results.length).toBe(2)
    await expect(search('')).rejects.toThrow(EmptyQueryError)
    await expect(search('   ')).rejects.toThrow(/the query is empty/)
    for (const nothing of ['"" - *', '(', ')', '*', '"', "'"]) await expect(search(nothing), nothing).rejects.toThrow(/no word to search for/)
    expect(ftsExpression('foo" AND -bar*')).toBe('"foo" "AND" "-bar"*')
    expect(ftsExpression('tom', { prefixLast: true })).toBe('"tom"*')
  })
})

describe('a generated 10,000-page space', () => {
  it('answers a query in milliseconds, best title first; an edited page is found and a deleted one gone as the watcher reports them', () => {
    const s = space({})
    // Rows put straight in, no file parsed or written: the watcher's path (update) then keeps them.
    const table = s.cache.searchIndex
    const words = ['river', 'mountain', 'forest', 'desert', 'ocean', 'valley', 'glacier', 'canyon']
    table.transaction(() => {
      for (let i = 0; i < 10_000; i++) {
        const title = `Page ${i} ${words[i % 8]}`
        table.put('s1', `part-${Math.floor(i / 500)}/page-${i}.md`, 'old', { title, headings: '', body: `${title}\n\nThe ${words[(i * 3) % 8]} of number n${i} and ${words[(i * 5) % 8]}.\n` })
      }
    })
    const index = s.keeper.index
    const spaces = [{ spaceId: 's1', folder: s.folder }]
    const started = performance.now()
    const glacier = index.query('glacier', spaces)
    const ms = performance.now() - started
    expect(glacier).toHaveLength(20)
    // Titled glacier (i % 8 === 6) before the pages that only say it in their text.
    expect(glacier.every((hit) => hit.title.endsWith('glacier'))).toBe(true)
    expect(ms, 'one query over 10,000 pages').toBeLessThan(1_000)
    expect(index.query('n4242', spaces).map((r) => `${r.path}:${r.line}`)).toEqual(['part-8/page-4242.md:3'])
    expect(index.query('"number n4242"', spaces)).toHaveLength(1)

    const edited = path.join(s.folder, 'part-8', 'page-4242.md')
    fs.mkdirSync(path.dirname(edited), { recursive: true })
    fs.writeFileSync(edited, '# Page 4242\n\nNow about quokkas.\n')
    index.update(spaces[0], ['part-8/page-4242.md'])
    expect(index.query('n4242', spaces)).toEqual([])
    expect(index.query('quokka*', spaces).map((r) => `${r.path}:${r.line}`)).toEqual(['part-8/page-4242.md:3'])
    fs.rmSync(edited)
    index.update(spaces[0], ['part-8/page-4242.md'])
    expect(index.query('quokka*', spaces)).toEqual([])
    expect(table.size()).toBe(9_999)
  }, 20_000)
})
