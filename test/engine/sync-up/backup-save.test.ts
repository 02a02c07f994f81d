import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { DELETION_QUIET_MS } from '../../../src/main/engine/push/push-types'
import { until } from '../../support/until'
import { AppWorkstation } from './support/app-workstation'
import { serviceForFile } from './support/hooks'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, pageIdAt, remoteOf, seedSpace, tempDir } from './support/workspace'

/**
 * Issue 24, item 2, through the app's backend (QuireBackend, its session and watcher running): an
 * editor's backup-save renames `faq.md` to `faq.md~` and writes a new `faq.md` a moment later. A push
 * that lands between the two (the watcher's push of another save, the interval's cycle) must not send
 * the deletion: a removal waits for the quiet interval (the product's default, 2 s), the state says an
 * edit is pending meanwhile, and the session pushes again when the interval is over. The result is one
 * update_page of the same page.
 */

process.env.QUIRE_TOKEN_STORE = 'file'
const t = serviceForFile()
let app: AppWorkstation | undefined
let dataDir: string | undefined
afterEach(async () => {
  await app?.close()
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  app = undefined
  dataDir = undefined
})

describe('an editor backup-save with the app watching', () => {
  it('is an edit of the same page: no delete_page, no insert_page; the state is pending, not in sync, while the removal waits', async () => {
    const seeded = await seedSpace(t)
    dataDir = tempDir('quire-backup-save-')
    app = await AppWorkstation.open(remoteOf(t), seeded, dataDir, { maxAttempts: 2, timeoutMs: 10_000 }, (work) => work(), {
      watch: true,
      debounceMs: 100,
      deletionQuietMs: DELETION_QUIET_MS,
    })
    const session = app.session
    await session.syncNow() // mirrors the space and starts the watcher
    const faq = await pageIdAt(t.api, seeded.spaceId, 'faq.md')
    const page = app.file('faq.md')

    fs.renameSync(page, `${page}~`)
    // A push runs in the gap between the rename and the new file (as the watcher's push of another save would).
    await session.push(seeded.spaceId)
    expect(session.state(seeded.spaceId).kind).toBe('pending')
    fs.writeFileSync(page, '# FAQ\n\nQuestions.\n\nSaved by an editor that keeps a backup.\n')
    fs.rmSync(`${page}~`)

    const diff = await until(async () => {
      const [cr] = await openChangeRequests(t.api, seeded.spaceId)
      if (!cr) return undefined
      const d = changedPages(await mainRevision(t.api, seeded.spaceId), await changeRequestRevision(t.api, seeded.spaceId, cr.id))
      return d.changed.length + d.added.length + d.removed.length > 0 ? d : undefined
    }, 'the edit to reach a change request')
    expect(diff).toEqual({ changed: [faq], added: [], removed: [] })
    await session.settled()
    const operations = app.outbox
      .ops(seeded.spaceId, 1000)
      .flatMap((op) => (op.kind === 'content' ? (op.payload.changes as Array<{ operation: string }>).map((c) => c.operation) : []))
    expect(operations).toEqual(['update_page'])
    await until(() => (session.state(seeded.spaceId).kind === 'pending' ? undefined : true), 'the state to leave pending')
  })
})
