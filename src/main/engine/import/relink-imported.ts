import fs from 'node:fs/promises'
import path from 'node:path'
import type { ContentChange } from '../../content'
import { relinkedText } from '../links/relink'
import { chunkBounded } from '../push/batches'
import type { ImportContext } from './import-runner'
import type { ImportNote } from './import-notes'
import type { ImportPlan } from './import-plan'
import { readBack } from './verify-import'

/** Changes per request (the content API takes 1 to 50) and markdown characters per request. */
const MAX_CHANGES = 50
const MAX_CHARS = 1_000_000

/**
 * After the pages of an import are in the change request, where the content API placed them is known
 * (the tree's `## Group`s cannot be created, so their pages come back at the top level; a name taken
 * there gets a `-2`): links between pages, written for the tree's places, are re-pointed to those places
 * in the change request (`update_page` with the page's markdown, links changed and nothing else).
 *
 * Why this way. Only the service's tree says for sure where each page went (a prediction before sending
 * would have to copy its placing and naming), so the fix comes after the placing. It is made in the
 * pages the service holds, so its link report and every mirror's files are right; the space folder keeps
 * the files as the tree has them, where their links are right for where they sit: the change request's
 * version of a page the writer has not edited since stands (push/known-pages.ts), and the merge brings
 * the re-pointed pages down at their new places. Links to uploaded files the service re-pointed itself
 * (their `./<ref>` links). Each link is worked out from the tree's own text (links/relink.ts), so a
 * second run (a resumed import) finds nothing more to change.
 */
export async function relinkImportedPages(ctx: ImportContext, plan: ImportPlan): Promise<{ relinked: string[]; notes: ImportNote[] }> {
  const { cache, outbox, gateway, space, tree } = ctx
  const changeRequestId = outbox.session(space.id)?.changeRequestId
  if (!changeRequestId) return { relinked: [], notes: [] }
  const back = await readBack({ gateway, cache, outbox, spaceId: space.id, tree, plan })
  const placements = { pages: back.placements.pages }
  const relinked: string[] = []
  const notes: ImportNote[] = []
  const changes: ContentChange[] = []
  for (const { step, id, path: placed } of back.pages) {
    const source = await fs.readFile(path.join(tree.root, ...step.from.split('/')), 'utf8')
    // No link of the tree's text to re-point from this page's new place: nothing to read back.
    if (relinkedText(source, source, step.from, placed, placements) === source) continue
    const answer = (await gateway.client.spaces.getPageInRevisionById(space.id, back.revision.id, id, { format: 'markdown' })).data
    const held = 'markdown' in answer && typeof answer.markdown === 'string' ? answer.markdown : undefined
    const next = held === undefined ? undefined : relinkedText(held, source, step.from, placed, placements)
    if (next === undefined) {
      notes.push({ kind: 'links', path: step.from, reason: `comes back as ${placed} with its links otherwise than written: its links to other pages were not re-pointed` })
      continue
    }
    if (next === held) continue
    changes.push({ operation: 'update_page', page: id, document: { markdown: next } })
    relinked.push(step.from)
  }
  for (const batch of batches(changes)) {
    const route = `/spaces/${encodeURIComponent(space.id)}/change-requests/${encodeURIComponent(changeRequestId)}/content?compat=false`
    // Only whole markdown set on existing pages: sent twice, the pages read the same (resendable).
    await gateway.sendJson('POST', route, new TextEncoder().encode(JSON.stringify({ changes: batch })) as Uint8Array<ArrayBuffer>, { resendable: true })
  }
  return { relinked, notes }
}

/** Changes cut into requests of at most MAX_CHANGES changes and MAX_CHARS of markdown (a larger page goes alone). */
const batches = (changes: ContentChange[]): ContentChange[][] =>
  chunkBounded(changes, MAX_CHANGES, MAX_CHARS, (change) => (change.operation === 'update_page' && change.document && 'markdown' in change.document ? String(change.document.markdown).length : 0))
