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
  const card = (p: Person) => p.page.locator(`li[data-cr-id="${crId}"]`)

  beforeAll(async () => {
    seeded = await seedSpace(t)
    const rae = t.service.createUser({ displayName: 'Rae Reviewer', email: 'rae@example.com' })
    reviewerId = rae.id
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

    await nav(writer, /^Change requests/)
    await writer.page.getByRole('button', { name: 'Refresh' }).click()
    await card(writer).waitFor({ timeout: 30_000 })
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
    await card(writer).getByText('Say which version the installer needs.').waitFor({ timeout: 20_000 })
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
    await t.api.call('updateSpaceById', { params: { spaceId: seeded.spaceId }, body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [reviewerId] }] } } })
    await card(writer).getByRole('button', { name: 'Merge…' }).click()
    await card(writer).getByRole('button', { name: /^Merge #\d+$/ }).click()
    const refusal = writer.page.getByRole('alert')
    await refusal.waitFor({ timeout: 20_000 })
    expect(await refusal.textContent()).toMatch(/^Merging change request #\d+: .*approving review from Rae Reviewer$/)
    expect(await refusal.textContent()).not.toMatch(/HTTP/)
    await screenshotsAtSizes(writer.page, 'review-04-merge-refused')
    expect(await axeViolations(writer.page)).toEqual([])

    // The edit put it back in the reviewer's list, their earlier verdict said outdated.
    await reviewer.page.getByRole('button', { name: 'Refresh' }).click()
    await card(reviewer).getByText(/edited since, so it waits for your review again/).waitFor({ timeout: 20_000 })
    await card(reviewer).getByRole('button', { name: 'Approve' }).click()
    await reviewer.page.getByText(/Approved #\d+\./).waitFor({ timeout: 20_000 })

    await writer.page.getByRole('button', { name: 'Refresh' }).click()
    await card(writer).getByText('Approved', { exact: true }).waitFor({ timeout: 20_000 })
    await card(writer).getByRole('button', { name: 'Merge…' }).click()
    await card(writer).getByRole('button', { name: /^Merge #\d+$/ }).click()
    await writer.page.getByText(/Merged #\d+\./).waitFor({ timeout: 30_000 })
    expect((await t.api.call('getChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: crId } })).body.status).toBe('merged')
    await screenshotsAtSizes(writer.page, 'review-05-merged')
    expect(await axeViolations(writer.page)).toEqual([])
  }, 120_000)
})
