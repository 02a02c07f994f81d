/**
 * Request/response and one-way notices between the Electron main process and the utility process the
 * backend runs in, over any message link (Electron's parentPort and UtilityProcess, or a MessageChannel in
 * tests). Both ends are peers: the main process calls the backend's API, the backend calls back for what
 * only the main process can do (safeStorage, shell). Messages are plain structured-clone data.
 */

export interface RpcErrorData {
  name: string
  message: string
  /** AppError's kind (auth, offline, ...), kept so the caller can still tell errors apart. */
  kind?: string
}

export type RpcMessage =
  | { rpc: 'call'; id: number; target: string; method: string; args: unknown[] }
  | { rpc: 'reply'; id: number; value: unknown }
  | { rpc: 'fail'; id: number; error: RpcErrorData }
  | { rpc: 'notice'; topic: string; payload: unknown }

export interface MessageLink {
  send(message: RpcMessage): void
  /** Subscribes to incoming messages; returns the unsubscribe. */
  listen(listener: (message: unknown) => void): () => void
}


const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null

/** Incoming data is checked before use: a malformed message is dropped, never half-handled. */
export function isRpcMessage(value: unknown): value is RpcMessage {
  if (!isRecord(value)) return false
  switch (value.rpc) {
    case 'call':
      return typeof value.id === 'number' && typeof value.target === 'string' && typeof value.method === 'string' && Array.isArray(value.args)
    case 'reply':
      return typeof value.id === 'number'
    case 'fail':
      return typeof value.id === 'number' && isRecord(value.error) && typeof value.error.message === 'string'
    case 'notice':
      return typeof value.topic === 'string'
    default:
      return false
  }
}

export class RpcError extends Error {
  readonly kind?: string
  constructor(data: RpcErrorData) {
    super(data.message)
    this.name = data.name || 'Error'
    this.kind = data.kind
  }
}

function errorData(error: unknown): RpcErrorData {
  if (error instanceof Error) {
    const kind = (error as { kind?: unknown }).kind
    return { name: error.name, message: error.message, ...(typeof kind === 'string' ? { kind } : {}) }
  }
  return { name: 'Error', message: String(error) }
}

export class RpcPeer {
  private nextId = 1
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  private readonly targets = new Map<string, Map<string, (...args: unknown[]) => unknown>>()
  private readonly noticeListeners = new Set<(topic: string, payload: unknown) => void>()
  private readonly unlisten: () => void
  private closed: Error | undefined

  constructor(private readonly link: MessageLink) {
    this.unlisten = link.listen((message) => this.receive(message))
  }

  /**
   * Answers calls to `target`, for exactly the named methods: a call to anything else (a prototype
   * method, a typo) is refused rather than looked up on the object.
   */
  serve<T extends object>(target: string, implementation: T, methods: readonly (keyof T & string)[]) {
    const table = new Map<string, (...args: unknown[]) => unknown>()
    for (const name of methods) {
      const method = implementation[name]
      if (typeof method !== 'function') throw new Error(`${target}.${name} is not a function`)
      table.set(name, (...args: unknown[]) => (method as (...a: unknown[]) => unknown).apply(implementation, args))
    }
    this.targets.set(target, table)
  }

  call(target: string, method: string, args: unknown[]): Promise<unknown> {
    if (this.closed) return Promise.reject(this.closed)
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      try {
        this.link.send({ rpc: 'call', id, target, method, args })
      } catch (error) {
        this.pending.delete(id)
        reject(error instanceof Error ? error : new Error(String(error)))
      }
    })
  }

  notify(topic: string, payload: unknown) {
    if (!this.closed) this.link.send({ rpc: 'notice', topic, payload })
  }

  onNotice(listener: (topic: string, payload: unknown) => void): () => void {
    this.noticeListeners.add(listener)
    return () => this.noticeListeners.delete(listener)
  }

  /** Fails every call still waiting (the other side is gone) and ignores the link from now on. */
  close(reason: Error) {
    if (this.closed) return
    this.closed = reason
    this.unlisten()
    for (const { reject } of this.pending.values()) reject(reason)
    this.pending.clear()
  }

  private receive(message: unknown) {
    if (this.closed || !isRpcMessage(message)) return
    switch (message.rpc) {
      case 'call':
        void this.answer(message)
        return
      case 'reply':
      case 'fail': {
        const waiting = this.pending.get(message.id)
        if (!waiting) return
        this.pending.delete(message.id)
        if (message.rpc === 'reply') waiting.resolve(message.value)
        else waiting.reject(new RpcError(message.error))
        return
      }
      case 'notice':
        for (const listener of this.noticeListeners) listener(message.topic, message.payload)
    }
  }

  private async answer(call: Extract<RpcMessage, { rpc: 'call' }>) {
    let reply: RpcMessage
    try {
      const method = this.targets.get(call.target)?.get(call.method)
      if (!method) throw new Error(`no method ${call.target}.${call.method}`)
      reply = { rpc: 'reply', id: call.id, value: await method(...call.args) }
    } catch (error) {
      reply = { rpc: 'fail', id: call.id, error: errorData(error) }
    }
    if (!this.closed) this.link.send(reply)
  }
}

/**
 * An object whose methods call `target` on the other side. The contract types say what the methods
 * take and return; the other side checks nothing it does not have to, because both ends are ours.
 */
export function remoteObject<T extends object>(peer: RpcPeer, target: string, methods: readonly (keyof T & string)[]): T {
  const entries = methods.map((name) => [name, (...args: unknown[]) => peer.call(target, name, args)] as const)
  return Object.fromEntries(entries) as T
}
