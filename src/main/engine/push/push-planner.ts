import type { ContentChange } from '../../content'
import { AssetUploads } from './asset-uploads'
import { KnownPagePlanner } from './known-pages'
import { identifyPages } from './page-identity'
import { baseName, placeFolder, README, shortHash, slugOfPath, stemOf, strippedContent, titleOf } from './page-file'
import { PagePlacement } from './page-placement'
import { PlanState } from './plan-state'
import type { EntryUpdate, PushInput, PushPlan } from './push-types'

/**
 * Decides what one push does for one space, from three facts and nothing else: the merge base (the
 * journal of the last sync down), the local files, and the remote state (main as last seen, plus what
 * the writer's open change request already carries). Pure, so it is tested on generated cases.
 *
 * - An edited page becomes `update_page` with the file's markdown (markers cut out); a file back to
 *   what the change request already holds costs nothing, so a file synced down and saved unchanged
 *   creates no change.
 * - A new `.md` file becomes `insert_page` into the page its folder names, at its SUMMARY.md place.
 * - A missing file whose content turns up under another name is a rename or a move (`update_page`
 *   with `slug`/`into`/`at`); otherwise it is a deletion (`delete_page`), after moving out subpages
 *   whose files are still there.
 * - A new image under `.gitbook/assets/` that a page sent now links to is uploaded with `insert_files`
 *   and linked through its `ref`; one over the size limit is reported.
 * - Both sides changed since the merge base: the page merges block by block (the change request and
 *   the file get the merge); where both changed the same block, the change request keeps main's
 *   version and the file is given back the remote version, the local one kept as a conflicted copy.
 *   A page deleted remotely but edited locally is inserted again (an edit beats a delete).
 */
export function planPush(input: PushInput): PushPlan {
  return new PushPlanner(input).plan()
}

export { ASSETS_PREFIX, isPageFile } from './page-file'
export { FILE_BYTES_PLACEHOLDER } from './asset-uploads'
export { conflictCopyPath } from '../workspace/space-files'

/**
 * The steps of a plan, in order: identify pages (renames, moves, deletions), inserts, known pages,
 * deletions, then the uploads the pages sent link to (sent first).
 */
class PushPlanner {
  private readonly s: PlanState
  private readonly placement: PagePlacement
  private readonly uploads: AssetUploads

  constructor(input: PushInput) {
    this.s = new PlanState(input)
    this.placement = new PagePlacement(this.s)
    this.uploads = new AssetUploads(this.s)
  }

  plan(): PushPlan {
    const s = this.s
    identifyPages(s)
    this.planInserts()
    new KnownPagePlanner(s, this.placement, this.uploads).planAll()
    this.planDeletions()
    const uploads = this.uploads.planUploads()
    return { changes: [...uploads, ...s.changes], bookkeeping: s.bookkeeping, markers: s.markers, conflicts: s.conflicts, rewrites: s.rewrites, orphans: s.orphans, relocations: s.relocations, reports: s.reports }
  }

  /** New `.md` files, parents before children, each at its SUMMARY.md place. */
  private planInserts() {
    const { s, placement } = this
    const order = [...s.newFiles].sort((a, b) => {
      const depth = (p: string) => placeFolder(p).split('/').filter(Boolean).length + (baseName(p) === README ? 0 : 0.5)
      return depth(a) - depth(b) || placement.summaryIndex(a) - placement.summaryIndex(b) || (a < b ? -1 : a > b ? 1 : 0)
    })
    for (const path of order) {
      const file = s.input.local.get(path)
      if (!file) continue
      const content = strippedContent(file)
      if (content.text === undefined || content.text.trim() === '') continue // an editor's empty new file: wait for its content
      const isHome = path === README
      const parent = isHome ? undefined : placement.folderOwner(placeFolder(path), path)
      const ref = `quire-${shortHash(`page:${path}`)}`
      const at = isHome ? 0 : placement.placeAt(path, parent)
      const change: ContentChange = {
        operation: 'insert_page',
        document: { markdown: this.uploads.withUploads(path, content.text) },
        ref,
        ...(isHome ? {} : { slug: placement.slugFor(slugOfPath(path), parent) }),
        ...(parent ? { into: parent.handle } : {}),
        ...(at !== undefined ? { at } : {}),
      }
      s.inserted.set(path, ref)
      placement.place(parent, path)
      s.add(change, [{ op: 'set', path, kind: 'page', ref, hash: content.hash, state: 'pushed' }], {
        title: titleOf(content.text, stemOf(path)),
        defines: ref,
        uses: parent?.isRef ? [parent.handle] : [],
      })
    }
  }

  /**
   * Missing pages that were not renamed: deleted, after their surviving subpages move out. A deletion
   * is remembered under the page's old path (a tombstone), so sync down does not bring the file back.
   */
  private planDeletions() {
    const s = this.s
    for (const handle of s.deleted) {
      const k = s.known.get(handle)!
      const inContent = k.isRef || s.main.has(handle) || k.pushed !== undefined
      const entry: EntryUpdate = k.journal
        ? { op: 'set', path: k.path, kind: 'page', pageId: handle, hash: '', state: 'deleted' }
        : { op: 'remove', path: k.path }
      if (!inContent || this.hasDeletedAncestor(handle)) {
        if (inContent) s.bookkeeping.push(entry)
        continue
      }
      for (const child of s.mainChildren.get(handle) ?? []) {
        const ck = s.known.get(child.id)
        // A subpage whose file is still there (or held unread) must not go with its parent.
        const stays = ck !== undefined && (ck.now === ck.path || s.held.has(child.id))
        if (!stays || s.deleted.has(child.id)) continue
        const parent = this.placement.folderOwner(placeFolder(ck.path), ck.path)
        s.add({ operation: 'update_page', page: child.id, into: parent ? parent.handle : null }, [], {
          title: child.title,
          uses: parent?.isRef ? [parent.handle] : [],
        })
      }
      s.add({ operation: 'delete_page', page: handle }, [entry], {
        title: s.main.get(handle)?.title ?? stemOf(k.path),
        uses: k.isRef ? [handle] : [],
      })
    }
  }

  private hasDeletedAncestor(handle: string): boolean {
    for (let parent = this.s.mainParent(handle); parent !== undefined; parent = this.s.mainParent(parent)) {
      if (this.s.deleted.has(parent)) return true
    }
    return false
  }
}
