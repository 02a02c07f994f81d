import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileTokenStore } from '../../src/main/engine/account/token-store'
import { buildRenderer } from '../../src/main/headless/renderer-build'
import { ApiClient } from '../support/service'
import { axeViolations, hasChromium, launchBrowser, openSection, screenshotsAtSizes, SCREENSHOTS, startServe, type ServeProcess } from './support'

/**
 * The real renderer, built with Vite, served by the real `quire serve` (a child process running
 * bin/quire.mjs), driven in Debian's Chromium, against the embedded demo service that "Use the demo
 * service" starts. Screenshots of every screen, light and dark, go to test-output/screenshots/.
 */
describe.skipIf(!hasChromium)('the app in a browser through quire serve', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-ui-'))
  const workspace = path.join(tmp, 'workspace')
  const opened = path.join(tmp, 'opened.jsonl')
  let serve: ServeProcess
  let browser: Awaited<ReturnType<typeof launchBrowser>>
  let page: Page

  beforeAll(async () => {
    const rendererDir = path.join(tmp, 'renderer')
    await buildRenderer(rendererDir)
    // The editor Quire opens files with: a script that writes down what it was asked to open.
    const recorder = path.join(tmp, 'record-open.mjs')
    fs.writeFileSync(recorder, `import fs from 'node:fs'\nfs.appendFileSync(${JSON.stringify(opened)}, JSON.stringify(process.argv.slice(2)) + '\\n')\n`)
    serve = await startServe(['--port', '0', '--data', path.join(tmp, 'data'), '--renderer', rendererDir], {
      QUIRE_EDITOR: `${process.execPath} ${recorder} {file} {line}`,
      QUIRE_TOKEN_STORE: 'file',
    })
    browser = await launchBrowser()
    page = browser.page
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await serve?.stop()
    fs.rmSync(tmp, { recursive: true, force: true })
  })

  const nav = (name: string) => openSection(page, name)

  /** The demo service's API as the signed-in owner (its origin and token are the app's own). */
  const serviceApi = async (): Promise<ApiClient> => {
    const session = await page.evaluate(() => window.quire!.getSession())
    const token = await new FileTokenStore(path.join(tmp, 'data', 'credentials')).get('demo')
    return new ApiClient(`${session.endpoint}/v1`, token!)
  }

  it('trades the secret for a tab token and shows the sign-in screen', async () => {
    await page.goto(serve.url)
    await page.getByRole('heading', { name: 'Sign in to Quire' }).waitFor()
    expect(new URL(page.url()).hash).toBe('') // the secret left the address bar
    // The session is the tab's own (test/ui/session.test.ts proves other ports cannot use it).
    expect(await browser.context.cookies()).toEqual([])
    expect(await page.evaluate(() => sessionStorage.getItem('quire-session'))).toMatch(/^[A-Za-z0-9_-]{43}$/)
    await screenshotsAtSizes(page, '01-sign-in')
    expect(await axeViolations(page)).toEqual([])
  })

  it('uses the demo service and picks a space; once in sync, no progress bar is left', async () => {
    await page.getByRole('button', { name: 'Use the demo service' }).click()
    await page.getByRole('heading', { name: 'Spaces' }).waitFor()
    await page.getByText('Quire Demo').first().waitFor()

    // Sync into a folder of this test, set through the Settings screen.
    await nav('Settings')
    const folder = page.getByLabel('Workspace folder')
    await folder.fill(workspace)
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Saved.').waitFor()

    await nav('Spaces')
    // A controlled checkbox: it shows checked once the backend has the new selection.
    const box = page.getByRole('checkbox', { name: 'User Guide' })
    await box.click()
    // setSelection, then a fresh listSpaces: more than expect.poll's default second on a busy machine.
    await expect.poll(() => box.isChecked(), { timeout: 20_000 }).toBe(true)
    const row = page.locator('li.space-row', { hasText: 'User Guide' })
    await row.getByText('In sync').waitFor({ timeout: 60_000 })
    // The bar while the pass runs: test/ui/progress.test.ts (this pass may end before one is drawn).
    await expect(row.locator('progress').count()).resolves.toBe(0) // finished: the bar is gone
    await expect(row.getByText(/Revision/).textContent()).resolves.toMatch(/Revision \S+/)
    await expect(row.getByText(/\d+ pages/).textContent()).resolves.toMatch(/4\d pages/)
    const spaceFolder = path.join(workspace, 'Quire Demo', 'User Guide')
    expect(fs.existsSync(path.join(spaceFolder, 'SUMMARY.md'))).toBe(true)
    await screenshotsAtSizes(page, '02-spaces')
    expect(await axeViolations(page)).toEqual([])
  }, 90_000)

  it('turns an edit on disk into a change request, and merges it', async () => {
    const api = await serviceApi()
    const orgId = (await api.call('listOrganizationsForAuthenticatedUser')).body.items[0].id
    const guide = (await api.call('listSpacesInOrganizationById', { params: { organizationId: orgId } })).body.items.find((s: { title: string }) => s.title === 'User Guide')
    const quickStart = (await api.call('listPages', { params: { spaceId: guide.id } })).body.pages
      .flatMap(function flat(p: { pages?: unknown[] }): any[] { return [p, ...((p.pages ?? []) as any[]).flatMap(flat)] })
      .find((p: { title: string }) => p.title === 'Quick start')
    const file = path.join(workspace, 'Quire Demo', 'User Guide', quickStart.git.path)
    fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8')}\nEdited on disk by the UI test.\n`)

    // The sync-up engine sends it on the next pass; Sync now starts one.
    await page.getByRole('button', { name: 'Sync now' }).click()
    await nav('Change requests')
    await page.getByRole('button', { name: 'Mine', exact: true }).click()
    const card = page.locator('li.cr', { hasText: 'Mine' })
    await expect.poll(async () => {
      if ((await card.count()) === 0) await page.getByRole('button', { name: 'Refresh' }).click()
      return card.count()
    }, { timeout: 30_000 }).toBe(1)
    await expect(card.locator('.badge').first().textContent()).resolves.toMatch(/^(open|draft)$/)
    // The heading names the space with the number ("User Guide #3"): numbers repeat across spaces.
    const number = Number(/#(\d+)$/.exec((await card.locator('.cr-subject .muted').textContent()) ?? '')?.[1])
    const [cr] = (await api.call('listChangeRequestsForSpace', { params: { spaceId: guide.id }, query: { status: 'draft' } })).body.items
      .concat((await api.call('listChangeRequestsForSpace', { params: { spaceId: guide.id }, query: { status: 'open' } })).body.items)
      .filter((c: { number: number }) => c.number === number)
    // The change request is made first and the edit sent into it next (two operations of the outbox): on a
    // busy machine the card can show between them.
    const crMarkdown = async () => (await api.call('getPageInChangeRequestById', { params: { spaceId: guide.id, changeRequestId: cr.id, pageId: quickStart.id }, query: { format: 'markdown' } })).body.markdown as string
    await expect.poll(crMarkdown, { timeout: 30_000 }).toContain('Edited on disk by the UI test.')

    // Grace's demo change request is among the space's.
    await page.getByRole('button', { name: 'All in my spaces' }).click()
    await page.locator('li.cr', { hasText: 'Simplify the quick start' }).waitFor()
    // Open in browser is offered on the demo service too: the local service serves the change request's page.
    await page.locator('li.cr', { hasText: 'Simplify the quick start' }).getByRole('button', { name: 'Open in browser' }).waitFor()
    const live = [...(await api.call('listChangeRequestsForSpace', { params: { spaceId: guide.id }, query: { status: 'open' } })).body.items, ...(await api.call('listChangeRequestsForSpace', { params: { spaceId: guide.id }, query: { status: 'draft' } })).body.items]
    const graces = live.find((c: { subject: string }) => c.subject === 'Simplify the quick start') as { urls: { app: string } }
    const appPage = await fetch(graces.urls.app)
    expect(appPage.status).toBe(200)
    expect(appPage.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(await appPage.text()).toContain('<h1>Simplify the quick start</h1>')
    await screenshotsAtSizes(page, '03-change-requests')
    expect(await axeViolations(page)).toEqual([])

    // Merge asks first, naming what it brings into main.
    await page.locator('li.cr', { hasText: 'Mine' }).getByRole('button', { name: 'Merge…' }).click()
    const confirm = page.getByRole('group', { name: new RegExp(`^Confirm merging #${number} in `) })
    await expect.poll(() => confirm.textContent(), { timeout: 20_000 }).toMatch(/changes to 1 page: Quick start/)
    await confirm.getByRole('button', { name: `Merge #${number}` }).click()
    await page.getByText(`Merged #${number}.`).waitFor()
    expect((await api.call('getChangeRequestById', { params: { spaceId: guide.id, changeRequestId: cr.id } })).body.status).toBe('merged')
    await expect.poll(() => page.locator('li.cr', { hasText: 'Mine' }).count()).toBe(0)
    // Main moved on: Grace's change request is now behind it.
    const grace = page.locator('li.cr', { hasText: 'Simplify the quick start' })
    await grace.getByText('Outdated').waitFor()
    await screenshotsAtSizes(page, '03b-change-requests-outdated')
    expect(await axeViolations(page)).toEqual([])
    await grace.getByRole('button', { name: 'Update from main' }).click()
    await page.getByText(/#\d+ (is up to date with main|was updated from main with conflicts)/).waitFor()
    // Main now has the edit, and the workspace keeps it.
    const merged = (await api.call('getPageById', { params: { spaceId: guide.id, pageId: quickStart.id }, query: { format: 'markdown' } })).body
    expect(merged.markdown).toContain('Edited on disk by the UI test.')
    expect(fs.readFileSync(file, 'utf8')).toContain('Edited on disk by the UI test.')
  }, 60_000)

  it('finds a broken link in the link report and opens its file', async () => {
    await nav('Link report')
    const legacy = page.getByRole('button', { name: /legacy-setup\.md/ })
    await legacy.first().waitFor()
    await expect(legacy.first().textContent()).resolves.toMatch(/\.md:\d+/)
    await screenshotsAtSizes(page, '04-link-report')
    expect(await axeViolations(page)).toEqual([])
    await legacy.first().click()
    await expect.poll(() => (fs.existsSync(opened) ? fs.readFileSync(opened, 'utf8') : ''), { timeout: 10_000 }).not.toBe('')
    const [file, line] = JSON.parse(fs.readFileSync(opened, 'utf8').trim().split('\n')[0]) as [string, string]
    expect(file.startsWith(fs.realpathSync(workspace))).toBe(true)
    // The label names the file by its whole path in the space folder, not its last two segments (defect 6).
    const relative = path.relative(fs.realpathSync(path.join(workspace, 'Quire Demo', 'User Guide')), file).split(path.sep).join('/')
    await expect(legacy.first().textContent()).resolves.toContain(`in ${relative}:${line}`)
    // What happened, said: the editor QUIRE_EDITOR names (here node, running the recorder), on quire serve's computer.
    await page.getByText(`Opened ${relative}:${line} in node on the computer quire serve runs on.`).waitFor()
    const text = fs.readFileSync(file, 'utf8').split('\n')
    expect(text[Number(line) - 1]).toContain('legacy-setup.md')
  })

  it('shows comment threads by page, and posts a reply', async () => {
    await nav('Comments')
    const thread = page.locator('li.thread').first()
    await thread.waitFor()
    const reply = thread.getByRole('textbox')
    await reply.fill('Answered from the UI test.')
    await thread.getByRole('button', { name: 'Reply', exact: true }).click()
    await page.getByText('Answered from the UI test.').waitFor()
    await screenshotsAtSizes(page, '05-comments')
    expect(await axeViolations(page)).toEqual([])
  })

  it('shows the activity log and the settings', async () => {
    await nav('Activity')
    await page.getByText(/Merged #\d+/).first().waitFor()
    await page.getByText(/Sent 1 local change of User Guide to change request #\d+/).first().waitFor()
    await screenshotsAtSizes(page, '06-activity')
    expect(await axeViolations(page)).toEqual([])
    await nav('Settings')
    await page.getByLabel('Workspace folder').waitFor()
    await screenshotsAtSizes(page, '07-settings')
    expect(await axeViolations(page)).toEqual([])
  })

  it('is usable from the keyboard: tab order runs through the toolbar, then the sections', async () => {
    await page.reload()
    await page.getByRole('heading', { name: 'Spaces' }).waitFor()
    const stops: string[] = []
    for (let i = 0; i < 13; i++) {
      await page.keyboard.press('Tab')
      stops.push((await page.evaluate(() => document.activeElement?.textContent)) ?? '')
    }
    const order = ['Sync now', 'Pause', 'Theme: system', 'Spaces', 'For review', 'Change requests', 'Comments', 'Link report', 'Preview', 'Activity', 'Settings']
    expect(stops.filter((s) => order.includes(s))).toEqual(order)
    // The focused control shows a focus ring.
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle)
    expect(outline).not.toBe('none')
    // Enter on a focused section button opens it.
    await page.getByRole('button', { name: 'Activity', exact: true }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Activity' }).waitFor()
  })

  it('has a theme toggle that wins over the system setting, and remembers it', async () => {
    await page.emulateMedia({ colorScheme: 'light' })
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    const light = await background()
    await page.getByRole('button', { name: /^Theme: system/ }).click() // -> light
    await page.getByRole('button', { name: /^Theme: light/ }).click() // -> dark
    await page.getByRole('button', { name: /^Theme: dark/ }).waitFor()
    expect(await background()).not.toBe(light)
    fs.mkdirSync(SCREENSHOTS, { recursive: true })
    await page.screenshot({ path: path.join(SCREENSHOTS, '08-theme-toggle-dark-on-light-system.png') })
    await page.reload()
    await page.getByRole('button', { name: /^Theme: dark/ }).waitFor()
    expect(await background()).not.toBe(light)
  })

  it('lets one person play both sides on the demo: signs in as its reviewer, who sees what waits for her, and back', async () => {
    // The writer asks Ada, the demo's reviewer, to review Grace's change request.
    await page.evaluate(async () => {
      const quire = window.quire!
      const guide = (await quire.listSpaces())[0].collections.flatMap((c) => c.spaces).find((s) => s.title === 'User Guide')!
      const cr = (await quire.listChangeRequests({ spaceId: guide.id })).find((c) => c.subject === 'Simplify the quick start')!
      const ada = (await quire.listReviewerCandidates({ spaceId: guide.id })).find((c) => c.name === 'Ada Reviewer')!
      await quire.requestReviewers({ spaceId: guide.id, changeRequestId: cr.id, users: [ada.userId] })
    })
    const sections = page.getByRole('navigation', { name: 'Sections' })
    await sections.getByRole('button', { name: 'Sign in as the reviewer' }).click()
    await page.getByText('Signed in to the demo service as its reviewer.').waitFor({ timeout: 30_000 })
    await sections.getByText('Ada Reviewer (demo service)').waitFor()
    await openSection(page, /^For review/)
    await page.locator('li.cr', { hasText: 'Simplify the quick start' }).waitFor({ timeout: 30_000 })
    await screenshotsAtSizes(page, '09-demo-reviewer')
    expect(await axeViolations(page)).toEqual([])
    await sections.getByRole('button', { name: 'Sign in as the writer' }).click()
    await sections.getByText('Quire Owner (demo service)').waitFor({ timeout: 30_000 })
  }, 90_000)
})
