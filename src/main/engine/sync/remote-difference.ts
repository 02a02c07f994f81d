import type { Revision, RevisionFile, RevisionPage, RevisionSemanticChange } from '@gitbook/api'
import type { PlacedRevision } from './remote-snapshot'

/**
 * Sync down by difference (issue 29), the deciding half: whether a pass can build its remote snapshot
 * from the tree the last pass kept, patched with what the revisions since changed (the service's semantic
 * changes), or must read the whole tree. Pure: the walk's answers in, a plan out.
 *
 * By difference only what cannot move any other file: a page's document edited (its own file's oid
 * changes, nothing else does), a file created or its bytes edited. A page created, deleted or moved, a
 * title or slug changed, a file renamed or deleted, reusable contents, tags or variables: other pages'
 * files (their relative links, SUMMARY.md, include paths) may change with them though the changes do not
 * name them, so the whole tree is read, as before.
 */

/** At most this many revisions are walked back: each step costs a revision's tree without markdown. */
export const MAX_CHAIN = 5

/** One revision of the walk: its parents, and what it changed against its first parent. */
export interface ChainStep {
  id: string
  parents: readonly string[]
  changes: readonly RevisionSemanticChange[]
  /** Changes the answer left out (above its limit). */
  more: number
}

/** The tree a pass keeps of the revision it synced (no page content): what the next pass patches. */
export interface KeptTree {
  revision: string
  pages: RevisionPage[]
  files: RevisionFile[]
  tags?: Revision['tags']
  reusableContents?: Revision['reusableContents']
}

export type DifferencePlan =
  | { kind: 'difference'; /** Pages whose file to read again (their git oid and markdown), files whose git oid and URL. */ pages: string[]; files: string[] }
  | { kind: 'whole'; reason: string }

/** A page's attributes whose change touches only its own file. */
const OWN_FILE_ATTRIBUTES = new Set(['document', 'description', 'emoji', 'cover', 'layout', 'variables'])

/** Attributes of a file whose change leaves its name (so every link to it) as it was. */
const SAME_NAME_ATTRIBUTES = new Set(['downloadURL', 'size', 'contentType', 'dimensions'])

/**
 * Whether the walk should go on past its last step: not yet at the synced revision, a single first
 * parent to follow, nothing in the walk already forcing a whole read, and room left under the cap.
 */
export function walkContinues(chain: readonly ChainStep[], syncedRevision: string, maxChain = MAX_CHAIN): boolean {
  const last = chain[chain.length - 1]
  if (!last || last.parents[0] === undefined || last.parents[0] === syncedRevision) return false
  return chain.length < maxChain && chain.every((step) => step.more === 0 && step.changes.every(byDifference))
}

/** The plan for a pass from `syncedRevision` (the kept tree's) to `chain[0].id`, given the walk. */
export function planDifference(input: { syncedRevision?: string; kept?: Pick<KeptTree, 'revision' | 'pages' | 'files'>; chain: readonly ChainStep[]; maxChain?: number }): DifferencePlan {
  const { syncedRevision, kept, chain } = input
  const whole = (reason: string): DifferencePlan => ({ kind: 'whole', reason })
  if (syncedRevision === undefined) return whole('no synced revision')
  if (!kept || kept.revision !== syncedRevision) return whole('no kept tree of the synced revision')
  if (chain.length === 0) return whole('no revision read')
  if (chain.length > (input.maxChain ?? MAX_CHAIN)) return whole('chain too long')
  for (let i = 0; i < chain.length; i++) {
    const expected = i + 1 < chain.length ? chain[i + 1].id : syncedRevision
    if (chain[i].parents[0] !== expected) return whole(i + 1 < chain.length ? 'broken chain' : 'chain too long or broken')
  }
  const documents = new Set<string>()
  walkPages(kept.pages, (page) => {
    if (page.type === 'document') documents.add(page.id)
  })
  const files = new Set(kept.files.map((f) => f.id))
  const pages = new Set<string>()
  const changedFiles = new Set<string>()
  for (const step of chain) {
    if (step.more > 0) return whole('more changes than one answer gives')
    for (const change of step.changes) {
      if (!byDifference(change)) return whole(`a ${change.type} change`)
      if (change.type === 'page_edited') {
        if (!documents.has(change.page.id)) return whole('an edited page the kept tree has no document of')
        pages.add(change.page.id)
      } else if (change.type === 'file_created') {
        changedFiles.add(change.file.id)
      } else if (change.type === 'file_edited') {
        if (!files.has(change.file.id) && !changedFiles.has(change.file.id)) return whole('an edited file the kept tree lacks')
        changedFiles.add(change.file.id)
      }
    }
  }
  return { kind: 'difference', pages: [...pages], files: [...changedFiles] }
}

/** Whether a change alone leaves the pass by difference (see the module's comment). */
export function byDifference(change: RevisionSemanticChange): boolean {
  if (change.type === 'page_edited') return change.page.type === 'document' && Object.keys(change.attributes ?? {}).every((a) => OWN_FILE_ATTRIBUTES.has(a))
  if (change.type === 'file_edited') return Object.keys(change.attributes ?? {}).every((a) => SAME_NAME_ATTRIBUTES.has(a))
  return change.type === 'file_created'
}

/**
 * The kept tree with the pages and files read again put in place: a page keeps its place and title and
 * takes the answer's `git`; a file read again replaces its row (a new one goes last, as the service adds
 * files). Throws when a page answer has no `git` (the caller then reads the whole tree).
 */
export function patchKeptTree(kept: KeptTree, revisionId: string, pages: ReadonlyMap<string, { git?: { oid: string; path: string } }>, files: readonly RevisionFile[]): KeptTree {
  const patchPages = (list: readonly RevisionPage[]): RevisionPage[] =>
    list.map((page) => {
      const read = pages.get(page.id)
      const children = 'pages' in page && Array.isArray(page.pages) ? { pages: patchPages(page.pages) } : {}
      if (!read) return { ...page, ...children } as RevisionPage
      if (!read.git) throw new Error(`page ${page.id} was answered without its git path and oid`)
      return { ...page, ...children, git: read.git } as RevisionPage
    })
  const byId = new Map(files.map((f) => [f.id, f]))
  const patchedFiles = kept.files.map((f) => byId.get(f.id) ?? f)
  for (const file of files) if (!kept.files.some((f) => f.id === file.id)) patchedFiles.push(file)
  return { ...kept, revision: revisionId, pages: patchPages(kept.pages), files: patchedFiles }
}

/** What of a revision a pass keeps for the next one: the tree without page content, files as given. */
export function keptTreeOf(revision: PlacedRevision): KeptTree {
  const keep = (list: readonly RevisionPage[]): RevisionPage[] =>
    list.map((page) => {
      const { markdown: _m, document: _d, ...rest } = page as RevisionPage & { markdown?: unknown; document?: unknown }
      return { ...rest, ...('pages' in page && Array.isArray(page.pages) ? { pages: keep(page.pages) } : {}) } as RevisionPage
    })
  return { revision: revision.id, pages: keep(revision.pages), files: [...revision.files], ...(revision.tags ? { tags: revision.tags } : {}), ...(revision.reusableContents ? { reusableContents: revision.reusableContents } : {}) }
}

function walkPages(pages: readonly RevisionPage[], visit: (page: RevisionPage) => void) {
  for (const page of pages) {
    visit(page)
    if ('pages' in page && Array.isArray(page.pages)) walkPages(page.pages, visit)
  }
}
