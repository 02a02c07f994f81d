/**
 * Revision trees stored as content-addressed nodes (store/revision-nodes.ts, issue 16): what is read
 * back, by another store over the same file, equals what was stored; a small edit stores a few nodes
 * and shares the rest; a revision rolled back leaves nothing the store would later take as stored; rows
 * from before the nodes (the whole tree in `revisions.tree`) still read.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { applyContentChanges, gitBlobOid, type ContentChange, type RevisionTree } from '../../src/main/content'
import { openServiceDatabase } from '../../src/main/service/store/database'
import { newId } from '../../src/main/service/store/ids'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { RevisionsRepository, createSpaceRevision } from '../../src/main/service/store/revisions'
import { ServiceStore } from '../../src/main/service/store/service-store'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { UsersRepository } from '../../src/main/service/store/users'
import { revisionBuilder } from './support/built-revision'

const nodeRows = (store: ServiceStore) => (store.db.prepare('SELECT count(*) AS n FROM revision_nodes').get() as { n: number }).n

describe('revision trees stored as nodes', () => {
  let dir: string
  let file: string
  let store: ServiceStore
  let spaceId: string

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-revision-nodes-'))
    file = path.join(dir, 'service.db')
    store = new ServiceStore(openServiceDatabase(file))
    const owner = store.repo(UsersRepository).create({ displayName: 'Owner', email: 'owner@example.com' })
    const org = store.repo(OrganizationsRepository).create({ title: 'Org', owner: owner.id })
    spaceId = store.repo(SpacesRepository).create({ orgId: org.id, title: 'Space' }).id
  })
  afterEach(() => {
    store.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  /** A space of `sections` sections of 5 pages, `files` files, tags and a reusable content. */
  function seed(sections: number, files: number): { tree: RevisionTree; blobs: Map<string, Uint8Array> } {
    const built = revisionBuilder(store)
    for (let s = 0; s < sections; s++) {
      built.apply(Array.from({ length: 5 }, (_, k): ContentChange => {
        const document = { markdown: `---\ndescription: Page ${s}.${k}\n---\n\n# Page ${s}.${k}\n\nText ${s} ${k}.\n` }
        return k === 0 ? { operation: 'insert_page', ref: 'top', document } : { operation: 'insert_page', into: 'top', document }
      }))
    }
    for (let i = 0; i < files; i += 20) {
      built.apply([{ operation: 'insert_files', files: Array.from({ length: Math.min(20, files - i) }, (_, k) => ({ name: `f-${i + k}.txt`, base64: Buffer.from(`file ${i + k}`).toString('base64') })) }])
    }
    const include = 'An include.\n'
    built.blobs.set(gitBlobOid(include), new TextEncoder().encode(include))
    const tree = { ...built.tree, tags: [{ slug: 'tag', label: 'Tag', color: 'default' }], reusableContents: [{ id: 'rc-1', title: 'Include', slug: 'include', blobOid: gitBlobOid(include) }] }
    return { tree, blobs: built.blobs }
  }

  it('reads back, in another store over the same file, the tree it stored', () => {
    const { tree, blobs } = seed(6, 300)
    const first = createSpaceRevision(store, spaceId, tree, blobs, [])
    expect(first.tree).toEqual(JSON.parse(JSON.stringify(tree)))
    const head = store.repo(RevisionsRepository).get(first.id)!
    const edited = applyContentChanges(head.tree, [{ operation: 'update_page', page: head.tree.pages[3].pages[2].id, document: { markdown: '# Changed\n\nNew text.\n' } }], { newId, now: store.now() })
    const second = createSpaceRevision(store, spaceId, edited.tree, edited.blobs, [first.id])
    store.close()

    store = new ServiceStore(openServiceDatabase(file))
    const revisions = store.repo(RevisionsRepository)
    expect(revisions.get(first.id)!.tree).toEqual(first.tree)
    expect(revisions.get(second.id)!.tree).toEqual(second.tree)
    expect(revisions.get(second.id)!.tree.pages[3].pages[2].title).toBe('Changed')
    expect(revisions.get(first.id)!.tree.pages[3].pages[2].title).toBe('Page 3.3')
  })

  it('stores the changed page, its parent and the root for a small edit, and shares the rest', () => {
    const { tree, blobs } = seed(20, 1000)
    const first = createSpaceRevision(store, spaceId, tree, blobs, [])
    const before = nodeRows(store)
    let head = store.repo(RevisionsRepository).get(first.id)!
    for (let i = 0; i < 5; i++) {
      const edited = applyContentChanges(head.tree, [{ operation: 'update_page', page: head.tree.pages[7].pages[1].id, document: { markdown: `# Edit ${i}\n` } }], { newId, now: store.now() })
      // Unchanged pages and the file list are the parent's own objects.
      expect(edited.tree.pages[8]).toBe(head.tree.pages[8])
      expect(edited.tree.files).toBe(head.tree.files)
      head = createSpaceRevision(store, spaceId, edited.tree, edited.blobs, [head.id])
    }
    expect(nodeRows(store) - before).toBe(5 * 3)
    expect(store.repo(RevisionsRepository).get(head.id)!.tree.pages[7].pages[1].title).toBe('Edit 4')
  })

  it('takes nothing a rolled-back revision wrote as stored', () => {
    const { tree, blobs } = seed(3, 40)
    const first = createSpaceRevision(store, spaceId, tree, blobs, [])
    const head = store.repo(RevisionsRepository).get(first.id)!
    const edited = applyContentChanges(head.tree, [{ operation: 'update_page', page: head.tree.pages[1].id, document: { markdown: '# Rolled back\n' } }], { newId, now: store.now() })
    let rolledBack: RevisionTree | undefined
    expect(() =>
      store.transaction(() => {
        rolledBack = createSpaceRevision(store, spaceId, edited.tree, edited.blobs, [first.id]).tree
        throw new Error('abort')
      }),
    ).toThrow('abort')
    // The same objects stored again: every node must be written again, not assumed to be there.
    const again = createSpaceRevision(store, spaceId, rolledBack!, edited.blobs, [first.id])
    store.close()
    store = new ServiceStore(openServiceDatabase(file))
    expect(store.repo(RevisionsRepository).get(again.id)!.tree.pages[1].title).toBe('Rolled back')
  })

  it('reads a revision stored whole, as before the nodes, and stores its child as nodes', () => {
    const { tree, blobs } = seed(2, 10)
    store.repo(RevisionsRepository).putBlobs(blobs)
    store.db
      .prepare(`INSERT INTO revisions (id, space_id, parents, tree, type, message, created_by, created_at) VALUES ('old', ?, '[]', ?, 'edits', NULL, NULL, ?)`)
      .run(spaceId, JSON.stringify(tree), store.now())
    const old = store.repo(RevisionsRepository).get('old')!
    expect(old.tree).toEqual(JSON.parse(JSON.stringify(tree)))
    const edited = applyContentChanges(old.tree, [{ operation: 'delete_page', page: old.tree.pages[0].id }], { newId, now: store.now() })
    const child = createSpaceRevision(store, spaceId, edited.tree, edited.blobs, ['old'])
    store.close()
    store = new ServiceStore(openServiceDatabase(file))
    expect(store.repo(RevisionsRepository).get(child.id)!.tree.pages).toHaveLength(1)
  })

  it('refuses a tree that references a blob stored nowhere', () => {
    const { tree, blobs } = seed(1, 5)
    const first = createSpaceRevision(store, spaceId, tree, blobs, [])
    const head = store.repo(RevisionsRepository).get(first.id)!
    const edited = applyContentChanges(head.tree, [{ operation: 'update_page', page: head.tree.pages[0].id, document: { markdown: '# Missing body\n' } }], { newId, now: store.now() })
    expect(() => createSpaceRevision(store, spaceId, edited.tree, new Map(), [first.id])).toThrow(/references blob .* which is not stored/)
  })
})
