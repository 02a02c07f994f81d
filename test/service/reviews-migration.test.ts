import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/main/db/open-database'
import { serviceMigrations } from '../../src/main/service/store/migrations'
import { ApiClient } from '../support/service'
import { startLocalService } from '../../src/main/service/local-service'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

/**
 * A service database written before reviews existed (schema version 4): requested reviewers were a JSON
 * list on the change request and contributors had no edit count. Opening it with this version keeps both.
 */
function version4Database(dir: string) {
  const db = openDatabase(path.join(dir, 'service.db'), serviceMigrations.slice(0, 4))
  const at = '2025-01-02T03:04:05.000Z'
  const user = db.prepare('INSERT INTO users (id, display_name, email, created_at) VALUES (?, ?, ?, ?)')
  user.run('owner', 'Owner', 'owner@example.com', '2025-01-01T00:00:00.000Z')
  user.run('rev', 'Reviewer', 'rev@example.com', at)
  db.prepare('INSERT INTO organizations (id, title, created_at) VALUES (?, ?, ?)').run('org', 'Org', at)
  db.prepare('INSERT INTO org_members (org_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)').run('org', 'owner', 'admin', at)
  db.prepare('INSERT INTO spaces (id, org_id, title, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?, ?)').run(
    'space',
    'org',
    'Space',
    at,
    at,
    JSON.stringify({ visibility: 'private', editMode: 'live', mergeRules: { type: 'inherit' } }),
  )
  const cr = db.prepare(
    `INSERT INTO change_requests (id, space_id, number, status, subject, created_by, created_at, updated_at, revision_id, revision_initial,
       revision_merged_ancestor, data) VALUES (?, 'space', ?, 'open', ?, 'owner', ?, ?, 'r1', 'r0', 'r0', ?)`,
  )
  cr.run('cr1', 1, 'Asked', at, at, JSON.stringify({ requestedReviewers: ['rev', 'gone'], links: [] }))
  cr.run('cr2', 2, 'Not asked', at, at, '{}')
  db.prepare('INSERT INTO change_request_contributors (change_request_id, user_id) VALUES (?, ?)').run('cr1', 'owner')
  db.close()
}

describe('schema version 5 (reviews)', () => {
  it('moves requested reviewers into their own rows and gives old contributors one edit', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-reviews-migration-'))
    dirs.push(dir)
    version4Database(dir)
    const service = await startLocalService({ dataDir: dir, port: 0, validateResponses: true })
    try {
      const api = new ApiClient(service.baseUrl, service.token)
      const params = { spaceId: 'space', changeRequestId: 'cr1' }
      const requested = await api.call('getRequestedReviewersByChangeRequestId', { params })
      expect(requested.body.items).toEqual([
        expect.objectContaining({ user: expect.objectContaining({ id: 'rev' }), requestedBy: expect.objectContaining({ id: 'owner' }), revision: 'r1' }),
      ])
      const filtered = await api.call('listChangeRequestsForSpace', { params: { spaceId: 'space' }, query: { requestedReviewer: 'rev' } })
      expect(filtered.body.items.map((c: { id: string }) => c.id)).toEqual(['cr1'])
      const contributors = await api.call('getContributorsByChangeRequestId', { params })
      expect(contributors.body.items).toEqual([{ user: expect.objectContaining({ id: 'owner' }), count: 1, updatedAt: '2025-01-02T03:04:05.000Z', actionType: 'edit' }])
      const data = service.store.db.prepare("SELECT data FROM change_requests WHERE id = 'cr1'").pluck().get() as string
      expect(JSON.parse(data)).toEqual({ links: [] })
    } finally {
      await service.close()
    }
  })
})
