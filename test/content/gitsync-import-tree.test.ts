import { describe, expect, it } from 'vitest'
import { computeGitPaths, renderSummary, serializePageMarkdown, type RevisionTree, type TreePage } from '../../src/main/content'
import { parseGitSyncConfig } from '../../src/main/content/gitsync/config'
import { revisionFromGitSync } from '../../src/main/content/gitsync/import-tree'
import { renderTagsFile } from '../../src/main/engine/sync/tags-file'
import { corpusTree, retitled, SUMMARY_TEXT_NOT_H1 } from '../support/gitsync-corpus'

let counter = 0
const env = { newId: () => `id${++counter}`, now: '2026-01-01T00:00:00.000Z' }
const utf8 = new TextDecoder()
const bytes = (text: string) => new TextEncoder().encode(text)

/** The Git Sync files the tree renders to: every page file, SUMMARY.md and the assets, by path. */
function render(tree: RevisionTree, blobs: Map<string, Uint8Array>): Map<string, Uint8Array> {
  const paths = computeGitPaths(tree)
  const out = new Map<string, Uint8Array>()
  const walk = (pages: TreePage[]) => {
    for (const page of pages) {
      if (page.type === 'document') {
        const body = page.bodyOid ? utf8.decode(blobs.get(page.bodyOid)) : ''
        out.set(paths.get(page.id) as string, bytes(serializePageMarkdown({ title: page.title, metadata: page.metadata, body, shape: page.shape })))
      }
      walk(page.pages)
    }
  }
  walk(tree.pages)
  out.set('SUMMARY.md', bytes(renderSummary(tree, paths)))
  // The service serves its tags as the spec's RevisionTag (a color token among DocumentTextColor's).
  const tags = renderTagsFile(tree.tags as Parameters<typeof renderTagsFile>[0])
  if (tags !== undefined) out.set('.gitbook/tags.yaml', bytes(tags))
  for (const file of tree.files) out.set(paths.get(file.id) as string, blobs.get(file.blobOid) as Uint8Array)
  return out
}

