import type http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Server settings both of the service's listeners share. Idle keep-alive connections are kept a minute
 * (as load balancers in front of hosted APIs do), not Node's 5 s: a client reuses a socket it believes open
 * (undici closes its own a second before the server's `Keep-Alive: timeout`), and on a loaded machine that
 * second is eaten by event-loop lag, so a request met a socket the server had just closed (ECONNRESET)
 * every few hundred idle gaps.
 */
export function keepConnectionsAMinute(server: http.Server): void {
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
}

/** Listens on `host:port` (0: any free port) and answers the origin it is reached at. */
export function listenAt(server: http.Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
      resolve(`http://${shownHost}:${address.port}`)
    })
  })
}
