import fs from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { openAppInBrowser, type AppInBrowser } from './open-app'
import { axeViolations, hasChromium, screenshots } from './support'

/**
 * Issue 28, the app's search box: Ctrl+K over every synced space, through the one contract the
 * desktop app and `quire serve` share (the real renderer, the real headless server over the app's
 * backend, the demo service), in Chromium. Results are marked Local or Remote; a local one opens the
 * file at its line, a remote one the page on the service; offline, the local results alone.
 */

process.env.QUIRE_TOKEN_STORE = 'file'

const t = serviceForFile({ demo: true })
const opened: Array<{ file: string; line?: number }> = []
const desktop: DesktopActions = {
  openFile: async (file, line) => {
    opened.push({ file, line })
    return 'Test Editor'
  },
  openUrl: async () => {},
  openFolder: async () => {},
}

describe.skipIf(!hasChromium)('the search box', () => {
  let app: AppInBrowser
  let page: Page
  let guide: string
  const dialog = () => page.getByRole('dialog', { name: 'Search every space' })
  const box = () => dialog().getByRole('searchbox', { name: 'Search words' })
  const results = () => dialog().getByRole('list', { name: 'Results' }).getByRole('button')

  beforeAll(async () => {
    app = await openAppInBrowser('quire-ui-search-', { desktop, endpoint: t.service.origin, token: t.service.token })
    page = app.page
    const tree = await app.backend.listSpaces()
    const space = tree.flatMap((org) => [...org.spaces, ...org.collections.flatMap((c) => c.spaces)]).find((s) => s.title === 'User Guide')!
    await app.backend.setSelection({ kind: 'space', id: space.id, selected: true })
    await app.backend.idle()
    guide = path.join(app.workspace, 'Quire Demo', 'User Guide')
    expect(fs.existsSync(path.join(guide, 'guides', 'working-offline.md'))).toBe(true)
  }, 120_000)

  afterAll(() => app?.close())

  it('Ctrl+K opens it, typing finds pages marked Local, the keyboard opens one at its line; axe finds nothing', async () => {
    await page.keyboard.press('Control+k')
    await expect.poll(() => box().evaluate((el) => el === document.activeElement), { timeout: 10_000 }).toBe(true)
    await page.keyboard.type('working offli')
    const first = results().first()
    await expect.poll(() => first.textContent(), { timeout: 20_000 }).toMatch(/^Local Working offline User Guide · guides\/working-offline\.md:1/)
    await expect.poll(() => dialog().getByRole('status').first().textContent(), { timeout: 20_000 }).toMatch(/local results?/)
    expect(await first.locator('mark').allTextContents()).toEqual(['Working', 'offline'])
    await screenshots(page, 'search-01-local')
    expect(await axeViolations(page)).toEqual([])

    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await expect.poll(() => opened.at(-1), { timeout: 10_000 }).toEqual({ file: fs.realpathSync(path.join(guide, 'guides', 'working-offline.md')), line: 1 })
    await expect.poll(() => dialog().textContent()).toMatch(/Opened guides\/working-offline\.md at line 1 in Test Editor on the computer quire serve runs on\./)
    await page.keyboard.press('Escape')
    await expect.poll(() => dialog().count()).toBe(0)
  }, 90_000)

  it('a page only the service found is marked Remote and opens on the service; offline, local results alone and an unsent edit found', async () => {
    fs.rmSync(path.join(guide, 'guides', 'working-offline.md'))
    await page.getByRole('button', { name: /^Search/ }).click()
    await box().fill('working offline')
    const remote = results().filter({ hasText: /^Remote/ })
    await expect.poll(() => remote.first().textContent(), { timeout: 20_000 }).toMatch(/^Remote Working offline User Guide · on the service/)
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, 'search-02-remote')
    const tab = page.context().waitForEvent('page')
    await remote.first().click()
    expect((await tab).url()).toMatch(new RegExp(`^${t.service.origin}/.*page/`))

    await t.close()
    fs.appendFileSync(path.join(guide, 'README.md'), '\nZanzibar quokkas, an unsent edit.\n')
    const lines = fs.readFileSync(path.join(guide, 'README.md'), 'utf8').split('\n')
    const line = lines.findIndex((l) => l.startsWith('Zanzibar')) + 1
    await box().fill('zanzib')
    await expect.poll(() => results().first().textContent(), { timeout: 20_000 }).toMatch(new RegExp(`^Local .* · README\\.md:${line}Zanzibar quokkas, an unsent edit\\.$`))
    // The service is away: its search failed, or (once the session knows it is offline) was not asked.
    await expect.poll(() => dialog().getByRole('status').first().textContent(), { timeout: 20_000 }).toMatch(/The service's search failed|The service was not asked: offline/)
    expect(await results().filter({ hasText: /^Remote/ }).count()).toBe(0)
    await box().fill('"')
    await expect.poll(() => dialog().getByRole('alert').textContent(), { timeout: 20_000 }).toMatch(/has no word to search for/)
    expect(await axeViolations(page)).toEqual([])
    await screenshots(page, 'search-03-offline')
  }, 90_000)
})
