/**
 * A TCP proxy that makes loopback look like a real network (bench:network, issue 26): a round trip of
 * `rttMs` (half of it on each direction's bytes), `bitsPerSecond` in each direction shared by every
 * connection through the proxies on the same `Network`, and a new connection's set-up (TCP's handshake
 * and `extraConnectRtts` more, TLS's) before its first byte goes through. Bytes keep their order; the
 * proxy counts connections and bytes each way.
 */
import net from 'node:net'
import type { AddressInfo } from 'node:net'

export interface NetworkShape {
  rttMs: number
  bitsPerSecond: number
  extraConnectRtts: number
}

/** One direction of the link: when it is next free, so connections share its bandwidth. */
class Link {
  private freeAt = 0
  bytes = 0

  constructor(private readonly shape: NetworkShape) {}

  /** When a chunk sent now arrives at the far end. */
  arrival(bytes: number): number {
    const start = Math.max(performance.now(), this.freeAt)
    this.freeAt = start + (bytes * 8 * 1000) / this.shape.bitsPerSecond
    this.bytes += bytes
    return this.freeAt + this.shape.rttMs / 2
  }
}

const REQUEST_LINE = /(?:^|\r\n)(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) \/\S* HTTP\/1\.[01]\r\n/g

export class Network {
  readonly down: Link
  readonly up: Link
  connections = 0
  /** HTTP requests sent through the proxies (request lines seen going up; issue 29's request counts). */
  requests = 0

  constructor(readonly shape: NetworkShape) {
    this.down = new Link(shape)
    this.up = new Link(shape)
  }

  /** A proxy to `target` (host:port) on this network; resolves with its `http://127.0.0.1:PORT` origin. */
  async proxy(targetPort: number): Promise<{ origin: string; port: number; close(): Promise<void> }> {
    const sockets = new Set<net.Socket>()
    const server = net.createServer((client) => {
      this.connections++
      const upstream = net.connect(targetPort, '127.0.0.1')
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on('close', () => sockets.delete(socket))
        socket.on('error', () => {
          client.destroy()
          upstream.destroy()
        })
      }
      // Nothing goes through before the connection is set up: the handshake and the extra round trips.
      const openAt = performance.now() + this.shape.rttMs * (1 + this.shape.extraConnectRtts)
      const relay = (from: net.Socket, to: net.Socket, link: Link) => {
        // One queue a direction, drained in order by one timer: timers of different delays may fire out of
        // the order they were set in (delays are whole milliseconds), which would reorder the bytes.
        const queue: Array<{ at: number; chunk: Buffer | null }> = []
        let timer: NodeJS.Timeout | undefined
        const drain = () => {
          timer = undefined
          while (queue.length > 0 && queue[0].at <= performance.now() + 0.5) {
            const { chunk } = queue.shift()!
            if (to.destroyed) continue
            if (chunk === null) to.end()
            else to.write(chunk)
          }
          if (queue.length > 0) timer = setTimeout(drain, Math.max(0, queue[0].at - performance.now()))
        }
        const send = (chunk: Buffer | null) => {
          const at = Math.max(link.arrival(chunk?.length ?? 0), from === client ? openAt : 0)
          queue.push({ at, chunk })
          if (!timer) timer = setTimeout(drain, Math.max(0, queue[0].at - performance.now()))
        }
        from.on('data', (chunk: Buffer) => {
          // A request's head arrives in one chunk on loopback; bodies (JSON, binary) never hold a request line.
          if (from === client) this.requests += chunk.toString('latin1').match(REQUEST_LINE)?.length ?? 0
          send(chunk)
        })
        from.on('end', () => send(null))
      }
      relay(client, upstream, this.up)
      relay(upstream, client, this.down)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    return {
      origin: `http://127.0.0.1:${port}`,
      port,
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resolve())
        }),
    }
  }
}

/** A free loopback port (listened on and let go): for a server whose port must be known before it starts. */
export async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
