import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { quirePaths } from '../../src/main/engine/account/account'
import { CacheRepository } from '../../src/main/engine/cache/cache-repository'
import { openCacheDatabase } from '../../src/main/engine/cache/open-cache'
import { OutboxRepository } from '../../src/main/engine/outbox/outbox-repository'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, pageIdAt, type SeededSpace } from '../engine/sync-up/support/workspace'
import { until } from '../support/until'
import { mirroredSeededSpace, quire, quireHomeForFile } from './support/cli-home'

/**
 * Issue 24, item 2, through `quire watch`: an editor's backup-save (`faq.md` renamed to `faq.md~`, the
 * new `faq.md` written a moment later) while `quire watch --once` runs. Its push finds the file missing
 * and must not send a deletion: the removal waits for the quiet interval (2 s by default), the run
 * pushes again when it is over, and by then the new file is there: one edit of the same page.
 */

const t = serviceForFile()
const home = quireHomeForFile('quire-backup-watch-')
let seeded: SeededSpace
let folder: string

beforeAll(async () => {
  ;({ seeded, folder } = await mirroredSeededSpace(t, home))
})

describe('quire watch and an editor backup-save', () => {
  it('sends an edit of the same page, no deletion and no new page', async () => {
    const faq = await pageIdAt(t.api, seeded.spaceId, 'faq.md')
    const page = path.join(folder, 'faq.md')
    fs.renameSync(page, `${page}~`)
    let finished = false
    const run = quire('watch', '--once').finally(() => (finished = true))
    // The run's push has seen the file missing (it keeps when, for the quiet interval) or the run is over.
    const db = openCacheDatabase(quirePaths().cacheFile)
    try {
      const cache = new CacheRepository(db)
      await until(() => (finished || cache.setting(`missing_since:${seeded.spaceId}`) ? true : undefined), 'the push to see the file missing')
    } finally {
      db.close()
    }
    fs.writeFileSync(page, '# FAQ\n\nQuestions.\n\nSaved with a backup.\n')
    const watched = await run
    expect(watched.code, watched.err).toBe(0)
    expect(watched.out).not.toMatch(/delet/i)
    const [cr] = await openChangeRequests(t.api, seeded.spaceId)
    expect(changedPages(await mainRevision(t.api, seeded.spaceId), await changeRequestRevision(t.api, seeded.spaceId, cr.id))).toEqual({ changed: [faq], added: [], removed: [] })
    const check = openCacheDatabase(quirePaths().cacheFile)
    try {
      const ops = new OutboxRepository(check).ops(seeded.spaceId, 1000)
      expect(ops.flatMap((op) => (op.kind === 'content' ? (op.payload.changes as Array<{ operation: string }>).map((c) => c.operation) : []))).toEqual(['update_page'])
    } finally {
      check.close()
    }
  })
})
