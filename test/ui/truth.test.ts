import fs from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { QuireBackend } from '../../src/main/app/backend'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { UsersRepository } from '../../src/main/service/store/users'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import { mergeOnMain as mergeOnMainOf, paragraphs as installParagraphs } from '../engine/sync-up/support/two-writers'
import { openChangeRequestMarkdown, pageIdAt, seedSpace, type SeededSpace } from '../engine/sync-up/support/workspace'
import { expectNoNotSyncedYetOnceSyncing, openAppInBrowser, recordHeaderStates, type AppInBrowser } from './open-app'
import { axeViolations, hasChromium, openSection, screenshotsAtSizes } from './support'

/**
 * Issue 12: the window tells the truth and offers the way out. The real renderer (built with Vite) is
 * served by the real headless server over the app's own backend, in this process so the test can stop
 * the service, revoke the token and edit files as a writer would; Chromium drives it. Every wait is on
 * a condition the page or the service shows, never a fixed sleep.
 */

process.env.QUIRE_TOKEN_STORE = 'file'

const t = restartableServiceForFile()
const opened: Array<{ file: string; line?: number }> = []
const desktop: DesktopActions = { openFile: async (file, line) => void opened.push({ file, line }), openUrl: async () => {}, openFolder: async () => {} }

const paragraphs = (changes: Record<number, string> = {}) => installParagraphs(changes, 5)

