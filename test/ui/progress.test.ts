import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { startTestService, type TestService } from '../support/service'
import { openAppInBrowser, type AppInBrowser } from './open-app'
import { hasChromium } from './support'

/**
 * The progress bar of a pass, in Chromium, over the app's backend against the real local service (the
 * demo's spaces). A first pass over the User Guide takes less than the 100 ms the backend leaves between
 * progress ticks on a quick machine, so it could end before any bar was drawn (CI saw none): the app's
 * file downloads wait here until the page has drawn a bar above 0 %. The pages come first in a pass and
 * need no download, so that bar comes from the pass itself; the wait is a condition, with a cap that
 * lets the pass go on (and the test fail) if it never comes.
 */

process.env.QUIRE_TOKEN_STORE = 'file'

const desktop: DesktopActions = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }
type ProgressWindow = Window & { progressSeen?: number[] }

describe.skipIf(!hasChromium)('the progress bar of a pass in the app', () => {
  let t: TestService
  let app: AppInBrowser
  let holdDownloads = false
  let downloadsHeld = 0

  const progressSeen = async (): Promise<number[]> => (await app?.page.evaluate(() => (window as ProgressWindow).progressSeen ?? [])) ?? []
  const gatedFetch: typeof fetch = async (input, init) => {
    if (holdDownloads && String(input instanceof Request ? input.url : input).includes('sig=')) {
      downloadsHeld++
      const deadline = performance.now() + 30_000
      while (performance.now() < deadline && !(await progressSeen()).some((value) => value > 0)) await new Promise((resolve) => setTimeout(resolve, 25))
    }
    return fetch(input, init)
  }

  beforeAll(async () => {
    t = await startTestService({ demo: true })
    app = await openAppInBrowser('quire-ui-progress-', { desktop, endpoint: t.service.origin, token: t.service.token, fetch: gatedFetch })
  }, 120_000)

  afterAll(async () => {
    await app?.close()
    await t?.close()
  })

  it('shows a bar that rises while the pass runs, and takes it away when the space is in sync', async () => {
    const { page } = app
    await page.getByText('User Guide').first().waitFor()
    await page.evaluate(() => {
      const seen: number[] = []
      ;(window as ProgressWindow).progressSeen = seen
      new MutationObserver(() => {
        for (const bar of document.querySelectorAll('progress')) seen.push(Number((bar as HTMLProgressElement).value))
      }).observe(document.body, { subtree: true, childList: true, attributes: true })
    })
    holdDownloads = true
    const box = page.getByRole('checkbox', { name: 'User Guide' })
    await box.click()
    await expect.poll(() => box.isChecked(), { timeout: 20_000 }).toBe(true)
    const row = page.locator('li.space-row', { hasText: 'User Guide' })
    await row.getByText('In sync').waitFor({ timeout: 60_000 })
    holdDownloads = false

    expect(downloadsHeld).toBeGreaterThan(0) // the guide has files: the pass did wait for the bar
    const seen = await progressSeen()
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every((value) => value >= 0 && value <= 1)).toBe(true)
    expect(Math.max(...seen)).toBeGreaterThan(0)
    await expect(row.locator('progress').count()).resolves.toBe(0) // finished: the bar is gone
  }, 90_000)
})
