import type { Revision, RevisionPage } from '@gitbook/api'
import { mergePageFiles, type ContentChange } from '../../content'
import { canonical } from './batch-evidence'

/**
 * A content batch whose answer was lost, found not to have arrived (batch-evidence.ts), while someone
 * changed a page it updates inside the change request meanwhile (a collaborator's edit, an update from
 * main). Sending the batch again as it was would put the writer's whole page over theirs. Instead each
 * such page update is rebuilt as the three-way block merge (content/merge) of:
 *
 * - base: the page as the change request held it at the head the batch was sent against (`before`:
 *   what the batch's text was to replace),
 * - main side: the page as the change request holds it now (`after`: theirs wins a clash, as in a push),
 * - branch side: the text the batch carries (the writer's).
 *
 * Per page: `merged`, the merge is sent; `theirs`, the change request already holds everything of the
 * writer's (their edit came after our batch, or matches it), nothing is sent for the page; `conflict`,
 * both changed the same block: nothing is sent for the page (the change request keeps theirs) and the
 * writer's version goes to a conflicted copy through the push's own flow (see the sender). Pages nobody
 * moved on are sent as they were. Undefined: nothing moved on, send the batch unchanged.
 *
 * Pure: the caller fetches the revisions and the markdown.
 */
export type PageOutcome = 'merged' | 'theirs' | 'conflict'

export interface RebuiltPage {
  /** Index of the change in the batch. */
  index: number
  pageId: string
  outcome: PageOutcome
  /** The page in the change request at the head the batch was sent against: the merge base. */
  base: string
  /** The writer's text, as the batch stored it (refs of earlier batches as they were written). */
  written: string
}

export interface Rebuild {
  /** The batch's changes as they are to be sent now (a change with nothing left is left out). */
  changes: ContentChange[]
  /** Indexes (into the old changes) of the changes kept, in order. */
  kept: number[]
  pages: RebuiltPage[]
}

export interface RebuildInput {
  /** The changes as stored (refs of earlier batches unresolved): the ones rebuilt. */
  stored: readonly ContentChange[]
  /** The same changes with refs turned into ids (same order), to find their pages. */
  resolved: readonly ContentChange[]
  before: Revision
  after: Revision
  markdown: (revision: Revision, page: RevisionPage) => string | undefined
}

export function rebuildBatch(input: RebuildInput): Rebuild | undefined {
  const before = pagesOf(input.before)
  const after = pagesOf(input.after)
  const pages: RebuiltPage[] = []
  const changes: ContentChange[] = []
  const kept: number[] = []
  input.stored.forEach((stored, index) => {
    const change = input.resolved[index]
    const sent = change.operation === 'update_page' ? markdownOf(change) : undefined
    const was = change.operation === 'update_page' ? before.get(change.page) : undefined
    const now = change.operation === 'update_page' ? after.get(change.page) : undefined
    const base = was && input.markdown(input.before, was)
    const theirs = now && input.markdown(input.after, now)
    if (change.operation !== 'update_page' || stored.operation !== 'update_page' || sent === undefined || base === undefined || theirs === undefined || !movedOn(base, theirs, sent)) {
      changes.push(stored)
      kept.push(index)
      return
    }
    const merged = mergePageFiles(base, theirs, sent, { keep: 'main' })
    const outcome: PageOutcome = merged.conflicts.length > 0 ? 'conflict' : canonical(merged.text) === canonical(theirs) ? 'theirs' : 'merged'
    pages.push({ index, pageId: change.page, outcome, base, written: markdownOf(stored) ?? sent })
    const { document: _sent, ...rest } = stored
    const rebuilt: ContentChange = outcome === 'merged' ? { ...rest, document: { markdown: merged.text } } : rest
    // An update left with its page only (no text, no move, no field) does nothing: it is not sent.
    if (Object.keys(rebuilt).length > 2) {
      changes.push(rebuilt)
      kept.push(index)
    }
  })
  return pages.length > 0 ? { changes, kept, pages } : undefined
}

/** The change request's page is neither what the batch was sent against nor what it carries: someone changed it. */
function movedOn(base: string, theirs: string, sent: string): boolean {
  const now = canonical(theirs)
  return now !== canonical(base) && now !== canonical(sent)
}

function markdownOf(change: { document?: unknown }): string | undefined {
  const document = change.document as { markdown?: unknown } | undefined
  return document && typeof document.markdown === 'string' ? document.markdown : undefined
}

function pagesOf(revision: Revision): Map<string, RevisionPage> {
  const pages = new Map<string, RevisionPage>()
  const visit = (list: readonly RevisionPage[]) => {
    for (const page of list) {
      pages.set(page.id, page)
      if ('pages' in page && Array.isArray(page.pages)) visit(page.pages)
    }
  }
  visit(revision.pages)
  return pages
}
