import http from 'node:http'
import { setTimeout as delay } from 'node:timers/promises'
import { DOWNLOAD_PREFIX, serveDownload } from '../api/downloads'
import type { ServiceStore } from '../store/service-store'
import { keepConnectionsAMinute, listenAt } from './listen'

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
    keepConnectionsAMinute(this.server)
  }

  async listen(port: number, host: string): Promise<string> {
    this.origin = await listenAt(this.server, port, host)
    return this.origin
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
