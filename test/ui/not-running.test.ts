import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRenderer } from '../../src/main/headless/renderer-build'
import { axeViolations, hasChromium, launchBrowser, screenshotsAtSizes, startServe, type ServeProcess } from './support'

/**
 * Issue 27, item 4: when `quire serve` itself stops, the tab says "Quire is not running" (not the
 * state it last showed, not fetch's "Failed to fetch"), and when serve runs again on the same port and
 * data folder, the tab reconnects by itself: serve keeps its tabs' token digests in the data folder.
 */

/** A port free now (the OS picks it; serve binds it again after a restart). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

describe.skipIf(!hasChromium)('the tab when quire serve stops and comes back', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-not-running-'))
  let serve: ServeProcess | undefined
  let browser: Awaited<ReturnType<typeof launchBrowser>>
  let args: string[]

  beforeAll(async () => {
    const rendererDir = path.join(tmp, 'renderer')
    await buildRenderer(rendererDir)
    args = ['--port', String(await freePort()), '--data', path.join(tmp, 'data'), '--renderer', rendererDir]
    serve = await startServe(args, { QUIRE_TOKEN_STORE: 'file' })
    browser = await launchBrowser()
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await serve?.stop()
    fs.rmSync(tmp, { recursive: true, force: true })
  })

  it('says Quire is not running, calls say so in words, and it reconnects by itself when serve is back', async () => {
    const page = browser.page
    await page.goto(serve!.url)
    await page.getByRole('heading', { name: 'Sign in to Quire' }).waitFor({ timeout: 30_000 })

    await serve!.stop()
    const gone = page.getByRole('alert').filter({ hasText: 'Quire is not running' })
    await gone.waitFor({ timeout: 30_000 })
    // A call made now fails in words, not "Failed to fetch".
    const failure = await page.evaluate(() => window.quire!.getSession().then(() => 'answered', (e: Error) => e.message))
    expect(failure).toMatch(/^Quire is not running: quire serve cannot be reached/)
    await screenshotsAtSizes(page, 'not-running-01')
    expect(await axeViolations(page)).toEqual([])

    serve = await startServe(args, { QUIRE_TOKEN_STORE: 'file' })
    await expect.poll(() => gone.count(), { timeout: 60_000 }).toBe(0)
    expect(await page.evaluate(() => window.quire!.getSession().then((s) => s.signedIn))).toBe(false)
  }, 180_000)
})
