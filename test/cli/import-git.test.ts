import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { summaryPages } from '../../src/main/engine/import/summary-structure'
import { changeRequestRevision, openChangeRequests, pagesOf } from '../engine/sync-up/support/workspace'
import { commitTree, corpusTree, retitled, SUMMARY_TEXT_NOT_H1 } from '../support/gitsync-corpus'
import { importFixture, listTree, quire } from './support/import-tree'

/**
 * `quire import` of a tree that is a git repository into a new space (issue 14): the service's own Git
 * import takes it, so groups, separators and URL entries come through and the tree comes back whole;
 * a repository with changes not committed, or a space that already holds pages, goes through the
 * content API instead (its change request), and the report says why.
 */
const fixture = importFixture('quire-import-git-')

/** The lista corpus tree as a git repository with everything committed. */
function repository(name: string): string {
  return commitTree(path.join(fixture.base, name), corpusTree('lista'))
}

interface ImportJson {
  space: { id: string }
  strategy: string
  complete: boolean
  revision?: string
  changeRequest?: { id: string }
  notes: Array<{ kind: string; path: string; reason: string }>
}

async function importInto(tree: string, home: string, title: string): Promise<ImportJson> {
  const run = await quire('import', tree, '--org', fixture.orgId, '--title', title, '--workspace', path.join(home, 'ws'), '--json')
  expect(run.code, run.err).toBe(0)
  return JSON.parse(run.out.slice(run.out.indexOf('\n{') + 1)) as ImportJson
}

describe('quire import of a git repository', () => {
  it('into a new space: the service imports it (no change request); mirrored, every page and SUMMARY.md (groups, separators) is byte for byte the tree', async () => {
    const tree = repository('lista-repo')
    const writer = await fixture.signedInHome('writer')
    const result = await importInto(tree, writer, 'Lista')
    expect(result.strategy).toBe('Git import')
    expect(result.complete).toBe(true)
    expect(result.revision).toBeTruthy()
    expect(result.changeRequest).toBeUndefined()
    expect(await openChangeRequests(fixture.t.api, result.space.id)).toEqual([])

    const reader = await fixture.signedInHome('reader')
    const sync = await quire('sync', '--once', '--space', result.space.id, '--workspace', path.join(reader, 'ws'))
    expect(sync.code, sync.err).toBe(0)
    const mirror = path.join(reader, 'ws', 'Acme', 'Lista')
    const summary = fs.readFileSync(path.join(tree, 'SUMMARY.md'), 'utf8')
    const compared = [...new Set(['README.md', ...summaryPages(summary).filter((p) => fs.existsSync(path.join(tree, p))), 'SUMMARY.md'])]
    const same = (rel: string) => {
      const mirrored = path.join(mirror, ...rel.split('/'))
      return fs.existsSync(mirrored) && fs.readFileSync(mirrored).equals(fs.readFileSync(path.join(tree, ...rel.split('/'))))
    }
    const identical = compared.filter(same)
    console.log(`lista through Git import: ${identical.length}/${compared.length} files identical (pages and SUMMARY.md)`)
    expect(compared.filter((rel) => !same(rel))).toEqual([])
    // The writer's own folder follows the import too.
    expect(fs.readFileSync(path.join(writer, 'ws', 'Acme', 'Lista', 'SUMMARY.md'), 'utf8')).toBe(summary)
  }, 240_000)

  it('changes not committed: the content API takes the files as they are, into a change request, and the report says why', async () => {
    const tree = repository('lista-dirty')
    fs.appendFileSync(path.join(tree, 'README.md'), '\nA line not committed yet.\n')
    const result = await importInto(tree, await fixture.signedInHome('writer-dirty'), 'Dirty')
    expect(result.strategy).toBe('content API')
    expect(result.changeRequest).toBeDefined()
    expect(result.notes.some((n) => n.reason.includes('changes not committed (README.md)'))).toBe(true)
    const params = { spaceId: result.space.id, changeRequestId: result.changeRequest!.id }
    const readme = [...pagesOf(await changeRequestRevision(fixture.t.api, params.spaceId, params.changeRequestId))].find(([, p]) => p.path === 'README.md')![0]
    const page = (await fixture.t.api.call('getPageInChangeRequestById', { params: { ...params, pageId: readme }, query: { format: 'markdown' } })).body
    expect(page.markdown).toContain('A line not committed yet.')
  }, 240_000)
  /** The tree's files a mirror holds (pages SUMMARY.md lists, SUMMARY.md, assets) and those that differ from it, byte for byte at the same path, case included. */
  async function gitImportedAndMirrored(name: string, files: Map<string, Buffer>): Promise<{ missing: string[]; differ: string[]; extra: string[]; compared: number }> {
    const tree = commitTree(path.join(fixture.base, `${name}-repo`), files)
    const result = await importInto(tree, await fixture.signedInHome(`writer-${name}`), name)
    expect(result.strategy).toBe('Git import')
    const reader = await fixture.signedInHome(`reader-${name}`)
    const sync = await quire('sync', '--once', '--space', result.space.id, '--workspace', path.join(reader, 'ws'))
    expect(sync.code, sync.err).toBe(0)
    const mirror = path.join(reader, 'ws', 'Acme', name)
    const summary = files.get('SUMMARY.md')!.toString()
    const expected = new Map([...files].filter(([rel]) => rel === 'README.md' || rel === 'SUMMARY.md' || rel.startsWith('.gitbook/assets/') || summaryPages(summary).includes(rel)))
    expected.set('SUMMARY.md', Buffer.from(retitled(summary, SUMMARY_TEXT_NOT_H1[name] ?? [])))
    const mirrored = listTree(mirror).filter((rel) => rel.endsWith('.md') || rel.startsWith('.gitbook/assets/'))
    const missing = [...expected.keys()].filter((rel) => !mirrored.includes(rel))
    const differ = [...expected].filter(([rel, bytes]) => mirrored.includes(rel) && !fs.readFileSync(path.join(mirror, ...rel.split('/'))).equals(bytes)).map(([rel]) => rel)
    const extra = mirrored.filter((rel) => !expected.has(rel))
    console.log(`${name} through Git import: ${expected.size - missing.length - differ.length}/${expected.size} files byte for byte at their path`)
    return { missing, differ, extra, compared: expected.size }
  }

  it('the home README.md in a group with subpages in getting-started/readme/: mirrored there, folder case kept (issue 24)', async () => {
    const files = new Map(
      Object.entries({
        'SUMMARY.md': '# Table of contents\n\n## Getting started\n\n* [Home](README.md)\n  * [Child](getting-started/readme/child.md)\n  * [Other](getting-started/readme/other.md)\n',
        'README.md': '# Home\n\nStart with [the child](getting-started/readme/child.md).\n',
        'getting-started/readme/child.md': '# Child\n\nSee [other](other.md).\n',
        'getting-started/readme/other.md': '# Other\n\nBack to [the child](child.md).\n',
      }).map(([rel, text]) => [rel, Buffer.from(text)]),
    )
    expect(await gitImportedAndMirrored('readme-case', files)).toEqual({ missing: [], differ: [], extra: [], compared: 4 })
  }, 120_000)

  it('gitbook-docs: every page, SUMMARY.md (its H1 titles) and asset mirrored byte for byte at its path', async () => {
    const { missing, differ, extra } = await gitImportedAndMirrored('gitbook-docs', corpusTree('gitbook-docs'))
    expect({ missing, differ, extra }).toEqual({ missing: [], differ: [], extra: [] })
  }, 180_000)
})
