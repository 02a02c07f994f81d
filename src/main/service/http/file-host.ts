import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import { DOWNLOAD_PREFIX, serveDownload } from '../api/downloads'
import type { ServiceStore } from '../store/service-store'

/**
 * The hosted profile's file host: signed download links (file bytes, PDFs) served from an origin of its
 * own, on its own port, as the hosted service serves them from `files.gitbook.com` and not its API. It
 * takes no token (a signed link needs none) and answers nothing else.
 */
export class FileHost {
  private readonly server: http.Server
  origin = ''

  constructor(
    private readonly store: ServiceStore,
    private readonly latencyMs = 0,
  ) {
    this.server = http.createServer((req, res) => void this.serve(req, res))
    this.server.keepAliveTimeout = 65_000
    this.server.headersTimeout = 66_000
  }

  listen(port: number, host: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(port, host, () => {
        const address = this.server.address() as AddressInfo
        const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
        this.origin = `http://${shownHost}:${address.port}`
        resolve(this.origin)
      })
    })
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve())
      this.server.closeAllConnections()
    })
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse) {
    if (this.latencyMs) await delay(this.latencyMs)
    const url = new URL(req.url ?? '/', 'http://files.invalid')
    const reply = url.pathname.startsWith(DOWNLOAD_PREFIX)
      ? serveDownload(this.store, req.method ?? 'GET', url)
      : { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: Buffer.from('Not found: the file host serves signed download links only\n') }
    res.writeHead(reply.status, { ...reply.headers, 'Content-Length': String(reply.body.length) })
    res.end(reply.body)
  }
}
