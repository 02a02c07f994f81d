/**
 * A revision's index derived from its parent's (serializers/revision-index.ts) must equal the index
 * built from scratch, whatever the change: seeded random batches of renames (slugs that collide, case
 * folded), moves, inserts and deletes of pages, groups and link pages, the home page replaced, files
 * appended with names already taken, through `applyContentChanges` on stored (frozen) trees and through
 * direct edits shared the way a stored revision is. The reference is the service's former index:
 * `computeGitPaths` and a walk of the tree.
 */
import { describe, expect, it } from 'vitest'
import { applyContentChanges, type ContentChange, type RevisionTree, type TreeFile, type TreePage } from '../../src/main/content'
import { computeGitPaths } from '../../src/main/content/gitsync/paths'
import { frozenCopy, shareUnchanged, workingCopy } from '../../src/main/content/revision/tree'
import { buildRevisionIndexInFull, deriveRevisionIndex, indexWrittenTree, revisionIndexesBuiltInFull, revisionIndexOf, type RevisionIndex } from '../../src/main/service/api/serializers/revision-index'
import { rng as random } from '../support/rng'


/** Few names, so that paths collide (`-2`, ` (1)`) and change as pages come and go. */
const SLUGS = ['guide', 'Guide', 'intro', 'readme', 'README', 'faq', 'a', 'b', '', '.gitbook', 'summary', 'a/b', 'a-b', 'untitled', '.', 'x\\y']
const FILE_NAMES = ['image.png', 'Image.png', 'logo.svg', 'image (1).png', 'notes', '.hidden', 'a/b.png']

/** What every lookup answers, by the service's former index, for the ids and paths asked about. */
function reference(tree: RevisionTree) {
  const gitPaths = computeGitPaths(tree)
  const ids = new Map<string, string>()
  for (const [id, path] of gitPaths) if (!ids.has(path)) ids.set(path, id)
  const apiPaths = new Map<string, string>()
  const pages = new Map<string, TreePage>()
  const walk = (list: readonly TreePage[], prefix: string) => {
    for (const page of list) {
      const path = prefix === '' ? page.slug : `${prefix}/${page.slug}`
      apiPaths.set(page.id, path)
      if (!pages.has(page.id)) pages.set(page.id, page)
      walk(page.pages, path)
    }
  }
  walk(tree.pages, '')
  const files = new Map<string, TreeFile>()
  for (const file of tree.files) if (!files.has(file.id)) files.set(file.id, file)
  return { gitPaths, ids, apiPaths, pages, files }
}

/** Compares `index` with the reference over every id and path either tree ever had. */
function expectSameAnswers(index: RevisionIndex, tree: RevisionTree, ids: Set<string>, paths: Set<string>, context: string) {
  const want = reference(tree)
  for (const id of want.pages.keys()) ids.add(id)
  for (const file of tree.files) ids.add(file.id)
  for (const path of want.ids.keys()) paths.add(path)
  for (const id of ids) {
    expect(index.gitPath(id), `${context}: git path of ${id}`).toBe(want.gitPaths.get(id))
    expect(index.apiPath(id), `${context}: API path of ${id}`).toBe(want.apiPaths.get(id))
    expect(index.page(id), `${context}: page ${id}`).toBe(want.pages.get(id))
    expect(index.file(id), `${context}: file ${id}`).toBe(want.files.get(id))
  }
  for (const path of paths) expect(index.idAtGitPath(path), `${context}: id at ${path}`).toBe(want.ids.get(path))
}

let lastId = 0
const newId = () => `id${++lastId}`

function newPage(rng: ReturnType<typeof random>): TreePage {
  const type = rng.next() < 0.7 ? 'document' : rng.next() < 0.7 ? 'group' : 'link'
  return {
    id: newId(),
    type,
    title: `Page ${lastId}`,
    slug: rng.pick(SLUGS),
    metadata: {},
    ...(type === 'link' ? { href: 'https://example.com' } : {}),
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    pages: [],
  }
}