describe.skipIf(!hasChromium)('the window tells the truth and offers the way out', () => {
  let folder: string
  let seeded: SeededSpace
  let app: AppInBrowser
  let backend: QuireBackend
  let page: Page
  const header = () => page.locator('#overall-state')
  const nav = (name: string) => openSection(page, name)
  const installId = () => pageIdAt(t.api, seeded.spaceId, 'guide/install.md')
  /** Someone else's change request, merged into main. */
  const mergeOnMain = (changes: unknown[]) => mergeOnMainOf(t.api, seeded.spaceId, changes, 'Someone else')

  beforeAll(async () => {
    seeded = await seedSpace(t)
    app = await openAppInBrowser('quire-ui-truth-', { desktop, endpoint: t.service.origin, token: t.service.token })
    backend = app.backend
    page = app.page
    folder = path.join(app.workspace, 'Acme', 'Docs')
    await recordHeaderStates(page)
  }, 120_000)

  afterAll(() => app?.close())

  it('with nothing selected the header says so (never "In sync"); choosing a space syncs it, with no "not synced yet" on the way', async () => {
    await expect.poll(() => header().textContent(), { timeout: 20_000 }).toMatch(/No spaces chosen to sync/)
    expect(await header().textContent()).not.toMatch(/In sync/)
    await screenshotsAtSizes(page, 'truth-01-nothing-selected')
    expect(await axeViolations(page)).toEqual([])
    await header().getByRole('button', { name: 'Choose spaces' }).click()
    const box = page.getByRole('checkbox', { name: 'Docs' })
    await box.click()
    await expect.poll(() => box.isChecked(), { timeout: 20_000 }).toBe(true)
    await expect.poll(() => header().textContent(), { timeout: 60_000 }).toMatch(/In sync/)
    expect(fs.readFileSync(path.join(folder, 'guide', 'install.md'), 'utf8')).toContain('Run the installer.')
    await expectNoNotSyncedYetOnceSyncing(page)
    const row = page.locator('li.space-row', { hasText: 'Docs' })
    await expect(row.locator('time').first().getAttribute('title')).resolves.toMatch(/\d/) // the absolute time on hover
    await screenshotsAtSizes(page, 'truth-02-in-sync')
    expect(await axeViolations(page)).toEqual([])
  }, 90_000)

  it('conflict: the list names the page and both files; Compare shows both versions word by word; Keep mine puts the writer’s version in the file and sends it', async () => {
    const install = await installId()
    await mergeOnMain([{ operation: 'update_page', page: install, document: { markdown: paragraphs() } }])
    await page.getByRole('button', { name: 'Sync now' }).click()
    await expect.poll(() => fs.readFileSync(path.join(folder, 'guide', 'install.md'), 'utf8'), { timeout: 30_000 }).toContain('Paragraph 1 as first written.')
    await expect.poll(() => header().textContent(), { timeout: 30_000 }).toMatch(/In sync/)
    // The cycle's last push is done before the save (a save sent cleanly and then reverted by a conflict
    // is a different story: the engine does not send the same text again, reported in issue 12's note).
    await backend.idle()

    // Someone else rewrites paragraph 1 on main; the writer, not synced since, rewrites it too and saves.
    await mergeOnMain([{ operation: 'update_page', page: install, document: { markdown: paragraphs({ 1: 'Paragraph 1 as someone else rewrote it.' }) } }])
    fs.writeFileSync(path.join(folder, 'guide', 'install.md'), paragraphs({ 1: 'Paragraph 1 as the writer rewrote it.' }))

    // The watcher pushes the save; the push finds both changed paragraph 1.
    await expect.poll(() => header().textContent(), { timeout: 30_000 }).toMatch(/1 conflict: guide\/install\.md/)
    await header().getByRole('button', { name: 'Show conflicts' }).click()
    const item = page.locator('li.conflict')
    await item.waitFor()
    const copyPath = (await item.getAttribute('data-copy-path'))!
    expect(copyPath).toMatch(/^guide\/install.*\.md$/)
    await expect(item.textContent()).resolves.toContain('Install')
    await expect(item.textContent()).resolves.toContain(copyPath)
    await expect(item.textContent()).resolves.toMatch(/guide\/install\.md now holds main's version \(theirs\); your version \(mine\) is kept in/)
    expect(fs.readFileSync(path.join(folder, ...copyPath.split('/')), 'utf8')).toContain('as the writer rewrote it')

    await item.getByRole('button', { name: 'Open your copy' }).click()
    await expect.poll(() => opened.at(-1)?.file, { timeout: 10_000 }).toBe(path.join(folder, ...copyPath.split('/')))

    await item.getByRole('button', { name: 'Compare' }).click()
    await item.locator('.diff ins').first().waitFor()
    await expect(item.locator('.diff del').allTextContents()).resolves.toContain('someone else')
    await expect(item.locator('.diff ins').allTextContents()).resolves.toContain('the writer')
    await screenshotsAtSizes(page, 'truth-03-conflict-compare')
    expect(await axeViolations(page)).toEqual([])
    // Issue 27: the header stays one row at desktop widths in the conflict state (1280 px, and narrower
    // down to where it wraps by design, 900 px): the state's words shrink, its way out stays whole.
    for (const width of [1280, 1000]) {
      await page.setViewportSize({ width, height: 800 })
      const rows = await page.evaluate(() => {
        const tops = [...document.querySelectorAll('header.topbar .brand, header.topbar .badge, header.topbar .way-out, header.topbar .toolbar button')].map((el) => {
          const r = el.getBoundingClientRect()
          return Math.round((r.top + r.bottom) / 2 / 20) // one row: the centers line up (align-items: center)
        })
        return new Set(tops).size
      })
      expect({ width, rows }).toEqual({ width, rows: 1 })
      await expect(header().getByRole('button', { name: 'Show conflicts' }).isVisible()).resolves.toBe(true)
    }
    await screenshotsAtSizes(page, 'truth-03b-conflict-header')
    await page.setViewportSize({ width: 1200, height: 860 })

    await item.getByRole('button', { name: 'Keep mine' }).click()
    // The list clears as the copy goes; the file holds the writer's version; the push sends it.
    await expect.poll(() => page.locator('li.conflict').count(), { timeout: 20_000 }).toBe(0)
    expect(fs.existsSync(path.join(folder, ...copyPath.split('/')))).toBe(false)
    expect(fs.readFileSync(path.join(folder, 'guide', 'install.md'), 'utf8')).toContain('Paragraph 1 as the writer rewrote it.')
    const crText = async () => (await openChangeRequestMarkdown(t.api, seeded.spaceId, install)) ?? ''
    await expect.poll(crText, { timeout: 30_000 }).toContain('Paragraph 1 as the writer rewrote it.')
    await expect.poll(() => header().textContent(), { timeout: 30_000 }).toMatch(/In sync/)
    // The activity log calls the copy the writer's own version, never "theirs".
    const activity = (await backend.listActivity()).map((a) => a.message)
    expect(activity.some((m) => /your version is kept in/.test(m))).toBe(true)
    expect(activity.some((m) => /Kept your version of Install/.test(m))).toBe(true)
    expect(activity.filter((m) => m.includes(copyPath) && /theirs/i.test(m))).toEqual([])
  }, 120_000)

  it('a change request shows its pages with the edited words; Update from main reports conflicts as conflicts; merge asks, naming the pages', async () => {
    await nav('Change requests')
    await page.getByRole('button', { name: 'Mine', exact: true }).click()
    const card = page.locator('li.cr', { hasText: 'Mine' })
    await card.first().waitFor({ timeout: 20_000 })
    await card.getByRole('button', { name: 'Show changes' }).click()
    const pageDiff = card.locator('details.cr-page', { hasText: 'Install' })
    await pageDiff.waitFor({ timeout: 20_000 })
    await expect(pageDiff.locator('ins').allTextContents()).resolves.toContain('the writer')
    await expect(pageDiff.locator('del').allTextContents()).resolves.toContain('someone else')
    await screenshotsAtSizes(page, 'truth-04-change-request-diff')
    expect(await axeViolations(page)).toEqual([])

    // The writer answers the FAQ; once that is in the change request, main changes the same line.
    const faq = await pageIdAt(t.api, seeded.spaceId, 'faq.md')
    fs.writeFileSync(path.join(folder, 'faq.md'), '# FAQ\n\nQuestions, answered by the writer.\n')
    const crFaq = async () => (await openChangeRequestMarkdown(t.api, seeded.spaceId, faq)) ?? ''
    await expect.poll(crFaq, { timeout: 30_000 }).toContain('answered by the writer')
    await backend.idle()
    await mergeOnMain([{ operation: 'update_page', page: faq, document: { markdown: '# FAQ\n\nQuestions, answered on main.\n' } }])
    await page.getByRole('button', { name: 'Refresh' }).click()
    await card.getByText('Outdated', { exact: true }).waitFor({ timeout: 20_000 })
    await card.getByRole('button', { name: 'Update from main' }).click()
    // The answer comes once the update went through the session's outbox, behind the cycles main's merge
    // started: in a loaded full run that took more than 20 s.
    await expect.poll(() => page.locator('main .notice').allTextContents(), { timeout: 60_000 }).toContainEqual(expect.stringMatching(/was updated from main with conflicts/))

    await card.getByRole('button', { name: 'Merge…' }).click()
    const confirm = card.getByRole('group', { name: /Confirm merging #\d+/ })
    await expect.poll(() => confirm.textContent(), { timeout: 20_000 }).toMatch(/into main of Docs\? It brings changes to \d+ pages?: .*Install/)
    await screenshotsAtSizes(page, 'truth-05-merge-confirm')
    expect(await axeViolations(page)).toEqual([])
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await expect.poll(() => confirm.count()).toBe(0)

    // Merged and archived change requests are reachable through the filter.
    await page.getByRole('button', { name: 'All in my spaces' }).click()
    await page.getByRole('button', { name: 'Merged', exact: true }).click()
    await page.locator('li.cr', { hasText: 'Someone else' }).first().waitFor({ timeout: 20_000 })
    await page.getByRole('button', { name: 'Open', exact: true }).click()

    // Main's FAQ line comes down onto the writer's own: a conflict. Keep theirs this time.
    await page.getByRole('button', { name: 'Sync now' }).click()
    await expect.poll(() => header().textContent(), { timeout: 30_000 }).toMatch(/1 conflict: faq\.md/)
    await header().getByRole('button', { name: 'Show conflicts' }).click()
    const item = page.locator('li.conflict')
    const copy = path.join(folder, ...(await item.getAttribute('data-copy-path'))!.split('/'))
    await item.getByRole('button', { name: 'Keep theirs' }).click()
    await item.getByRole('button', { name: 'Delete my copy, keep theirs' }).click()
    await expect.poll(() => page.locator('li.conflict').count(), { timeout: 20_000 }).toBe(0)
    expect(fs.existsSync(copy)).toBe(false)
    expect(fs.readFileSync(path.join(folder, 'faq.md'), 'utf8')).toContain('answered on main')
    await expect.poll(() => header().textContent(), { timeout: 30_000 }).toMatch(/In sync/)
  }, 120_000)

  it('offline: the header says offline with the last sync and Retry now; cached comments show "as of"; a comment waits, and goes out once after the app leaves Offline by itself', async () => {
    const install = await installId()
    // A comment posted online first, so the cache has one to show offline.
    await nav('Comments')
    await page.getByLabel('On page').selectOption(install)
    await page.getByLabel('Comment', { exact: true }).fill('Posted **online**.')
    await page.getByRole('button', { name: 'Post comment' }).click()
    await page.getByText('Comment posted.').waitFor({ timeout: 20_000 })
    await page.locator('li.thread', { hasText: 'Posted' }).waitFor({ timeout: 20_000 })

    await t.stop()
    await nav('Spaces')
    await page.getByRole('button', { name: 'Sync now' }).click()
    await expect.poll(() => header().textContent(), { timeout: 30_000 }).toMatch(/Offline, last synced (just now|\d+ min ago)/)
    await header().getByRole('button', { name: 'Retry now' }).waitFor()
    await screenshotsAtSizes(page, 'truth-06-offline')
    expect(await axeViolations(page)).toEqual([])

    await nav('Comments')
    await page.locator('.notice-warn', { hasText: 'Offline: shown as of' }).waitFor({ timeout: 20_000 })
    await page.locator('li.thread', { hasText: 'Posted' }).waitFor({ timeout: 20_000 }) // from the cache
    await page.getByLabel('On page').selectOption(install)
    await page.getByLabel('Comment', { exact: true }).fill('Queued while offline.')
    await page.getByRole('button', { name: 'Post comment' }).click()
    await page.getByText('Your comment is waiting to be sent').waitFor({ timeout: 20_000 })
    await page.locator('li.thread', { hasText: 'Queued while offline.' }).getByText('Waiting to be sent').waitFor()
    // A reply typed offline stays in view, marked queued; the header counts what waits.
    const online = page.locator('li.thread', { has: page.getByText('Posted online.', { exact: true }) }).first()
    await online.getByLabel(/^Reply to/).fill('Replied **offline**.')
    await online.getByRole('button', { name: 'Reply', exact: true }).click()
    await page.getByText(/^Your reply is queued: it goes out when the service is back/).waitFor({ timeout: 20_000 })
    await online.getByRole('list', { name: 'Replies queued' }).getByText('Queued').waitFor()
    await expect.poll(() => header().textContent(), { timeout: 20_000 }).toMatch(/Offline, last synced .*, 2 changes queued/)
    await screenshotsAtSizes(page, 'truth-07-comments-offline')
    expect(await axeViolations(page)).toEqual([])

    // Change requests too: the mirrored ones, marked as of the last sync (not "cannot be reached").
    await nav('Change requests')
    await page.locator('.notice-warn', { hasText: 'Offline: shown as of' }).waitFor({ timeout: 20_000 })
    await page.locator('li.cr', { hasText: 'Mine' }).first().waitFor({ timeout: 20_000 })
    expect(await page.locator('main .notice-error').count()).toBe(0)
    await screenshotsAtSizes(page, 'truth-07b-change-requests-offline')
    expect(await axeViolations(page)).toEqual([])

    // The service comes back: nobody presses anything; the app probes, syncs, and sends the comment.
    await t.start()
    await expect.poll(() => header().textContent(), { timeout: 60_000 }).toMatch(/In sync/)
    await nav('Comments')
    const posted = async () =>
      ((await t.api.call('listCommentsInSpace', { params: { spaceId: seeded.spaceId }, query: { status: 'all', format: 'markdown' } })).body.items as Array<{ body: { markdown: string } }>).filter(
        (c) => c.body.markdown === 'Queued while offline.',
      ).length
    await expect.poll(posted, { timeout: 30_000 }).toBe(1)
    await page.getByRole('button', { name: 'Sync now' }).click()
    await backend.idle()
    expect(await posted()).toBe(1)
    await page.getByRole('button', { name: 'Refresh' }).click()
    await expect.poll(() => page.locator('.notice-warn', { hasText: 'Offline: shown as of' }).count(), { timeout: 20_000 }).toBe(0)
    await page.locator('li.thread', { hasText: 'Queued while offline.' }).waitFor({ timeout: 20_000 })
    // The queued reply was sent: it is the service's now, no longer marked queued.
    await online.getByRole('list', { name: 'Replies' }).locator('strong', { hasText: 'offline' }).waitFor({ timeout: 30_000 })
    expect(await online.getByRole('list', { name: 'Replies queued' }).count()).toBe(0)
    // Activity says what was queued as queued, and when it was delivered.
    await nav('Activity')
    await page.getByText(/^Queued: Replied to .*not sent yet/).first().waitFor({ timeout: 20_000 })
    await page.getByText('Delivered the changes queued for Docs: the service has them all').first().waitFor({ timeout: 30_000 })
    await screenshotsAtSizes(page, 'truth-07c-activity-queued-delivered')
    expect(await axeViolations(page)).toEqual([])
  }, 180_000)

  it('token revoked: the header says signed out (not "In sync"); Sign in again with a new token brings it back to In sync', async () => {
    const users = t.service.store.repo(UsersRepository)
    const owner = users.byToken(t.service.token)!
    users.revokeToken(t.service.token)
    await nav('Spaces')
    await page.getByRole('button', { name: 'Sync now' }).click()
    await expect.poll(() => header().textContent(), { timeout: 30_000 }).toMatch(/Signed out/)
    const row = page.locator('li.space-row', { hasText: 'Docs' })
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toMatch(/Signed out/)
    expect(await row.textContent()).not.toMatch(/In sync/)
    await row.getByRole('button', { name: 'Sign in again' }).waitFor()
    await screenshotsAtSizes(page, 'truth-08-signed-out')
    expect(await axeViolations(page)).toEqual([])

    await header().getByRole('button', { name: 'Sign in again' }).click()
    await page.getByRole('heading', { name: 'Sign in again' }).waitFor()
    expect(await page.getByLabel('Endpoint').inputValue()).toBe(t.service.origin)
    await page.getByLabel('API token').fill(users.issueToken(owner.id))
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await expect.poll(() => header().textContent(), { timeout: 60_000 }).toMatch(/In sync/)
  }, 120_000)

  it('settings follow Pause from the header: saving another setting while paused keeps syncing paused; Resume is the way out', async () => {
    await nav('Settings')
    await page.getByLabel('Workspace folder').waitFor()
    await page.getByRole('button', { name: 'Pause', exact: true }).click()
    await expect.poll(() => header().textContent(), { timeout: 20_000 }).toMatch(/Paused/)
    await expect.poll(() => page.getByLabel('Pause syncing').isChecked()).toBe(true)
    await page.getByLabel('Sync every (seconds)').fill('7200')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Saved.').waitFor()
    expect(await backend.getSettings()).toMatchObject({ paused: true, intervalSeconds: 7200 })
    expect(await header().textContent()).toMatch(/Paused/)
    await screenshotsAtSizes(page, 'truth-09-settings-paused')
    expect(await axeViolations(page)).toEqual([])
    // One Resume in the whole window (issue 27: there were four: the toolbar's, the header's, one per space).
    await nav('Spaces')
    await page.locator('li.space-row', { hasText: 'Docs' }).waitFor()
    expect(await page.getByRole('button', { name: 'Resume' }).count()).toBe(1)
    await header().getByRole('button', { name: 'Resume' }).click()
    await expect.poll(() => header().textContent(), { timeout: 30_000 }).toMatch(/In sync/)
    expect((await backend.getSettings()).paused).toBe(false)
  }, 60_000)
})
