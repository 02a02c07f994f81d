import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../src/main/cli/main'
import { isRendererBuildFresh, RENDERER_ROOT } from '../../src/main/headless/renderer-build'
import { startServe } from '../ui/support'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-serve-'))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

function capture() {
  const out: string[] = []
  const err: string[] = []
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), isTTY: false }, out, err }
}

describe('quire serve', () => {
  it('is listed, and explains itself', async () => {
    const help = capture()
    expect(await main(['--help'], help.io)).toBe(0)
    expect(help.out.join('\n')).toMatch(/serve\s+run Quire headless/)
    const usage = capture()
    expect(await main(['serve', '--help'], usage.io)).toBe(0)
    expect(usage.out.join('\n')).toMatch(/^quire serve \[--port N\]/)
  })

  it('refuses a bad port or an unknown option', async () => {
    const bad = capture()
    expect(await main(['serve', '--port', '70000'], bad.io)).toBe(1)
    expect(bad.err.join('\n')).toMatch(/--port must be 0\.\.65535/)
    expect(await main(['serve', '--bogus'], capture().io)).toBe(1)
  })

  it('prints the secret URL first, on 127.0.0.1, and stops on SIGTERM', async () => {
    const renderer = path.join(tmp, 'renderer')
    fs.mkdirSync(renderer)
    fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>Quire</title>')
    const serve = await startServe(['--port', '0', '--data', path.join(tmp, 'data'), '--renderer', renderer], { QUIRE_TOKEN_STORE: 'file' })
    try {
      expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#secret=[A-Za-z0-9_-]{43}$/)
      const page = await fetch(serve.url)
      expect(page.status).toBe(200)
      const secret = new URL(serve.url).hash.slice('#secret='.length)
      const trade = () => fetch(`${serve.origin}/api/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ secret }) })
      expect((await trade()).status).toBe(200)
      expect((await trade()).status).toBe(403)
    } finally {
      await serve.stop()
    }
    expect(serve.child.exitCode).toBe(0)
    expect(serve.stderr()).toMatch(/stopped/)
  })

  it('knows when the renderer build is stale', () => {
    const build = path.join(tmp, 'stale')
    expect(isRendererBuildFresh(build)).toBe(false)
    fs.mkdirSync(build)
    fs.writeFileSync(path.join(build, 'index.html'), '')
    const old = new Date(Date.now() - 365 * 24 * 3600 * 1000)
    fs.utimesSync(path.join(build, 'index.html'), old, old)
    expect(isRendererBuildFresh(build)).toBe(false)
    const future = new Date(Date.now() + 3600 * 1000)
    fs.utimesSync(path.join(build, 'index.html'), future, future)
    expect(fs.existsSync(RENDERER_ROOT)).toBe(true)
    expect(isRendererBuildFresh(build)).toBe(true)
  })
})
