import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { main } from '../../src/main/cli/main'
import { UsersRepository } from '../../src/main/service/store/users'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import { mainRevision, openChangeRequestMarkdown, openChangeRequests, pageIdAt, pagesOf, seedSpace, tempDir, type SeededSpace } from '../engine/sync-up/support/workspace'
import { until } from '../support/until'

/**
 * The app's backend runs the same engine as `quire watch` (issue 11): its watcher pushes a save without
 * a timed pass, every action goes through the outbox (offline it waits, then goes out once), reads fall
 * back to the cache's mirrors, a local rename is held like the CLI holds it, and a refused token says
 * "signed out" everywhere, `quire status` included.
 */

process.env.QUIRE_TOKEN_STORE = 'file'

const t = restartableServiceForFile()
const noDesktop: DesktopActions = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }

let dataDir: string
let workspace: string
let backend: QuireBackend
let seeded: SeededSpace
let folder: string

const pageIdOf = (p: string) => pageIdAt(t.api, seeded.spaceId, p)
const crMarkdown = (pageId: string) => openChangeRequestMarkdown(t.api, seeded.spaceId, pageId)

beforeAll(async () => {
  seeded = await seedSpace(t)
  dataDir = tempDir('quire-app-session-')
  workspace = path.join(dataDir, 'docs')
  backend = await QuireBackend.open({ dataDir, desktop: noDesktop, autoSync: false, debounceMs: 100, gateway: { maxAttempts: 1, timeoutMs: 5000 } })
  await backend.updateSettings({ workspace })
  await backend.signIn({ endpoint: t.service.origin, token: t.service.token })
  await backend.listSpaces()
  await backend.setSelection({ kind: 'space', id: seeded.spaceId, selected: true })
  await backend.idle()
  folder = path.join(workspace, 'Acme', 'Docs')
})

