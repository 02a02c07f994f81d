import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import readline from 'node:readline'
import type { LeaseChildArgs } from './lease-child'

const script = path.resolve(__dirname, 'lease-child.ts')

export interface ChildEvent {
  event: string
  pid: number
  [key: string]: unknown
}

/** A lease-child process: its JSON events as they come, and a way to wait for one. */
export class LeaseChild {
  readonly proc: ChildProcess
  readonly events: ChildEvent[] = []
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stderr = ''
  private readonly listeners = new Set<() => void>()

  constructor(args: LeaseChildArgs, env: NodeJS.ProcessEnv = {}) {
    this.proc = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(args)], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } })
    this.proc.stderr!.on('data', (d) => (this.stderr += String(d)))
    readline.createInterface({ input: this.proc.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return
      this.events.push(JSON.parse(line) as ChildEvent)
      for (const listener of this.listeners) listener()
    })
    this.exited = new Promise((resolve) => this.proc.once('exit', (code, signal) => (resolve({ code, signal }), this.notify())))
  }

  get pid(): number {
    return this.proc.pid!
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null
  }

  /** The first event (from `from` on) that matches; fails when the process ends first or after the timeout. */
  until(match: (e: ChildEvent) => boolean, options: { from?: number; timeoutMs?: number } = {}): Promise<ChildEvent> {
    const { from = 0, timeoutMs = 60_000 } = options
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.events.slice(from).find(match)
        if (found) return finish(() => resolve(found))
        if (!this.running) finish(() => reject(new Error(`child ${this.pid} ended without the awaited event; events: ${JSON.stringify(this.events)}; stderr: ${this.stderr.slice(-2000)}`)))
      }
      const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting on child ${this.pid}; events: ${JSON.stringify(this.events)}`))), timeoutMs)
      const finish = (then: () => void) => {
        clearTimeout(timer)
        this.listeners.delete(check)
        then()
      }
      this.listeners.add(check)
      check()
    })
  }

  /** Lets a `drain` child start. */
  go() {
    this.proc.stdin!.write('go\n')
  }

  kill(signal: NodeJS.Signals) {
    if (this.running) this.proc.kill(signal)
  }

  private notify() {
    for (const listener of this.listeners) listener()
  }
}
