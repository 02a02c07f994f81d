import { EventEmitter } from 'node:events'
import { vi } from 'vitest'
import { QUIRE_CHANNELS, type QuireChannel, type QuireEvent } from '../../src/shared/contract'
import type { BackendOptions, QuireBackend } from '../../src/main/app/backend'
import type { MessageLink } from '../../src/main/shell/backend/rpc'

/** Plays Electron's UtilityProcess: messages cross asynchronously as structured clones, like real IPC. */
export class FakeChild extends EventEmitter {
  private readonly inside = new Set<(message: unknown) => void>()
  postMessage(message: unknown) {
    const copy = structuredClone(message)
    setImmediate(() => this.inside.forEach((listener) => listener(copy)))
  }
  kill() {
    setImmediate(() => this.emit('exit', 0))
    return true
  }
  crash(code: number) {
    this.emit('exit', code)
  }
  /** The utility process's end of the link. */
  link(): MessageLink {
    return {
      send: (message) => setImmediate(() => this.emit('message', structuredClone(message))),
      listen: (listener) => {
        this.inside.add(listener)
        return () => this.inside.delete(listener)
      },
    }
  }
}

/**
 * A stand-in for QuireBackend: each channel answers from `answers` or with its name (calls are recorded);
 * signIn and openExternal use the host's vault and desktop actions, as the real one does.
 */
export function fakeBackendFactory(answers: Partial<Record<QuireChannel, unknown>> = {}) {
  const opened: BackendOptions[] = []
  const calls: Array<[QuireChannel, unknown[]]> = []
  const closed = vi.fn()
  let emit: (event: QuireEvent) => void = () => {}
  const open = async (options: BackendOptions = {}) => {
    opened.push(options)
    const methods = Object.fromEntries(
      QUIRE_CHANNELS.map((c) => [
        c,
        async (...args: unknown[]) => {
          calls.push([c, args])
          return c in answers ? answers[c] : { channel: c }
        },
      ]),
    )
    const backend = {
      ...methods,
      signIn: async (input: { endpoint: string; token: string }) => {
        await options.vault!.set('account', input.token)
        return { signedIn: true, demo: false, token: await options.vault!.get('account'), kind: options.vault!.kind }
      },
      openExternal: async (input: { url: string }) => options.desktop!.openUrl(input.url),
      onEvent: (listener: (event: QuireEvent) => void) => {
        emit = listener
        return () => undefined
      },
      close: async () => closed(),
    }
    return backend as unknown as QuireBackend
  }
  return { open, opened, calls, answers, closed, emit: (event: QuireEvent) => emit(event) }
}
