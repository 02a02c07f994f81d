import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { buildRenderer } from '../../src/main/headless/renderer-build'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { grant } from '../support/content-fixtures'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import { openChangeRequests, seedSpace, tempDir, type SeededSpace } from '../engine/sync-up/support/workspace'
import { openApp, type OpenedApp } from './open-app'
import { axeViolations, hasChromium, launchBrowser, openSection, screenshotsAtSizes } from './support'

/**
 * Issue 13, the app's side of the review workflow, in Chromium against the real local service: two
 * people, each with their own app (the real renderer served by the real headless server over the app's
 * backend). The writer submits for review asking the reviewer; the reviewer's app shows it under For
 * review with the count; the reviewer requests changes with a comment; the writer sees the verdict,
 * edits (the review becomes outdated, the same change request stays open); the space's rule refuses the
 * merge, saying why; the reviewer approves; the merge goes through. Every wait is on a condition.
 */

process.env.QUIRE_TOKEN_STORE = 'file'

const t = restartableServiceForFile()
const desktop: DesktopActions = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }

interface Person extends OpenedApp {
  folder: () => string
}

describe.skipIf(!hasChromium)('the review workflow in the app', () => {
  let dir: string
  let seeded: SeededSpace
  let reviewerId: string
  let raeToken: string
  let browser: Awaited<ReturnType<typeof launchBrowser>>
  let writer: Person
  let reviewer: Person
  let crId: string
  const people: Person[] = []

  async function person(name: string, token: string, rendererDir: string): Promise<Person> {
    const dataDir = path.join(dir, name)
    const page = await browser.context.newPage()
    const app = await openApp({ dataDir, rendererDir, desktop, endpoint: t.service.origin, token, select: [seeded.spaceId], settled: true, page })
    const p = { ...app, folder: () => path.join(app.workspace, 'Acme', 'Docs') }
    people.push(p)
    return p
  }

  const nav = (p: Person, name: RegExp) => openSection(p.page, name)

  /** A change request by `token`'s user with one edit, submitted (open). */
  async function openedChangeRequest(spaceId: string, token: string, subject: string): Promise<{ id: string; number: number }> {
    const api = t.api.as(token)
    const cr = (await api.call('createChangeRequest', { params: { spaceId }, body: { subject } })).body as { id: string; number: number }
    const faq = ((await t.api.call('getCurrentRevision', { params: { spaceId } })).body.pages as Array<{ id: string; slug: string }>).find((p) => p.slug === 'faq')!
    await api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: cr.id }, body: { changes: [{ operation: 'update_page', page: faq.id, document: { markdown: '# FAQ\n\nA glossary of terms.\n' } }] } })
    await api.call('updateChangeRequestById', { params: { spaceId, changeRequestId: cr.id }, body: { status: 'open' } })
    return cr
  }
  const card = (p: Person) => p.page.locator(`li[data-cr-id="${crId}"]`)

  beforeAll(async () => {
    seeded = await seedSpace(t)
    const rae = t.service.createUser({ displayName: 'Rae Reviewer', email: 'rae@example.com' })
    reviewerId = rae.id
    raeToken = rae.token
    t.service.store.repo(OrganizationsRepository).setMember(seeded.orgId, rae.id, null)
    grant(t.service, seeded.spaceId, rae.id, 'review')
    dir = tempDir('quire-ui-review-')
    const rendererDir = path.join(dir, 'renderer')
    await buildRenderer(rendererDir)
    browser = await launchBrowser()
    writer = await person('writer', t.service.token, rendererDir)
    reviewer = await person('reviewer', rae.token, rendererDir)
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    for (const p of people) await p.close()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('the writer submits for review, asking the reviewer picked from the space’s members', async () => {
    const install = path.join(writer.folder(), 'guide', 'install.md')
    await expect.poll(() => fs.existsSync(install), { timeout: 30_000 }).toBe(true)
    fs.writeFileSync(install, '# Install\n\nRun the new installer.\n')
    await expect.poll(async () => (await openChangeRequests(t.api, seeded.spaceId)).length, { timeout: 30_000 }).toBe(1)
    crId = (await openChangeRequests(t.api, seeded.spaceId))[0].id

    // The space's rules: the reviewer must approve, and every review must approve.
    await t.api.call('updateSpaceById', {
      params: { spaceId: seeded.spaceId },
      body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [reviewerId] }, { rule: 'require_all_reviews_approved' }] } },
    })
    await nav(writer, /^Change requests/)
    await writer.page.getByRole('button', { name: 'Refresh' }).click()
    await card(writer).waitFor({ timeout: 30_000 })
    // A draft is not up for review: the rules are shown, and the merge is stopped with the reasons.
    await card(writer).getByRole('group', { name: /^Merge rules of #\d+ in Docs$/ }).getByText('Submitted for review').waitFor({ timeout: 20_000 })
    await card(writer).getByRole('button', { name: 'Merge…' }).click()
    const stopped = card(writer).getByRole('group', { name: /^Confirm merging #\d+ in Docs$/ })
    await stopped.getByText(/cannot be merged yet: it is a draft: submit it for review first; it needs an approving review from Rae Reviewer\./).waitFor({ timeout: 20_000 })
    expect(await stopped.getByRole('button', { name: /^Merge #\d+$/ }).isDisabled()).toBe(true)
    await screenshotsAtSizes(writer.page, 'review-00-draft-merge-stopped')
    expect(await axeViolations(writer.page)).toEqual([])
    // The backend refuses it too (and the service behind it).
    await expect(writer.backend.mergeChangeRequest({ spaceId: seeded.spaceId, changeRequestId: crId })).rejects.toThrow(/cannot be merged: it is a draft/)
    await stopped.getByRole('button', { name: 'Close' }).click()
    // Merge… loaded the changes: read them again now that the edit has surely gone up.
    await card(writer).getByRole('button', { name: 'Hide changes' }).click()
    await card(writer).getByRole('button', { name: 'Show changes' }).click()
    await card(writer).getByText('Run the new installer.').first().waitFor({ timeout: 20_000 })
    await card(writer).getByLabel('Description (optional)').fill('Explains the new installer.')
    await card(writer).getByRole('checkbox', { name: /Rae Reviewer/ }).check()
    await screenshotsAtSizes(writer.page, 'review-01-writer-submits')
    expect(await axeViolations(writer.page)).toEqual([])
    await card(writer).getByRole('button', { name: 'Submit for review' }).click()
    await writer.page.getByText(/Submitted #\d+ for review\./).waitFor({ timeout: 20_000 })
    await card(writer).getByText('Review requested').waitFor({ timeout: 20_000 })
    // Who is asked is listed with Remove, not offered again.
    await card(writer).getByText('Everyone who may review is asked.').waitFor({ timeout: 20_000 })
    const asked = (await t.api.call('getRequestedReviewersByChangeRequestId', { params: { spaceId: seeded.spaceId, changeRequestId: crId } })).body.items as Array<{ user: { id: string } }>
    expect(asked.map((a) => a.user.id)).toEqual([reviewerId])
  }, 120_000)

  it('the reviewer’s app shows it under For review with the count, and the reviewer requests changes with a comment', async () => {
    await nav(reviewer, /^For review/)
    await card(reviewer).waitFor({ timeout: 30_000 })
    // The count beside For review (and in the tray: the status snapshot's forReview).
    await expect.poll(async () => (await reviewer.backend.getStatus()).forReview, { timeout: 20_000 }).toBe(1)
    await expect.poll(() => reviewer.page.getByRole('navigation', { name: 'Sections' }).getByRole('button', { name: /^For review/ }).textContent(), { timeout: 20_000 }).toMatch(/1$/)
    await card(reviewer).getByRole('button', { name: 'Show changes' }).click()
    await card(reviewer).getByText('Run the new installer.').first().waitFor({ timeout: 20_000 })
    await card(reviewer).getByLabel('Review comment (optional)').fill('Say which version the installer needs.')
    await screenshotsAtSizes(reviewer.page, 'review-02-reviewer-for-review')
    expect(await axeViolations(reviewer.page)).toEqual([])
    await card(reviewer).getByRole('button', { name: 'Request changes' }).click()
    await reviewer.page.getByText(/Requested changes on #\d+\./).waitFor({ timeout: 20_000 })
    await reviewer.page.getByText('Nothing waits for your review.').waitFor({ timeout: 20_000 })
    await expect.poll(async () => (await reviewer.backend.getStatus()).forReview, { timeout: 20_000 }).toBe(0)
  }, 120_000)

  it('the writer sees the verdict; an edit makes it outdated and the same change request stays open', async () => {
    await writer.page.getByRole('button', { name: 'Refresh' }).click()
    await card(writer).getByText('Changes requested', { exact: true }).waitFor({ timeout: 20_000 })
    // In the reviewer's entry and as the review's event in the discussion.
    await card(writer).getByText('Say which version the installer needs.').first().waitFor({ timeout: 20_000 })
    await card(writer).getByRole('group', { name: /^Merge rules of/ }).getByText(/every review must approve, and Rae Reviewer asked for changes/).waitFor({ timeout: 20_000 })
    await screenshotsAtSizes(writer.page, 'review-03-writer-sees-verdict')
    expect(await axeViolations(writer.page)).toEqual([])

    fs.writeFileSync(path.join(writer.folder(), 'guide', 'install.md'), '# Install\n\nRun the new installer (version 2 or later).\n')
    await expect
      .poll(async () => ((await t.api.call('getReviewsByChangeRequestId', { params: { spaceId: seeded.spaceId, changeRequestId: crId } })).body.items as Array<{ outdated: boolean }>)[0]?.outdated, { timeout: 30_000 })
      .toBe(true)
    expect((await openChangeRequests(t.api, seeded.spaceId)).map((c) => c.id)).toEqual([crId])
    await writer.page.getByRole('button', { name: 'Refresh' }).click()
    await card(writer).getByText(/Changes requested \(outdated: edited since\)/).waitFor({ timeout: 20_000 })
  }, 120_000)

  it('the rule refuses the merge, saying why; the reviewer approves; the merge goes through', async () => {
    await card(writer).getByRole('button', { name: 'Merge…' }).click()
    const refusal = card(writer).getByRole('group', { name: /^Confirm merging/ })
    await refusal.getByText(/cannot be merged yet: it needs an approving review from Rae Reviewer\./).waitFor({ timeout: 20_000 })
    expect(await refusal.textContent()).not.toMatch(/HTTP/)
    expect(await refusal.getByRole('button', { name: /^Merge #\d+$/ }).isDisabled()).toBe(true)
    await screenshotsAtSizes(writer.page, 'review-04-merge-refused')
    expect(await axeViolations(writer.page)).toEqual([])

    // The edit put it back in the reviewer's list, their earlier verdict said outdated.
    await reviewer.page.getByRole('button', { name: 'Refresh' }).click()
    await card(reviewer).getByText(/edited since, so it waits for your review again/).waitFor({ timeout: 20_000 })
    await card(reviewer).getByRole('button', { name: 'Approve' }).click()
    await reviewer.page.getByText(/Approved #\d+\./).waitFor({ timeout: 20_000 })

    await writer.page.getByRole('button', { name: 'Refresh' }).click()
    await card(writer).getByText('Approved', { exact: true }).waitFor({ timeout: 20_000 })
    await card(writer).getByRole('button', { name: 'Close' }).click()
    await card(writer).getByRole('button', { name: 'Merge…' }).click()
    await card(writer).getByRole('group', { name: /^Merge rules for/ }).getByText('An approving review from Rae Reviewer').waitFor({ timeout: 20_000 })
    await card(writer).getByRole('button', { name: /^Merge #\d+$/ }).click()
    await writer.page.getByText(/Merged #\d+\./).waitFor({ timeout: 30_000 })
    expect((await t.api.call('getChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: crId } })).body.status).toBe('merged')
    await screenshotsAtSizes(writer.page, 'review-05-merged')
    expect(await axeViolations(writer.page)).toEqual([])
    await t.api.call('updateSpaceById', { params: { spaceId: seeded.spaceId }, body: { mergeRules: { type: 'none' } } })
  }, 120_000)

  it('For review names who asked; two spaces’ change requests with the same number are told apart; a merge warns of the review not given and clears For review', async () => {
    // Grace writes a change request; the owner (the writer's app) asks Rae to review it.
    const grace = t.service.createUser({ displayName: 'Grace Writer', email: 'grace@example.com' })
    t.service.store.repo(OrganizationsRepository).setMember(seeded.orgId, grace.id, null)
    grant(t.service, seeded.spaceId, grace.id, 'edit')
    const graceCr = await openedChangeRequest(seeded.spaceId, grace.token, 'Grace’s glossary')
    await t.api.call('requestReviewersForChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: graceCr.id }, body: { users: [reviewerId] } })

    // A second space whose live change request has the same number.
    const handbook = (await t.api.call('createSpace', { params: { organizationId: seeded.orgId }, body: { title: 'Handbook' } })).body as { id: string }
    grant(t.service, handbook.id, reviewerId, 'review')
    let twin: { id: string; number: number } | undefined
    while (!twin || twin.number < graceCr.number) twin = (await t.api.call('createChangeRequest', { params: { spaceId: handbook.id }, body: { subject: 'Handbook edits' } })).body as { id: string; number: number }
    expect(twin.number).toBe(graceCr.number)
    await t.api.call('updateChangeRequestById', { params: { spaceId: handbook.id, changeRequestId: twin.id }, body: { status: 'open' } })
    await reviewer.backend.listSpaces()
    await reviewer.backend.setSelection({ kind: 'space', id: handbook.id, selected: true })

    await nav(reviewer, /^For review/)
    await reviewer.page.getByRole('button', { name: 'Refresh' }).click()
    const waiting = reviewer.page.locator(`li[data-cr-id="${graceCr.id}"]`)
    await waiting.getByText('Quire Owner asks for your review.').waitFor({ timeout: 30_000 })
    await waiting.getByText(/by Grace Writer/).waitFor()
    await screenshotsAtSizes(reviewer.page, 'review-06-for-review-asked-by')
    expect(await axeViolations(reviewer.page)).toEqual([])

    await nav(reviewer, /^Change requests/)
    const docsCard = reviewer.page.locator(`li[data-cr-id="${graceCr.id}"]`)
    const handbookCard = reviewer.page.locator(`li[data-cr-id="${twin.id}"]`)
    await docsCard.getByRole('heading', { name: new RegExp(`Docs #${graceCr.number} `) }).waitFor({ timeout: 30_000 })
    await handbookCard.getByRole('heading', { name: new RegExp(`Handbook #${twin.number} `) }).waitFor({ timeout: 30_000 })
    await handbookCard.getByRole('region', { name: `Review of #${twin.number} in Handbook` }).waitFor({ timeout: 20_000 })
    await screenshotsAtSizes(reviewer.page, 'review-07-same-number-two-spaces')
    expect(await axeViolations(reviewer.page)).toEqual([])

    // The owner merges Grace's change request without waiting for Rae: the confirmation says so.
    await nav(writer, /^Change requests/)
    await writer.page.getByRole('button', { name: 'Refresh' }).click()
    const graceCard = writer.page.locator(`li[data-cr-id="${graceCr.id}"]`)
    await graceCard.getByRole('button', { name: 'Merge…' }).click()
    const confirm = graceCard.getByRole('group', { name: /^Confirm merging/ })
    await confirm.getByText('Rae Reviewer was asked to review it and has not reviewed this version.').waitFor({ timeout: 20_000 })
    await confirm.getByText('No merge rules in this space: it may be merged without review.').waitFor()
    await screenshotsAtSizes(writer.page, 'review-08-merge-caution')
    expect(await axeViolations(writer.page)).toEqual([])
    await confirm.getByRole('button', { name: /^Merge #\d+$/ }).click()
    await writer.page.getByText(/Merged #\d+\./).waitFor({ timeout: 30_000 })

    // Rae's app, once it syncs, no longer lists it for review.
    await nav(reviewer, /^For review/)
    await reviewer.page.getByRole('button', { name: 'Sync now' }).click()
    await reviewer.page.getByText('Nothing waits for your review.').waitFor({ timeout: 30_000 })
    await expect.poll(async () => (await reviewer.backend.getStatus()).forReview, { timeout: 20_000 }).toBe(0)
  }, 180_000)

  it('the change request is a reviewer’s desk: the description rendered and edited by its author, reviews as events, threads read, replied to, resolved and reopened', async () => {
    // A new edit of the writer's: their next change request.
    fs.writeFileSync(path.join(writer.folder(), 'guide', 'install.md'), '# Install\n\nRun the installer, version 3.\n')
    await expect.poll(async () => (await openChangeRequests(t.api, seeded.spaceId)).filter((c) => c.createdBy.id === t.service.ownerId).length, { timeout: 30_000 }).toBe(1)
    const cr = (await openChangeRequests(t.api, seeded.spaceId)).find((c) => c.createdBy.id === t.service.ownerId)!
    const ids = { spaceId: seeded.spaceId, changeRequestId: cr.id }

    await nav(writer, /^Change requests/)
    await writer.page.getByRole('button', { name: 'Refresh' }).click()
    const mine = writer.page.locator(`li[data-cr-id="${cr.id}"]`)
    const desk = mine.getByRole('region', { name: `Discussion of #${cr.number} in Docs` })
    await desk.getByText('No description.').waitFor({ timeout: 30_000 })
    await desk.getByRole('button', { name: 'Edit description' }).click()
    await desk.getByLabel('Description (markdown)').fill('Moves the guide to **version 3**.')
    await desk.getByRole('button', { name: 'Save description' }).click()
    await desk.locator('strong', { hasText: 'version 3' }).waitFor({ timeout: 20_000 })
    await expect.poll(async () => JSON.stringify((await t.api.call('getChangeRequestById', { params: ids })).body.description ?? {}), { timeout: 20_000 }).toContain('version 3')

    // Rae is asked, comments on the change request, and asks for changes with a comment of the review.
    const rae = t.api.as(raeToken)
    await t.api.call('requestReviewersForChangeRequest', { params: ids, body: { users: [reviewerId] } })
    const posted = (await rae.call('postCommentInChangeRequest', { params: ids, body: { body: { markdown: 'Is version 3 out yet?' } } })).body as { id: string }
    expect((await rae.call('submitChangeRequestReview', { params: ids, body: { status: 'changes-requested', comment: { markdown: 'Name the release date.' } } })).status).toBe(201)

    await writer.page.getByRole('button', { name: 'Refresh' }).click()
    const reviews = desk.getByRole('list', { name: 'Reviews' })
    await reviews.getByText(/Rae Reviewer\s+asked for changes/).waitFor({ timeout: 30_000 })
    await reviews.getByText('Name the release date.').waitFor()
    // The review's comment is the review's: one thread, one open comment.
    await desk.getByRole('heading', { name: 'Comments (1 open)' }).waitFor({ timeout: 20_000 })
    const thread = desk.locator(`li[data-thread-id="${posted.id}"]`)
    await thread.getByText('Is version 3 out yet?').waitFor()
    await mine.getByRole('button', { name: 'Show changes' }).click()
    await mine.getByText(/page changed · 1 open comment$/).waitFor({ timeout: 20_000 })

    await thread.getByLabel('Reply to Rae Reviewer').fill('Yes, since **May**.')
    await thread.getByRole('button', { name: 'Reply' }).click()
    await thread.getByRole('list', { name: 'Replies to Rae Reviewer' }).locator('strong', { hasText: 'May' }).waitFor({ timeout: 20_000 })
    const replies = (await t.api.call('listCommentRepliesInChangeRequest', { params: { ...ids, commentId: posted.id }, query: { format: 'markdown' } })).body.items as Array<{ body: { markdown: string } }>
    expect(replies.map((r) => r.body.markdown)).toEqual(['Yes, since **May**.'])
    await screenshotsAtSizes(writer.page, 'review-09-discussion')
    expect(await axeViolations(writer.page)).toEqual([])

    const status = async () => (await t.api.call('getCommentInChangeRequest', { params: { ...ids, commentId: posted.id } })).body.status
    await thread.getByRole('button', { name: 'Resolve' }).click()
    await thread.getByText('Resolved', { exact: true }).waitFor({ timeout: 20_000 })
    expect(await status()).toBe('resolved')
    await desk.getByRole('heading', { name: 'Comments (0 open)' }).waitFor()
    await thread.getByRole('button', { name: 'Reopen' }).click()
    await thread.getByRole('button', { name: 'Resolve' }).waitFor({ timeout: 20_000 })
    expect(await status()).toBe('open')
    // Resolving again after the reopen is a new operation, sent again (not taken for a repeat).
    await thread.getByRole('button', { name: 'Resolve' }).click()
    await thread.getByRole('button', { name: 'Reopen' }).waitFor({ timeout: 20_000 })
    expect(await status()).toBe('resolved')
  }, 180_000)

  it('in a browser tab, PDF and Open in browser open a new tab, and Open workspace folder says a browser cannot open folders', async () => {
    await nav(writer, /^Change requests/)
    const mine = writer.page.locator('li.cr', { hasText: 'Mine' }).first()
    await mine.waitFor({ timeout: 30_000 })
    const [pdfTab] = await Promise.all([writer.page.context().waitForEvent('page', { timeout: 30_000 }), mine.getByRole('button', { name: 'PDF' }).click()])
    expect(pdfTab.url()).toMatch(new RegExp(`^${t.service.origin}/`))
    await mine.getByText(/^Opened the PDF of #\d+ in a new tab\.$/).waitFor({ timeout: 20_000 })
    await pdfTab.close()
    const [appTab] = await Promise.all([writer.page.context().waitForEvent('page', { timeout: 30_000 }), mine.getByRole('button', { name: 'Open in browser' }).click()])
    expect(appTab.url()).toMatch(new RegExp(`^${t.service.origin}/`))
    await appTab.close()
    await mine.getByText(/^Opened #\d+ in a new tab\.$/).waitFor({ timeout: 20_000 })

    await nav(writer, /^Settings/)
    await writer.page.getByRole('button', { name: 'Open workspace folder' }).click()
    await writer.page.getByText(/your browser cannot open folders/).waitFor({ timeout: 20_000 })
    expect(await writer.page.getByText(/your browser cannot open folders/).textContent()).toContain(writer.workspace)
  }, 120_000)
})
