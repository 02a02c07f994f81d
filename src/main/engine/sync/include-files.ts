import type { ContentRef, JSONDocument, Revision } from '@gitbook/api'
import { documentToMarkdown, relativePath } from '../../content'
import { INCLUDES_FOLDER, renderIncludeFile } from '../../content/gitsync/include-file'

/**
 * `.gitbook/includes/<slug>.md`, reusable content (spec `Revision.reusableContents`) as Git Sync writes
 * it. The API gives reusable content only as a JSON document, so the file is written from it: the
 * document as markdown under `title:` front matter. That text hashes to the content's `git.oid` only
 * where the conversion gives back what Git Sync wrote; the journal keeps both (the remote oid and the
 * hash of what was written), as for a page written with local links, so an unchanged include is not
 * fetched again, and a local file that already hashes to `git.oid` is adopted with nothing fetched.
 *
 * Read-only for Quire: the content API has no operation that writes reusable content, so an edit of an
 * include stays in the folder (never overwritten, never sent) and is reported.
 */

/** The journal's id of an include: reusable contents have ids of their own, kept apart from files'. */
export const INCLUDE_ENTRY_PREFIX = 'quire:include:'

export type RevisionReusableContent = Revision['reusableContents'][number]

/** What the executor needs to write one include: its reusable content and where its links lead. */
export interface IncludeSource {
  /** The reusable content's id (the entry's id without INCLUDE_ENTRY_PREFIX). */
  contentId: string
  title: string
  /** Local paths of the revision's pages and files by id, for the document's references (shared by all includes). */
  targets: ReadonlyMap<string, string>
}

/** Where the service says an include goes, kept inside `.gitbook/includes/` (only its last segment counts). */
export function includeServerPath(gitPath: string): string {
  const name = gitPath.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.').pop() ?? 'untitled'
  return `${INCLUDES_FOLDER}${/\.md$/i.test(name) ? name : `${name}.md`}`
}

/**
 * The include file written from its document: its references to pages and files of the revision as
 * links relative to the include's own path (as Git Sync writes them), others as the document says.
 */
export function renderInclude(document: JSONDocument, path: string, source: IncludeSource): string {
  const local = (id: string) => {
    const target = source.targets.get(id)
    return target === undefined ? undefined : relativePath(path, target)
  }
  const refToTarget = (ref: ContentRef): string | undefined => {
    if (ref.kind === 'page') return local(ref.page)
    if (ref.kind === 'file') return local(ref.file)
    if (ref.kind === 'anchor' && ref.page) {
      const page = local(ref.page)
      return page === undefined ? undefined : `${page}#${ref.anchor}`
    }
    return undefined
  }
  return renderIncludeFile(source.title, documentToMarkdown(document, { refToTarget }))
}
