import { parsePageMarkdown, SUMMARY_FILE, type ContentChange } from '../../content'
import { AssetUploads } from './asset-uploads'
import { KnownPagePlanner } from './known-pages'
import { reportIncludeEdits } from './include-edits'
import { identifyPages, reviving } from './page-identity'
import { baseName, placeFolder, README, shortHash, slugOfPath, stemOf, strippedContent, titleOf } from './page-file'
import { PagePlacement } from './page-placement'
import { PlanState } from './plan-state'
import { planSummaryEdits } from './summary-edits'
import { summaryPlaces } from './summary-order'
import { DELETION_QUIET_MS, type EntryUpdate, type PushInput, type PushPlan } from './push-types'

/**
 * Decides what one push does for one space, from three facts and nothing else: the merge base (the
 * journal of the last sync down), the local files, and the remote state (main as last seen, plus what
 * the writer's open change request already carries). Pure, so it is tested on generated cases.
 *
 * - An edited page becomes `update_page` with the file's markdown (markers cut out); a file back to
 *   what the change request already holds costs nothing, so a file synced down and saved unchanged
 *   creates no change.
 * - A new `.md` file becomes `insert_page`: where SUMMARY.md lists it, under its SUMMARY.md parent, at
 *   its place there, titled by its entry when it has no H1 (a `## Group` the content API cannot create
 *   is reported, its pages placed at the top level in order); else into the page its folder names. When
 *   the writer edited SUMMARY.md to list new pages, new files it does not list stay local (reported).
 * - A missing file whose content turns up under another name is a rename or a move (`update_page`
 *   with `slug`/`into`/`at`); otherwise it is a deletion (`delete_page`), after moving out subpages
 *   whose files are still there.
 * - The writer's SUMMARY.md edits (order, nesting, entry titles) become moves and title updates of the
 *   pages main has (summary-edits.ts); what the content API cannot represent is reported with its line.
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
    this.planRevivals()
    const kept = this.planInserts()
    new KnownPagePlanner(s, this.placement, this.uploads).planAll()
    const summaryEdit = planSummaryEdits(s)
    this.planDeletions()
    this.uploads.uploadUnlinked()
    reportIncludeEdits(s)
    const uploads = this.uploads.planUploads()
    const quiet = s.input.deletionQuietMs ?? DELETION_QUIET_MS
    const replanAt = s.waiting.size > 0 ? Math.min(...s.waiting.values()) + quiet : undefined
    return {
      changes: [...uploads, ...s.changes],
      bookkeeping: s.bookkeeping,
      markers: s.markers,
      conflicts: s.conflicts,
      rewrites: s.rewrites,
      orphans: s.orphans,
      relocations: s.relocations,
      reports: s.reports,
      keptLocal: [...kept].sort(),
      waitingDeletions: s.waiting,
      ...(replanAt !== undefined ? { replanAt } : {}),
      ...(summaryEdit ? { summaryEdit } : {}),
    }
  }

  /**
   * Pages the writer's change request deleted whose files came back (at their old path, or by content
   * elsewhere): the deletion is taken back with `revert_page`, which restores the page with its id (and
   * its subpages) as the change request's base has it; the page's edit or move follows as for any
   * known page. A page restored with its parent needs no revert of its own.
   */
  private planRevivals() {
    const s = this.s
    for (const k of s.known.values()) {
      if (!k.revive || k.now === undefined || reviving(s, k)) continue
      const entries: EntryUpdate[] = [k, ...[...s.known.values()].filter((d) => d.revive && d.now !== undefined && d !== k && this.isBelow(d.handle, k.handle))].map((p) => ({
        op: 'set',
        path: p.path,
        kind: 'page',
        pageId: p.handle,
        hash: p.journal!.baseHash,
        state: 'pushed',
      }))
      s.add({ operation: 'revert_page', page: k.handle, ...(k.reviveFrom !== undefined ? { revision: k.reviveFrom } : {}) }, entries, { title: s.main.get(k.handle)?.title ?? stemOf(k.path) })
    }
  }

  private isBelow(handle: string, ancestor: string): boolean {
    for (let parent = this.s.mainParent(handle); parent !== undefined; parent = this.s.mainParent(parent)) if (parent === ancestor) return true
    return false
  }

  /**
   * New `.md` files, each at its SUMMARY.md place: a file SUMMARY.md lists takes its parent (nesting),
   * its order among its siblings and, when it has no H1, its title from the entry; a file it does not
   * list goes into the page its folder names. Listed files go first, in SUMMARY.md's order (parents
   * before children), then the others, shallow folders first.
   */
  private planInserts(): Set<string> {
    const { s, placement } = this
    const kept = this.keptLocal()
    const depth = (p: string) => placeFolder(p).split('/').filter(Boolean).length + (baseName(p) === README ? 0 : 0.5)
    const order = s.newFiles.filter((p) => !kept.has(p)).sort((a, b) => {
      const listed = Number(s.summary.has(b)) - Number(s.summary.has(a))
      return listed || placement.summaryIndex(a) - placement.summaryIndex(b) || depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0)
    })
    /** Groups of SUMMARY.md the content API cannot create: title -> pages placed at the top level instead. */
    const flattened = new Map<string, number>()
    for (const path of order) {
      const file = s.input.local.get(path)
      if (!file) continue
      const content = strippedContent(file)
      if (content.text === undefined || content.text.trim() === '') continue // an editor's empty new file: wait for its content
      const isHome = path === README
      const listed = isHome ? undefined : placement.summaryParent(path)
      const parent = isHome ? undefined : listed ? listed.owner : placement.folderOwner(placeFolder(path), path)
      const place = s.summary.get(path)
      if (listed && !parent && place?.group !== undefined) flattened.set(place.group, (flattened.get(place.group) ?? 0) + 1)
      const ref = `quire-${shortHash(`page:${path}`)}`
      const at = isHome ? 0 : placement.placeAt(path, parent)
      // SUMMARY.md names a page whose file has no H1 (Git Sync writes such pages so): its entry is the title.
      const summaryTitle = place?.title && !hasTitle(content.text) ? place.title : undefined
      const change: ContentChange = {
        operation: 'insert_page',
        document: { markdown: this.uploads.withUploads(path, content.text) },
        ref,
        ...(summaryTitle ? { title: summaryTitle } : {}),
        ...(isHome ? {} : { slug: placement.slugFor(slugOfPath(path), parent) }),
        ...(parent ? { into: parent.handle } : {}),
        ...(at !== undefined ? { at } : {}),
      }
      s.inserted.set(path, ref)
      placement.place(parent, path, at)
      s.add(change, [{ op: 'set', path, kind: 'page', ref, hash: content.hash, state: 'pushed' }], {
        title: summaryTitle ?? titleOf(content.text, stemOf(path)),
        defines: ref,
        uses: parent?.isRef ? [parent.handle] : [],
      })
    }
    if (flattened.size > 0) {
      const groups = [...flattened].map(([title, n]) => `"${title}" (${n} ${n === 1 ? 'page' : 'pages'})`).join(', ')
      s.report('group-not-created', SUMMARY_FILE, `groups cannot be created through the content API; pages placed at the top level: ${groups}`)
    }
    return kept
  }

  /**
   * New page files that stay local: those SUMMARY.md does not list, when the writer edited SUMMARY.md
   * (it is not what the last sync down wrote) and it lists new pages (of this push, or inserted by the
   * open change request). That is a tree whose SUMMARY.md decides which files are pages, as Git Sync
   * reads it: its LICENSE.md or notes are not pages. A writer who did not touch SUMMARY.md (or whose
   * edit lists no new page) gets every new file as a page, the folder deciding where. Reported once.
   * A file kept by an earlier push (`input.keptLocal`) stays kept while SUMMARY.md does not list it,
   * also once the change request is merged and the space's SUMMARY.md replaced the writer's: listed
   * there (by the writer, or by main's SUMMARY.md), it becomes a page.
   */
  private keptLocal(): Set<string> {
    const s = this.s
    const unlisted = (p: string) => !s.summary.has(p) && p !== README
    const before = s.newFiles.filter((p) => s.input.keptLocal?.has(p) && unlisted(p))
    const kept = new Set([...before, ...this.unlistedBySummaryEdit()].filter(unlisted))
    if (kept.size > 0) {
      const names = [...kept].sort()
      s.report('not-in-summary', SUMMARY_FILE, `not in SUMMARY.md: not sent: ${names.join(', ')} (SUMMARY.md lists the new pages; list ${names.length === 1 ? 'it' : 'them'} there to send ${names.length === 1 ? 'it' : 'them'})`)
    }
    return kept
  }

  /** New files the writer's SUMMARY.md edit leaves out, when that edit lists new pages (see keptLocal). */
  private unlistedBySummaryEdit(): string[] {
    const s = this.s
    const summaryFile = s.input.local.get(SUMMARY_FILE)
    if (!summaryFile || s.summary.size === 0) return []
    const base = s.input.journal.find((j) => j.kind === 'summary')
    if (base !== undefined && base.baseHash === summaryFile.hash) return []
    // Listed by the writer's edit: an entry the last synced SUMMARY.md did not have. A file listed there
    // already (a page deleted in the space whose file the writer edited, after a cache rebuilt since knows
    // no page of it) is no sign that the writer's SUMMARY.md now decides which files are pages.
    const listedBefore = summaryPlaces(s.input.summaryBase)
    const listedByEdit = (p: string) => s.summary.has(p) && !listedBefore.has(p)
    const insertedBefore = [...s.known.values()].some((k) => k.pushed && !k.journal && k.now !== undefined && listedByEdit(k.now))
    if (!insertedBefore && !s.newFiles.some(listedByEdit)) return []
    return s.newFiles
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

/** Whether a page's markdown gives its own title (an H1, or front matter `title:`). */
function hasTitle(text: string): boolean {
  try {
    return parsePageMarkdown(text).title !== undefined
  } catch {
    return false
  }
}
