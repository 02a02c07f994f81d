import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import { AppError } from '../../src/main/app/errors'
import type { QuireEvent, ReviewNews } from '../../src/shared/contract'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { grant } from '../support/content-fixtures'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import { seedSpace, tempDir } from '../engine/sync-up/support/workspace'
import { trayMenuTemplate, trayStateLabel } from '../../src/main/shell/tray-menu'
import { notificationsFor } from '../../src/main/shell/notification-rules'
import { snapshot, space, status, writer as writerSession } from '../shell/fixtures'

/**
 * The review workflow through the app backend (issue 13), two people on the real local service: the
 * writer submits and asks the reviewer; the reviewer's "For review" list and tray count show it; a review
 * made while the service is down waits in the outbox (the answer says so) and goes out exactly once when
 * the service is back; the writer is told of it (a `review` event) and sees the verdict.
 */

process.env.QUIRE_TOKEN_STORE = 'file'
const t = restartableServiceForFile()

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (ok(value)) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function cycle(backend: QuireBackend) {
  await backend.requestPass(true)
  await backend.idle()
}

describe('the review workflow through the app backend', () => {
  const dir = tempDir('quire-app-review-')
  const opened: QuireBackend[] = []
  let spaceId: string
  let writer: QuireBackend
  let reviewer: QuireBackend
  let reviewerId: string
  const writerEvents: QuireEvent[] = []

  async function open(name: string, token: string): Promise<QuireBackend> {
    const backend = await QuireBackend.open({ dataDir: path.join(dir, name), autoSync: false, watch: false, gateway: { maxAttempts: 1, timeoutMs: 5000 } })
    opened.push(backend)
    await backend.signIn({ endpoint: t.service.origin, token })
    await backend.updateSettings({ workspace: path.join(dir, `${name}-workspace`) })
    await backend.listSpaces()
    await backend.setSelection({ kind: 'space', id: spaceId, selected: true })
    await cycle(backend)
    return backend
  }

  beforeAll(async () => {
    const seeded = await seedSpace(t)
    spaceId = seeded.spaceId
    const person = t.service.createUser({ displayName: 'Rae Reviewer', email: 'rae@example.com' })
    reviewerId = person.id
    t.service.store.repo(OrganizationsRepository).setMember(seeded.orgId, person.id, null)
    grant(t.service, spaceId, person.id, 'review')
    writer = await open('writer', t.service.token)
    writer.onEvent((e) => writerEvents.push(e))
    reviewer = await open('reviewer', person.token)
  })

  afterAll(async () => {
    if (!t.running) await t.start()
    for (const backend of opened) await backend.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('submit asking the reviewer; the reviewer sees it; a review made offline waits and goes out once; the writer is told', async () => {
    const folder = (await writer.getStatus()).spaces[0].folder!
    fs.writeFileSync(path.join(folder, 'guide', 'install.md'), '# Install\n\nA first draft from the writer.\n')
    await cycle(writer)
    const [cr] = await writer.listChangeRequests({ mine: true })
    expect(cr.status).toBe('draft')

    // Reviewers are picked from the space's members (review role or above, the writer left out).
    expect(await writer.listReviewerCandidates({ spaceId })).toEqual([{ userId: reviewerId, name: 'Rae Reviewer', role: 'review' }])
    const submitted = await writer.submitForReview({ spaceId, changeRequestId: cr.id, description: 'Please look at the installer.', reviewers: [reviewerId] })
    expect(submitted).toMatchObject({ id: cr.id, status: 'open' })
    expect(submitted.waiting).toBeUndefined()
    expect(await writer.listReviewers({ spaceId, changeRequestId: cr.id })).toEqual([{ userId: reviewerId, name: 'Rae Reviewer', requested: true }])

    const waiting = await reviewer.listForReview()
    expect(waiting.asOf).toBeUndefined()
    expect(waiting.items).toMatchObject([{ id: cr.id, spaceId, number: cr.number, author: 'Quire Owner' }])
    expect((await reviewer.getStatus()).forReview).toBe(1)

    // Bad input is refused before anything is queued.
    await expect(reviewer.reviewChangeRequest({ spaceId, changeRequestId: cr.id, verdict: 'maybe' as never })).rejects.toBeInstanceOf(AppError)

    // The writer's first look after a pass is history: no news yet.
    await cycle(writer)
    await until('the writer to look', async () => writer.getStatus(), (s) => s.forReview !== undefined)

    await t.stop()
    const queued = await reviewer.reviewChangeRequest({ spaceId, changeRequestId: cr.id, verdict: 'changes-requested', comment: 'Say which **version**.' })
    expect(queued).toMatchObject({ id: cr.id })
    expect(queued.waiting).toBeTruthy()
    const offline = await reviewer.listForReview()
    expect(offline.asOf).toBeTruthy()
    expect(offline.items.map((i) => i.id)).toEqual([cr.id])
    expect((await reviewer.listActivity()).at(-1)?.message).toMatch(/^Queued: .*not sent yet/)
    // The queued review is counted for its space while offline (header, tray, CLI read the same state).
    expect((await reviewer.getStatus()).spaces.find((s) => s.id === spaceId)).toMatchObject({ state: 'offline', pending: 1 })

    await t.start()
    const reviewsOn = async () => (await t.api.call('getReviewsByChangeRequestId', { params: { spaceId, changeRequestId: cr.id } })).body.items as Array<{ status: string }>
    expect(await reviewsOn()).toEqual([])
    await cycle(reviewer)
    await cycle(reviewer) // a second cycle sends nothing more
    expect((await reviewsOn()).map((r) => r.status)).toEqual(['changes-requested'])
    await until('the delivery in Activity', () => reviewer.listActivity(), (a) => a.some((e) => e.message === 'Delivered the changes queued for Docs: the service has them all'))
    expect((await reviewer.listForReview()).items).toEqual([])
    await until('the tray count to drop', () => reviewer.getStatus(), (s) => s.forReview === 0)

    const verdicts = await writer.listReviewers({ spaceId, changeRequestId: cr.id })
    expect(verdicts).toMatchObject([{ userId: reviewerId, requested: true, verdict: 'changes-requested', outdated: false, comment: expect.stringContaining('version') }])

    // After the writer's next pass, the review arrives as news, once.
    await cycle(writer)
    const news = () => writerEvents.flatMap((e): ReviewNews[] => (e.type === 'review' ? [e.news] : []))
    await until('the review news', async () => news(), (n) => n.length > 0)
    expect(news()).toMatchObject([{ kind: 'review-received', changeRequestId: cr.id, title: 'Rae Reviewer asks for changes' }])
    await cycle(writer)
    await writer.idle()
    expect(news()).toHaveLength(1)
  })
})

describe('the tray and the desktop notifications tell of reviews', () => {
  const noop = () => undefined
  const actions = { syncNow: noop, setPaused: noop, openWorkspaceFolder: noop, openInBrowser: noop, showBrokenLinks: noop, openQuire: noop, quit: noop }

  it('the tray shows the count of change requests waiting for the user, once it is known, and opens For review', () => {
    const shown: string[] = []
    const view = { session: writerSession, status: status([space('a', 'synced')], { forReview: 2 }) }
    const menu = trayMenuTemplate(view, { ...actions, showForReview: () => shown.push('for-review') })
    const entry = menu.find((m) => m.id === 'for-review')!
    expect(entry).toMatchObject({ label: 'For review: 2', enabled: true })
    ;(entry.click as () => void)()
    expect(shown).toEqual(['for-review'])
    expect(trayStateLabel(view)).toBe('In sync · 2 for review')
    expect(trayMenuTemplate({ session: writerSession, status: status([space('a', 'synced')], { forReview: 0 }) }, actions).find((m) => m.id === 'for-review')).toMatchObject({ enabled: false })
    expect(trayMenuTemplate({ session: writerSession, status: status([space('a', 'synced')]) }, actions).some((m) => m.id === 'for-review')).toBe(false)
  })

  it('review news from the backend becomes a notification that opens the right screen', () => {
    const news = { kind: 'review-requested' as const, key: 'review-requested:cr1', title: 'Quire Owner asks for your review', body: '#3 Install in Docs', spaceId: 's', changeRequestId: 'cr1' }
    const received = { ...news, kind: 'review-received' as const, key: 'review-received:cr2:u:t', title: 'Rae approved your change request' }
    const out = notificationsFor(snapshot(), snapshot(), [
      { type: 'review', news },
      { type: 'review', news: received },
    ])
    expect(out).toEqual([
      { kind: 'review-requested', key: news.key, title: news.title, body: news.body, open: { kind: 'screen', screen: 'for-review' } },
      { kind: 'review-received', key: received.key, title: received.title, body: received.body, open: { kind: 'screen', screen: 'change-requests' } },
    ])
  })
})
