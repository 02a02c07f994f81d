/**
 * Worker thread of `pool.ts`: parses runs of markdown for their links (`parseChunkLinks`), and converts a
 * large page body to the API's JSON document (`markdownToDocument`), so that remark's seconds over a
 * large page are spent off the service's event loop. It says `{ ready }` once loaded; then one message
 * in, one out:
 * - `{ id, texts }` -> `{ id, results }`, results in the order of the texts;
 * - `{ id, document: { body, refs? } }` -> `{ id, document: { json, targets } }`: the document as UTF-8 JSON
 *   in an ArrayBuffer transferred, not copied (so the event loop neither clones, stringifies nor encodes
 *   it) and every link target the conversion asked to
 *   resolve. Targets are resolved by the revision, on the main thread: without `refs` none resolves; with
 *   `refs` (`[target, reference]` pairs as UTF-8 JSON, those the main thread resolved) exactly those do (content/markdown/document/deferred-refs.ts);
 * - `{ id, error }` when remark failed.
 */
import { parentPort } from 'node:worker_threads'
import { parseChunkLinks } from '../../content/markdown/chunk-links'
import { convertDocument, type ConvertedDocument, type DocumentJob } from '../../content/markdown/document/deferred-refs'

export type LinkWorkerRequest = { id: number; texts: string[] } | { id: number; document: DocumentJob }

export type LinkWorkerReply =
  | { id: number; results: ReturnType<typeof parseChunkLinks>[] }
  | { id: number; document: ConvertedDocument }
  | { id: number; error: string }

export type LinkWorkerMessage = LinkWorkerReply | { ready: true }

const port = parentPort
if (!port) throw new Error('worker.ts runs as a worker thread of pool.ts')
port.on('message', (request: LinkWorkerRequest) => {
  let reply: LinkWorkerReply
  try {
    reply = 'texts' in request ? { id: request.id, results: request.texts.map(parseChunkLinks) } : { id: request.id, document: convertDocument(request.document) }
  } catch (error) {
    reply = { id: request.id, error: `markdown could not be parsed: ${error instanceof Error ? error.message : String(error)}` }
  }
  port.postMessage(reply, 'document' in reply ? [reply.document.json.buffer as ArrayBuffer] : [])
})
port.postMessage({ ready: true } satisfies LinkWorkerMessage)
