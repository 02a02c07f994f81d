/**
 * Worker thread of `pool.ts`: parses runs of markdown for their links (`parseChunkLinks`), so
 * that remark's seconds over a large page are spent off the service's event loop. It says `{ ready }`
 * once loaded; then one message in, one out: `{ id, texts }` -> `{ id, results }` (or `{ id, error }`),
 * results in the order of the texts.
 */
import { parentPort } from 'node:worker_threads'
import { parseChunkLinks } from '../../content/markdown/chunk-links'

export interface LinkWorkerRequest {
  id: number
  texts: string[]
}

export type LinkWorkerReply = { id: number; results: ReturnType<typeof parseChunkLinks>[] } | { id: number; error: string }

export type LinkWorkerMessage = LinkWorkerReply | { ready: true }

const port = parentPort
if (!port) throw new Error('worker.ts runs as a worker thread of pool.ts')
port.on('message', ({ id, texts }: LinkWorkerRequest) => {
  let reply: LinkWorkerReply
  try {
    reply = { id, results: texts.map(parseChunkLinks) }
  } catch (error) {
    reply = { id, error: `markdown could not be parsed: ${error instanceof Error ? error.message : String(error)}` }
  }
  port.postMessage(reply)
})
port.postMessage({ ready: true } satisfies LinkWorkerMessage)
