/**
 * Schema version 7: `revision_nodes` moves from a WITHOUT ROWID table to one with rowids (see the
 * migration for why). A database written at version 6 reads back every revision as it was stored, and
 * its nodes stay shared by the writes that follow.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { applyContentChanges, gitBlobOid, type RevisionTree } from '../../src/main/content'
import { openDatabase } from '../../src/main/db/open-database'
import { openServiceDatabase } from '../../src/main/service/store/database'
import { newId } from '../../src/main/service/store/ids'
import { serviceMigrations } from '../../src/main/service/store/migrations'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { RevisionsRepository, createSpaceRevision } from '../../src/main/service/store/revisions'
import { ServiceStore } from '../../src/main/service/store/service-store'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { UsersRepository } from '../../src/main/service/store/users'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const NOW = '2025-01-02T03:04:05.000Z'

const nodeRows = (store: ServiceStore) => (store.db.prepare('SELECT count(*) AS n FROM revision_nodes').get() as { n: number }).n
const tableSql = (store: ServiceStore) => (store.db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'revision_nodes'").get() as { sql: string }).sql

describe('schema version 7 (revision nodes with rowids)', () => {
  it('reads back the revisions a version 6 database stored, and shares their nodes with new writes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-revision-nodes-migration-'))
    dirs.push(dir)
    const file = path.join(dir, 'service.db')

    // Written at version 6: a space of sections with bodies and files, and an edit of it.
    const old = new ServiceStore(openDatabase(file, serviceMigrations.slice(0, 6)))
    expect(tableSql(old)).toMatch(/WITHOUT ROWID/i)
    const owner = old.repo(UsersRepository).create({ displayName: 'Owner', email: 'owner@example.com' })
    const orgId = old.repo(OrganizationsRepository).create({ title: 'Org', owner: owner.id }).id
    const spaceId = old.repo(SpacesRepository).create({ orgId, title: 'Space' }).id
    const blobs = new Map<string, Uint8Array>()
    const blob = (text: string) => {
      blobs.set(gitBlobOid(text), new TextEncoder().encode(text))
      return gitBlobOid(text)
    }
    const page = (id: string, pages: RevisionTree['pages'] = []) => ({ id, type: 'document' as const, title: id, slug: id, metadata: {}, createdAt: NOW, updatedAt: NOW, bodyOid: blob(`Body of ${id}.\n`), pages })
    const tree: RevisionTree = {
      pages: [page('home'), page('guide', [page('install'), page('usage')]), page('faq')],
      files: Array.from({ length: 150 }, (_, i) => ({ id: `file${i}`, name: `image-${i}.png`, contentType: 'image/png', size: 6, blobOid: blob(`png ${i}`), createdAt: NOW })),
    }
    const first = createSpaceRevision(old, spaceId, tree, blobs, [])
    const edit = applyContentChanges(first.tree, [{ operation: 'update_page', page: 'usage', document: { markdown: '# Usage\n\nEdited.\n' } }], { newId, now: NOW })
    const second = old.repo(RevisionsRepository).create({ spaceId, parents: [first.id], tree: edit.tree, blobs: edit.blobs })
    const nodesAt6 = nodeRows(old)
    old.close()

    const store = new ServiceStore(openServiceDatabase(file))
    try {
      expect(store.db.pragma('user_version', { simple: true })).toBe(7)
      expect(tableSql(store)).not.toMatch(/WITHOUT ROWID/i)
      expect(nodeRows(store)).toBe(nodesAt6)
      const revisions = store.repo(RevisionsRepository)
      expect(structuredClone(revisions.get(first.id)?.tree)).toEqual(structuredClone(first.tree))
      expect(structuredClone(revisions.get(second.id)?.tree)).toEqual(structuredClone(second.tree))

      // A write after the migration stores only its new nodes: the page, its parent and the root.
      const head = revisions.get(second.id)!
      const next = applyContentChanges(head.tree, [{ operation: 'update_page', page: 'install', document: { markdown: '# Install\n\nEdited.\n' } }], { newId, now: NOW })
      const third = revisions.create({ spaceId, parents: [head.id], tree: next.tree, blobs: next.blobs })
      expect(nodeRows(store) - nodesAt6).toBe(3)
      expect(revisions.get(third.id)?.tree.pages[1].pages[0].bodyOid).toBe(next.tree.pages[1].pages[0].bodyOid)
    } finally {
      store.close()
    }
  })
})
