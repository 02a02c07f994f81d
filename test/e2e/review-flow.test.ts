import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { mainRevision, pagesOf, seedSpace, tempDir } from '../engine/sync-up/support/workspace'
import { changeRequestMarkdown, mainMarkdown, mirrorsMain, openChangeRequestOf, PAGE, runCli, until, Writer } from './support/writers'

/**
 * The review workflow end to end (issue 13): a writer running `quire watch` (a real child process, an
 * account and a Quire home of their own) and a reviewer in the app (QuireBackend, the class the Electron
 * app and `quire serve` run, signed in as another user). A merge rule asks for the reviewer's approval.
 * Edit -> submit -> the reviewer sees it in "For review" -> requests changes -> the writer edits -> the
 * review is outdated (same change request, still open) -> the reviewer approves -> the merge the rule
 * refused before goes through -> the writer's workspace follows.
 */

process.env.QUIRE_TOKEN_STORE = 'file'
const t = serviceForFile()
const noDesktop: DesktopActions = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }
const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const done of cleanup.splice(0).reverse()) await done().catch(() => {})
})

describe('review workflow: a writer in quire watch, a reviewer in the app', () => {
  it('edit, submit, changes requested, edit (review outdated), approve, merge allowed by the rule, workspace follows', { timeout: 300_000 }, async () => {
    const seeded = await seedSpace(t)
    const pageId = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === PAGE)![0]
    const orgs = t.service.store.repo(OrganizationsRepository)
    const writerUser = t.service.createUser({ displayName: 'Wanda Writer', email: 'wanda@quire.local' })
    const reviewerUser = t.service.createUser({ displayName: 'Rae Reviewer', email: 'rae@quire.local' })
    orgs.setMember(seeded.orgId, writerUser.id, 'edit')
    orgs.setMember(seeded.orgId, reviewerUser.id, 'review')
    // The space's merge rule: Rae must approve.
    const rule = await t.api.call('updateSpaceById', { params: { spaceId: seeded.spaceId }, body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [reviewerUser.id] }] } } })
    expect(rule.status).toBe(200)

    // The writer: quire login, then quire watch.
    const writer = new Writer('W', writerUser.id, tempDir('quire-e2e-review-w-'), seeded)
    cleanup.push(() => writer.remove())
    const login = await runCli(writer.home, ['login', '--endpoint', t.service.origin], { QUIRE_TOKEN: writerUser.token })
    expect(login.code, login.output).toBe(0)
    writer.startWatch(1)
    await until(() => (writer.read()?.includes('# FAQ') ? true : undefined), () => `the writer's first sync (${writer.lines.join(' | ')})`)

    // The reviewer: the app's backend, signed in as Rae, syncing the space.
    const dataDir = tempDir('quire-e2e-review-r-')
    const app = await QuireBackend.open({ dataDir, desktop: noDesktop, autoSync: false, watch: false, gateway: { maxAttempts: 2, timeoutMs: 10_000 } })
    cleanup.push(async () => {
      await app.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    })
    await app.updateSettings({ workspace: path.join(dataDir, 'docs') })
    await app.signIn({ endpoint: t.service.origin, token: reviewerUser.token })
    await app.listSpaces()
    await app.setSelection({ kind: 'space', id: seeded.spaceId, selected: true })
    await app.syncNow()
    await app.idle()

    // 1. The writer edits; quire watch opens the change request.
    writer.write('# FAQ\n\nQuestions.\n\nA first answer from the writer.\n')
    const cr = await until(
      async () => {
        const open = await openChangeRequestOf(t, seeded.spaceId, writerUser.id)
        return open && (await changeRequestMarkdown(t, seeded.spaceId, open.id, pageId)).includes('A first answer') ? open : undefined
      },
      () => `the writer's change request (${writer.lines.join(' | ')})`,
    )

    // 2. The writer submits it for review, asking Rae (queued for quire watch, which holds the workspace).
    const submit = await writer.cli(['cr', 'submit', String(cr.number), '--description', 'Please look at the answer.', '--reviewer', reviewerUser.id])
    expect(submit.code, submit.output).toBe(0)

    // 3. Rae sees it in For review.
    const waiting = await until(async () => (await app.listForReview()).items.find((item) => item.id === cr.id), () => 'the change request in For review')
    expect(waiting).toMatchObject({ spaceId: seeded.spaceId, number: cr.number })

    // 4. Rae asks for changes; merging is refused by the rule, saying why.
    await app.reviewChangeRequest({ spaceId: seeded.spaceId, changeRequestId: cr.id, verdict: 'changes-requested', comment: 'Say more, please.' })
    await expect(app.mergeChangeRequest({ spaceId: seeded.spaceId, changeRequestId: cr.id })).rejects.toThrow(/approv/i)

    // 5. The writer edits again: the review is outdated, the same change request stays open.
    writer.write('# FAQ\n\nQuestions.\n\nA first answer from the writer, now with more.\n')
    await until(async () => ((await changeRequestMarkdown(t, seeded.spaceId, cr.id, pageId)).includes('now with more') ? true : undefined), () => `the second edit to reach #${cr.number}`)
    const reviewers = await until(
      async () => {
        const list = await app.listReviewers({ spaceId: seeded.spaceId, changeRequestId: cr.id })
        return list.find((r) => r.userId === reviewerUser.id && r.outdated) ? list : undefined
      },
      () => "Rae's review to be outdated",
    )
    expect(reviewers.find((r) => r.userId === reviewerUser.id)).toMatchObject({ requested: true, verdict: 'changes-requested', outdated: true })
    expect((await openChangeRequestOf(t, seeded.spaceId, writerUser.id))?.id).toBe(cr.id)
    expect(await until(async () => (await app.listForReview()).items.find((item) => item.id === cr.id), () => 'the change request back in For review')).toBeDefined()

    // 6. Rae approves; the merge the rule refused goes through.
    await app.reviewChangeRequest({ spaceId: seeded.spaceId, changeRequestId: cr.id, verdict: 'approved' })
    const merged = await app.mergeChangeRequest({ spaceId: seeded.spaceId, changeRequestId: cr.id })
    expect(merged.waiting).toBeUndefined()
    expect(await mainMarkdown(t, seeded.spaceId, pageId)).toContain('now with more')

    // 7. The writer's workspace follows: synced at main's revision, the file as main has it.
    await mirrorsMain(t, writer, seeded.spaceId)
    expect(writer.read()).toBe(await mainMarkdown(t, seeded.spaceId, pageId))
    expect(await openChangeRequestOf(t, seeded.spaceId, writerUser.id)).toBeUndefined()
  })
})

