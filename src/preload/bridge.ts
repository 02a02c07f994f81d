import type { IpcRenderer, IpcRendererEvent } from 'electron'
import { EVENT_CHANNEL, IPC_PREFIX, QUIRE_CHANNELS, type QuireApi, type QuireBridge, type QuireChannel, type QuireEvent } from '../shared/contract'

type Invoker = <C extends QuireChannel>(channel: C, ...args: Parameters<QuireApi[C]>) => ReturnType<QuireApi[C]>

/**
 * GitHub Desktop's ipc-shared pattern: one typed `invoke` for every channel of the contract, so a
 * channel name or argument that does not exist fails to compile on this side too.
 */
export function typedInvoke(ipc: Pick<IpcRenderer, 'invoke'>): Invoker {
  return ((channel: QuireChannel, ...args: unknown[]) => ipc.invoke(IPC_PREFIX + channel, ...args)) as Invoker
}

/**
 * `window.quire`: one function per channel of QUIRE_CHANNELS (generated from the list, so a new channel
 * needs no code here) and an event subscription. The renderer never sees ipcRenderer or the IPC event
 * object (whose `sender` would hand it the whole IPC API).
 */
export function createBridge(ipc: Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>): QuireBridge {
  const invoke = typedInvoke(ipc)
  const call = invoke as (channel: QuireChannel, ...args: unknown[]) => Promise<unknown>
  const api = Object.fromEntries(QUIRE_CHANNELS.map((channel) => [channel, (...args: unknown[]) => call(channel, ...args)])) as unknown as QuireApi
  return {
    ...api,
    onEvent(listener: (event: QuireEvent) => void) {
      const forward = (_event: IpcRendererEvent, payload: QuireEvent) => listener(payload)
      ipc.on(EVENT_CHANNEL, forward)
      return () => {
        ipc.removeListener(EVENT_CHANNEL, forward)
      }
    },
  }
}
