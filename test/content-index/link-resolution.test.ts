/**
 * A link resolver keeps its answers (content-index/link-resolution.ts): the same target written in the
 * same context resolves once per report. Whatever it keeps, each answer must be exactly the one resolving
 * afresh gives: over seeded random trees (nested folders, colliding slugs, groups and link pages, files of
 * the same name) and targets of every kind written from pages all over the tree: relative paths of the
 * right and the wrong depth, folder-style, percent-encoded, with anchors and queries, climbing above the
 * root; `/pages/<id | slug path | git path>`, `/files/<id>`, root-absolute paths; bare anchors, whose
 * answer names the page they are written in; URLs in and out of the app.
 */
import { describe, expect, it } from 'vitest'
import { relativePath } from '../../src/main/content/gitsync/relative-path'
import type { TreeFile, TreePage } from '../../src/main/content/types'
import { LinkResolver, type ResolvedLink } from '../../src/main/service/content-index/link-resolution'
import { RevisionMap } from '../../src/main/service/content-index/revision-map'
import { rng as random, type Rng as Random } from '../support/rng'

const ORIGIN = 'http://127.0.0.1:4000'
const AT = '2026-01-01T00:00:00.000Z'


/** Few names, so that paths collide (`-2`, ` (1)`) and the same relative target means different pages. */
const SLUGS = ['guide', 'intro', 'faq', 'a', 'b', 'my page', 'readme', 'setup']
const FILE_NAMES = ['image.png', 'logo.svg', 'image (1).png', 'diagram.svg', 'notes.pdf']

let lastId = 0

function randomPages(rng: Random, depth: number): TreePage[] {
  return Array.from({ length: 1 + rng.int(depth === 0 ? 6 : 4) }, () => {
    const type = rng.next() < 0.75 ? 'document' : rng.next() < 0.6 ? 'group' : 'link'
    const id = `p${++lastId}`
    return {
      id,
      type,
      title: id,
      slug: rng.pick(SLUGS),
      metadata: {},
      createdAt: AT,
      updatedAt: AT,
      pages: depth < 3 && type !== 'link' && rng.next() < 0.5 ? randomPages(rng, depth + 1) : [],
    }
  })
}

