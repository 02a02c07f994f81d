import fs from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { buildRenderer } from '../../src/main/headless/renderer-build'
import { startHeadlessServer, type HeadlessServer } from '../../src/main/headless/server'
import { tempDir } from '../engine/sync-up/support/workspace'
import { launchBrowser } from './support'

/*
 * The app as the UI tests drive it in this process: the app's own backend (a real SQLite cache in a
 * real folder) signed in to the real local service, served with the real renderer by the real headless
 * server, open in Chromium. Kept apart from support.ts so the tests of `quire serve` (a child process)
 * do not load the backend.
 */

export interface OpenAppOptions {
  /** The app's data folder: its cache, its tokens (in files) and the workspace, `docs` inside it. */
  dataDir: string
  /** Where the renderer was built (buildRenderer). */
  rendererDir: string
  desktop: DesktopActions
  /** The service to sign in to, and as whom. */
  endpoint: string
  token: string
  /** Spaces to select before the page opens; without any the app opens with nothing selected. */
  select?: string[]
  /** Wait for the passes the selection starts before the page opens. */
  settled?: boolean
  /** Browser permissions granted to the app's origin before the page opens (e.g. the clipboard's). */
  permissions?: string[]
  /** The browser page to open the app in. */
  page: Page
  /** The fetch the app's gateway uses (default the global one): a test may hold requests with it. */
  fetch?: typeof fetch
}

export interface OpenedApp {
  backend: QuireBackend
  server: HeadlessServer
  page: Page
  workspace: string
  /** Stops the server, then closes the backend. */
  close(): Promise<void>
}

/** Opens the app in `page` and waits for its first screen (Spaces). */
export async function openApp(options: OpenAppOptions): Promise<OpenedApp> {
  const workspace = path.join(options.dataDir, 'docs')
  // Every attempt at the service fails fast, so an offline state shows within a test's waits.
  const backend = await QuireBackend.open({ dataDir: options.dataDir, desktop: options.desktop, debounceMs: 200, reconnectMs: 300, gateway: { maxAttempts: 1, timeoutMs: 5000, fetch: options.fetch } })
  let server: HeadlessServer | undefined
  try {
    // No timed passes during the test: every cycle is one the test (or the app's own logic) asks for.
    await backend.updateSettings({ workspace, intervalSeconds: 86_400 })
    await backend.signIn({ endpoint: options.endpoint, token: options.token })
    if (options.select?.length) {
      await backend.listSpaces()
      for (const id of options.select) await backend.setSelection({ kind: 'space', id, selected: true })
    }
    if (options.settled) await backend.idle()
    server = await startHeadlessServer({ backend, rendererDir: options.rendererDir, port: 0 })
    const { page } = options
    if (options.permissions) await page.context().grantPermissions(options.permissions, { origin: new URL(server.url).origin })
    await page.goto(server.url)
    await page.getByRole('heading', { name: 'Spaces' }).waitFor({ timeout: 30_000 })
    const opened = server
    return {
      backend,
      server: opened,
      page,
      workspace,
      async close() {
        await opened.close()
        await backend.close()
      },
    }
  } catch (error) {
    await server?.close()
    await backend.close()
    throw error
  }
}

export interface AppInBrowser extends OpenedApp {
  dataDir: string
  browser: Awaited<ReturnType<typeof launchBrowser>>
  /** Closes the browser, the server and the backend, and removes the data folder. */
  close(): Promise<void>
}

/**
 * One app in its own Chromium for a file of tests: a new data folder (named from `prefix`) with the
 * renderer built into it, the app opened in the browser's first page.
 */
export async function openAppInBrowser(prefix: string, options: Omit<OpenAppOptions, 'dataDir' | 'rendererDir' | 'page'>): Promise<AppInBrowser> {
  const dataDir = tempDir(prefix)
  let browser: AppInBrowser['browser'] | undefined
  try {
    const rendererDir = path.join(dataDir, 'renderer')
    await buildRenderer(rendererDir)
    browser = await launchBrowser()
    const app = await openApp({ ...options, dataDir, rendererDir, page: browser.page })
    const opened = browser
    return {
      ...app,
      dataDir,
      browser: opened,
      async close() {
        await opened.close()
        await app.close()
        fs.rmSync(dataDir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    await browser?.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
    throw error
  }
}

type HeaderWindow = Window & { headerSeen?: string[] }

/** Records every text the header's state line shows, in order, from now on (a state may last a moment only). */
export async function recordHeaderStates(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: string[] = []
    ;(window as HeaderWindow).headerSeen = seen
    new MutationObserver(() => {
      const text = document.querySelector('#overall-state')?.textContent ?? ''
      if (seen.at(-1) !== text) seen.push(text)
    }).observe(document.body, { subtree: true, childList: true, characterData: true })
  })
}

/** What recordHeaderStates has seen so far. */
export const headerStatesSeen = (page: Page): Promise<string[]> => page.evaluate(() => (window as HeaderWindow).headerSeen ?? [])

/** The header has said Syncing or In sync, and never "not synced yet" since it first did. */
export async function expectNoNotSyncedYetOnceSyncing(page: Page): Promise<void> {
  const seen = await headerStatesSeen(page)
  const firstSync = seen.findIndex((s) => /Syncing|In sync/.test(s))
  expect(firstSync).toBeGreaterThanOrEqual(0)
  expect(seen.slice(firstSync).filter((s) => /not synced yet/i.test(s))).toEqual([])
}
