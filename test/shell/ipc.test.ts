import { pathToFileURL } from 'node:url'
import { beforeEach, describe, expect, it, vi, type Mock } from 'vitest'
import { IPC_PREFIX, QUIRE_CHANNELS, type QuireApi, type QuireChannel } from '../../src/shared/contract'
import { registerIpcHandlers } from '../../src/main/shell/ipc'
import { isAppRendererUrl } from '../../src/main/shell/renderer-origin'
import { ipcMain, resetElectronMock } from './electron-mock'

vi.mock('electron', () => import('./electron-mock'))

const rendererFile = '/opt/Quire/resources/app.asar/out/renderer/index.html'
const appUrl = pathToFileURL(rendererFile).href
const trusted = (url: string) => isAppRendererUrl(url, { rendererFile })

/** A backend whose every channel records its arguments and answers with the channel's name. */
function fakeApi() {
  const entries = QUIRE_CHANNELS.map((channel) => [channel, vi.fn(async (..._args: unknown[]): Promise<unknown> => ({ from: channel }))])
  return Object.fromEntries(entries) as Record<QuireChannel, Mock<(...args: unknown[]) => Promise<unknown>>>
}

const asApi = (fake: ReturnType<typeof fakeApi>) => fake as unknown as QuireApi

describe('IPC handlers', () => {
  beforeEach(() => resetElectronMock())

  it('registers every channel of the contract, with the prefix, through one wrapper', () => {
    registerIpcHandlers(ipcMain, asApi(fakeApi()), trusted)
    expect([...ipcMain.handlers.keys()].sort()).toEqual(QUIRE_CHANNELS.map((c) => IPC_PREFIX + c).sort())
    expect(ipcMain.handle).toHaveBeenCalledTimes(QUIRE_CHANNELS.length)
  })

  it('routes a good request to the backend with the validated arguments and returns its answer', async () => {
    const api = fakeApi()
    registerIpcHandlers(ipcMain, asApi(api), trusted)
    await expect(ipcMain.invoke('quire:getStatus', { frameUrl: appUrl })).resolves.toEqual({ from: 'getStatus' })
    const input = { spaceId: 'space-1', pageId: 'page-1', markdown: 'Looks good' }
    await expect(ipcMain.invoke('quire:postComment', { frameUrl: `${appUrl}#/comments` }, input)).resolves.toEqual({ from: 'postComment' })
    expect(api.postComment).toHaveBeenCalledWith(input)
    await ipcMain.invoke('quire:setPaused', { frameUrl: appUrl }, true)
    expect(api.setPaused).toHaveBeenCalledWith(true)
  })

  it('refuses a request from any frame but the top frame of the app renderer', async () => {
    const api = fakeApi()
    registerIpcHandlers(ipcMain, asApi(api), trusted)
    const foreign = [
      { frameUrl: 'https://evil.example/' },
      { frameUrl: pathToFileURL('/tmp/other/index.html').href },
      { frameUrl: 'file://server/share/out/renderer/index.html' },
      { frameUrl: 'http://localhost:5173/' }, // a dev server that is not configured is not trusted
      { frameUrl: appUrl, subframe: true },
      { frameUrl: null },
    ]
    for (const sender of foreign) {
      await expect(ipcMain.invoke('quire:getSession', sender)).rejects.toThrow(/refused "getSession"/)
    }
    expect(api.getSession).not.toHaveBeenCalled()
  })

  it('trusts the dev server origin only when one is configured', async () => {
    const api = fakeApi()
    registerIpcHandlers(ipcMain, asApi(api), (url) => isAppRendererUrl(url, { rendererFile, devServerUrl: 'http://localhost:5173' }))
    await expect(ipcMain.invoke('quire:getSession', { frameUrl: 'http://localhost:5173/index.html' })).resolves.toEqual({ from: 'getSession' })
    await expect(ipcMain.invoke('quire:getSession', { frameUrl: 'http://localhost:5174/' })).rejects.toThrow(/refused/)
  })

  it('rejects bad arguments with a clear error and never calls the backend', async () => {
    const api = fakeApi()
    registerIpcHandlers(ipcMain, asApi(api), trusted)
    const bad: Array<[string, unknown[], RegExp]> = [
      ['setPaused', ['yes'], /setPaused\[0\] must be true or false/],
      ['setPaused', [], /takes 1 argument/],
      ['getStatus', [{}], /takes 0 argument/],
      ['signIn', [{ endpoint: 'file:///etc/passwd', token: 't' }], /endpoint must be an http\(s\) URL/],
      ['signIn', [{ endpoint: 'https://api.example', token: 't', admin: true }], /admin is not a known field/],
      ['postComment', [{ spaceId: 's', pageId: 'p', markdown: 'x'.repeat(1_000_000) }], /markdown must be at most/],
      ['openExternal', [{ url: 'javascript:alert(1)' }], /http\(s\) URL/],
      ['openLocalFile', [{ file: 'relative/path.md' }], /absolute path/],
      ['updateSettings', [{ intervalSeconds: -5 }], /"Sync every \(seconds\)" must be between 10 seconds/],
      ['setSelection', [{ kind: 'planet', id: 'x', selected: true }], /kind must be one of/],
    ]
    for (const [channel, args, message] of bad) {
      await expect(ipcMain.invoke(IPC_PREFIX + channel, { frameUrl: appUrl }, ...args)).rejects.toThrow(message)
    }
    for (const channel of QUIRE_CHANNELS) expect(api[channel]).not.toHaveBeenCalled()
  })

  it('passes backend errors through to the renderer', async () => {
    const api = fakeApi()
    api.syncNow.mockRejectedValueOnce(new Error('the service at http://127.0.0.1:1 cannot be reached'))
    registerIpcHandlers(ipcMain, asApi(api), trusted)
    await expect(ipcMain.invoke('quire:syncNow', { frameUrl: appUrl })).rejects.toThrow(/cannot be reached/)
  })

  it('unregisters every channel', () => {
    const unregister = registerIpcHandlers(ipcMain, asApi(fakeApi()), trusted)
    unregister()
    expect(ipcMain.handlers.size).toBe(0)
  })
})
