import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const hasChromium = fs.existsSync(CHROMIUM)
export const SCREENSHOTS = path.resolve('test-output/screenshots')

// From import.meta.url, not __dirname: scripts/screenshots.ts loads this file as an ES module under tsx.
const repo = fileURLToPath(new URL('../..', import.meta.url))

export interface ServeProcess {
  url: string
  origin: string
  child: ChildProcess
  stderr: () => string
  stop(): Promise<void>
}

/** Runs the real `quire serve` (bin/quire.mjs) and waits for the URL it prints first. */
export async function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [path.join(repo, 'bin/quire.mjs'), 'serve', ...args], {
    cwd: repo,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`quire serve printed no URL in 60 s:\n${err}`)), 60_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split('\n').find((l) => l.startsWith('http://'))
      if (line) {
        clearTimeout(timer)
        resolve(line.trim())
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`quire serve exited with ${code}:\n${err}`))
    })
  })
  return {
    url,
    origin: new URL(url).origin,
    child,
    stderr: () => err,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref()
      }),
  }
}

/** Debian's Chromium through playwright-core, with a fresh profile. */
export async function launchBrowser(): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1200, height: 860 },
  })
  const page = context.pages()[0] ?? (await context.newPage())
  return {
    context,
    page,
    async close() {
      await context.close()
      fs.rmSync(profile, { recursive: true, force: true })
    },
  }
}

/** Opens a section of the app from its Sections navigation: a name matched exactly, a pattern as it is. */
export function openSection(page: Page, name: string | RegExp): Promise<void> {
  return page.getByRole('navigation', { name: 'Sections' }).getByRole('button', typeof name === 'string' ? { name, exact: true } : { name }).click()
}

/** A light and a dark screenshot of what the page shows now. */
export async function screenshots(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${scheme}.png`), fullPage: false })
  }
  await page.emulateMedia({ colorScheme: 'light' })
}

/** Light and dark screenshots at the two widths the layout must hold: 1280×800 and 640×800 (then back to `restore`). */
export async function screenshotsAtSizes(page: Page, name: string, restore = { width: 1200, height: 860 }): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  for (const size of [
    { width: 1280, height: 800 },
    { width: 640, height: 800 },
  ]) {
    await page.setViewportSize(size)
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${size.width}-${scheme}.png`), fullPage: false })
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize(restore)
}

const AXE_SOURCE = path.join(repo, 'node_modules', 'axe-core', 'axe.min.js')

export interface AxeFinding {
  scheme: 'light' | 'dark'
  id: string
  impact?: string | null
  help: string
  targets: string[]
}

/** axe-core's violations of what the page shows now, in light and in dark (WCAG 2 A and AA rules). */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined')
  if (!loaded) await page.evaluate(fs.readFileSync(AXE_SOURCE, 'utf8'))
  const found: AxeFinding[] = []
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; impact?: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe
      const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] })
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.map(String).join(' ')) }))
    })
    found.push(...violations.map((v) => ({ scheme, ...v })))
  }
  await page.emulateMedia({ colorScheme: 'light' })
  return found
}
