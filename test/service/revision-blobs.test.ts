/**
 * Storing a revision checks that every blob its tree references is stored (issue 16): a small edit of a
 * large space used to look up each of the space's blobs in SQLite. Blobs a parent references were
 * checked when the parent was stored, and blobs stored with the revision are there: only the rest is
 * looked up, and a blob that is nowhere is still refused.
 */
import type Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { gitBlobOid, type RevisionTree, type TreeFile } from '../../src/main/content'
import { openServiceDatabase } from '../../src/main/service/store/database'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { RevisionsRepository, createSpaceRevision } from '../../src/main/service/store/revisions'
import { ServiceStore } from '../../src/main/service/store/service-store'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { UsersRepository } from '../../src/main/service/store/users'

const FILES = 300

/** Counts the blob lookups the store makes, however it prepares them. */
function countBlobLookups(db: Database.Database): { count: number } {
  const counter = { count: 0 }
  const prepare = db.prepare.bind(db)
  db.prepare = ((sql: string) => {
    const statement = prepare(sql)
    if (/SELECT 1 FROM blobs/.test(sql)) {
      const get = statement.get.bind(statement)
      statement.get = ((...args: unknown[]) => (counter.count++, get(...args))) as typeof statement.get
    }
    return statement
  }) as typeof db.prepare
  return counter
}

const fileOf = (i: number, text: string): TreeFile => ({ id: `f${i}`, name: `image-${i}.png`, contentType: 'image/png', size: text.length, blobOid: gitBlobOid(text), createdAt: '2026-01-01T00:00:00.000Z' })

describe('storing a revision of a large space', () => {
  let store: ServiceStore | undefined
  afterEach(() => store?.close())

  it('looks up only the blobs that are new to it, and still refuses one stored nowhere', () => {
    const db = openServiceDatabase(':memory:')
    const lookups = countBlobLookups(db)
    store = new ServiceStore(db)
    const owner = store.repo(UsersRepository).create({ displayName: 'Owner', email: 'owner@example.com' })
    const org = store.repo(OrganizationsRepository).create({ title: 'Org', owner: owner.id })
    const space = store.repo(SpacesRepository).create({ orgId: org.id, title: 'Large' })

    const texts = Array.from({ length: FILES }, (_, i) => `bytes of file ${i}`)
    const blobs = new Map(texts.map((text) => [gitBlobOid(text), new TextEncoder().encode(text)]))
    const base: RevisionTree = { pages: [], files: texts.map((text, i) => fileOf(i, text)) }
    const first = createSpaceRevision(store, space.id, base, blobs, [])

    lookups.count = 0
    const added = 'one more file'
    const child: RevisionTree = { pages: [], files: [...base.files, fileOf(FILES, added)] }
    const second = createSpaceRevision(store, space.id, child, new Map([[gitBlobOid(added), new TextEncoder().encode(added)]]), [first.id])
    expect(second.tree.files).toHaveLength(FILES + 1)
    expect(lookups.count, `${lookups.count} blob lookups for a revision adding one blob`).toBeLessThanOrEqual(1)

    const missing: RevisionTree = { pages: [], files: [...child.files, fileOf(FILES + 1, 'never stored')] }
    expect(() => createSpaceRevision(store!, space.id, missing, undefined, [second.id])).toThrow(/references blob .* which is not stored/)
    expect(store.repo(RevisionsRepository).get(second.id)?.tree.files).toHaveLength(FILES + 1)
  })
})
