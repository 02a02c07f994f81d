/**
 * Refreshes the README's and docs' screenshots (docs/images/*.png) from the real app: the renderer
 * built with Vite, served by the real `quire serve` (bin/quire.mjs), driven in Debian's Chromium
 * (CHROMIUM_PATH, default /usr/bin/chromium) through the same helpers as the browser tests (test/ui).
 *
 *   npm run screenshots
 *
 * It follows the README's tour on the demo service: use the demo, pick the User Guide, edit a page on
 * disk, see the change request, then sign in as the demo's reviewer.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { buildRenderer } from '../src/main/headless/renderer-build'
import { CHROMIUM, hasChromium, launchBrowser, openSection, startServe } from '../test/ui/support'

const IMAGES = fileURLToPath(new URL('../docs/images', import.meta.url))
const SIZE = { width: 1280, height: 800 }

async function shoot(page: Page, name: string): Promise<void> {
  const file = path.join(IMAGES, `${name}.png`)
  await page.screenshot({ path: `${file}.tmp.png` })
  fs.renameSync(`${file}.tmp.png`, file) // a run that stops half way leaves the old image whole
  console.log(`wrote ${path.relative(process.cwd(), file)}`)
}

async function main(): Promise<void> {
  if (!hasChromium) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`)
  fs.mkdirSync(IMAGES, { recursive: true })
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-screenshots-'))
  const workspace = path.join(tmp, 'workspace')
  const rendererDir = path.join(tmp, 'renderer')
  await buildRenderer(rendererDir)
  const serve = await startServe(['--port', '0', '--data', path.join(tmp, 'data'), '--renderer', rendererDir], { QUIRE_TOKEN_STORE: 'file', QUIRE_EDITOR: 'true' })
  const browser = await launchBrowser()
  const page = browser.page
  try {
    await page.setViewportSize(SIZE)
    await page.emulateMedia({ colorScheme: 'light' })
    await page.goto(serve.url)
    await page.getByRole('heading', { name: 'Sign in to Quire' }).waitFor()
    await shoot(page, 'sign-in')

    await page.getByRole('button', { name: 'Use the demo service' }).click()
    await page.getByRole('heading', { name: 'Spaces' }).waitFor()
    await openSection(page, 'Settings')
    await page.getByLabel('Workspace folder').fill(workspace)
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Saved.').waitFor()
    await openSection(page, 'Spaces')
    await page.getByRole('checkbox', { name: 'User Guide' }).click()
    const row = page.locator('li.space-row', { hasText: 'User Guide' })
    await row.getByText('In sync').waitFor({ timeout: 120_000 })
    await shoot(page, 'spaces')

    // An edit in "your editor": appended to the FAQ on disk, as any editor would save it.
    const faq = path.join(workspace, 'Quire Demo', 'User Guide', 'faq.md')
    fs.appendFileSync(faq, '\n**Can two people try the review?** Yes: sign in as the reviewer.\n')
    await page.getByRole('button', { name: 'Sync now' }).click()
    await openSection(page, 'Change requests')
    await page.getByRole('button', { name: 'Mine', exact: true }).click()
    const mine = page.locator('li.cr', { hasText: 'Mine' })
    for (let tries = 0; (await mine.count()) === 0; tries++) {
      if (tries > 120) throw new Error('the change request for the edit did not show in 2 minutes')
      await page.getByRole('button', { name: 'Refresh' }).click()
      await page.waitForTimeout(1000)
    }
    await shoot(page, 'change-requests')

    // The writer asks Ada, the demo's reviewer, to review it (what the Ask for a review boxes do).
    await page.evaluate(async () => {
      const quire = window.quire!
      const guide = (await quire.listSpaces())[0].collections.flatMap((c) => c.spaces).find((s) => s.title === 'User Guide')!
      const cr = (await quire.listChangeRequests({ spaceId: guide.id })).find((c) => c.subject === 'Edit FAQ')!
      const ada = (await quire.listReviewerCandidates({ spaceId: guide.id })).find((c) => c.name === 'Ada Reviewer')!
      await quire.requestReviewers({ spaceId: guide.id, changeRequestId: cr.id, users: [ada.userId] })
    })
    const sections = page.getByRole('navigation', { name: 'Sections' })
    await sections.getByRole('button', { name: 'Sign in as the reviewer' }).click()
    await sections.getByText('Ada Reviewer (demo service)').waitFor({ timeout: 60_000 })
    await openSection(page, /^For review/)
    await page.locator('li.cr', { hasText: 'Edit FAQ' }).waitFor({ timeout: 60_000 })
    await page.emulateMedia({ colorScheme: 'dark' })
    await shoot(page, 'reviewer-dark')
  } finally {
    await browser.close()
    await serve.stop()
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

await main()
