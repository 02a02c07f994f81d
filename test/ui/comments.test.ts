import type { Page, Route } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { mainRevision, pageIdAt, pagesOf, seedSpace, type SeededSpace } from '../engine/sync-up/support/workspace'
import { openAppInBrowser, type AppInBrowser } from './open-app'
import { axeViolations, hasChromium, openSection, screenshotsAtSizes } from './support'

/**
 * Issue 12, defect 8: the Comments screen. "Raw markdown, open and resolved mixed with no filter, a flat
 * list of pages as the page picker, thread ids hidden though reply markers need them, the first (empty)
 * space chosen." One test per part, the real renderer through the real headless server and the app's
 * backend, against the real local service, comments seeded through its API. Every wait is on a
 * condition the page shows, never a fixed sleep.
 */

process.env.QUIRE_TOKEN_STORE = 'file'

const t = serviceForFile()
const desktop: DesktopActions = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }

/** A reviewer's comment with every kind of markdown the screen must render, and HTML it must never run. */
const MARKDOWN_COMMENT = [
  'The **installer claim** needs a source, see [the release notes](https://example.com/notes?a=1&b=2).',
  '',
  '- check on Linux',
  '- check on macOS',
  '',
  '<script>window.pwned = "script"</script>',
  '',
  '<img src="nowhere.png" onerror="window.pwned = \'img\'">',
  '',
  'And [a trap](javascript:window.pwned=\'link\').',
].join('\n')
const RESOLVED_COMMENT = 'The FAQ answer about proxies is outdated.'

