/**
 * A page body's JSON document converted where the revision is not at hand (a worker thread, issue 16):
 * `resolveTarget` is a closure over the revision, so the conversion cannot call it. Instead it runs in
 * two rounds, each the ordinary `markdownToDocument`:
 * 1. with no target resolving, listing every target the conversion asked about;
 * 2. only when the revision resolves some of them: again, with those answers as a table.
 * Resolution is a pure function of the target, so round 2 asks the same questions and gets the answers
 * `resolveTarget` would have given: the result equals a conversion that called it directly (which also
 * decides shapes, e.g. a `{% file %}` of a file is a file block, of anything else a link). A page without
 * links to the revision's pages or files, the common case, costs one round.
 */
import type { ContentRef } from '@gitbook/api'
import { giveBackTurn, TurnClock } from '../turn-clock'
import { markdownToDocument } from './to-document'

export interface DocumentJob {
  body: string
  /**
   * Targets the revision resolves, and to what: `[target, ref]` pairs as UTF-8 JSON; absent on a first
   * round. As bytes rather than an array: a 5 MB page has some 35,000 of them, and posting them to a
   * worker as objects took the event loop 10-20 ms in one turn (each made as JSON over several turns).
   */
  refs?: Uint8Array
}

export interface ConvertedDocument {
  /**
   * The document as JSON, UTF-8 encoded, in an ArrayBuffer of its own: a worker hands it over without a
   * copy (a transfer), and whoever serves it neither clones, stringifies nor encodes it. As a string, a
   * 5 MB page's 40 MB of JSON was cloned into the event loop's thread and encoded there, once per round.
   */
  json: Uint8Array
  /** Every distinct target the conversion asked about, in first-asked order. */
  targets: string[]
}

/** One round: converts `job.body`, resolving targets from `job.refs` only, listing every target asked about. */
export function convertDocument(job: DocumentJob): ConvertedDocument {
  const refs = new Map<string, ContentRef>(job.refs ? (JSON.parse(new TextDecoder().decode(job.refs)) as Array<[string, ContentRef]>) : [])
  const targets = new Set<string>()
  const document = markdownToDocument(job.body, {
    resolveTarget: (target) => {
      targets.add(target)
      return refs.get(target)
    },
  })
  return { json: new TextEncoder().encode(JSON.stringify(document)), targets: [...targets] }
}

/** Runs one round of `convertDocument` somewhere (a worker, this thread). */
export type DocumentRound = (job: DocumentJob) => Promise<ConvertedDocument>

/**
 * The document of `body` as UTF-8 JSON, converted by `round` with targets resolved by `resolveTarget`
 * on the calling thread; equal to `Buffer.from(JSON.stringify(markdownToDocument(body, { resolveTarget })))`.
 * The targets are resolved over several turns: a 5 MB page asks about some 35,000 of them, 25-30 ms of
 * resolving in one go.
 */
export async function documentJsonInRounds(body: string, resolveTarget: (target: string) => ContentRef | undefined, round: DocumentRound): Promise<Buffer> {
  const first = await round({ body })
  const refs: string[] = []
  const clock = new TurnClock(4, 64)
  for (const target of first.targets) {
    const ref = resolveTarget(target)
    if (ref) refs.push(JSON.stringify([target, ref]))
    if (clock.tick()) await giveBackTurn()
  }
  const { json } = refs.length === 0 ? first : await round({ body, refs: new TextEncoder().encode(`[${refs.join(',')}]`) })
  return Buffer.from(json.buffer, json.byteOffset, json.byteLength)
}
