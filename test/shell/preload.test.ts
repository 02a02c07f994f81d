import type { IpcRenderer } from 'electron'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { EVENT_CHANNEL, IPC_PREFIX, QUIRE_CHANNELS, type QuireBridge, type QuireEvent } from '../../src/shared/contract'
import { createBridge } from '../../src/preload/bridge'
import { contextBridge, ipcRenderer, resetElectronMock } from './electron-mock'

vi.mock('electron', () => import('./electron-mock'))

describe('preload bridge', () => {
  beforeEach(() => resetElectronMock())

  it('has one function per channel of the contract, each invoking its prefixed IPC channel', async () => {
    const bridge = createBridge(ipcRenderer as unknown as IpcRenderer)
    ipcRenderer.invoke.mockResolvedValue('answer')
    for (const channel of QUIRE_CHANNELS) {
      expect(typeof bridge[channel], channel).toBe('function')
    }
    await expect(bridge.signIn({ endpoint: 'https://api.example', token: 't' })).resolves.toBe('answer')
    await bridge.getStatus()
    expect(ipcRenderer.invoke.mock.calls).toEqual([
      [`${IPC_PREFIX}signIn`, { endpoint: 'https://api.example', token: 't' }],
      [`${IPC_PREFIX}getStatus`],
    ])
  })

  it('delivers events without the IPC event object, and unsubscribes', () => {
    const bridge = createBridge(ipcRenderer as unknown as IpcRenderer)
    const seen: unknown[][] = []
    const off = bridge.onEvent((...args: unknown[]) => seen.push(args))
    const event: QuireEvent = { type: 'activity', entry: { at: 'now', level: 'info', message: 'hello' } }
    ipcRenderer.emit(EVENT_CHANNEL, { sender: ipcRenderer }, event)
    off()
    ipcRenderer.emit(EVENT_CHANNEL, { sender: ipcRenderer }, event)
    expect(seen).toEqual([[event]])
  })

  it('exposes the bridge as window.quire through contextBridge, not ipcRenderer', async () => {
    await import('../../src/preload/index')
    expect(contextBridge.exposeInMainWorld).toHaveBeenCalledOnce()
    const [key, api] = contextBridge.exposeInMainWorld.mock.calls[0]
    expect(key).toBe('quire')
    expect(api).not.toBe(ipcRenderer)
    expect(Object.keys(api as QuireBridge).sort()).toEqual([...QUIRE_CHANNELS, 'onEvent'].sort())
  })
})
