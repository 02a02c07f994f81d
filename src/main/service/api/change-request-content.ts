import { setImmediate } from 'node:timers/promises'
import { ContentError, MAX_FILE_BYTES, applyContentChanges, type ApplyResult, type ChangedPage, type ContentChange, type InsertFileInput, type RevisionTree } from '../../content'
import { splitPageMarkdown } from '../../content/markdown/page-file'
import { parseLinksAhead, type ChunkLinks, type ParsedRuns } from '../../content/markdown/links'
import { LinkParseError, parseRunsOffThread } from '../link-workers/pool'
import { batchLinkHint } from '../../content/revision/batch-links'
import { ok, type RequestContext, type Route } from '../http/context'
import { badRequest } from '../http/errors'
import { ChangeRequestsRepository, type ChangeRequest } from '../store/change-requests'
import { newId } from '../store/ids'
import { RevisionsRepository, type Revision } from '../store/revisions'
import type { Space } from '../store/spaces'
import { changeRequestRevision, requireChangeRequest, requireEditable, requireSpace } from './content-access'
import { changeRequestJson } from './serializers/change-request'
import { RevisionView } from './serializers/revision'
import { indexWrittenTree } from './serializers/revision-index'
import { apiUrl } from './urls'

const FETCH_TIMEOUT_MS = 10_000

/**
 * `insert_files` with a `url` source: the bytes are fetched before the batch is applied. This service
 * runs on the user's machine without reaching the internet on their behalf, so only loopback URLs are
 * fetched; anything else is refused at once with the URL in the message.
 */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

async function readLimited(response: Response, url: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? '0')
  if (declared > MAX_FILE_BYTES) throw badRequest(`insert_files: ${url} is ${declared} bytes, over the 1 MB limit`)
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = response.body?.getReader()
  if (!reader) return new Uint8Array()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_FILE_BYTES) {
      await reader.cancel()
      throw badRequest(`insert_files: ${url} is over the 1 MB limit`)
    }
    chunks.push(value)
  }
  return new Uint8Array(Buffer.concat(chunks))
}