function randomFiles(rng: Random): TreeFile[] {
  return Array.from({ length: rng.int(6) }, () => ({ id: `f${++lastId}`, name: rng.pick(FILE_NAMES), contentType: 'image/png', size: 1, blobOid: 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391', createdAt: AT }))
}

/** Targets as writers write them, from the page at `from` (its git path, or '' for a page without a file). */
function randomTarget(rng: Random, map: RevisionMap, gitPaths: string[], from: string): string {
  const some = <T>(items: T[], fallback: T) => (items.length > 0 ? rng.pick(items) : fallback)
  const suffix = () => rng.pick(['', '', '#install', '#', '?raw=1', '?v=2#a%20b', '#Set%20up'])
  const encode = (path: string) => (rng.next() < 0.3 ? path.replace(/ /g, '%20') : path)
  const pageEntry = some(map.pages, undefined)
  const file = some(map.tree.files, undefined)
  switch (rng.int(16)) {
    case 0:
    case 1:
    case 2: {
      // Right depth, to a page or a file of the tree.
      const to = some(gitPaths, 'missing.md')
      return encode(relativePath(from, to)) + suffix()
    }
    case 3: {
      // Wrong depth: one `../` too many or too few.
      const right = relativePath(from, some(gitPaths, 'x.md'))
      return encode(rng.next() < 0.5 ? `../${right}` : right.replace(/^\.\.\//, '')) + suffix()
    }
    case 4: {
      // Folder-style: `guide/`, `guide`, `./guide`, `..`, `./`.
      const to = some(gitPaths, 'guide/README.md').replace(/(\/?README)?\.md$/, '')
      const written = relativePath(from, to === '' ? 'README.md' : `${to}/x`).replace(/\/?x$/, '').replace(/README\.md$/, '')
      return rng.pick([written, `${written}/`, `./${written}`, '..', './', '.', '../']) + suffix()
    }
    case 5:
      return `${'../'.repeat(rng.int(4))}.gitbook/assets/${encode(rng.pick(FILE_NAMES))}`
    case 6:
      return `/pages/${pageEntry ? rng.pick([pageEntry.page.id, pageEntry.path, pageEntry.gitPath ?? 'none.md', 'nope']) : 'nope'}${rng.pick(['', '/', '#part'])}`
    case 7:
      return `/files/${file ? rng.pick([file.id, 'nope']) : 'nope'}${rng.pick(['', '/'])}`
    case 8:
      return `/${some(gitPaths, 'README.md')}${suffix()}`
    case 9:
      return rng.pick(['#', '#intro', '#set%20up', '#a#b', '#100%'])
    case 10:
      return rng.pick(['https://example.com/docs', `${ORIGIN}/app/spaces/s1`, `${ORIGIN.toUpperCase()}/APP/x`, `${ORIGIN}/api/v1`, '//cdn.example.com/a.png', 'mailto:someone@example.com'])
    case 11:
      return `${'../'.repeat(2 + rng.int(4))}${rng.pick(SLUGS)}.md`
    case 12:
      return rng.pick(['100%.md', 'a%2Fb.md', '%2Fpages%2Fnope', '%zz/x.png', 'a b.md', 'guide/'])
    case 13:
      return `${rng.pick(['', './', '../'])}${rng.pick(SLUGS)}${rng.pick(['.md', '', '/', '/README.md', '.MD', '.png'])}${suffix()}`
    case 14:
      return `./${encode(relativePath(from, some(gitPaths, 'a.md')))}`
    default:
      return `${rng.pick(SLUGS)}/${rng.pick(SLUGS)}.md${suffix()}`
  }
}

interface Writer {
  pageId: string
  gitPath: string | undefined
}

describe('a link resolver that keeps its answers', () => {
  it('answers exactly as resolving afresh, over seeded random trees, targets and pages', () => {
    let links = 0
    let contexts = 0
    for (let seed = 1; seed <= 80; seed++) {
      const rng = random(seed)
      const map = new RevisionMap({ pages: randomPages(rng, 0), files: randomFiles(rng) })
      // Pages' files, and files' asset paths (a second file of a name has another: broken on purpose).
      const gitPaths = [...map.pages.flatMap(({ gitPath }) => (gitPath ? [gitPath] : [])), ...map.tree.files.map((file) => `.gitbook/assets/${file.name}`)]
      // Writers: every page, link pages and groups (no file of their own) included, and a page written from nowhere.
      const writers: Writer[] = [...map.pages.map(({ page, gitPath }) => ({ pageId: page.id, gitPath })), { pageId: 'outside', gitPath: undefined }]
      const targets = Array.from({ length: 60 }, () => randomTarget(rng, map, gitPaths, rng.pick(writers).gitPath ?? ''))
      const kept = new LinkResolver(map, ORIGIN)
      // A bound this small starts the memo afresh every few answers, and must not change one either.
      const bounded = new LinkResolver(map, ORIGIN, 5)
      const afresh = new LinkResolver(map, ORIGIN)
      const seen = new Map<string, ResolvedLink>()
      for (let n = 0; n < 600; n++) {
        const target = rng.pick(targets)
        const writer = rng.pick(writers)
        const want = afresh.resolveAfresh(target, writer.pageId, writer.gitPath)
        const context = `seed ${seed}: '${target}' from ${writer.pageId} at ${writer.gitPath ?? '(no file)'}`
        const answer = kept.resolve(target, writer.pageId, writer.gitPath)
        expect(answer, context).toEqual(want)
        expect(bounded.resolve(target, writer.pageId, writer.gitPath), `${context} (bound 5)`).toEqual(want)
        // Asked again in the same context, the kept answer itself comes back.
        const key = `${target}\u0000${writer.pageId}\u0000${writer.gitPath}`
        if (!seen.has(key)) contexts++
        else expect(kept.resolve(target, writer.pageId, writer.gitPath), context).toBe(seen.get(key))
        seen.set(key, answer)
        links++
      }
    }
    // Most links were asked about more than once, and from more than one context.
    expect(contexts / links).toBeLessThan(0.9)
  })

  it('keeps apart what depends on the page (anchors) and on its folder (relative paths), and shares the rest', () => {
    const page = (id: string, slug: string, pages: TreePage[] = []): TreePage => ({ id, type: 'document', title: id, slug, metadata: {}, createdAt: AT, updatedAt: AT, pages })
    const map = new RevisionMap({
      pages: [page('home', 'home'), page('guide', 'guide', [page('install', 'install'), page('faq-in-guide', 'faq')]), page('faq', 'faq')],
      files: [{ id: 'logo', name: 'logo.png', contentType: 'image/png', size: 1, blobOid: 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391', createdAt: AT }],
    })
    const resolver = new LinkResolver(map, ORIGIN)
    // A bare anchor names the page it is written in, even two pages of one folder.
    expect(resolver.resolve('#top', 'install', 'guide/install.md').target).toEqual({ kind: 'anchor', page: 'install', anchor: 'top' })
    expect(resolver.resolve('#top', 'faq-in-guide', 'guide/faq.md').target).toEqual({ kind: 'anchor', page: 'faq-in-guide', anchor: 'top' })
    // `faq.md` is a different page from the root and from guide/, the same from two pages of guide/.
    expect(resolver.resolve('faq.md', 'home', 'README.md').target).toEqual({ kind: 'page', page: 'faq' })
    const inGuide = resolver.resolve('faq.md', 'install', 'guide/install.md')
    expect(inGuide.target).toEqual({ kind: 'page', page: 'faq-in-guide' })
    expect(resolver.resolve('faq.md', 'guide', 'guide/README.md')).toBe(inGuide)
    // Absolute forms are the same answer from anywhere.
    const byId = resolver.resolve('/pages/faq', 'home', 'README.md')
    expect(resolver.resolve('/pages/faq', 'install', 'guide/install.md')).toBe(byId)
    expect(resolver.resolve('/files/logo', 'install', 'guide/install.md')).toBe(resolver.resolve('/files/logo', 'home', undefined))
    expect(resolver.resolve('/faq.md', 'install', 'guide/install.md').target).toEqual({ kind: 'page', page: 'faq' })
  })

  it('hands out answers no caller can change', () => {
    const map = new RevisionMap({ pages: [{ id: 'home', type: 'document', title: 'Home', slug: 'home', metadata: {}, createdAt: AT, updatedAt: AT, pages: [] }], files: [] })
    const resolver = new LinkResolver(map, ORIGIN)
    for (const target of ['README.md', '#a', 'https://example.com', '/files/x', 'missing.md']) {
      const answer = resolver.resolve(target, 'home', 'README.md')
      expect(() => {
        ;(answer as { status: string }).status = 'ok'
      }).toThrow(TypeError)
      expect(() => {
        ;(answer.target as { kind: string }).kind = 'url'
      }).toThrow(TypeError)
      expect(resolver.resolve(target, 'home', 'README.md')).toEqual(resolver.resolveAfresh(target, 'home', 'README.md'))
    }
  })
})