function newFile(rng: ReturnType<typeof random>): TreeFile {
  return { id: newId(), name: rng.pick(FILE_NAMES), contentType: 'image/png', size: 1, blobOid: 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391', createdAt: '2026-01-01T00:00:00.000Z' }
}

/** Every array of pages of `tree`, each with its pages (the working copy's own, safe to change). */
function allSiblings(tree: RevisionTree): TreePage[][] {
  const lists: TreePage[][] = [tree.pages]
  const walk = (pages: TreePage[]) => {
    for (const page of pages) {
      lists.push(page.pages)
      walk(page.pages)
    }
  }
  walk(tree.pages)
  return lists
}

/** One random edit of a working copy: any page anywhere, groups and link pages included. */
function editDirectly(tree: RevisionTree, rng: ReturnType<typeof random>): void {
  const lists = allSiblings(tree)
  const nonEmpty = lists.filter((list) => list.length > 0)
  const kind = rng.int(9)
  if (kind === 0 || nonEmpty.length === 0) {
    rng.pick(lists).splice(rng.int(3), 0, newPage(rng))
  } else if (kind === 1) {
    const list = rng.pick(nonEmpty)
    const page = list[rng.int(list.length)]
    page.slug = rng.pick(SLUGS)
  } else if (kind === 2) {
    // A move: out of its list, into any list not below it.
    const list = rng.pick(nonEmpty)
    const [page] = list.splice(rng.int(list.length), 1)
    const below = new Set(allSiblings({ pages: page.pages, files: [] }))
    below.add(page.pages)
    const targets = allSiblings(tree).filter((target) => !below.has(target))
    const target = rng.pick(targets)
    target.splice(rng.int(target.length + 1), 0, page)
  } else if (kind === 3) {
    const list = rng.pick(nonEmpty)
    list.splice(rng.int(list.length), 1)
  } else if (kind === 4) {
    const list = rng.pick(nonEmpty)
    const page = list[rng.int(list.length)]
    page.type = rng.pick(['document', 'group', 'link'] as const)
  } else if (kind === 5) {
    for (let n = 1 + rng.int(3); n > 0; n--) tree.files.push(newFile(rng))
  } else if (kind === 6) {
    const list = rng.pick(nonEmpty)
    list[rng.int(list.length)].title = `Retitled ${rng.int(1000)}`
  } else if (kind === 7 && tree.files.length > 0) {
    tree.files.splice(rng.int(tree.files.length), 1)
  } else if (kind === 8 && rng.next() < 0.05) {
    // An id used twice (a copy of a page elsewhere): never made by the service, still answered alike.
    const list = rng.pick(nonEmpty)
    const page = list[rng.int(list.length)]
    const target = rng.pick(lists)
    target.splice(rng.int(target.length + 1), 0, { ...page, pages: [] })
  }
}

function randomChange(tree: RevisionTree, rng: ReturnType<typeof random>): ContentChange {
  const pages: TreePage[] = []
  const walk = (list: readonly TreePage[]) => {
    for (const page of list) {
      pages.push(page)
      walk(page.pages)
    }
  }
  walk(tree.pages)
  const slug = rng.pick(SLUGS.filter((s) => s !== '' && s !== '.gitbook'))
  const kind = pages.length === 0 ? 0 : rng.int(6)
  if (kind === 0) {
    const into = pages.length > 0 && rng.next() < 0.6 ? rng.pick(pages).id : undefined
    return { operation: 'insert_page', title: slug, slug, document: { markdown: `# ${slug}\n\nText.\n` }, ...(into ? { into } : {}), at: rng.int(3) }
  }
  const page = rng.pick(pages)
  if (kind === 1) return { operation: 'update_page', page: page.id, title: `New ${slug}`, slug }
  if (kind === 2) return { operation: 'update_page', page: page.id, document: { markdown: `# ${page.title}\n\nEdited ${rng.int(1000)}.\n` } }
  if (kind === 3) {
    const into = rng.pick(pages)
    const below = new Set<string>()
    const collect = (p: TreePage) => {
      below.add(p.id)
      p.pages.forEach(collect)
    }
    collect(page)
    return { operation: 'update_page', page: page.id, into: below.has(into.id) || rng.next() < 0.3 ? null : into.id, at: rng.int(3) }
  }
  if (kind === 4) return { operation: 'delete_page', page: page.id }
  return { operation: 'insert_files', files: Array.from({ length: 1 + rng.int(2) }, () => ({ name: rng.pick(FILE_NAMES), base64: Buffer.from(`f${rng.int(9)}`).toString('base64') })) }
}

function editedDirectly(tree: RevisionTree, rng: ReturnType<typeof random>): RevisionTree {
  const working = workingCopy(tree)
  for (let n = 1 + rng.int(3); n > 0; n--) editDirectly(working, rng)
  return frozenCopy(shareUnchanged(tree, working))
}

/** A random batch applied to `tree`; undefined when the batch is invalid (a page deleted then updated). */
function batchApplied(tree: RevisionTree, rng: ReturnType<typeof random>): RevisionTree | undefined {
  const changes = Array.from({ length: 1 + rng.int(3) }, () => randomChange(tree, rng))
  try {
    return frozenCopy(applyContentChanges(tree, changes, { newId, now: '2026-01-02T00:00:00.000Z' }).tree)
  } catch {
    return undefined
  }
}

function page(id: string, slug: string, pages: TreePage[] = []): TreePage {
  return { id, type: 'document', title: slug, slug, metadata: {}, createdAt: '', updatedAt: '', pages }
}

describe('a revision index derived from its parent equals one built in full', () => {
  it('over seeded random direct edits (groups, link pages, home page, files)', () => {
    let derivedSteps = 0
    let steps = 0
    for (let seed = 1; seed <= 60; seed++) {
      const rng = random(seed)
      let tree: RevisionTree = frozenCopy({ pages: [], files: [] })
      let index = buildRevisionIndexInFull(tree)
      const ids = new Set<string>()
      const paths = new Set<string>()
      for (let step = 0; step < 40; step++) {
        const working = workingCopy(tree)
        for (let n = 1 + rng.int(3); n > 0; n--) editDirectly(working, rng)
        const next = frozenCopy(shareUnchanged(tree, working))
        const derived = deriveRevisionIndex(index, next)
        steps++
        if (derived) derivedSteps++
        index = derived ?? buildRevisionIndexInFull(next)
        tree = next
        expectSameAnswers(index, tree, ids, paths, `seed ${seed} step ${step}${derived ? ' (derived)' : ''}`)
        expectSameAnswers(buildRevisionIndexInFull(tree), tree, ids, paths, `seed ${seed} step ${step} (built)`)
      }
    }
    // Most edits are derived, not rebuilt (a file removed or a new home page is rebuilt).
    expect(derivedSteps / steps).toBeGreaterThan(0.5)
  })

  it('over seeded random content batches applied to stored trees', () => {
    let derivedSteps = 0
    let steps = 0
    for (let seed = 1; seed <= 40; seed++) {
      const rng = random(1000 + seed)
      let tree: RevisionTree = frozenCopy({ pages: [], files: [] })
      let index = buildRevisionIndexInFull(tree)
      const ids = new Set<string>()
      const paths = new Set<string>()
      for (let step = 0; step < 30; step++) {
        const changes = Array.from({ length: 1 + rng.int(3) }, () => randomChange(tree, rng))
        let next: RevisionTree
        try {
          next = frozenCopy(applyContentChanges(tree, changes, { newId, now: '2026-01-02T00:00:00.000Z' }).tree)
        } catch {
          continue // an invalid random batch (a page deleted then updated): nothing to index
        }
        const derived = deriveRevisionIndex(index, next)
        steps++
        if (derived) derivedSteps++
        index = derived ?? buildRevisionIndexInFull(next)
        tree = next
        expectSameAnswers(index, tree, ids, paths, `seed ${1000 + seed} step ${step}${derived ? ' (derived)' : ''}`)
      }
    }
    expect(derivedSteps / steps).toBeGreaterThan(0.5)
  })

  it('over seeded random chains of writes read now and then: a read builds nothing while every write since the last derived', () => {
    // Writes whose parent's index was kept, and of them those that derived their own.
    let writesFromKept = 0
    let writesKept = 0
    let reads = 0
    let readsBuilt = 0
    for (let seed = 1; seed <= 40; seed++) {
      const rng = random(2000 + seed)
      let tree: RevisionTree = frozenCopy({ pages: [], files: [] })
      revisionIndexOf(tree)
      // Whether the index of every tree written since the last read was derived by its write.
      let chainKept = true
      let parentKept = true
      const ids = new Set<string>()
      const paths = new Set<string>()
      for (let step = 0; step < 40; step++) {
        // Odd seeds edit directly, even ones apply content batches as the service's writes do.
        const next = seed % 2 === 1 ? editedDirectly(tree, rng) : batchApplied(tree, rng)
        if (!next) continue
        const kept = indexWrittenTree(tree, next)
        if (parentKept) writesFromKept++
        if (parentKept && kept) writesKept++
        expect(kept || !parentKept || deriveRevisionIndex(buildRevisionIndexInFull(tree), next) === undefined, `seed ${2000 + seed} step ${step}: not derived by its write`).toBe(true)
        chainKept &&= kept
        parentKept = kept
        tree = next
        if (rng.next() < 0.25) {
          const before = revisionIndexesBuiltInFull()
          const index = revisionIndexOf(tree)
          const built = revisionIndexesBuiltInFull() - before
          reads++
          readsBuilt += built
          expect(built, `seed ${2000 + seed} step ${step}: full builds on a read, every write since the last read derived: ${chainKept}`).toBe(chainKept ? 0 : 1)
          expectSameAnswers(index, tree, ids, paths, `seed ${2000 + seed} step ${step} (read after writes)`)
          chainKept = true
          parentKept = true
        }
      }
    }
    expect(writesKept / writesFromKept).toBeGreaterThan(0.5)
    // Random direct edits often cannot be derived (a new home page, a file removed), so reads after a
    // few of them often build; enough do not for the case to be tried many times.
    expect(reads - readsBuilt).toBeGreaterThan(50)
  })

  it('over seeded random chains: a revision several writes back derives the index as its parent would', () => {
    let derivedSteps = 0
    let steps = 0
    for (let seed = 1; seed <= 30; seed++) {
      const rng = random(3000 + seed)
      let tree: RevisionTree = frozenCopy({ pages: [], files: [] })
      let ancestor = { tree, index: buildRevisionIndexInFull(tree) }
      const ids = new Set<string>()
      const paths = new Set<string>()
      for (let step = 0; step < 40; step++) {
        const working = workingCopy(tree)
        for (let n = 1 + rng.int(3); n > 0; n--) editDirectly(working, rng)
        tree = frozenCopy(shareUnchanged(tree, working))
        // Indexed only every few writes, each from the last indexed: what lies between is one change.
        if (rng.next() < 0.7) continue
        const derived = deriveRevisionIndex(ancestor.index, tree)
        steps++
        if (derived) derivedSteps++
        const index = derived ?? buildRevisionIndexInFull(tree)
        expectSameAnswers(index, tree, ids, paths, `seed ${3000 + seed} step ${step}${derived ? ' (derived from writes back)' : ''}`)
        ancestor = { tree, index }
      }
    }
    expect(derivedSteps / steps).toBeGreaterThan(0.3)
  })

  it('reads after ten page edits in a row, none read, without building the index in full', () => {
    let tree = frozenCopy<RevisionTree>({ pages: Array.from({ length: 100 }, (_, i) => page(`p${i}`, `page-${i}`, [page(`c${i}`, 'child')])), files: [] })
    revisionIndexOf(tree)
    const before = revisionIndexesBuiltInFull()
    for (let i = 0; i < 10; i++) {
      const changes: ContentChange[] = [{ operation: 'update_page', page: `c${i * 7}`, document: { markdown: `# Child\n\nEdit ${i}.\n` } }]
      const next = frozenCopy(applyContentChanges(tree, changes, { newId, now: '2026-01-02T00:00:00.000Z' }).tree)
      expect(indexWrittenTree(tree, next), `write ${i}`).toBe(true)
      tree = next
    }
    const index = revisionIndexOf(tree)
    expect(revisionIndexesBuiltInFull() - before).toBe(0)
    expectSameAnswers(index, tree, new Set(['p0', 'c63']), new Set(['page-63/child.md']), 'after ten edits')
  })

  it('gives new API paths below a page whose new slug keeps its folder', () => {
    const tree = frozenCopy<RevisionTree>({ pages: [page('home', 'home'), page('p', 'a/b', [page('c', 'c', [page('d', 'd')])])], files: [] })
    const working = workingCopy(tree)
    working.pages[1].slug = 'a-b'
    const renamed = frozenCopy(shareUnchanged(tree, working))
    expect(renamed.pages[1].pages).toBe(tree.pages[1].pages)
    const index = deriveRevisionIndex(buildRevisionIndexInFull(tree), renamed)
    expect(index).toBeDefined()
    expectSameAnswers(index!, renamed, new Set(['c', 'd']), new Set(), 'slug a/b renamed a-b')
    expect(index!.apiPath('d')).toBe('a-b/c/d')
  })

  it('builds in full, the first page of an id first, a tree that uses an id twice', () => {
    const parent = frozenCopy<RevisionTree>({ pages: [page('x', 'one'), page('y', 'two')], files: [] })
    const twice = frozenCopy<RevisionTree>({ pages: [...parent.pages, page('x', 'three')], files: [] })
    const index = deriveRevisionIndex(buildRevisionIndexInFull(parent), twice) ?? buildRevisionIndexInFull(twice)
    expectSameAnswers(index, twice, new Set(['x', 'y']), new Set(['one.md', 'three.md']), 'an id twice')
    expect(index.page('x')).toBe(twice.pages[0])
  })
})
