import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { isAppRendererUrl } from '../../src/main/shell/renderer-origin'

describe('app renderer URL', () => {
  const rendererFile = '/opt/Quire/resources/app.asar/out/renderer/index.html'
  const location = { rendererFile }

  it('is exactly the built index.html over file://, with any hash or query', () => {
    const url = pathToFileURL(rendererFile).href
    expect(isAppRendererUrl(url, location)).toBe(true)
    expect(isAppRendererUrl(`${url}#/links`, location)).toBe(true)
    expect(isAppRendererUrl(`${url}?x=1`, location)).toBe(true)
  })

  it('is not another file, a network path, a web page or garbage', () => {
    for (const url of [
      pathToFileURL('/opt/Quire/resources/app.asar/out/renderer/other.html').href,
      pathToFileURL('/opt/Quire/resources/app.asar/out/renderer/index.html/../../../evil.html').href,
      'file://attacker/opt/Quire/resources/app.asar/out/renderer/index.html',
      'https://evil.example/out/renderer/index.html',
      'http://localhost:5173/',
      'about:blank',
      'not a url',
    ]) {
      expect(isAppRendererUrl(url, location), url).toBe(false)
    }
  })

  it("trusts the dev server's origin when one is given", () => {
    const dev = { rendererFile, devServerUrl: 'http://localhost:5173/' }
    expect(isAppRendererUrl('http://localhost:5173/index.html', dev)).toBe(true)
    expect(isAppRendererUrl('http://localhost:5174/', dev)).toBe(false)
    expect(isAppRendererUrl('http://127.0.0.1:5173/', dev)).toBe(false)
  })
})
