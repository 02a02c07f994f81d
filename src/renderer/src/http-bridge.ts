import { QUIRE_CHANNELS, type QuireApi, type QuireBridge, type QuireChannel, type QuireEvent } from '../../shared/contract'

/**
 * `window.quire` over HTTP, for the renderer served by `quire serve`: each request channel is a
 * `POST /api/<channel>` with the positional arguments as a JSON array, events arrive as server-sent
 * events on `/api/events`. The session cookie rides along (same origin); the renderer never sees it.
 */
export function createHttpBridge(base = ''): QuireBridge {
  const call = async (channel: QuireChannel, args: unknown[]): Promise<unknown> => {
    const response = await fetch(`${base}/api/${channel}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(args),
      credentials: 'same-origin',
    })
    const body = (await response.json().catch(() => undefined)) as { result?: unknown; error?: { message?: string } } | undefined
    if (!response.ok) throw new Error(body?.error?.message ?? `${channel} failed (HTTP ${response.status})`)
    return body?.result ?? undefined
  }

  const listeners = new Set<(event: QuireEvent) => void>()
  let source: EventSource | undefined
  const connect = () => {
    source = new EventSource(`${base}/api/events`, { withCredentials: true })
    source.onmessage = (message: MessageEvent<string>) => {
      let event: QuireEvent
      try {
        event = JSON.parse(message.data) as QuireEvent
      } catch {
        return
      }
      for (const listener of listeners) listener(event)
    }
  }

  const api = Object.fromEntries(QUIRE_CHANNELS.map((channel) => [channel, (...args: unknown[]) => call(channel, args)])) as unknown as QuireApi
  return {
    ...api,
    onEvent(listener) {
      listeners.add(listener)
      if (!source) connect()
      return () => {
        listeners.delete(listener)
        if (listeners.size === 0) {
          source?.close()
          source = undefined
        }
      }
    },
  }
}
