import { gitBlobOid, mergePageFiles } from '../../content'
import { findMarkers, markerKey, stripMarkers } from '../comments/markers'
import { conflictCopyPath } from '../workspace/space-files'
import type { AssetUploads } from './asset-uploads'
import { placeFolder, shortHash, slugOfPath, stemOf, strippedContent, titleOf } from './page-file'
import type { PagePlacement } from './page-placement'
import type { Known, PlanState } from './plan-state'
import type { EntryUpdate, LocalFile } from './push-types'

/**
 * Pages the journal or the change request knows and whose files are still here (maybe under a new
 * name): what each of them sends, from its merge base, its file and main. Edited: `update_page`. Moved:
 * `slug`/`into`/`at`. Deleted there and edited here: inserted again (an edit beats a delete). Both
 * sides changed: merged block by block with main, else a conflict that keeps main's version.
 */
export class KnownPagePlanner {
  constructor(
    private readonly s: PlanState,
    private readonly placement: PagePlacement,
    private readonly uploads: AssetUploads,
  ) {}

  planAll() {
    for (const k of this.s.known.values()) {
      if (k.now === undefined) continue
      const file = this.s.input.local.get(k.now)
      if (!file) continue
      this.planKnownPage(k, k.now, file)
    }
  }

  private planKnownPage(k: Known, path: string, file: LocalFile) {
    const { s, placement } = this
    const j = k.journal
    const content = strippedContent(file)
    const main = s.main.get(k.handle)
    const carried = k.pushed ? k.pushed.hash : j?.baseHash
    const localEdited = j !== undefined && content.hash !== j.baseHash && file.hash !== j.baseHash
    const moved = path !== k.path
    const entryState = k.pushed?.state === 'conflict' && !localEdited ? 'conflict' : 'pushed'
    const title = titleOf(content.text, main?.title ?? stemOf(path))
    // A revived page is not in main yet: this plan restores it (its deletion was the writer's, taken back).
    const remoteDeleted = j !== undefined && !main && !k.pushed && !k.isRef && !k.revive
    // An unedited file's HTML comments are the service's own text, not markers.
    const hasMarkers = file.hash !== j?.baseHash && file.text !== undefined && findMarkers(file.text).length > 0

    // Only markers were added to a page deleted there: nowhere to post them; they are kept in a copy and
    // leave the file, which sync down then removes like the page.
    if (remoteDeleted && !localEdited && hasMarkers && file.text !== undefined) {
      const markers = findMarkers(file.text).filter((m) => !s.input.posted.has(markerKey(s.input.spaceId, k.handle, m, s.input.userId)))
      if (markers.length > 0) s.orphans.push({ path, pageId: k.handle, copyPath: conflictCopyPath(path, s.input.stamp), text: file.text })
      return
    }
    // Renamed (or left) here, deleted there, content untouched: the deletion wins. The journal follows the
    // file to its new name, so sync down removes it as it removes any unedited file of a deleted page.
    if (remoteDeleted && !localEdited) {
      if (moved) s.relocations.push({ pageId: k.handle, from: k.path, to: path, hash: file.hash })
      return
    }
    if (hasMarkers && file.text !== undefined) this.planMarkers(k, path, file.text)

    // Someone else changed the page inside the writer's change request since it carried it. A file the
    // writer moved too (a file manager's move, a rename by similarity) is merged the same: the move does
    // not make the file the whole page's truth over their edit.
    const inChangeRequest = s.input.changeRequestTexts?.get(k.handle)
    if (inChangeRequest?.carried !== undefined && file.text !== undefined && (k.pushed ? content.hash !== k.pushed.hash : localEdited)) {
      this.mergeWithChangeRequest(k, path, { hash: file.hash, text: file.text }, inChangeRequest, title)
      return
    }
    // Nothing new of the writer's since the change request carried it, and someone changed it there: the
    // change request's version stands (main's changes are in it, or the service merges them); only a
    // move of the file is sent.
    if (inChangeRequest && k.pushed && content.hash === k.pushed.hash) {
      if (moved) this.addMoveOrContent(k, path, undefined, k.pushed.hash, title)
      return
    }

    // Edited here, deleted there: the edit wins, the page comes back (its markers wait for its new id).
    if (remoteDeleted && localEdited) {
      if (content.text === undefined) return
      const parent = placement.folderOwner(placeFolder(path), path)
      const ref = `quire-${shortHash(`page:${path}:${j.id}`)}`
      const at = placement.placeAt(path, parent)
      placement.place(parent, path)
      s.add(
        {
          operation: 'insert_page',
          document: { markdown: this.uploads.withUploads(path, content.text) },
          ref,
          slug: placement.slugFor(slugOfPath(path), parent),
          ...(parent ? { into: parent.handle } : {}),
          ...(at !== undefined ? { at } : {}),
        },
        [{ op: 'set', path, kind: 'page', ref, hash: content.hash, state: 'pushed' }],
        { title, defines: ref, uses: parent?.isRef ? [parent.handle] : [] },
      )
      return
    }

    // Both sides changed since the merge base, differently (a file moved and edited too: identity by
    // similarity finds those; sent as it is, it would undo main's change).
    const remoteChanged = j !== undefined && main?.gitOid !== undefined && main.gitOid !== j.oid
    if (localEdited && remoteChanged && main?.gitOid !== content.hash && main?.gitOid !== file.hash && file.text !== undefined) {
      if (this.mergeWithMain(k, path, { hash: file.hash, text: file.text }, title)) return
      s.conflicts.push({ path, pageId: k.handle, copyPath: conflictCopyPath(path, s.input.stamp), localText: file.text, remoteOid: main!.gitOid! })
      this.keepMainVersion(k, path, title)
      return
    }

    const sendContent =
      content.text !== undefined &&
      carried !== content.hash &&
      !(k.pushed?.state === 'conflict' && !localEdited) &&
      !(!k.pushed && main?.gitOid !== undefined && main.gitOid === content.hash)
    const move = moved ? placement.moveFields(k, path) : {}
    if (!sendContent && Object.keys(move).length === 0) {
      if (moved) {
        s.bookkeeping.push({ op: 'remove', path: k.path })
        s.bookkeeping.push({ op: 'set', path, kind: 'page', ...(k.isRef ? { ref: k.handle } : { pageId: k.handle }), hash: carried ?? content.hash, state: entryState })
      }
      return
    }
    const parentRef = 'into' in move && typeof move.into === 'string' && s.isRefHandle(move.into) ? [move.into] : []
    s.add(
      {
        operation: 'update_page',
        page: k.handle,
        ...(sendContent && content.text !== undefined ? { document: { markdown: this.uploads.withUploads(path, content.text) } } : {}),
        ...move,
      },
      [
        ...(moved ? [{ op: 'remove' as const, path: k.path }] : []),
        { op: 'set', path, kind: 'page', ...(k.isRef ? { ref: k.handle } : { pageId: k.handle }), hash: sendContent ? content.hash : (carried ?? content.hash), state: entryState },
      ],
      { title, uses: [...(k.isRef ? [k.handle] : []), ...parentRef] },
    )
  }

