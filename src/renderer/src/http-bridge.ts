import { QUIRE_CHANNELS, type QuireApi, type QuireBridge, type QuireChannel, type QuireEvent } from '../../shared/contract'
import {
  HEADLESS_SECRET_PARAM,
  HEADLESS_SESSION_PATH,
  HEADLESS_TOKEN_HEADER,
  HEADLESS_TOKEN_QUERY,
  HEADLESS_TOKEN_STORAGE_KEY,
} from '../../shared/headless-transport'

/**
 * `window.quire` over HTTP, for the renderer served by `quire serve`: each request channel is a
 * `POST /api/<channel>` with the positional arguments as a JSON array, events arrive as server-sent
 * events on `/api/events`. The tab proves itself with a token it holds (never a cookie: those go to
 * every port of 127.0.0.1): the one-time secret in the address bar's fragment is traded for it once,
 * and the token lives in sessionStorage, which only this tab of this origin can read.
 */
/** How soon a stream the server closed is opened again. */
const RECONNECT_MS = 2_000
export const NOT_RUNNING = 'Quire is not running: quire serve cannot be reached. Start it again; this tab reconnects by itself.'

export function createHttpBridge(base = ''): QuireBridge {
  const session = tabToken(base)
  // Not left unhandled while nothing has asked yet; calls see the rejection themselves.
  session.catch(() => undefined)

  const call = async (channel: QuireChannel, args: unknown[]): Promise<unknown> => {
    const token = await session
    let response: Response
    try {
      response = await fetch(`${base}/api/${channel}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [HEADLESS_TOKEN_HEADER]: token },
        body: JSON.stringify(args),
        credentials: 'omit',
      })
    } catch {
      // fetch's own "Failed to fetch" says nothing to a person: the server is gone.
      throw new Error(NOT_RUNNING)
    }
    const body = (await response.json().catch(() => undefined)) as { result?: unknown; error?: { message?: string } } | undefined
    if (!response.ok) throw new Error(body?.error?.message ?? `${channel} failed (HTTP ${response.status})`)
    return body?.result ?? undefined
  }

  const listeners = new Set<(event: QuireEvent) => void>()
  const emit = (event: QuireEvent) => {
    for (const listener of listeners) listener(event)
  }
  let source: EventSource | undefined
  let connecting = false
  /** The stream broke: the tab says Quire is not running until it is back (EventSource retries; a closed one is opened again). */
  let lost = false
  let retry: ReturnType<typeof setTimeout> | undefined
  const connect = async () => {
    connecting = true
    let token: string
    try {
      token = await session
    } catch {
      return
    } finally {
      connecting = false
    }
    if (listeners.size === 0 || source) return
    const opened = new EventSource(`${base}/api/events?${HEADLESS_TOKEN_QUERY}=${encodeURIComponent(token)}`)
    source = opened
    opened.onopen = () => {
      if (!lost) return
      lost = false
      emit({ type: 'connection', connected: true })
    }
    opened.onerror = () => {
      if (!lost) {
        lost = true
        emit({ type: 'connection', connected: false, reason: 'quire serve cannot be reached' })
      }
      // The browser retries a stream that dropped; one the server refused (a restart that forgot this tab) is closed for good.
      if (opened.readyState === EventSource.CLOSED && source === opened) {
        source = undefined
        clearTimeout(retry)
        retry = setTimeout(() => void connect(), RECONNECT_MS)
      }
    }
    opened.onmessage = (message: MessageEvent<string>) => {
      let event: QuireEvent
      try {
        event = JSON.parse(message.data) as QuireEvent
      } catch {
        return
      }
      emit(event)
    }
  }

  const api = Object.fromEntries(QUIRE_CHANNELS.map((channel) => [channel, (...args: unknown[]) => call(channel, args)])) as unknown as QuireApi
  return {
    ...api,
    inBrowser: true,
    // The server's machine may have no desktop (and a browser on it is not this one): the link opens in a new tab here.
    async openExternal({ url }) {
      const parsed = new URL(url)
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('only http(s) links open in a new tab')
      const tab = window.open(parsed.href, '_blank')
      if (!tab) throw new Error(`your browser blocked the new tab: allow pop-ups for this page, or open ${parsed.href}`)
      tab.opener = null
    },
    onEvent(listener) {
      listeners.add(listener)
      if (!source && !connecting) void connect()
      return () => {
        listeners.delete(listener)
        if (listeners.size === 0) {
          clearTimeout(retry)
          source?.close()
          source = undefined
        }
      }
    },
  }
}

/** The secret from the fragment, removed from the address bar (and so from history) at once. */
function takeSecret(): string | undefined {
  const secret = new URLSearchParams(window.location.hash.slice(1)).get(HEADLESS_SECRET_PARAM)
  if (secret === null) return undefined
  window.history.replaceState(null, '', window.location.pathname + window.location.search)
  return secret
}

/** This tab's token: traded for the secret the tab was opened with, or kept from before a reload. */
async function tabToken(base: string): Promise<string> {
  const kept = window.sessionStorage.getItem(HEADLESS_TOKEN_STORAGE_KEY) ?? undefined
  const secret = takeSecret()
  if (secret === undefined) {
    if (kept) return kept
    throw new Error('this tab has no session: open the link that quire serve printed')
  }
  const response = await fetch(`${base}${HEADLESS_SESSION_PATH}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ secret }),
    credentials: 'omit',
  })
  const body = (await response.json().catch(() => undefined)) as { result?: { token?: string }; error?: { message?: string } } | undefined
  const token = body?.result?.token
  if (response.ok && token) {
    window.sessionStorage.setItem(HEADLESS_TOKEN_STORAGE_KEY, token)
    return token
  }
  // A used link opened again in a tab that already has a session keeps that session.
  if (kept) return kept
  throw new Error(body?.error?.message ?? `the link could not be used (HTTP ${response.status})`)
}
