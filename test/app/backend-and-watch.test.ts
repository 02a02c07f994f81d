import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { openChangeRequestMarkdown, openChangeRequests, pageIdAt, seedSpace, tempDir, type SeededSpace } from '../engine/sync-up/support/workspace'
import { until } from '../support/until'

/**
 * The app's backend and `quire watch` (a real child process) on one cache and one workspace (issue 11):
 * one of them holds the workspace's lease and syncs, the other says who does (the CLI) or attaches and
 * waits (the app); edits made while both run reach the change request once, and killing the holder hands
 * the workspace over.
 */

process.env.QUIRE_TOKEN_STORE = 'file'
const bin = path.resolve(__dirname, '../../bin/quire.mjs')
const t = serviceForFile()
const noDesktop: DesktopActions = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }

let dataDir: string
let workspace: string
let seeded: SeededSpace
const backends: QuireBackend[] = []
const children: ChildProcess[] = []

async function openBackend(): Promise<QuireBackend> {
  const backend = await QuireBackend.open({ dataDir, desktop: noDesktop, autoSync: false, debounceMs: 100, gateway: { maxAttempts: 2, timeoutMs: 10_000 } })
  backends.push(backend)
  return backend
}

/** `quire watch` over the same data folder (QUIRE_HOME) and workspace; its output lines as they come. */
function watchChild(): { child: ChildProcess; lines: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [bin, 'watch', '--workspace', workspace, '--debounce', '100'], {
    env: { ...process.env, QUIRE_HOME: dataDir, QUIRE_TOKEN_STORE: 'file' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  const lines: string[] = []
  readline.createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line))
  readline.createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, lines, exited }
}

const folder = () => path.join(workspace, 'Acme', 'Docs')
const pageIdOf = (p: string) => pageIdAt(t.api, seeded.spaceId, p)
const crMarkdown = (pageId: string) => openChangeRequestMarkdown(t.api, seeded.spaceId, pageId)

beforeAll(async () => {
  seeded = await seedSpace(t)
  dataDir = tempDir('quire-app-watch-')
  workspace = path.join(dataDir, 'docs')
})

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

afterAll(async () => {
  for (const backend of backends.splice(0)) await backend.close().catch(() => {})
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('the app backend and quire watch on one cache', () => {
  it('while the app syncs the workspace, quire watch says who holds it and exits without touching it', { timeout: 120_000 }, async () => {
    const app = await openBackend()
    await app.updateSettings({ workspace })
    await app.signIn({ endpoint: t.service.origin, token: t.service.token })
    await app.listSpaces()
    await app.setSelection({ kind: 'space', id: seeded.spaceId, selected: true })
    await app.syncNow()
    await until(() => (fs.existsSync(path.join(folder(), 'faq.md')) ? true : undefined), 'the first pass of the app')
    await app.idle()

    const watch = watchChild()
    expect(await watch.exited).toBe(3)
    expect(watch.lines.join('\n')).toMatch(new RegExp(`in use by the Quire app \\(pid ${process.pid} `))
    await app.close()
    backends.splice(backends.indexOf(app), 1)
  })

  it('quire watch holds it, the app attaches and waits; edits made while both run reach the change request once; killing watch hands over to the app', { timeout: 240_000 }, async () => {
    const install = await pageIdOf('guide/install.md')
    const configure = await pageIdOf('guide/configure.md')
    const watch = watchChild()
    await until(() => (watch.lines.some((l) => /watching \d+ space/.test(l)) ? true : undefined), `quire watch to start (${watch.lines.join(' | ')})`)

    const app = await openBackend()
    expect((await app.getSession()).signedIn).toBe(true)
    await until(() => app.session?.attachedTo, 'the app to find the workspace held')
    expect(app.session?.attachedTo).toMatchObject({ kind: 'watch', pid: watch.child.pid })
    expect((await app.listActivity()).map((e) => e.message).join('\n')).toMatch(/synced by quire watch/)

    // Edits while both run: quire watch (the holder) sends them; the app's session sends nothing.
    fs.writeFileSync(path.join(folder(), 'guide', 'install.md'), '# Install\n\nSaved while both run.\n')
    fs.writeFileSync(path.join(folder(), 'faq.md'), '# FAQ\n\nQuestions.\n\n<!-- comment: Asked while both run? -->\n')
    await until(async () => ((await crMarkdown(install))?.includes('Saved while both run.') ? true : undefined), 'the edit to reach the change request')
    await until(() => (fs.readFileSync(path.join(folder(), 'faq.md'), 'utf8').includes('<!-- comment') ? undefined : true), 'the comment marker to be posted and removed')

    // The holder dies: the app takes the workspace over (its pid is dead) and syncs from then on.
    watch.child.kill('SIGKILL')
    await watch.exited
    await until(() => (app.session && app.session.attachedTo === undefined ? true : undefined), 'the app to take the workspace over')
    fs.writeFileSync(path.join(folder(), 'guide', 'configure.md'), '# Configure\n\nSaved after the handover.\n\n![Logo](../.gitbook/assets/logo.png)\n')
    await until(async () => ((await crMarkdown(configure))?.includes('Saved after the handover.') ? true : undefined), 'the app to send the edit made after the handover')
    await app.syncNow()
    await app.idle()

    const crs = await openChangeRequests(t.api, seeded.spaceId)
    expect(crs).toHaveLength(1)
    expect(await crMarkdown(install)).toContain('Saved while both run.')
    const comments = (await t.api.call('listCommentsInSpace', { params: { spaceId: seeded.spaceId }, query: { status: 'all', format: 'markdown' } })).body.items as Array<{ body: { markdown: string } }>
    const crComments = (await t.api.call('listCommentsInChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: crs[0].id }, query: { format: 'markdown' } })).body.items as Array<{ body: { markdown: string } }>
    expect([...comments, ...crComments].filter((c) => c.body.markdown === 'Asked while both run?')).toHaveLength(1)
    // The watcher may push once after the pass's own writes (a moment of "syncing"): wait for the state to settle.
    await until(async () => ((await app.getStatus()).spaces.find((s) => s.id === seeded.spaceId)?.state === 'synced' ? true : undefined), 'the space to be synced')
  })
})
