import type { UtilityProcess } from 'electron'
import { QUIRE_CHANNELS, type QuireApi, type QuireEvent } from '../../../shared/contract'
import type { DesktopActions } from '../../app/desktop-actions'
import type { TokenVault } from '../../app/token-vault'
import { utilityProcessLink } from './links'
import { DESKTOP_METHODS, EVENT_TOPIC, TARGETS, VAULT_METHODS, type BackendStartOptions } from './protocol'
import { RpcPeer } from './rpc'

export type BackendChild = Pick<UtilityProcess, 'postMessage' | 'on' | 'off' | 'once' | 'kill'>

export interface BackendHostOptions {
  /** Forks the utility process (utilityProcess.fork of the backend entry). */
  fork(): BackendChild
  vault: TokenVault
  desktop: DesktopActions
  startOptions: BackendStartOptions
  log(message: string): void
  /** Waits before each restart after a crash; after the last one the host gives up. */
  restartDelaysMs?: readonly number[]
  /** Crashes older than this are forgiven. */
  crashWindowMs?: number
  /** Told when the host gives up restarting the backend. */
  onFailure?: (message: string) => void
}

const DEFAULT_DELAYS = [500, 2000, 5000, 15_000, 30_000]

/**
 * Runs the backend (engine, cache, sync loop, embedded service) in an Electron utility process, so its
 * synchronous SQLite calls and CPU-heavy passes never stall the main process, which draws every window
 * and the tray. Requests go over RPC; a crashed backend is restarted with growing delays, and requests
 * made meanwhile wait for it rather than fail.
 */
export class BackendHost {
  readonly api: QuireApi
  private peer: RpcPeer | undefined
  private child: BackendChild | undefined
  private ready: Promise<void> | undefined
  private stopping = false
  private gaveUp: Error | undefined
  private crashes: number[] = []
  private cancelRestart: (() => void) | undefined
  private readonly listeners = new Set<(event: QuireEvent) => void>()

  constructor(private readonly options: BackendHostOptions) {
    const entries = QUIRE_CHANNELS.map((channel) => [channel, (...args: unknown[]) => this.call(channel, args)] as const)
    this.api = Object.fromEntries(entries) as unknown as QuireApi
  }

  onEvent(listener: (event: QuireEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Starts the backend; resolves once it answers requests, after restarts if its first launches crash,
   * and rejects only when the host gives up.
   */
  start(): Promise<void> {
    this.stopping = false
    this.gaveUp = undefined
    this.ready ??= this.launch()
    return this.running()
  }

  async stop(): Promise<void> {
    this.stopping = true
    this.cancelRestart?.()
    const { peer, child } = this
    if (!peer || !child) return
    // The backend finishes its current write and closes the cache; a backend that hangs is killed.
    let timer: ReturnType<typeof setTimeout> | undefined
    const patience = new Promise((resolve) => (timer = setTimeout(resolve, 3000)))
    await Promise.race([peer.call(TARGETS.control, 'stop', []).catch(() => undefined), patience])
    clearTimeout(timer)
    peer.close(new Error('Quire is quitting'))
    child.kill()
  }

  private async call(channel: string, args: unknown[]): Promise<unknown> {
    await this.running()
    if (!this.peer) throw new Error('the sync engine is not running')
    return this.peer.call(TARGETS.api, channel, args)
  }

  /** Waits until a launched backend answers, following restarts; fails once the host gave up. */
  private async running(): Promise<void> {
    for (;;) {
      if (this.gaveUp) throw this.gaveUp
      const ready = this.ready
      if (!ready) throw new Error('the sync engine has not been started')
      try {
        await ready
      } catch (error) {
        // That launch failed and a restart is already under way: wait for the restart instead.
        if (this.ready !== ready) continue
        throw error
      }
      // The backend crashed between our turns: the restart's promise is the one to wait for.
      if (this.ready !== ready) continue
      return
    }
  }

  private launch(): Promise<void> {
    const child = this.options.fork()
    const peer = new RpcPeer(utilityProcessLink(child))
    this.child = child
    this.peer = peer
    peer.serve(TARGETS.vault, this.options.vault, VAULT_METHODS)
    peer.serve(TARGETS.desktop, this.options.desktop, DESKTOP_METHODS)
    peer.onNotice((topic, payload) => {
      if (topic === EVENT_TOPIC) this.emit(payload as QuireEvent)
    })
    const exited = new Promise<never>((_, reject) => {
      child.once('exit', (code: number) => {
        const error = new Error(`the sync engine stopped (exit code ${code})`)
        peer.close(error)
        if (this.child === child) this.onExit(code)
        reject(error)
      })
    })
    exited.catch(() => undefined)
    const started = peer.call(TARGETS.control, 'start', [this.options.startOptions]).then(
      () => undefined,
      (error: unknown) => {
        // A backend that cannot start (a locked or corrupt cache, a bad native build) is treated like a
        // crash: the process goes, and the restart policy decides whether to try again.
        this.options.log(`the sync engine could not start: ${error instanceof Error ? error.message : String(error)}`)
        child.kill()
        return exited
      },
    )
    return Promise.race([started, exited])
  }

  private onExit(code: number) {
    this.child = undefined
    this.peer = undefined
    if (this.stopping) return
    const now = Date.now()
    const window = this.options.crashWindowMs ?? 5 * 60_000
    this.crashes = [...this.crashes.filter((t) => now - t < window), now]
    const delays = this.options.restartDelaysMs ?? DEFAULT_DELAYS
    const delay = delays[this.crashes.length - 1]
    if (delay === undefined) {
      this.gaveUp = new Error(`the sync engine keeps stopping (last exit code ${code}); restart Quire, and see the log if it goes on`)
      this.ready = undefined
      this.options.log(this.gaveUp.message)
      this.options.onFailure?.(this.gaveUp.message)
      this.emit({ type: 'activity', entry: { at: new Date().toISOString(), level: 'error', message: `Quire's ${this.gaveUp.message}` } })
      return
    }
    this.options.log(`the sync engine stopped (exit code ${code}); restarting in ${delay} ms`)
    this.emit({ type: 'activity', entry: { at: new Date().toISOString(), level: 'warning', message: `The sync engine stopped (exit code ${code}) and is restarting.` } })
    // Requests made from now on wait for the restarted backend.
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.cancelRestart = undefined
        this.launch().then(resolve, reject)
      }, delay)
      // Quitting during the wait: whoever waits for the restart is told, rather than left hanging.
      this.cancelRestart = () => {
        this.cancelRestart = undefined
        clearTimeout(timer)
        reject(new Error('Quire is quitting'))
      }
    })
    this.ready.catch(() => undefined)
  }

  private emit(event: QuireEvent) {
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch (error) {
        this.options.log(`event listener failed: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  }
}
