import { describe, expect, it } from 'vitest'
import {
  applyContentChanges,
  computeGitPaths,
  ContentError,
  findPage,
  gitBlobOid,
  type ContentChange,
  type RevisionTree,
} from '../../src/main/content'
import { env, page, pngBytes, sampleTree, T0, T1 } from './support/trees'

const decode = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes)

function bodyOf(result: ReturnType<typeof applyContentChanges>, id: string): string {
  const oid = findPage(result.tree, id)?.bodyOid
  return decode(oid ? result.blobs.get(oid) : undefined)
}

function rejects(changes: unknown[], pattern: RegExp, tree: RevisionTree = sampleTree(), extra = {}): ContentError {
  const before = structuredClone(tree)
  let caught: unknown
  try {
    applyContentChanges(tree, changes as ContentChange[], env(extra))
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(ContentError)
  expect((caught as Error).message).toMatch(pattern)
  expect(tree).toEqual(before) // atomic: the input is untouched
  return caught as ContentError
}

describe('insert_page', () => {
  it('reads front matter and H1, places the page and stores its body by blob id', () => {
    const result = applyContentChanges(
      sampleTree(),
      [{ operation: 'insert_page', into: 'guide', at: 1, document: { markdown: '---\ndescription: How to\nhidden: true\n---\n\n# Set up\n\n* step_one\n' } }],
      env(),
    )
    const guide = findPage(result.tree, 'guide')
    expect(guide?.pages.map((p) => p.id)).toEqual(['install', 'new1', 'advanced'])
    expect(findPage(result.tree, 'new1')).toEqual({
      id: 'new1',
      type: 'document',
      title: 'Set up',
      slug: 'set-up',
      metadata: { description: 'How to', hidden: true },
      bodyOid: gitBlobOid('* step_one'),
      createdAt: T1,
      updatedAt: T1,
      pages: [],
    })
    expect(bodyOf(result, 'new1')).toBe('* step_one')
    expect(result.changedPages).toEqual([{ id: 'new1', title: 'Set up', operation: 'created' }])
  })

  it('lets the markdown win over explicit fields (spec: "frontmatter or leading heading take precedence")', () => {
    const result = applyContentChanges(
      sampleTree(),
      [{ operation: 'insert_page', title: 'Explicit', icon: 'gear', description: 'explicit', document: { markdown: '---\ndescription: from file\n---\n# From file\n' } }],
      env(),
    )
    expect(findPage(result.tree, 'new1')).toMatchObject({ title: 'From file', metadata: { description: 'from file', icon: 'gear' } })
    const untitled = applyContentChanges(sampleTree(), [{ operation: 'insert_page', title: 'Explicit', document: { markdown: 'no heading' } }], env())
    expect(findPage(untitled.tree, 'new1')?.title).toBe('Explicit')
    const fallback = applyContentChanges(sampleTree(), [{ operation: 'insert_page', document: {} }], env())
    expect(findPage(fallback.tree, 'new1')).toMatchObject({ title: 'Untitled', slug: 'untitled' })
  })

  it('derives unique slugs and rejects an explicit slug that collides', () => {
    const result = applyContentChanges(
      sampleTree(),
      [
        { operation: 'insert_page', document: { markdown: '# FAQ' } },
        { operation: 'insert_page', document: { markdown: '# FAQ' } },
      ],
      env(),
    )
    expect(result.tree.pages.map((p) => p.slug)).toEqual(['home', 'guide', 'faq', 'faq-2', 'faq-3'])
    rejects([{ operation: 'insert_page', slug: 'FAQ', document: {} }], /changes\[0\]: slug 'FAQ' is already used by page 'faq'/)
    rejects([{ operation: 'insert_page', slug: 'a/b', document: {} }], /not a single path segment/)
  })

  it('resolves refs as page ids and ./ref links to files and pages, whatever the order', () => {
    const png = Buffer.from(pngBytes()).toString('base64')
    const result = applyContentChanges(
      sampleTree(),
      [
        { operation: 'insert_page', ref: 'parent', into: 'guide', document: { markdown: '# Parent\n\n![Diagram](./diagram) and [child](./child.md#top)' } },
        { operation: 'insert_page', ref: 'child', into: 'parent', document: { markdown: '# Child\n\nBack to [parent](./parent.md), [home](/pages/home), [faq](/pages/faq.md), [tuning](/pages/guide/advanced/tuning), [file](/files/new3)' } },
        { operation: 'insert_files', files: [{ ref: 'diagram', name: 'diagram.png', contentType: 'image/png', base64: png }] },
      ],
      env(),
    )
    const paths = computeGitPaths(result.tree)
    expect(paths.get('new1')).toBe('guide/parent/README.md')
    expect(paths.get('new2')).toBe('guide/parent/child.md')
    expect(bodyOf(result, 'new1')).toBe('![Diagram](../../.gitbook/assets/diagram.png) and [child](child.md#top)')
    expect(bodyOf(result, 'new2')).toBe('Back to [parent](README.md), [home](../../README.md), [faq](../../faq.md), [tuning](../advanced/tuning.md), [file](../../.gitbook/assets/diagram.png)')
    expect(result.insertedFiles).toEqual([
      { id: 'new3', name: 'diagram.png', contentType: 'image/png', size: 33, dimensions: { width: 3, height: 2 }, blobOid: gitBlobOid(pngBytes()), createdAt: T1 },
    ])
    expect(result.blobs.get(gitBlobOid(pngBytes()))).toEqual(pngBytes())
    expect(result.changedPages).toEqual([
      { id: 'new1', title: 'Parent', operation: 'created', ref: 'parent' },
      { id: 'new2', title: 'Child', operation: 'created', ref: 'child' },
    ])
  })

  it('converts a JSON document', () => {
    const result = applyContentChanges(
      sampleTree(),
      [{ operation: 'insert_page', title: 'From JSON', document: { document: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Hi *there*', marks: [] }] }] }] } } }],
      env(),
    )
    expect(bodyOf(result, 'new1')).toBe('Hi \\*there\\*')
  })
})

describe('update_page', () => {
  it('replaces metadata with the front matter, keeps it without, applies explicit fields', () => {
    const tree = sampleTree()
    const replaced = applyContentChanges(tree, [{ operation: 'update_page', page: 'faq', document: { markdown: '---\nicon: gear\n---\n# Questions\n\nNew body' } }], env())
    expect(findPage(replaced.tree, 'faq')).toMatchObject({ title: 'Questions', slug: 'faq', metadata: { icon: 'gear' }, updatedAt: T1, createdAt: T0 })
    expect(bodyOf(replaced, 'faq')).toBe('New body')

    const kept = applyContentChanges(tree, [{ operation: 'update_page', page: 'faq', description: '', hidden: true, document: { markdown: 'Only a body' } }], env())
    expect(findPage(kept.tree, 'faq')).toMatchObject({ title: 'FAQ', metadata: { icon: 'circle-question', hidden: true } })
    expect(findPage(kept.tree, 'faq')?.metadata.description).toBeUndefined()
    expect(kept.changedPages).toEqual([{ id: 'faq', title: 'FAQ', operation: 'updated' }])
  })

  it('renames and re-slugs independently', () => {
    const result = applyContentChanges(sampleTree(), [{ operation: 'update_page', page: 'faq', title: 'Questions' }, { operation: 'update_page', page: 'install', slug: 'setup' }], env())
    expect(findPage(result.tree, 'faq')).toMatchObject({ title: 'Questions', slug: 'faq' })
    expect(findPage(result.tree, 'install')).toMatchObject({ title: 'Install', slug: 'setup' })
    expect(result.blobs.size).toBe(0)
  })

  it('moves pages: into null = root, at = position, absent = unchanged; slug kept unless taken', () => {
    const result = applyContentChanges(
      sampleTree(),
      [
        { operation: 'update_page', page: 'tuning', into: null, at: 0 },
        { operation: 'update_page', page: 'home', at: 3 },
        { operation: 'insert_page', into: 'guide', document: { markdown: '# FAQ' } },
        { operation: 'update_page', page: 'faq', into: 'guide' },
      ],
      env(),
    )
    expect(result.tree.pages.map((p) => p.id)).toEqual(['tuning', 'guide', 'home'])
    expect(findPage(result.tree, 'guide')?.pages.map((p) => `${p.id}:${p.slug}`)).toEqual(['install:install', 'advanced:advanced', 'new1:faq', 'faq:faq-2'])
    expect(findPage(result.tree, 'advanced')?.pages).toEqual([])
  })

  it('rejects moving a page under itself or a descendant, and documents on groups', () => {
    rejects([{ operation: 'update_page', page: 'guide', into: 'tuning' }], /changes\[0\]: into: cannot move page 'guide' into itself or one of its subpages/)
    rejects([{ operation: 'update_page', page: 'guide', into: 'guide' }], /into itself/)
    const grouped: RevisionTree = { pages: [page('g', 'Group', [], { type: 'group', bodyOid: undefined })], files: [] }
    rejects([{ operation: 'update_page', page: 'g', document: { markdown: 'x' } }], /is a group and has no document/, grouped)
  })
})

describe('delete_page and revert_page', () => {
  it('deletes a page with its subpages', () => {
    const result = applyContentChanges(sampleTree(), [{ operation: 'delete_page', page: 'guide' }], env())
    expect(result.tree.pages.map((p) => p.id)).toEqual(['home', 'faq'])
    expect(result.changedPages.map((c) => `${c.id}:${c.operation}`)).toEqual(['guide:deleted', 'install:deleted', 'advanced:deleted', 'tuning:deleted'])
  })

  it('does not report pages created and deleted in the same batch', () => {
    const result = applyContentChanges(sampleTree(), [{ operation: 'insert_page', ref: 'tmp', document: {} }, { operation: 'delete_page', page: 'tmp' }], env())
    expect(result.changedPages).toEqual([])
    expect(result.tree).toEqual(sampleTree())
  })

  it('reverts edits, deletions and additions against the base', () => {
    const base = sampleTree()
    const edited = applyContentChanges(
      base,
      [
        { operation: 'update_page', page: 'faq', title: 'Changed', icon: 'gear', document: { markdown: 'changed' } },
        { operation: 'delete_page', page: 'advanced' },
        { operation: 'insert_page', document: { markdown: '# Added' } },
      ],
      env(),
    ).tree
    const reverted = applyContentChanges(
      edited,
      [
        { operation: 'revert_page', page: 'faq' },
        { operation: 'revert_page', page: 'advanced' },
        { operation: 'revert_page', page: 'new1' },
      ],
      env({ base }),
    )
    const restored = structuredClone(base)
    const faq = findPage(restored, 'faq')
    if (faq) faq.updatedAt = T1
    expect(reverted.tree).toEqual(restored)
    expect(reverted.changedPages.map((c) => `${c.id}:${c.operation}`)).toEqual(['faq:updated', 'advanced:created', 'tuning:created', 'new1:deleted'])
  })

  it('needs a base and whole-page reverts', () => {
    rejects([{ operation: 'revert_page', page: 'faq' }], /needs the base revision/)
    rejects([{ operation: 'revert_page', page: 'faq', block: ['b1'] }], /block is not supported/, sampleTree(), { base: sampleTree() })
    rejects([{ operation: 'revert_page', page: 'nope' }], /no page 'nope' in the revision or its base/, sampleTree(), { base: sampleTree() })
  })
})

describe('batch validation', () => {
  const big = Buffer.alloc(1024 * 1024 + 1).toString('base64')
  const file = { name: 'a.png', contentType: 'image/png', base64: 'AAAA' }

  it.each([
    [[], /a batch must have 1 to 50 changes, got 0/],
    [Array.from({ length: 51 }, () => ({ operation: 'insert_page', document: {} })), /got 51/],
    [[{ operation: 'update_page', page: 'missing', title: 'x' }], /changes\[0\]: page: no page 'missing' in the revision/],
    [[{ operation: 'insert_page', into: 'missing', document: {} }], /changes\[0\]: into: no page 'missing'/],
    [[{ operation: 'insert_page', at: 4, document: {} }], /changes\[0\]: at 4 is out of range: the target parent has 3 page\(s\)/],
    [[{ operation: 'insert_page', at: -1, document: {} }], /at must be a non-negative integer/],
    [[{ operation: 'update_page', page: 'home', at: 3 }], /at 3 is out of range/],
    [[{ operation: 'insert_page', ref: 'x', document: {} }, { operation: 'insert_files', files: [{ ...file, ref: 'x' }] }], /changes\[1\]: duplicate ref 'x' \(first used by changes\[0\]\)/],
    [[{ operation: 'insert_page', ref: 'faq', document: {} }], /ref 'faq' is the id of an existing page/],
    [[{ operation: 'insert_page', ref: 'guide/install', document: {} }], /collides with the path of an existing page/],
    [[{ operation: 'insert_page', document: { markdown: '---\na: [\n---\n' } }], /changes\[0\]: document.markdown: Invalid YAML front matter/],
    [[{ operation: 'insert_page', title: '', document: {} }], /title must be a non-empty string/],
    [[{ operation: 'insert_page' }], /needs a document/],
    [[{ operation: 'insert_files', files: [] }], /insert_files takes 1 to 20 files, got 0/],
    [[{ operation: 'insert_files', files: Array.from({ length: 21 }, () => file) }], /got 21/],
    [[{ operation: 'insert_files', files: [file, { name: 'big.bin', contentType: 'application/octet-stream', base64: big }] }], /changes\[0\]: files\[1\]: 'big.bin' is 1048577 bytes, over the 1 MB limit/],
    [[{ operation: 'insert_files', files: [{ name: 'remote.png', url: 'https://example.com/x.png' }] }], /url source of 'remote.png' must be fetched and sent as base64/],
    [[{ operation: 'insert_files', files: [{ name: 'bad.png', contentType: 'image/png', base64: '!!!' }] }], /files\[0\].base64 is not valid base64/],
    [[{ operation: 'rename_page', page: 'faq' }], /changes\[0\]: unknown operation "rename_page"/],
    [[{ operation: 'insert_page', document: {} }, { operation: 'delete_page', page: 'faq' }, { operation: 'delete_page', page: 'faq' }], /changes\[2\]: page: no page 'faq'/],
  ])('rejects %j', (changes, pattern) => {
    rejects(changes, pattern)
  })

  it('reports the index of the failing change', () => {
    const error = rejects([{ operation: 'insert_page', document: {} }, { operation: 'delete_page', page: 'nope' }], /changes\[1\]/)
    expect(error.changeIndex).toBe(1)
  })

  it('infers a missing content type from the name', () => {
    const result = applyContentChanges(sampleTree(), [{ operation: 'insert_files', files: [{ name: 'notes.pdf', base64: 'AAAA' }] }], env())
    expect(result.insertedFiles[0]).toMatchObject({ name: 'notes.pdf', contentType: 'application/pdf', size: 3 })
  })
})

describe('JSON documents', () => {
  it('keep their first heading as a heading, not the title', () => {
    const document = {
      object: 'document' as const,
      data: {},
      nodes: [
        { object: 'block' as const, type: 'heading-1' as const, data: {}, nodes: [{ object: 'text' as const, leaves: [{ object: 'leaf' as const, text: 'Section', marks: [] }] }] },
        { object: 'block' as const, type: 'paragraph' as const, nodes: [{ object: 'text' as const, leaves: [{ object: 'leaf' as const, text: 'Text', marks: [] }] }] },
      ],
    }
    const result = applyContentChanges(sampleTree(), [{ operation: 'insert_page', title: 'Page', document: { document } }], env())
    expect(findPage(result.tree, 'new1')?.title).toBe('Page')
    expect(bodyOf(result, 'new1')).toBe('# Section\n\nText')
  })

  it('reject malformed documents', () => {
    rejects([{ operation: 'insert_page', document: { document: { object: 'document', nodes: [null] } } }], /not a valid JSON document/)
  })
})