async function fetchFile(file: InsertFileInput & { url: string }): Promise<InsertFileInput> {
  const { url } = file
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw badRequest(`insert_files: '${url}' is not a URL`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw badRequest(`insert_files: ${url} is not an http(s) URL`)
  if (!isLoopback(parsed.hostname)) {
    throw badRequest(`insert_files: cannot fetch ${url}: this local service only fetches loopback URLs; send the bytes as base64 instead`)
  }
  let response: Response
  try {
    response = await fetch(parsed, { redirect: 'manual', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) })
  } catch (error) {
    throw badRequest(`insert_files: fetching ${url} failed: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw badRequest(`insert_files: fetching ${url} answered HTTP ${response.status}`)
  }
  const bytes = await readLimited(response, url)
  const sourceType = response.headers.get('content-type')?.split(';')[0]?.trim()
  const contentType = file.contentType || sourceType || undefined
  return {
    ...(file.ref !== undefined ? { ref: file.ref } : {}),
    name: file.name,
    ...(contentType ? { contentType } : {}),
    base64: Buffer.from(bytes).toString('base64'),
  }
}

/** Replaces every `url` file source by its bytes, so the pure batch sees base64 only. */
async function withFetchedFiles(changes: ContentChange[]): Promise<ContentChange[]> {
  return Promise.all(
    changes.map(async (change) => {
      if (change.operation !== 'insert_files' || !change.files.some((f) => f.url !== undefined)) return change
      const files = await Promise.all(change.files.map((f) => (f.url !== undefined ? fetchFile(f) : f)))
      return { ...change, files }
    }),
  )
}

/**
 * `revert_page` restores from the change request's base (the space revision it was last based on)
 * or from the revision it names; one batch restores from one revision.
 */
function revertBase(ctx: RequestContext, space: Space, cr: ChangeRequest, changes: ContentChange[]): RevisionTree | undefined {
  const wanted = new Set<string>()
  for (const change of changes) if (change.operation === 'revert_page') wanted.add(change.revision ?? cr.revisionMergedAncestor)
  if (wanted.size === 0) return undefined
  if (wanted.size > 1) throw badRequest('revert_page: every revert_page of a batch must revert to the same revision')
  const [id] = wanted
  const revision = ctx.store.repo(RevisionsRepository).getInSpace(space.id, id)
  if (!revision) throw badRequest(`revert_page: revision ${id} is not a revision of space ${space.id}`)
  return revision.tree
}

export interface ContentWrite {
  changeRequest: ChangeRequest
  revision: Revision
  result: ApplyResult
}

/** A batch applied to a change request's head, not stored yet. */
interface AppliedBatch {
  head: Revision
  result: ApplyResult
}

function applyToHead(ctx: RequestContext, space: Space, cr: ChangeRequest, changes: ContentChange[], parsedLinks?: ParsedRuns): AppliedBatch {
  requireEditable(cr, 'editing its content')
  const head = changeRequestRevision(ctx, cr)
  try {
    return { head, result: applyContentChanges(head.tree, changes, { newId: () => newId(), now: ctx.store.now(), base: revertBase(ctx, space, cr, changes), parsedLinks }) }
  } catch (error) {
    if (error instanceof ContentError) throw badRequest(error.message)
    throw error
  }
}

/** Stores an applied batch as the change request's new head (parent: the head it was applied to). */
function storeApplied(ctx: RequestContext, space: Space, cr: ChangeRequest, { head, result }: AppliedBatch, message?: string): ContentWrite {
  const write = ctx.store.transaction(() => {
    const revision = ctx.store.repo(RevisionsRepository).create({
      spaceId: space.id,
      parents: [head.id],
      tree: result.tree,
      blobs: result.blobs,
      type: 'edits',
      createdBy: ctx.user.id,
      ...(message ? { message } : {}),
    })
    const crs = ctx.store.repo(ChangeRequestsRepository)
    crs.setRevision(cr.id, revision.id)
    crs.recordEdit(cr.id, ctx.user.id)
    const changeRequest = crs.get(cr.id)
    if (!changeRequest) throw new Error(`change request ${cr.id} vanished during a write`)
    return { changeRequest, revision, result }
  })
  // The new head's index, from the old head's while it is at hand: writes in a row keep it so (revision-index.ts).
  indexWrittenTree(head.tree, write.revision.tree)
  return write
}

/**
 * Applies a batch to the change request's head as one new revision (parent: the old head). Nothing is
 * stored when any change is invalid.
 */
export function writeChangeRequestContent(ctx: RequestContext, space: Space, cr: ChangeRequest, changes: ContentChange[], message?: string, parsedLinks?: ParsedRuns): ContentWrite {
  return storeApplied(ctx, space, cr, applyToHead(ctx, space, cr, changes, parsedLinks), message)
}

/** Above this many characters of markdown and base64 in a batch, its apply and its store take a turn each. */
const STEP_ABOVE_CHARS = 256 * 1024

function batchChars(changes: ContentChange[]): number {
  let chars = 0
  for (const change of Array.isArray(changes) ? changes : []) {
    const markdown: unknown = (change as { document?: { markdown?: unknown } })?.document?.markdown
    if (typeof markdown === 'string') chars += markdown.length
    if (change?.operation === 'insert_files' && Array.isArray(change.files)) for (const file of change.files) if (typeof file?.base64 === 'string') chars += file.base64.length
  }
  return chars
}

/**
 * `writeChangeRequestContent` for a request: a large batch (a 5 MB page: 20-30 ms to apply, as much to
 * store) is applied on a turn of the event loop of its own and stored on the next, so that other requests are
 * answered in between (issue 16). Should the change request have moved meanwhile (another write, a
 * merge), the batch is applied again to what it is now, on the storing turn.
 */
async function writeInSteps(ctx: RequestContext, changes: ContentChange[], parsedLinks?: ParsedRuns): Promise<ContentWrite> {
  const large = batchChars(changes) > STEP_ABOVE_CHARS
  // The turn that read the bodies ahead (parseBatchLinksAhead) scanned them all already.
  if (large) await setImmediate()
  const { space } = requireSpace(ctx, 'edit')
  const cr = requireChangeRequest(ctx, space)
  if (!large) return writeChangeRequestContent(ctx, space, cr, changes, undefined, parsedLinks)
  const applied = applyToHead(ctx, space, cr, changes, parsedLinks)
  await setImmediate()
  const now = requireSpace(ctx, 'edit').space
  const current = requireChangeRequest(ctx, now)
  const moved = current.revisionId !== applied.head.id || current.status !== cr.status || current.revisionMergedAncestor !== cr.revisionMergedAncestor
  if (moved) return writeChangeRequestContent(ctx, now, current, changes, undefined, parsedLinks)
  return storeApplied(ctx, now, current, applied)
}

function changeJson(ctx: RequestContext, cr: ChangeRequest, change: ChangedPage) {
  const page = {
    object: 'page' as const,
    id: change.id,
    urls: { location: apiUrl(ctx.origin, `/spaces/${cr.spaceId}/change-requests/${cr.id}/content/page/${change.id}`) },
  }
  switch (change.operation) {
    case 'created':
      return { object: 'created_page' as const, ...(change.ref !== undefined ? { ref: change.ref } : {}), page }
    case 'updated':
      return { object: 'updated_page' as const, page }
    case 'deleted':
      return { object: 'deleted_page' as const, page: change.id }
  }
}

/**
 * Below this many characters of markdown to parse in all, a batch's links are parsed on the request's
 * turn (a millisecond or two; a worker's round trip would cost more). Small, so that even markdown that
 * is slow to parse for its size (remark's time grows with the square of block quote nesting) cannot
 * hold the event loop for long.
 */
const PARSE_AHEAD_ABOVE_CHARS = 4 * 1024

/**
 * Parses the links of the batch's bodies before the batch, in worker threads (`link-workers/pool.ts`),
 * so that the synchronous apply parses nothing: one big page (or fifty middling ones) must not stall
 * every other request for the seconds remark takes over them. Only the runs batch-link resolution
 * reads are parsed (those `batchLinkHint` lets through). Markdown remark cannot parse (in time) is
 * refused with a 400; other malformed input is left for the apply to refuse with its own message.
 */
async function parseBatchLinksAhead(changes: unknown): Promise<ParsedRuns | undefined> {
  if (!Array.isArray(changes)) return undefined
  const refs: string[] = []
  const bodies: string[] = []
  for (const change of changes as ContentChange[]) {
    if (change?.operation === 'insert_page' && typeof change.ref === 'string') refs.push(change.ref)
    if (change?.operation === 'insert_files' && Array.isArray(change.files)) for (const file of change.files) if (typeof file?.ref === 'string') refs.push(file.ref)
    if (change?.operation !== 'insert_page' && change?.operation !== 'update_page') continue
    const markdown: unknown = (change.document as { markdown?: unknown } | undefined)?.markdown
    if (typeof markdown !== 'string') continue
    try {
      bodies.push(splitPageMarkdown(markdown).body)
    } catch {
      continue
    }
  }
  const hint = batchLinkHint(refs)
  const linked = bodies.filter((body) => hint(body))
  if (linked.reduce((sum, body) => sum + body.length, 0) < PARSE_AHEAD_ABOVE_CHARS) return undefined
  // All at once, so that every worker has a share even of many small bodies.
  const parsed = new Map<string, ChunkLinks>()
  let parses: ParsedRuns[]
  try {
    parses = await Promise.all(linked.map((body) => parseLinksAhead(body, hint, parseRunsOffThread)))
  } catch (error) {
    if (error instanceof LinkParseError) throw badRequest(`a page's markdown ${error.message.replace(/^markdown /, '')}`)
    throw error
  }
  for (const runs of parses) for (const [text, links] of runs) parsed.set(text, links)
  return parsed
}

async function updateChangeRequestContent(ctx: RequestContext) {
  // Access is checked before any URL is fetched, and again with fresh state once the bytes are in.
  requireChangeRequest(ctx, requireSpace(ctx, 'edit').space)
  const changes = await withFetchedFiles((ctx.body as { changes: ContentChange[] }).changes)
  const parsedLinks = await parseBatchLinksAhead(changes)
  const write = await writeInSteps(ctx, changes, parsedLinks)
  const changeRequest = changeRequestJson(ctx.store, write.changeRequest, ctx.origin)
  if (ctx.query.compat !== false) return ok(changeRequest)
  const view = new RevisionView(ctx.store, write.revision, { origin: ctx.origin, metadata: true, fileOrigin: ctx.content.fileOrigin })
  return ok({
    changeRequest,
    changes: write.result.changedPages.map((change) => changeJson(ctx, write.changeRequest, change)),
    insertedFiles: write.result.insertedFiles.map((file) => view.fileJson(file)),
  })
}

export const changeRequestContentRoutes: Route[] = [{ operationId: 'updateChangeRequestContent', handler: updateChangeRequestContent }]
