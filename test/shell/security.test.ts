import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Session, WebContents } from 'electron'
import { contentSecurityPolicy, denyAllPermissions, hardenWebContents, installCsp, withCspHeader } from '../../src/main/shell/security'
import { isAllowedExternalUrl, openExternalUrl } from '../../src/main/shell/external-url'
import { FakeSession, FakeWebContents, resetElectronMock, shell } from './electron-mock'

vi.mock('electron', () => import('./electron-mock'))

const APP = 'file:///opt/Quire/out/renderer/index.html'

function hardened() {
  const contents = new FakeWebContents()
  const openExternal = vi.fn<(url: string) => void>()
  hardenWebContents(contents as unknown as WebContents, { isAppUrl: (url) => url.startsWith(APP), openExternal })
  return { contents, openExternal }
}

describe('external URLs', () => {
  it('allows only http(s) without credentials', () => {
    for (const url of ['https://app.example/space/1', 'http://127.0.0.1:4000/x?y=1#z']) expect(isAllowedExternalUrl(url)).toBe(true)
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://server/share',
      'vscode://file/x',
      'data:text/html,hi',
      'https://user:pass@evil.example/',
      'not a url',
      '',
      `https://a.example/${'x'.repeat(3000)}`,
    ]) {
      expect(isAllowedExternalUrl(url), url).toBe(false)
    }
  })

  it('hands allowed URLs to shell.openExternal and refuses the rest with a clear error', async () => {
    resetElectronMock()
    await openExternalUrl(shell, 'https://app.example/')
    expect(shell.openExternal).toHaveBeenCalledWith('https://app.example/')
    await expect(openExternalUrl(shell, 'file:///Applications/Calculator.app')).rejects.toThrow(/only http\(s\) links/)
    expect(shell.openExternal).toHaveBeenCalledTimes(1)
  })
})

describe('navigation and new windows', () => {
  beforeEach(() => resetElectronMock())

  it('denies every new window, sending web links to the browser', () => {
    const { contents, openExternal } = hardened()
    expect(contents.windowOpenHandler!({ url: 'https://docs.example/page' })).toEqual({ action: 'deny' })
    expect(contents.windowOpenHandler!({ url: 'file:///etc/hosts' })).toEqual({ action: 'deny' })
    expect(contents.windowOpenHandler!({ url: APP })).toEqual({ action: 'deny' })
    expect(openExternal.mock.calls).toEqual([['https://docs.example/page']])
  })

  it('keeps the window on the app: a followed web link opens in the browser, anything else is dropped', () => {
    const { contents, openExternal } = hardened()
    expect(contents.fire('will-navigate', { url: 'https://docs.example/page' })).toBe(true)
    expect(contents.fire('will-navigate', { url: 'file:///home/u/secrets.html' })).toBe(true)
    expect(contents.fire('will-navigate', { url: `${APP}#/links` })).toBe(false)
    expect(openExternal.mock.calls).toEqual([['https://docs.example/page']])
  })

  it('refuses frame navigation, redirects away from the app and <webview>', () => {
    const { contents, openExternal } = hardened()
    expect(contents.fire('will-frame-navigate', { url: 'https://evil.example/', isMainFrame: false })).toBe(true)
    expect(contents.fire('will-frame-navigate', { url: APP, isMainFrame: true })).toBe(false)
    expect(contents.fire('will-redirect', { url: 'https://evil.example/' })).toBe(true)
    expect(contents.fire('will-attach-webview', {})).toBe(true)
    expect(openExternal).not.toHaveBeenCalled()
  })
})

describe('session', () => {
  it('puts the strict policy on every response, replacing any other', () => {
    const session = new FakeSession()
    const policy = contentSecurityPolicy()
    installCsp(session as unknown as Session, policy)
    expect(session.webRequest.onHeadersReceived).toHaveBeenCalledOnce()
    const callback = vi.fn()
    session.headersListener!({ url: APP, responseHeaders: { 'content-security-policy': ["default-src *"], 'X-Other': ['1'] } }, callback)
    expect(callback).toHaveBeenCalledWith({ responseHeaders: { 'X-Other': ['1'], 'Content-Security-Policy': [policy] } })
    session.headersListener!({ url: APP }, callback)
    expect(callback).toHaveBeenLastCalledWith({ responseHeaders: { 'Content-Security-Policy': [policy] } })
  })

  it('allows nothing remote: no inline or foreign scripts, no frames, no plugins', () => {
    const policy = contentSecurityPolicy()
    expect(policy).toContain("default-src 'none'")
    expect(policy).toContain("script-src 'self'")
    expect(policy).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline|https?:|\*/)
    expect(policy).toContain("object-src 'none'")
    expect(policy).toContain("frame-ancestors 'none'")
    expect(policy).toContain("connect-src 'self'")
  })

  it("lets the dev server's hot-reload socket through in development only", () => {
    expect(contentSecurityPolicy('http://localhost:5173')).toContain("connect-src 'self' http://localhost:5173 ws://localhost:5173")
    expect(withCspHeader(undefined, 'x')).toEqual({ 'Content-Security-Policy': ['x'] })
  })

  it('denies every permission request and check', () => {
    const session = new FakeSession()
    denyAllPermissions(session as unknown as Session)
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
      const callback = vi.fn()
      session.permissionRequestHandler!({}, permission, callback)
      expect(callback).toHaveBeenCalledWith(false)
    }
    expect(session.permissionCheckHandler!()).toBe(false)
    expect(session.devicePermissionHandler!()).toBe(false)
  })
})
