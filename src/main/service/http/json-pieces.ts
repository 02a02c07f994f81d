import type { ServerResponse } from 'node:http'

/**
 * A JSON answer made ahead as UTF-8 pieces (issue 16): a large page's document comes from a worker as
 * bytes (content/markdown/document/deferred-refs.ts), the page's JSON around it is small. The server
 * writes the pieces one after another, with a Content-Length of their sum and the socket's backpressure
 * respected; nothing joins them. Joined into one string and encoded, a 5 MB page's 40 MB of JSON held the
 * event loop for tens of milliseconds, in proportion to the page.
 */
export class JsonPieces {
  readonly byteLength: number

  constructor(readonly pieces: readonly Buffer[]) {
    this.byteLength = pieces.reduce((sum, piece) => sum + piece.length, 0)
  }

  /** The whole answer parsed. It joins the pieces: for the response check of test mode only. */
  parse(): unknown {
    return JSON.parse(Buffer.concat(this.pieces).toString('utf8'))
  }
}

/**
 * Writes `pieces` as the response's body and ends it, waiting for 'drain' whenever the socket's buffer is
 * full; stops once the connection is gone (the client left, or the service is closing).
 */
export async function writePieces(res: ServerResponse, pieces: readonly Buffer[]): Promise<void> {
  for (const piece of pieces) {
    if (res.destroyed) return
    if (!res.write(piece)) await drainedOrClosed(res)
  }
  if (!res.destroyed) res.end()
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}
