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
import { markdownToDocument } from './to-document'

export interface DocumentJob {
  body: string
  /** Targets the revision resolves, and to what; absent on a first round. */
  refs?: Array<[string, ContentRef]>
}

export interface ConvertedDocument {
  /** The document as JSON text: whoever serves it need neither clone nor stringify it. */
  json: string
  /** Every distinct target the conversion asked about, in first-asked order. */
  targets: string[]
}

/** One round: converts `job.body`, resolving targets from `job.refs` only, listing every target asked about. */
export function convertDocument(job: DocumentJob): ConvertedDocument {
  const refs = new Map(job.refs)
  const targets = new Set<string>()
  const document = markdownToDocument(job.body, {
    resolveTarget: (target) => {
      targets.add(target)
      return refs.get(target)
    },
  })
  return { json: JSON.stringify(document), targets: [...targets] }
}

/** Runs one round of `convertDocument` somewhere (a worker, this thread). */
export type DocumentRound = (job: DocumentJob) => Promise<ConvertedDocument>

/**
 * The document of `body` as JSON text, converted by `round` with targets resolved by `resolveTarget`
 * on the calling thread; equal to `JSON.stringify(markdownToDocument(body, { resolveTarget }))`.
 */
export async function documentJsonInRounds(body: string, resolveTarget: (target: string) => ContentRef | undefined, round: DocumentRound): Promise<string> {
  const first = await round({ body })
  const refs: Array<[string, ContentRef]> = []
  for (const target of first.targets) {
    const ref = resolveTarget(target)
    if (ref) refs.push([target, ref])
  }
  if (refs.length === 0) return first.json
  return (await round({ body, refs })).json
}
