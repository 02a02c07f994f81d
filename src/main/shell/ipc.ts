import type { IpcMain, IpcMainInvokeEvent } from 'electron'
import { IPC_PREFIX, QUIRE_CHANNELS, type QuireApi, type QuireChannel } from '../../shared/contract'
import { parseChannelArgs } from '../app/channel-args'

/** Thrown to the renderer when a request comes from anything but the app's own top-level page. */
export class ForeignSenderError extends Error {
  override name = 'ForeignSenderError'
}

/** The frame a request came from: only the top frame of a page that is the app's renderer may ask. */
export function senderFrameUrl(event: Pick<IpcMainInvokeEvent, 'senderFrame'>): string | undefined {
  const frame = event.senderFrame
  if (!frame || frame.parent !== null) return undefined
  return frame.url
}

/**
 * Registers every request channel of the contract on `ipcMain`, each through the same wrapper: check the
 * sender frame, check the arguments with the same per-channel validator the headless bridge uses, then
 * call the backend. Returns the unregistration (used on shutdown and by tests).
 */
export function registerIpcHandlers(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, api: QuireApi, isAppUrl: (url: string) => boolean): () => void {
  for (const channel of QUIRE_CHANNELS) {
    ipcMain.handle(IPC_PREFIX + channel, (event, ...args: unknown[]) => invoke(api, channel, event, args, isAppUrl))
  }
  return () => {
    for (const channel of QUIRE_CHANNELS) ipcMain.removeHandler(IPC_PREFIX + channel)
  }
}

async function invoke(api: QuireApi, channel: QuireChannel, event: IpcMainInvokeEvent, args: unknown[], isAppUrl: (url: string) => boolean): Promise<unknown> {
  const url = senderFrameUrl(event)
  if (url === undefined || !isAppUrl(url)) {
    throw new ForeignSenderError(`quire: refused "${channel}" from ${url === undefined ? 'a frame that is not the top frame' : JSON.stringify(url.slice(0, 200))}`)
  }
  const parsed = parseChannelArgs(channel, args)
  // The validator returns the exact argument tuple of `channel`; TypeScript cannot tie the two through a
  // union of channels, hence the one widening here.
  const method = api[channel] as (...a: unknown[]) => Promise<unknown>
  return method.apply(api, parsed)
}