  /**
   * Both sides changed the page: merged block by block with main, when the base's and main's texts are
   * at hand and no block was changed by both. The change request gets the merge (markers cut out) and the
   * file is rewritten to it with main as its new merge base. False: a conflict, as before.
   */
  private mergeWithMain(k: Known, path: string, file: { hash: string; text: string }, title: string): boolean {
    const texts = this.s.input.mergeTexts?.get(k.handle)
    if (!texts) return false
    const merged = mergePageFiles(texts.base, texts.main, file.text, { keep: 'main' })
    if (merged.conflicts.length > 0) return false
    const markers = findMarkers(merged.text)
    const sent = markers.length === 0 ? merged.text : stripMarkers(merged.text, markers)
    const content = { text: sent, hash: gitBlobOid(sent) }
    const mainOid = texts.mainOid
    this.s.rewrites.push({ path, pageId: k.handle, fromHash: file.hash, text: merged.text, mainOid, mainText: texts.main })
    // Sent once: after a crash before the rewrite, the next plan merges to the same text again. Main's
    // own version needs no change in a change request that never touched the page.
    if (k.pushed ? k.pushed.hash === content.hash && k.pushed.state === 'pushed' : content.hash === mainOid) return true
    this.s.add(
      { operation: 'update_page', page: k.handle, document: { markdown: this.uploads.withUploads(path, content.text) } },
      [{ op: 'set', path, kind: 'page', pageId: k.handle, hash: content.hash, state: 'pushed' }],
      { title },
    )
    return true
  }

