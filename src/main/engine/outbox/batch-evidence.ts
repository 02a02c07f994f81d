import type { Revision, RevisionFile, RevisionPage } from '@gitbook/api'
import { parsePageMarkdown, rewriteLinks, type ContentChange } from '../../content'

/**
 * Did a content batch whose answer was lost reach its change request? Decided from evidence of the
 * batch's own content only, never from the change request's head having moved: a reviewer's "update
 * from main" or a collaborator's edit moves the head too, and taking that for "arrived" would mark an
 * unsent edit delivered and lose it.
 *
 * A batch is applied atomically, so one change whose effect shows is proof for all of them. An effect
 * shows when the change request's content now has what the change sets and did not have it at the head
 * the batch was sent against (`before`): a page holding the sent text, a page or file created under the
 * sent name, a deleted page gone, a slug or parent taken. Without `before` (the head was not known when
 * it was sent), only created pages and files that the writer's change request did not already hold count.
 *
 * Pure: the caller fetches the revisions and the markdown of the pages it asks for.
 */
export interface BatchEvidence {
  arrived: boolean
  /** Ids of what the batch created, by ref (only when it arrived). */
  refs: Record<string, string>
}

export interface EvidenceInput {
  /** The changes as they were sent (refs of earlier batches already turned into ids). */
  changes: readonly ContentChange[]
  /** The change request's content at the head the batch was sent against, when known. */
  before?: Revision
  /** The change request's content now. */
  after: Revision
  /** Markdown of a page in a revision (the revision's own copy when it carries one). */
  markdown: (revision: Revision, page: RevisionPage) => string | undefined
  /** Ids of pages and files the writer's change request already held (used without `before`). */
  known: ReadonlySet<string>
  /** Ids of refs defined by earlier batches. */
  idOfRef: (ref: string) => string | undefined
}

interface Placed {
  page: RevisionPage
  parent?: string
}

export function batchEvidence(input: EvidenceInput): BatchEvidence {
  const after = indexRevision(input.after)
  const before = input.before ? indexRevision(input.before) : undefined
  const isNew = (id: string) => (before ? !before.pages.has(id) && !before.files.has(id) : !input.known.has(id))
  const refs: Record<string, string> = {}
  const claimed = new Set<string>()
  let proof = false
  const resolve = (handle: string | undefined) => (handle === undefined ? undefined : (refs[handle] ?? input.idOfRef(handle) ?? handle))

  for (const change of input.changes) {
    switch (change.operation) {
      case 'update_page': {
        const now = after.pages.get(change.page)
        if (!now) break
        const was = before?.pages.get(change.page)
        const sent = sentMarkdown(change)
        // Text proves arrival only against the head it was sent to: a page that already held the same
        // text proves nothing, and without that head a resend of the same text is harmless anyway.
        if (sent !== undefined && input.before) {
          const text = canonical(sent)
          const wasText = was ? canonicalOf(input.markdown(input.before, was.page)) : undefined
          if (wasText !== text && canonicalOf(input.markdown(input.after, now.page)) === text) proof = true
        }
        if (change.slug !== undefined && slugOf(now.page) === change.slug && was && slugOf(was.page) !== change.slug) proof = true
        if (change.into !== undefined && was) {
          const into = change.into === null ? undefined : resolve(change.into)
          if (now.parent === into && was.parent !== into) proof = true
        }
        break
      }
      case 'insert_page': {
        const parent = resolve(change.into)
        const sent = sentMarkdown(change)
        const title = sent === undefined ? undefined : titleOf(sent)
        const match = [...after.pages.values()].find(
          (p) =>
            p.parent === parent &&
            isNew(p.page.id) &&
            !claimed.has(p.page.id) &&
            // The service may have made the slug unique; the title then still names the page.
            ((change.slug !== undefined && slugOf(p.page) === change.slug) || (title !== undefined && p.page.title === title)),
        )
        if (match) {
          claimed.add(match.page.id)
          if (change.ref) refs[change.ref] = match.page.id
          proof = true
        }
        break
      }
      case 'insert_files':
        for (const file of change.files) {
          const match = [...after.files.values()].find((f) => f.name === file.name && isNew(f.id) && !claimed.has(f.id))
          if (!match) continue
          claimed.add(match.id)
          if (file.ref) refs[file.ref] = match.id
          proof = true
        }
        break
      case 'delete_page':
        if (before?.pages.has(change.page) && !after.pages.has(change.page)) proof = true
        break
      default:
        break
    }
  }
  return proof ? { arrived: true, refs } : { arrived: false, refs: {} }
}

function indexRevision(revision: Revision): { pages: Map<string, Placed>; files: Map<string, RevisionFile> } {
  const pages = new Map<string, Placed>()
  const visit = (list: readonly RevisionPage[], parent?: string) => {
    for (const page of list) {
      pages.set(page.id, { page, parent })
      if ('pages' in page && Array.isArray(page.pages)) visit(page.pages, page.id)
    }
  }
  visit(revision.pages)
  return { pages, files: new Map(revision.files.map((f) => [f.id, f])) }
}

function sentMarkdown(change: { document?: unknown }): string | undefined {
  const document = change.document as { markdown?: unknown } | undefined
  return document && typeof document.markdown === 'string' ? document.markdown : undefined
}

const slugOf = (page: RevisionPage): string | undefined => ('slug' in page ? page.slug : undefined)

function titleOf(markdown: string): string | undefined {
  try {
    return parsePageMarkdown(markdown).title
  } catch {
    return undefined
  }
}

function canonicalOf(markdown: string | undefined): string | undefined {
  return markdown === undefined ? undefined : canonical(markdown)
}

/**
 * What of a page's markdown survives the service's round trip: title and body, link targets left out
 * (the service writes `/pages/<id>` and refs back as relative paths), whitespace runs as one space.
 */
export function canonical(markdown: string): string {
  let title: string | undefined
  let body = markdown
  try {
    const parsed = parsePageMarkdown(markdown)
    title = parsed.title
    body = parsed.body
  } catch {
    // unreadable front matter: compare the text as it is
  }
  let unlinked = body
  try {
    unlinked = rewriteLinks(body, () => '')
  } catch {
    // a body remark cannot read is compared with its links
  }
  return `${title ?? ''}\n${unlinked}`.replace(/\s+/g, ' ').trim()
}
