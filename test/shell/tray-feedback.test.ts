import { describe, expect, it, vi } from 'vitest'
import type { BackendOptions } from '../../src/main/app/backend'
import { registerSecret } from '../../src/main/engine/gateway/secrets'
import type { DesktopNotification } from '../../src/main/shell/notification-rules'
import { runTrayTask, trayFailureNotification, trayFailureReason } from '../../src/main/shell/tray-feedback'
import { clickTrayItem, desktopAppPerTest, SETTINGS as settings } from './desktop-harness'
import { Notification, shell } from './electron-mock'
import { fakeBackendFactory } from './fake-backend'
import { space, status, writer } from './fixtures'

vi.mock('electron', () => import('./electron-mock'))

/**
 * Issue 12: "Open workspace folder" and "Open in browser" from the tray only logged a failure, so the
 * click seemed to do nothing. A failed tray action now shows a desktop notification saying what did not
 * happen and why, in plain words, with no link or token in it.
 */

const SIGNED_URL = 'https://docs.example.com/app/spaces/s1?sig=f00dfeedcafe1234567890abcdef'

describe('why a tray action failed, in plain words', () => {
  it("drops Electron's and the engine's wrapping", () => {
    expect(trayFailureReason(new Error("Error invoking remote method 'quire:openWorkspaceFolder': Error: /home/w/Quire does not exist"))).toBe('/home/w/Quire does not exist')
    expect(trayFailureReason(new Error('openWorkspaceFolder failed: xdg-open is not installed'))).toBe('xdg-open is not installed')
  })

  it('leaves out links (a signed address), tokens and what follows Bearer', () => {
    const token = 'qs_0123456789abcdef0123456789abcdef'
    registerSecret(token)
    const reason = trayFailureReason(new Error(`refused to open "${SIGNED_URL}" with ${token} (Authorization: Bearer abc.def-ghi), then javascript:alert(1)`))
    expect(reason).toBe('refused to open the link with [redacted] (Authorization: Bearer [redacted]), then the link)')
    for (const secret of ['sig=', 'f00dfeed', token, 'abc.def', 'docs.example.com', 'alert']) expect(reason).not.toContain(secret)
  })

  it('keeps paths, Windows drives included, and says something when the error says nothing', () => {
    expect(trayFailureReason(new Error('could not open C:\\Users\\w\\Quire: access denied'))).toBe('could not open C:\\Users\\w\\Quire: access denied')
    expect(trayFailureReason(new Error(''))).toBe('no reason was given')
    expect(trayFailureReason(undefined)).toBe('no reason was given')
  })

  it('is one line of bounded length', () => {
    const reason = trayFailureReason(new Error(`first line\nsecond line ${'x'.repeat(1000)}`))
    expect(reason).not.toContain('\n')
    expect(reason.length).toBeLessThanOrEqual(240)
    expect(reason.endsWith('…')).toBe(true)
  })
})

describe('the notification of a failed tray action', () => {
  it('titles what did not happen, gives the reason and the way out, and opens the screen to act on', () => {
    expect(trayFailureNotification({ kind: 'open-folder' }, new Error('/home/w/Quire does not exist'))).toEqual({
      kind: 'tray-action-failed',
      key: 'tray-action-failed:open-folder',
      title: 'Could not open the workspace folder',
      body: '/home/w/Quire does not exist. Check the folder in Settings.',
      open: { kind: 'screen', screen: 'settings' },
    })
    const browser = trayFailureNotification({ kind: 'open-in-browser', spaceTitle: 'Docs' }, new Error('no browser is set up'))
    expect(browser).toMatchObject({ title: 'Could not open Docs in your browser', body: 'No browser is set up. Open Quire to see the space.', open: { kind: 'screen', screen: 'spaces' } })
    expect(trayFailureNotification({ kind: 'open-in-browser' }, new Error('x')).title).toBe('Could not open the space in your browser')
    expect(trayFailureNotification({ kind: 'sync-now' }, new Error('the sync engine is not running')).title).toBe('Sync did not start')
    expect(trayFailureNotification({ kind: 'pause', paused: true }, new Error('x')).title).toBe('Could not pause syncing')
    expect(trayFailureNotification({ kind: 'pause', paused: false }, new Error('x')).title).toBe('Could not resume syncing')
  })
})

describe('running a tray action', () => {
  it('says nothing when it works; notifies once and logs when it fails; never rejects, even when no notification can be shown', async () => {
    const shown: DesktopNotification[] = []
    const lines: string[] = []
    const deps = { notify: (n: DesktopNotification) => void shown.push(n), log: (line: string) => void lines.push(line) }
    await runTrayTask({ kind: 'open-folder' }, async () => undefined, deps)
    expect(shown).toEqual([])
    expect(lines).toEqual([])

    await runTrayTask({ kind: 'open-in-browser', spaceTitle: 'Docs' }, () => Promise.reject(new Error(`refused to open "${SIGNED_URL}"`)), deps)
    expect(shown.map((n) => n.title)).toEqual(['Could not open Docs in your browser'])
    expect(lines).toEqual(['tray: Could not open Docs in your browser: Refused to open the link. Open Quire to see the space.'])
    expect(JSON.stringify([shown, lines])).not.toContain('sig=')

    const failing = { notify: () => { throw new Error('no notification service') }, log: deps.log }
    await expect(runTrayTask({ kind: 'sync-now' }, () => Promise.reject(new Error('down')), failing)).resolves.toBeUndefined()
    expect(lines.at(-1)).toBe('tray: the notification could not be shown: no notification service')
  })
})

describe('the desktop app: a failed tray action shows a notification', () => {
  const harness = desktopAppPerTest('quire-tray-feedback-')

  /** The app over a backend whose openWorkspaceFolder fails as the real one does when the desktop refuses. */
  async function started() {
    const factory = fakeBackendFactory({ getSession: writer, getStatus: status([space('s1', 'synced', { title: 'Docs', appUrl: SIGNED_URL })]), getSettings: settings, listChangeRequests: [], listComments: [] })
    const open = async (options?: BackendOptions) => {
      const backend = await factory.open(options)
      return Object.assign(backend, { openWorkspaceFolder: async () => Promise.reject(new Error('could not open /home/w/Quire: No application knows how to open folders')) })
    }
    await harness.start(open)
    return { click: clickTrayItem }
  }

  const shown = () => Notification.shown.map((n) => n.options)

  it('Open workspace folder: the reason in a notification', async () => {
    const tray = await started()
    tray.click('open-folder')
    await vi.waitFor(() => expect(shown()).toEqual([{ title: 'Could not open the workspace folder', body: 'Could not open /home/w/Quire: No application knows how to open folders. Check the folder in Settings.', silent: false }]))
  })

  it('Open in browser: the space named, the signed address left out', async () => {
    const tray = await started()
    shell.openExternal.mockRejectedValueOnce(new Error(`Failed to open ${SIGNED_URL}: no handler for https`))
    tray.click('open-in-browser')
    await vi.waitFor(() => expect(shown().map((n) => n.title)).toEqual(['Could not open Docs in your browser']))
    expect(shown()[0].body).toBe('Failed to open the link: no handler for https. Open Quire to see the space.')
    expect(shell.openExternal).toHaveBeenCalledWith(SIGNED_URL)
  })

  it('a tray action that works shows no notification', async () => {
    const tray = await started()
    tray.click('open-in-browser')
    await vi.waitFor(() => expect(shell.openExternal).toHaveBeenCalledWith(SIGNED_URL))
    tray.click('sync-now')
    await new Promise((resolve) => setImmediate(resolve))
    expect(shown()).toEqual([])
  })
})