afterAll(async () => {
  await backend?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('the app backend drives the workspace session', () => {
  it('a save reaches the change request through the watcher, with no timed pass and no Sync now', async () => {
    expect(fs.readFileSync(path.join(folder, 'faq.md'), 'utf8')).toContain('# FAQ')
    const install = await pageIdOf('guide/install.md')
    fs.writeFileSync(path.join(folder, 'guide', 'install.md'), '# Install\n\nSaved in the editor.\n')
    const markdown = await until(async () => ((await crMarkdown(install))?.includes('Saved in the editor.') ? 'yes' : undefined), 'the save to reach the change request')
    expect(markdown).toBe('yes')
    await backend.idle()
    expect((await openChangeRequests(t.api, seeded.spaceId)).length).toBe(1)
  })

  it('a local rename while the space moved on: after one app cycle the old file is not back and no page is added', async () => {
    const faq = await pageIdOf('faq.md')
    const before = pagesOf(await mainRevision(t.api, seeded.spaceId)).size
    // Someone else edits another page: main moves on.
    const other = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Other' } })).body
    await t.api.call('updateChangeRequestContent', {
      params: { spaceId: seeded.spaceId, changeRequestId: other.id },
      body: { changes: [{ operation: 'update_page', page: await pageIdOf('getting-started.md'), document: { markdown: '# Getting started\n\nRead this twice.\n' } }] },
    })
    await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: other.id } })

    fs.renameSync(path.join(folder, 'faq.md'), path.join(folder, 'questions.md'))
    await backend.syncNow()
    await backend.idle()
    expect(fs.existsSync(path.join(folder, 'faq.md'))).toBe(false)
    expect(fs.readFileSync(path.join(folder, 'getting-started.md'), 'utf8')).toContain('Read this twice.')
    const [cr] = await openChangeRequests(t.api, seeded.spaceId)
    const inCr = pagesOf((await t.api.call('getRevisionOfChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id } })).body)
    expect(inCr.size).toBe(before)
    expect(inCr.get(faq)?.slug).toBe('questions')
  })

  it('offline, comments, replies, resolves and a merge wait in the outbox; reads come from the cache; each goes out once when the service is back', async () => {
    const install = await pageIdOf('guide/install.md')
    const thread = await backend.postComment({ spaceId: seeded.spaceId, pageId: install, markdown: 'Posted online.' })
    expect(thread.waiting).toBeUndefined()
    const [cr] = await backend.listChangeRequests({ spaceId: seeded.spaceId, mine: true })
    expect(cr.asOf).toBeUndefined()

    await t.stop()
    const posted = await backend.postComment({ spaceId: seeded.spaceId, pageId: install, markdown: 'Posted offline.' })
    expect(posted.waiting).toMatch(/cannot be reached/)
    const replied = await backend.replyToComment({ spaceId: seeded.spaceId, commentId: thread.id, markdown: 'Replied offline.' })
    expect(replied).toMatchObject({ id: thread.id, waiting: expect.any(String) })
    const resolved = await backend.resolveComment({ spaceId: seeded.spaceId, commentId: thread.id })
    expect(resolved.waiting).toBeDefined()
    const merging = await backend.mergeChangeRequest({ spaceId: seeded.spaceId, changeRequestId: cr.id })
    expect(merging).toMatchObject({ id: cr.id, waiting: expect.any(String) })

    const listed = await backend.listChangeRequests({ spaceId: seeded.spaceId })
    expect(listed.map((c) => c.id)).toContain(cr.id)
    expect(listed.every((c) => c.asOf !== undefined)).toBe(true)
    const threads = await backend.listComments({ spaceId: seeded.spaceId, pageId: install })
    expect(threads.find((th) => th.id === thread.id)?.asOf).toBeDefined()
    expect((await backend.getStatus()).spaces[0].state).toBe('offline')

    await t.start()
    await backend.syncNow()
    await backend.idle()
    await backend.syncNow() // a second cycle sends nothing again
    await backend.idle()
    const comments = (await t.api.call('listCommentsInSpace', { params: { spaceId: seeded.spaceId }, query: { status: 'all', format: 'markdown' } })).body.items as Array<{ id: string; body: { markdown: string }; status: string }>
    expect(comments.filter((c) => c.body.markdown === 'Posted offline.')).toHaveLength(1)
    expect(comments.filter((c) => c.body.markdown === 'Posted online.')).toHaveLength(1)
    expect(comments.find((c) => c.id === thread.id)?.status).toBe('resolved')
    const replies = (await t.api.call('listCommentRepliesInSpace', { params: { spaceId: seeded.spaceId, commentId: thread.id }, query: { format: 'markdown' } })).body.items as Array<{ body: { markdown: string } }>
    expect(replies.map((r) => r.body.markdown)).toEqual(['Replied offline.'])
    expect((await t.api.call('getChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id } })).body.status).toBe('merged')
    expect(fs.readFileSync(path.join(folder, 'guide', 'install.md'), 'utf8')).toContain('Saved in the editor.')
    // The watcher may still push once after the pass's own writes (a moment of "syncing"): wait for the state to settle.
    await until(async () => ((await backend.getStatus()).spaces[0].state === 'synced' ? true : undefined), 'the space to be synced')
  })

  it('a refused token makes every space signed out: in the status, the session, and quire status, never "in sync"', async () => {
    t.service.store.repo(UsersRepository).revokeToken(t.service.token)
    await backend.syncNow()
    await backend.idle()
    const status = await backend.getStatus()
    expect(status.overall).toBe('signed-out')
    expect(status.spaces.map((s) => s.state)).toEqual(['signed-out'])
    expect(status.spaces[0].lastError).toMatch(/sign in again/)
    expect((await backend.getSession()).authError).toMatch(/refused the token/)

    const out: string[] = []
    process.env.QUIRE_HOME = dataDir
    try {
      // Signed out is a state to act on: quire status exits 1 and says to run quire login (issue 12).
      expect(await main(['status'], { out: (l) => out.push(l), err: () => {}, isTTY: false })).toBe(1)
    } finally {
      delete process.env.QUIRE_HOME
    }
    expect(out.join('\n')).toMatch(/Acme\/Docs: signed out: .*refused the token.*; sign in again/)
    expect(out.join('\n')).not.toMatch(/in sync/)
  })
})