  /**
   * The writer edited a page again that someone else changed inside the writer's change request: the
   * edit is merged block by block with their version (from the version the change request carried),
   * sent, and the file becomes the merge. Where both changed the same block, their version stays in the
   * change request and the file; the writer's is kept in a conflicted copy.
   */
  private mergeWithChangeRequest(k: Known, path: string, file: { hash: string; text: string }, theirs: { carried?: string; text: string; oid: string }, title: string) {
    const merged = mergePageFiles(theirs.carried ?? '', theirs.text, file.text, { keep: 'main' })
    const rewrite = { path, pageId: k.handle, fromHash: file.hash, mainOid: '', mainText: '', keepBase: true }
    if (merged.conflicts.length > 0) {
      this.s.orphans.push({ path, pageId: k.handle, copyPath: conflictCopyPath(path, this.s.input.stamp), text: file.text })
      this.s.rewrites.push({ ...rewrite, text: theirs.text })
      this.addMoveOrContent(k, path, undefined, theirs.oid, title)
      return
    }
    const markers = findMarkers(merged.text)
    const sent = markers.length === 0 ? merged.text : stripMarkers(merged.text, markers)
    const hash = gitBlobOid(sent)
    this.s.rewrites.push({ ...rewrite, text: merged.text })
    this.addMoveOrContent(k, path, hash === theirs.oid ? undefined : sent, hash, title)
  }

  /**
   * The page's new text (undefined: none to send) and, when its file moved, the move; with neither,
   * only the entry is updated (to the file's new path). The entry names `hash`: the text sent, or the
   * one the page's entry already stands for.
   */
  private addMoveOrContent(k: Known, path: string, text: string | undefined, hash: string, title: string) {
    const moved = path !== k.path
    const move = moved ? this.placement.moveFields(k, path) : {}
    const entries: EntryUpdate[] = [...(moved ? [{ op: 'remove' as const, path: k.path }] : []), { op: 'set', path, kind: 'page', pageId: k.handle, hash, state: 'pushed' }]
    if (text === undefined && Object.keys(move).length === 0) {
      this.s.bookkeeping.push(...entries)
      return
    }
    const parentRef = 'into' in move && typeof move.into === 'string' && this.s.isRefHandle(move.into) ? [move.into] : []
    this.s.add(
      { operation: 'update_page', page: k.handle, ...(text !== undefined ? { document: { markdown: this.uploads.withUploads(path, text) } } : {}), ...move },
      entries,
      { title, uses: parentRef },
    )
  }

  /**
   * A conflicted page: the change request must never carry a version that drops what main gained since
   * the writer's merge base, so it keeps main's version until the writer resolves the conflict by saving
   * the file (which then holds main's version; theirs is in the conflicted copy). When it already carries
   * an earlier version of the writer's, that version is reverted (the page's slug, when the change
   * request renamed it, is set again: a revert undoes the rename too). A page the change request never
   * touched is left alone: merged, it stays as main has it.
   */
  private keepMainVersion(k: Known, path: string, title: string) {
    const j = k.journal
    if (!k.pushed || k.isRef || !j || k.pushed.state === 'conflict') return
    const entry: EntryUpdate = { op: 'set', path, kind: 'page', pageId: k.handle, hash: '', state: 'conflict' }
    this.s.add({ operation: 'revert_page', page: k.handle }, [entry], { title })
    if (slugOfPath(j.path) !== slugOfPath(path)) this.s.add({ operation: 'update_page', page: k.handle, slug: this.placement.slugFor(slugOfPath(path), this.placement.currentParent(k), k.handle) }, [entry], { title })
  }

  /** Markers of a page: post the new ones (once its page exists), take posted ones out of the file. */
  private planMarkers(k: Known, path: string, text: string) {
    if (k.isRef) return // its page is still on its way: markers wait for its id
    const target = this.s.main.has(k.handle) ? 'space' : 'change-request'
    for (const marker of findMarkers(text)) {
      const key = markerKey(this.s.input.spaceId, k.handle, marker, this.s.input.userId)
      this.s.markers.push({ key, path, pageId: k.handle, marker, post: !this.s.input.posted.has(key), target })
    }
  }
}
