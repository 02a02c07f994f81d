import { describe, expect, it, vi } from 'vitest'
import { QUIRE_CHANNELS, type QuireEvent } from '../../src/shared/contract'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import type { TokenVault } from '../../src/main/app/token-vault'
import { BackendHost, type BackendChild } from '../../src/main/shell/backend/backend-host'
import { serveBackend } from '../../src/main/shell/backend/serve-backend'
import { FakeChild, fakeBackendFactory } from './fake-backend'

function host(options: { delays?: number[] } = {}) {
  const factory = fakeBackendFactory()
  const children: FakeChild[] = []
  const tokens = new Map<string, string>()
  const vault: TokenVault = {
    kind: 'file',
    get: async (a) => tokens.get(a),
    set: async (a, t) => void tokens.set(a, t),
    delete: async (a) => void tokens.delete(a),
  }
  const desktop: DesktopActions = { openFile: vi.fn(async () => {}), openUrl: vi.fn(async () => {}), openFolder: vi.fn(async () => {}) }
  const log = vi.fn()
  const failures: string[] = []
  const backend = new BackendHost({
    fork: () => {
      const child = new FakeChild()
      serveBackend(child.link(), factory.open)
      children.push(child)
      return child as unknown as BackendChild
    },
    vault,
    desktop,
    startOptions: { dataDir: '/data', nativeBinding: '/electron/better_sqlite3.node', vaultKind: 'file' },
    log,
    restartDelaysMs: options.delays ?? [5, 5],
    onFailure: (message) => failures.push(message),
  })
  return { backend, factory, children, tokens, desktop, log, failures }
}

describe('backend in a utility process', () => {
  it('starts the backend with its options and routes every request to it', async () => {
    const { backend, factory } = host()
    await backend.start()
    expect(factory.opened).toHaveLength(1)
    expect(factory.opened[0]).toMatchObject({ dataDir: '/data', nativeBinding: '/electron/better_sqlite3.node' })
    for (const channel of QUIRE_CHANNELS.filter((c) => c !== 'signIn' && c !== 'openExternal')) {
      await expect((backend.api[channel] as () => Promise<unknown>)()).resolves.toEqual({ channel })
    }
  })

  it('keeps tokens and desktop actions in the main process', async () => {
    const { backend, tokens, desktop } = host()
    await backend.start()
    const session = await backend.api.signIn({ endpoint: 'https://api.example', token: 'secret' })
    expect(tokens.get('account')).toBe('secret')
    expect(session).toMatchObject({ token: 'secret', kind: 'file' })
    await backend.api.openExternal({ url: 'https://app.example/' })
    expect(desktop.openUrl).toHaveBeenCalledWith('https://app.example/')
  })

  it("forwards the backend's events", async () => {
    const { backend, factory } = host()
    const seen: QuireEvent[] = []
    backend.onEvent((event) => seen.push(event))
    await backend.start()
    const event: QuireEvent = { type: 'activity', entry: { at: 'now', level: 'info', message: 'Synced Docs' } }
    factory.emit(event)
    await vi.waitFor(() => expect(seen).toEqual([event]))
  })

  it('restarts a crashed backend, and requests made meanwhile wait for it', async () => {
    const { backend, factory, children } = host()
    const seen: QuireEvent[] = []
    backend.onEvent((event) => seen.push(event))
    await backend.start()
    children[0].crash(134)
    const during = backend.api.getStatus()
    await expect(during).resolves.toEqual({ channel: 'getStatus' })
    expect(children).toHaveLength(2)
    expect(factory.opened).toHaveLength(2)
    expect(seen.some((e) => e.type === 'activity' && e.entry.level === 'warning' && /exit code 134/.test(e.entry.message))).toBe(true)
  })

  it('retries a backend that cannot start, and gives up in the end', async () => {
    const flaky = host()
    const open = flaky.factory.open
    let launches = 0
    flaky.factory.open = async (options) => {
      if (launches++ === 0) throw new Error('database is locked')
      return open(options)
    }
    await expect(flaky.backend.start()).resolves.toBeUndefined()
    expect(flaky.children).toHaveLength(2)
    expect(flaky.log).toHaveBeenCalledWith('the sync engine could not start: database is locked')
    await expect(flaky.backend.api.getStatus()).resolves.toEqual({ channel: 'getStatus' })

    const broken = host({ delays: [1] })
    broken.factory.open = async () => {
      throw new Error('the native module was compiled against a different Node.js version')
    }
    await expect(broken.backend.start()).rejects.toThrow(/keeps stopping/)
    expect(broken.children).toHaveLength(2)
    expect(broken.failures).toHaveLength(1)
  })

  it('fails a request in flight when the backend dies under it', async () => {
    const { backend, children } = host()
    await backend.start()
    const call = backend.api.getStatus()
    await new Promise((resolve) => setImmediate(resolve)) // sent, not yet answered
    children[0].crash(1)
    await expect(call).rejects.toThrow('the sync engine stopped (exit code 1)')
  })

  it('gives up after crashing again and again, with an error the user can read', async () => {
    const { backend, children, log, failures } = host({ delays: [1] })
    await backend.start()
    children[0].crash(1)
    await backend.api.getSession()
    children[1].crash(1)
    await expect(backend.api.getSession()).rejects.toThrow(/keeps stopping/)
    expect(log).toHaveBeenCalledWith(expect.stringContaining('keeps stopping'))
    expect(failures).toEqual([expect.stringContaining('keeps stopping')])
  })

  it('stops the backend cleanly (it closes its cache) and does not restart it', async () => {
    const { backend, factory, children } = host()
    await backend.start()
    await backend.stop()
    expect(factory.closed).toHaveBeenCalledOnce()
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(children).toHaveLength(1)
    await expect(backend.api.getStatus()).rejects.toThrow(/not running/)
  })

  it('tells requests waiting for a restart that Quire is quitting', async () => {
    const { backend, children } = host({ delays: [60_000] })
    await backend.start()
    children[0].crash(1)
    const waiting = backend.api.getStatus()
    await backend.stop()
    await expect(waiting).rejects.toThrow('Quire is quitting')
    expect(children).toHaveLength(1)
  })

  it('refuses requests before the backend is started', async () => {
    const { backend } = host()
    await expect(backend.api.getStatus()).rejects.toThrow(/not been started/)
  })
})
