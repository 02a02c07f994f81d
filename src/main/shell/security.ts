import type { Session, WebContents } from 'electron'

/**
 * The app's windows show only the bundled renderer: scripts and styles from the app itself, images
 * from it or data: URLs, no plugins, no frames, no form posts, no <base> tricks. The renderer's
 * index.html carries the same policy in a meta tag; the header also covers `frame-ancestors`, which a
 * meta tag cannot. Styles keep 'unsafe-inline' because React's style attributes need it.
 */
export function contentSecurityPolicy(devServerUrl?: string): string {
  // Under `npm run dev`, Vite's client talks to its dev server over a websocket for hot reload.
  const dev = devServerUrl ? new URL(devServerUrl) : undefined
  const connect = dev ? `'self' ${dev.origin} ${dev.protocol === 'https:' ? 'wss' : 'ws'}://${dev.host}` : `'self'`
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-src 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** Response headers with our policy in place of any the response brought (whatever the header's case). */
export function withCspHeader(headers: Record<string, string[]> | undefined, policy: string): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') out[name] = value
  }
  out['Content-Security-Policy'] = [policy]
  return out
}

/**
 * Every response loaded in the app's session gets the policy, file:// pages of the renderer included.
 * Nothing remote is ever loaded in the session, so there is no response the policy should spare.
 */
export function installCsp(session: Pick<Session, 'webRequest'>, policy: string) {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCspHeader(details.responseHeaders, policy) })
  })
}

/** Camera, microphone, notifications from the page, geolocation, USB...: the renderer needs none. */
export function denyAllPermissions(session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'setDevicePermissionHandler'>) {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false))
  session.setPermissionCheckHandler(() => false)
  session.setDevicePermissionHandler(() => false)
}

export interface NavigationPolicy {
  isAppUrl(url: string): boolean
  /** Hands an http(s) link the user clicked to the system browser (it checks the URL itself). */
  openExternal(url: string): void
}

const isWebUrl = (url: string) => /^https?:\/\//i.test(url)

/**
 * No remote content in the app's windows: a link the user follows opens in the browser instead, new
 * windows are never created, frames cannot navigate away, redirects and <webview> are refused.
 * Applied to every WebContents the app creates (app 'web-contents-created').
 */
export function hardenWebContents(contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>, policy: NavigationPolicy) {
  contents.setWindowOpenHandler(({ url }) => {
    if (isWebUrl(url)) policy.openExternal(url)
    return { action: 'deny' }
  })
  contents.on('will-navigate', (event) => {
    if (policy.isAppUrl(event.url)) return
    event.preventDefault()
    if (isWebUrl(event.url)) policy.openExternal(event.url)
  })
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame && !policy.isAppUrl(event.url)) event.preventDefault()
  })
  contents.on('will-redirect', (event) => {
    if (!policy.isAppUrl(event.url)) event.preventDefault()
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
}