describe.skipIf(!hasChromium)('Comments: rendered, filtered, a tree to pick from, ids to reply with, the space with threads', () => {
  let seeded: SeededSpace
  let emptySpaceId: string
  let markdownThread: string
  let resolvedThread: string
  let app: AppInBrowser
  let page: Page
  const nav = (name: string) => openSection(page, name)
  const which = (name: 'Open' | 'Resolved' | 'All') => page.getByRole('group', { name: 'Which threads' }).getByRole('button', { name: new RegExp(`^${name}\\b`) })
  const shownThreads = () => page.locator('li.thread').evaluateAll((items) => items.map((li) => li.getAttribute('data-comment-id')))

  beforeAll(async () => {
    seeded = await seedSpace(t)
    // An empty space of the same organization whose title sorts first: the screen must not open on it.
    emptySpaceId = ((await t.api.call('createSpace', { params: { organizationId: seeded.orgId }, body: { title: 'Archive' } })).body as { id: string }).id
    const pages = [...pagesOf(await mainRevision(t.api, seeded.spaceId))]
    const pageId = (p: string) => pages.find(([, page]) => page.path === p)![0]
    const post = async (page: string, markdown: string) =>
      ((await t.api.call('postCommentInSpace', { params: { spaceId: seeded.spaceId }, body: { body: { markdown }, page: pageId(page) } })).body as { id: string }).id
    markdownThread = await post('guide/install.md', MARKDOWN_COMMENT)
    resolvedThread = await post('faq.md', RESOLVED_COMMENT)
    await t.api.call('updateCommentInSpace', { params: { spaceId: seeded.spaceId, commentId: resolvedThread }, body: { resolved: true } })

    app = await openAppInBrowser('quire-ui-comments-', {
      desktop,
      endpoint: t.service.origin,
      token: t.service.token,
      select: [emptySpaceId, seeded.spaceId],
      permissions: ['clipboard-read', 'clipboard-write'],
    })
    page = app.page
    expect((await app.backend.getStatus()).spaces.map((s) => s.title)).toEqual(['Archive', 'Docs'])
  }, 120_000)

  afterAll(() => app?.close())

  it('with two spaces, the first empty, the screen opens on the one with threads (and never shows the empty one first)', async () => {
    // Every value the space picker takes and every "no comments" line, recorded from the first frame on.
    await page.evaluate(() => {
      const seen: string[] = []
      ;(window as unknown as { spacesSeen: string[] }).spacesSeen = seen
      const record = () => {
        const select = document.querySelector<HTMLSelectElement>('#comment-space')
        const empty = [...document.querySelectorAll('main p')].find((p) => /^No (open |resolved )?comments here/.test(p.textContent ?? ''))
        const now = `${select?.value ?? ''}${empty ? ' (empty)' : ''}`
        if (select && seen.at(-1) !== now) seen.push(now)
        requestAnimationFrame(record)
      }
      requestAnimationFrame(record)
    })
    await nav('Comments')
    await page.locator('li.thread').first().waitFor({ timeout: 20_000 })
    expect(await page.getByLabel('Space').inputValue()).toBe(seeded.spaceId)
    const seen = await page.evaluate(() => (window as unknown as { spacesSeen: string[] }).spacesSeen)
    expect(seen.filter((s) => s.startsWith(emptySpaceId) || s.endsWith('(empty)'))).toEqual([])
    // The empty space is still there to choose, and says it has none.
    await page.getByLabel('Space').selectOption(emptySpaceId)
    await page.getByText('No open comments here.').waitFor({ timeout: 20_000 })
    // Back to Docs with its answer held in the network: the empty space's list is not shown as Docs' meanwhile.
    let letGo: () => void = () => undefined
    const held = new Promise<void>((resolve) => (letGo = resolve))
    await page.route('**/api/listComments', async (route: Route) => {
      await held
      await route.continue()
    })
    await page.getByLabel('Space').selectOption(seeded.spaceId)
    await page.getByText('Loading comments…').waitFor({ timeout: 20_000 })
    expect(await page.getByText('No open comments here.').count()).toBe(0)
    letGo()
    await page.locator('li.thread').first().waitFor({ timeout: 20_000 })
    await page.unroute('**/api/listComments')
  }, 60_000)

  it('markdown renders as elements (strong, a safe link, list items); the hostile HTML shows as text and runs nothing', async () => {
    const thread = page.locator(`li.thread[data-comment-id="${markdownThread}"]`)
    await thread.waitFor({ timeout: 20_000 })
    const body = thread.locator('.comment-body').first()
    await expect(body.locator('strong').allTextContents()).resolves.toEqual(['installer claim'])
    const link = body.getByRole('link', { name: 'the release notes' })
    expect(await link.getAttribute('href')).toBe('https://example.com/notes?a=1&b=2')
    expect(await link.getAttribute('rel')).toMatch(/noopener/)
    await expect(body.locator('li').allTextContents()).resolves.toEqual(['check on Linux', 'check on macOS'])
    // The trap keeps its words but loses its javascript: address.
    const trap = body.getByText('a trap')
    expect(await trap.evaluate((el) => (el.closest('a') as HTMLAnchorElement | null)?.getAttribute('href') ?? null)).toBeNull()
    // Raw HTML is the reviewer's text, shown as written: never an element, never run.
    const text = (await body.textContent()) ?? ''
    expect(text).toContain('<script>window.pwned = "script"</script>')
    expect(text).toContain('<img src="nowhere.png"')
    const unsafe = await page.evaluate(() => ({
      scripts: document.querySelectorAll('main script').length,
      images: document.querySelectorAll('main img').length,
      handlers: [...document.querySelectorAll('main *')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
      jsLinks: [...document.querySelectorAll('main a')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href') ?? '')).length,
      pwned: (window as unknown as { pwned?: string }).pwned ?? null,
    }))
    expect(unsafe).toEqual({ scripts: 0, images: 0, handlers: 0, jsLinks: 0, pwned: null })
    await screenshotsAtSizes(page, 'comments-01-markdown')
    // At 640 px nothing sticks out sideways: the long marker and the filter's counts wrap.
    await page.setViewportSize({ width: 640, height: 800 })
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(640)
    await page.setViewportSize({ width: 1200, height: 860 })
    expect(await axeViolations(page)).toEqual([])
  }, 60_000)

  it('the Open / Resolved / All filter shows each set, with how many each holds', async () => {
    expect(await which('Open').getAttribute('aria-pressed')).toBe('true')
    await expect.poll(shownThreads, { timeout: 20_000 }).toEqual([markdownThread])
    await expect.poll(() => which('Open').textContent()).toBe('Open (1)')
    await expect.poll(() => which('Resolved').textContent()).toBe('Resolved (1)')
    await expect.poll(() => which('All').textContent()).toBe('All (2)')

    await which('Resolved').click()
    await expect.poll(shownThreads, { timeout: 20_000 }).toEqual([resolvedThread])
    await expect(page.locator(`li.thread[data-comment-id="${resolvedThread}"]`).textContent()).resolves.toContain(RESOLVED_COMMENT)
    expect(await which('Resolved').getAttribute('aria-pressed')).toBe('true')
    expect(await which('Open').getAttribute('aria-pressed')).toBe('false')
    await screenshotsAtSizes(page, 'comments-02-resolved')
    expect(await axeViolations(page)).toEqual([])

    await which('All').click()
    await expect.poll(async () => (await shownThreads()).sort(), { timeout: 20_000 }).toEqual([markdownThread, resolvedThread].sort())
    await which('Open').click()
    await expect.poll(shownThreads, { timeout: 20_000 }).toEqual([markdownThread])
  }, 60_000)

  it("the page picker (online) is the space's tree in tree order with depth, and its search box filters it", async () => {
    const options = async (label: string) => (await page.getByLabel(label, { exact: true }).locator('option').allTextContents()).filter((l) => !/^(Choose a page…|All pages)/.test(l))
    const tree = ['Home', 'Getting started', 'Guide', '\u00a0\u00a0\u00a0Install', '\u00a0\u00a0\u00a0Configure', 'FAQ']
    await expect.poll(() => options('On page'), { timeout: 20_000 }).toEqual(tree)
    await expect.poll(() => options('Page')).toEqual(tree)

    await page.getByLabel('Find a page').fill('inst')
    await expect.poll(() => options('On page')).toEqual(['Install — guide/install.md'])
    await expect.poll(() => options('Page')).toEqual(['Install — guide/install.md'])
    await page.getByLabel('Find a page').fill('guide/')
    await expect.poll(() => options('On page')).toEqual(['Guide — guide/README.md', 'Install — guide/install.md', 'Configure — guide/configure.md'])
    await screenshotsAtSizes(page, 'comments-03-page-search')
    expect(await axeViolations(page)).toEqual([])
    await page.getByLabel('Find a page').fill('')
    await expect.poll(() => options('On page')).toEqual(tree)
  }, 60_000)

  it('each thread shows its id with a Copy button that copies it, and the reply marker it is for', async () => {
    const thread = page.locator(`li.thread[data-comment-id="${markdownThread}"]`)
    const id = thread.locator('.thread-id')
    await expect(id.locator('code').first().textContent()).resolves.toBe(markdownThread)
    await expect(id.getAttribute('data-thread-id')).resolves.toBe(markdownThread)
    // The marker a writer types in the page to answer this thread from an editor.
    await expect(thread.locator('.reply-marker code').textContent()).resolves.toBe(`<!-- reply ${markdownThread}: your answer -->`)

    await thread.getByRole('button', { name: `Copy the thread id ${markdownThread}` }).click()
    await thread.getByRole('status').filter({ hasText: 'Copied' }).waitFor({ timeout: 10_000 })
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(markdownThread)

    await thread.getByRole('button', { name: `Copy the reply marker for ${markdownThread}` }).click()
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText()), { timeout: 10_000 }).toBe(`<!-- reply ${markdownThread}: your answer -->`)
    await screenshotsAtSizes(page, 'comments-04-thread-id-copied')
    expect(await axeViolations(page)).toEqual([])
  }, 60_000)

  it('a copy the browser refuses says so, with the id left to select by hand', async () => {
    const thread = page.locator(`li.thread[data-comment-id="${markdownThread}"]`)
    await page.evaluate(() => {
      Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: () => Promise.reject(new Error('Write permission denied.')) } })
    })
    await thread.getByRole('button', { name: `Copy the thread id ${markdownThread}` }).click()
    await thread.getByRole('alert').filter({ hasText: 'Could not copy: select the id and copy it by hand.' }).waitFor({ timeout: 10_000 })
    expect(await axeViolations(page)).toEqual([])
    await page.reload()
    await page.getByRole('heading', { name: 'Spaces' }).waitFor({ timeout: 30_000 })
    await nav('Comments')
  }, 60_000)

  it('the new-comment form comes after the threads', async () => {
    await page.locator('li.thread').first().waitFor({ timeout: 20_000 })
    await which('All').click()
    await expect.poll(() => page.locator('li.thread').count(), { timeout: 20_000 }).toBe(2)
    const after = await page.evaluate(() => {
      const form = document.querySelector('form.new-comment')!
      const threads = [...document.querySelectorAll('li.thread')]
      return threads.every((thread) => (thread.compareDocumentPosition(form) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0)
    })
    expect(after).toBe(true)
    // And posting there adds a thread above it.
    const install = await pageIdAt(t.api, seeded.spaceId, 'guide/install.md')
    await page.getByLabel('On page', { exact: true }).selectOption(install)
    await page.getByLabel('Comment', { exact: true }).fill('Posted from the form at the bottom.')
    await page.getByRole('button', { name: 'Post comment' }).click()
    await page.getByText('Comment posted.').waitFor({ timeout: 20_000 })
    const posted = page.locator('li.thread', { hasText: 'Posted from the form at the bottom.' })
    await posted.waitFor({ timeout: 20_000 })
    expect(await posted.evaluate((li) => (li.compareDocumentPosition(document.querySelector('form.new-comment')!) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0)).toBe(true)
    await screenshotsAtSizes(page, 'comments-05-all-and-new-comment')
    expect(await axeViolations(page)).toEqual([])
  }, 60_000)
})