describe('a Git Sync tree read into a revision (git import)', () => {
  for (const name of ['lista', 'gitbook-docs']) {
    it(`${name}: every page, SUMMARY.md and asset renders back byte for byte`, () => {
      const files = corpusTree(name)
      const result = revisionFromGitSync(files, parseGitSyncConfig(undefined), env)
      const back = render(result.tree, result.blobs)
      // Where SUMMARY.md's text for a page is not the page's H1, the page keeps its H1 and SUMMARY.md lists it so (noted).
      const expected = new Map(files)
      expected.set('SUMMARY.md', Buffer.from(retitled(files.get('SUMMARY.md')!.toString(), SUMMARY_TEXT_NOT_H1[name] ?? [])))
      const differ: string[] = []
      let compared = 0
      for (const [path, original] of expected) {
        if (!/\.md$/i.test(path) && !path.startsWith('.gitbook/assets/') && path !== '.gitbook/tags.yaml') continue
        compared++
        const mine = back.get(path)
        if (!mine || Buffer.compare(Buffer.from(mine), original) !== 0) differ.push(path)
      }
      console.log(`${name}: ${compared - differ.length}/${compared} files identical (SUMMARY.md with the H1 titles); notes: ${result.notes.length}`)
      for (const note of result.notes) console.log(`  ${note}`)
      expect(differ).toEqual([])
      expect(result.notes.filter((note) => /whose H1 is/.test(note))).toHaveLength((SUMMARY_TEXT_NOT_H1[name] ?? []).length)
      expect([...back.keys()].filter((path) => !files.has(path))).toEqual([])
    })
  }

  it('takes the title of a page with no H1 from SUMMARY.md, and writes the page back with no H1', () => {
    const files = new Map([
      ['SUMMARY.md', bytes('# Table of contents\n\n* [Home](README.md)\n* [No heading here](plain.md)\n')],
      ['README.md', bytes('# Home\n\nHello.\n')],
      ['plain.md', bytes('Just text.\n')],
    ])
    const { tree, blobs } = revisionFromGitSync(files, parseGitSyncConfig(undefined), env)
    expect(tree.pages.map((p) => p.title)).toEqual(['Home', 'No heading here'])
    expect(utf8.decode(render(tree, blobs).get('plain.md'))).toBe('Just text.\n')
  })

  it('refuses a tree with no SUMMARY.md, and reports what it leaves out', () => {
    expect(() => revisionFromGitSync(new Map([['README.md', bytes('# Home\n')]]), parseGitSyncConfig(undefined), env)).toThrow(/no SUMMARY\.md/)
    const files = new Map([
      ['SUMMARY.md', bytes('# Table of contents\n\n* [Home](README.md)\n* [Gone](gone.md)\n')],
      ['README.md', bytes('# Home\n')],
      ['LICENSE.md', bytes('MIT\n')],
    ])
    const { notes } = revisionFromGitSync(files, parseGitSyncConfig(undefined), env)
    expect(notes).toEqual(['SUMMARY.md: "Gone" names gone.md, which is not in the tree: not imported', 'LICENSE.md: not listed in SUMMARY.md: not a page'])
  })

  it('reads a SUMMARY.md in a subfolder relative to it, puts an unlisted readme first, and notes entries it cannot place', () => {
    const files = new Map([
      ['product/SUMMARY.md', bytes('# Summary\n\n* [Guide](guide.md)\n  * [Again](guide.md)\n* [Docs](https://example.com/docs)\n  * [Child](child.md)\n* [No link]\n  * [Orphan](orphan.md)\n')],
      ['product/README.md', bytes('# Welcome\n')],
      ['product/guide.md', bytes('# Guide\n')],
      ['product/child.md', bytes('# Child\n')],
      ['product/orphan.md', bytes('# Orphan\n')],
      ['.gitbook/includes/snippet.md', bytes('Shared.\n')],
    ])
    const config = parseGitSyncConfig('structure:\n  readme: product/README.md\n  summary: product/SUMMARY.md\n')
    const { tree, notes } = revisionFromGitSync(files, config, env)
    const outline = (pages: TreePage[]): unknown[] => pages.map((p) => (p.pages.length > 0 ? [p.type, p.title, outline(p.pages)] : [p.type, p.title]))
    expect(outline(tree.pages)).toEqual([
      ['document', 'Welcome'],
      ['document', 'Guide'],
      ['link', 'Docs'],
      ['document', 'Child'],
      ['document', 'Orphan'],
    ])
    expect(notes).toEqual([
      'product/SUMMARY.md: "Again" lists product/guide.md a second time: not imported',
      'product/SUMMARY.md: "Docs" links to https://example.com/docs and cannot hold pages: its subpages are listed after it',
      'product/SUMMARY.md: "[No link]" has no link: not imported, its subpages are listed in its place',
      '.gitbook/includes/snippet.md: no title: front matter: imported with its file name as title',
    ])
  })
  it('keeps the case of the folder a page writes its subpages in: the home README.md in a group, a readme.md with subpages (issue 24)', () => {
    // Git Sync writes the home page as README.md whatever its slug, and its subpages in the folder of
    // that slug: here "readme", under the group's folder. The file name must not become the slug.
    const home = new Map([
      ['SUMMARY.md', bytes('# Table of contents\n\n## Getting started\n\n* [Home](README.md)\n  * [Child](getting-started/readme/child.md)\n  * [Other](getting-started/readme/other.md)\n')],
      ['README.md', bytes('# Home\n')],
      ['getting-started/readme/child.md', bytes('# Child\n\nSee [other](other.md).\n')],
      ['getting-started/readme/other.md', bytes('# Other\n')],
    ])
    const imported = revisionFromGitSync(home, parseGitSyncConfig(undefined), env)
    const back = render(imported.tree, imported.blobs)
    expect([...back.keys()].sort()).toEqual([...home.keys()].sort())
    for (const [path, original] of home) expect(utf8.decode(back.get(path)), path).toBe(utf8.decode(original))

    // A page file named readme.md (no folder's README) whose subpages live in readme/: they stay there.
    const leaf = new Map([
      ['SUMMARY.md', bytes('# Table of contents\n\n* [Home](README.md)\n* [Getting started](getting-started/README.md)\n  * [Readme](getting-started/readme.md)\n    * [Child](getting-started/readme/child.md)\n')],
      ['README.md', bytes('# Home\n')],
      ['getting-started/README.md', bytes('# Getting started\n')],
      ['getting-started/readme.md', bytes('# Readme\n')],
      ['getting-started/readme/child.md', bytes('# Child\n')],
    ])
    const paths = [...render(revisionFromGitSync(leaf, parseGitSyncConfig(undefined), env).tree, new Map()).keys()]
    expect(paths).toContain('getting-started/readme/child.md')
  })
})
