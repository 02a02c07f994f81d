import { createHash } from 'node:crypto'
import { extractLinks, gitBlobOid, MAX_FILE_BYTES, MAX_FILES_PER_CHANGE, mergePageFiles, parsePageMarkdown, resolveRelativePath, rewriteLinks, slugify, SUMMARY_FILE, uniqueSlug, type ContentChange, type InsertFileInput } from '../../content'
import type { RemotePageRow } from '../cache/cache-repository'
import { findMarkers, markerKey, stripMarkers } from '../comments/markers'
import type { JournalEntry } from '../sync/plan-types'
import { enclosingIn } from '../workspace/content-names'
import { CONFLICT_COPY, MAX_PAGE_BYTES, type SkipReason, type EntryUpdate, type LocalFile, type PlannedChange, type PlannedConflict, type PlannedMarker, type PlannedRewrite, type PushedEntry, type PushInput, type PushPlan, type PushReport } from './push-types'
import { conflictCopyPath } from '../workspace/space-files'
import { summaryPlaces, type SummaryPlace } from './summary-order'

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

export const ASSETS_PREFIX = '.gitbook/assets/'
const README = 'README.md'

export function isPageFile(path: string): boolean {
  const name = baseName(path)
  return /\.md$/i.test(path) && path !== SUMMARY_FILE && !path.startsWith('.gitbook/') && !name.startsWith('.') && !CONFLICT_COPY.test(path)
}

export { conflictCopyPath } from '../workspace/space-files'

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1)
const dirName = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '')
const stemOf = (path: string) => baseName(path).replace(/\.md$/i, '')
const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12)
/** Folder whose page this file is placed in: `a/b.md` -> `a`, `a/b/README.md` -> `a`. */
const placeFolder = (path: string) => (baseName(path) === README ? dirName(dirName(path)) : dirName(path))
/** Slug this file asks for: `a/b.md` -> `b`, `a/b/README.md` -> `b`. */
const slugOfPath = (path: string) => (baseName(path) === README ? baseName(dirName(path)) : stemOf(path))
/** Valid as an explicit slug as the service checks it (one segment, no spaces, no `?#`). */
const movesAway = (k: { path: string; now?: string }) => k.now !== undefined && k.now !== k.path && placeFolder(k.now) !== placeFolder(k.path)
const isValidSlug = (slug: string) => slug !== '' && slug !== '.' && slug !== '..' && Array.from(slug).length <= 100 && !/[\s/\\?#]/.test(slug)

/** A page as this push sees it: an id on the service, or the ref of an insert still on its way. */
interface Known {
  handle: string
  isRef: boolean
  journal?: JournalEntry
  pushed?: PushedEntry
  /** Where its file was last known to be. */
  path: string
  /** Where its file is now (after renames); undefined when it is gone. */
  now?: string
}

interface Owner {
  handle: string
  isRef: boolean
}

class PushPlanner {
  private readonly main: Map<string, RemotePageRow>
  private readonly mainChildren = new Map<string, RemotePageRow[]>()
  private readonly known = new Map<string, Known>()
  private readonly byPath = new Map<string, Known>()
  private readonly newFiles: string[] = []
  private readonly summary: Map<string, SummaryPlace>
  private readonly reports: PushReport[] = []
  private readonly changes: PlannedChange[] = []
  private readonly markers: PlannedMarker[] = []
  private readonly conflicts: PlannedConflict[] = []
  private readonly rewrites: PlannedRewrite[] = []
  private readonly orphans: PushPlan['orphans'] = []
  private readonly relocations: PushPlan['relocations'] = []
  /** New pages inserted by this plan: path -> ref. */
  private readonly inserted = new Map<string, string>()
  /** Pages this plan deletes. */
  private readonly deleted = new Set<string>()
  /** Pages whose files are there but were not read (symlink, hidden or ignored folder, too large...): left as they are. */
  private readonly held = new Set<string>()
  /** Pages this plan places under a parent (new or moved): parent handle -> paths, in insert order. */
  private readonly placedUnder = new Map<string, string[]>()
  private readonly assetsJournaled = new Map<string, JournalEntry>()
  private readonly assetsPushed = new Map<string, PushedEntry>()
  private readonly uploads = new Map<string, { ref: string; name: string; hash: string }>()
  private readonly bookkeeping: EntryUpdate[] = []
  /** Old paths of pages the change request moved or deleted: a copy there that sync down put back is not a new page. */
  private readonly shadows = new Map<string, string>()

  constructor(private readonly input: PushInput) {
    this.main = new Map(input.main.pages.map((p) => [p.id, p]))
    for (const page of input.main.pages) {
      const key = page.parentId ?? ''
      const list = this.mainChildren.get(key) ?? []
      list.push(page)
      this.mainChildren.set(key, list)
    }
    for (const list of this.mainChildren.values()) list.sort((a, b) => a.position - b.position)
    this.summary = summaryPlaces(input.summary)
  }

  plan(): PushPlan {
    this.identify()
    this.matchRenames()
    this.markDeletions()
    this.planInserts()
    this.planKnownPages()
    this.planDeletions()
    const uploads = this.planUploads()
    return { changes: [...uploads, ...this.changes], bookkeeping: this.bookkeeping, markers: this.markers, conflicts: this.conflicts, rewrites: this.rewrites, orphans: this.orphans, relocations: this.relocations, reports: this.reports }
  }

  /** Which page each local path belongs to: the change request's claims first, then the journal. */
  private identify() {
    const tombstones = new Set<string>()
    const pushedById = new Map<string, PushedEntry>()
    for (const entry of this.input.pushed) {
      if (entry.kind === 'file') {
        this.assetsPushed.set(entry.path, entry)
        continue
      }
      if (entry.state === 'deleted') {
        if (entry.pageId) tombstones.add(entry.pageId)
        continue
      }
      const handle = entry.pageId ?? entry.ref
      if (handle === undefined) continue
      pushedById.set(handle, entry)
      this.addKnown({ handle, isRef: entry.pageId === undefined, pushed: entry, path: entry.path })
    }
    for (const j of this.input.journal) {
      if (j.kind === 'file') this.assetsJournaled.set(j.path, j)
      if (j.kind !== 'page') continue
      if (tombstones.has(j.id)) {
        this.shadows.set(j.path, j.baseHash)
        continue
      }
      const pushed = pushedById.get(j.id)
      if (pushed) {
        const known = this.known.get(j.id)
        if (known) known.journal = j
        if (pushed.path !== j.path) this.shadows.set(j.path, j.baseHash)
        continue
      }
      if (this.byPath.has(j.path)) continue // a pushed page took the path over
      this.addKnown({ handle: j.id, isRef: false, journal: j, path: j.path })
    }
    for (const known of this.known.values()) if (this.input.local.has(known.path)) known.now = known.path
    for (const path of [...this.input.local.keys()].sort()) {
      if (!isPageFile(path) || this.byPath.has(path)) continue
      if (this.shadows.get(path) === this.input.local.get(path)?.hash) continue
      this.newFiles.push(path)
    }
  }

  private addKnown(known: Known) {
    this.known.set(known.handle, known)
    this.byPath.set(known.path, known)
  }

  /** A missing page whose last content shows up exactly once under a new name was renamed or moved. */
  private matchRenames() {
    const missing = [...this.known.values()].filter((k) => k.now === undefined && this.notRead(k.path) === undefined)
    if (missing.length === 0 || this.newFiles.length === 0) return
    const candidates = new Map<string, string[]>()
    for (const path of this.newFiles) {
      const file = this.input.local.get(path)
      if (!file) continue
      const hashes = new Set([file.hash, this.stripped(file).hash])
      for (const hash of hashes) candidates.set(hash, [...(candidates.get(hash) ?? []), path])
    }
    const claims = new Map<string, Known[]>()
    for (const k of missing) {
      const hashes = new Set([k.journal?.baseHash, k.pushed?.hash].filter((h): h is string => !!h))
      const paths = new Set([...hashes].flatMap((h) => candidates.get(h) ?? []))
      if (paths.size !== 1) continue
      const [path] = paths
      claims.set(path, [...(claims.get(path) ?? []), k])
    }
    for (const [path, ks] of claims) {
      if (ks.length !== 1) continue
      ks[0].now = path
      this.byPath.set(path, ks[0])
      this.newFiles.splice(this.newFiles.indexOf(path), 1)
    }
  }

  /**
   * A page is deleted only when the writer removed its file: nothing at all is at its path. A file the
   * scan saw and would not read (a symlink, a hidden or ignored folder, too large, unreadable) holds its
   * page as it is, and the writer is told why.
   */
  private markDeletions() {
    const held = new Map<string, number>()
    for (const k of this.known.values()) {
      if (k.now !== undefined) continue
      const at = this.notRead(k.path)
      if (at === undefined) {
        // An edit beats a delete: a page someone changed in the space since the writer's last sync is not
        // deleted by the writer's removal of its file (their edit would go); the pass brings it back.
        const main = this.main.get(k.handle)
        if (k.journal && main?.gitOid !== undefined && main.gitOid !== k.journal.oid) {
          this.report('edit-beats-delete', k.path, `${k.path} was changed in the space since your last sync, so your deletion is not sent: the file comes back with that version; delete it again if it should go`)
          continue
        }
        this.deleted.add(k.handle)
        continue
      }
      this.held.add(k.handle)
      held.set(at, (held.get(at) ?? 0) + 1)
    }
    for (const [at, count] of held) this.report('not-read', at, notReadMessage(at, this.input.skipped!.get(at)!, count))
  }

  /** The skipped path that holds `path` (itself or a folder above it), if the scan did not read it. */
  private notRead(path: string): string | undefined {
    return this.input.skipped ? enclosingIn(this.input.skipped, path) : undefined
  }

  /** Content of a file with its markers cut out, and that content's hash. */
  private stripped(file: LocalFile): { text?: string; hash: string } {
    if (file.text === undefined) return { hash: file.hash }
    const markers = findMarkers(file.text)
    if (markers.length === 0) return { text: file.text, hash: file.hash }
    const text = stripMarkers(file.text, markers)
    return { text, hash: gitBlobOid(text) }
  }

  /* Where pages go */

  /** The page a folder names: its README page, the leaf page of the same name, a group living there, or a new README. */
  private folderOwner(folder: string, forPath: string): Owner | undefined {
    for (let current = folder; current !== ''; current = dirName(current)) {
      const owner = this.ownerOf(current)
      if (owner) {
        if (current !== folder) this.report('placed-higher', forPath, `no page names the folder ${folder}/; placed under ${current}/`)
        return owner
      }
    }
    if (folder !== '') this.report('placed-higher', forPath, `no page names the folder ${folder}/; placed at the top level`)
    return undefined
  }

  private ownerOf(folder: string): Owner | undefined {
    for (const path of [`${folder}/${README}`, `${folder}.md`]) {
      const k = this.byPath.get(path)
      if (k && (k.now === path || (k.path === path && this.held.has(k.handle))) && !this.deleted.has(k.handle)) return { handle: k.handle, isRef: k.isRef }
      const ref = this.inserted.get(path)
      if (ref) return { handle: ref, isRef: true }
    }
    for (const [id, row] of this.main) {
      if (row.kind !== 'group' || this.deleted.has(id)) continue
      const child = (this.mainChildren.get(id) ?? []).map((c) => this.known.get(c.id)).find((k) => k?.journal)
      if (child?.journal && placeFolder(child.journal.path) === folder) return { handle: id, isRef: false }
      if (!child && row.parentId === undefined && row.slug === folder) return { handle: id, isRef: false }
    }
    return undefined
  }

  /** Handle of the parent a page is under in main, if any. */
  private mainParent(handle: string): string | undefined {
    return this.main.get(handle)?.parentId
  }

  /** Zero-based place among the parent's children, from SUMMARY.md; undefined appends. */
  private placeAt(path: string, parent: Owner | undefined): number | undefined {
    const place = this.summary.get(path)
    if (!place) return undefined
    const siblings = new Set<string>()
    if (!parent?.isRef) {
      for (const row of this.mainChildren.get(parent?.handle ?? '') ?? []) {
        const k = this.known.get(row.id)
        if (k?.now && !this.deleted.has(row.id) && !movesAway(k)) siblings.add(k.now)
      }
    }
    for (const p of this.placedUnder.get(parent?.handle ?? '') ?? []) siblings.add(p)
    return place.before.filter((p) => siblings.has(p)).length
  }

  private place(parent: Owner | undefined, path: string) {
    const key = parent?.handle ?? ''
    this.placedUnder.set(key, [...(this.placedUnder.get(key) ?? []), path])
  }

  /** A slug for `wanted` among the parent's children: as written when the service would take it, else made valid and unique. */
  private slugFor(wanted: string, parent: Owner | undefined, self?: string): string {
    const siblings = parent?.isRef ? [] : (this.mainChildren.get(parent?.handle ?? '') ?? []).filter((p) => p.id !== self && !this.deleted.has(p.id)).map((p) => p.slug ?? '')
    const base = isValidSlug(wanted) ? wanted : slugify(wanted)
    return uniqueSlug(base, siblings)
  }

  /* Changes */

  private add(change: ContentChange, entries: EntryUpdate[], extra: { title?: string; defines?: string; uses?: string[] } = {}) {
    const key = shortHash(JSON.stringify(change)) + shortHash(JSON.stringify(entries))
    if (this.input.refused.has(key)) {
      const path = entries.find((e) => e.path)?.path ?? ''
      this.report('refused', path, 'the service refused this change before; it is sent again once the file changes')
      return
    }
    this.changes.push({ key, change, entries, title: extra.title, defines: extra.defines, uses: extra.uses ?? [] })
  }

  private report(kind: PushReport['kind'], path: string, message: string) {
    this.reports.push({ kind, path, message })
  }

  private titleOf(text: string | undefined, fallback: string): string {
    // Most pages open with a plain `# Title` line: no need to parse them to name them in a subject.
    const plain = text === undefined ? undefined : /^# ([^\n\\*_`[\]<&#]+?)[ \t]*(?:\n|$)/.exec(text)?.[1]
    if (plain) return plain.trim()
    if (text !== undefined) {
      try {
        const title = parsePageMarkdown(text).title
        if (title) return title
      } catch {
        // an unreadable front matter still gets a subject
      }
    }
    return fallback
  }

  /** New `.md` files, parents before children, each at its SUMMARY.md place. */
  private planInserts() {
    const order = [...this.newFiles].sort((a, b) => {
      const depth = (p: string) => placeFolder(p).split('/').filter(Boolean).length + (baseName(p) === README ? 0 : 0.5)
      return depth(a) - depth(b) || this.summaryIndex(a) - this.summaryIndex(b) || (a < b ? -1 : a > b ? 1 : 0)
    })
    for (const path of order) {
      const file = this.input.local.get(path)
      if (!file) continue
      const content = this.stripped(file)
      if (content.text === undefined || content.text.trim() === '') continue // an editor's empty new file: wait for its content
      const isHome = path === README
      const parent = isHome ? undefined : this.folderOwner(placeFolder(path), path)
      const ref = `quire-${shortHash(`page:${path}`)}`
      const at = isHome ? 0 : this.placeAt(path, parent)
      const change: ContentChange = {
        operation: 'insert_page',
        document: { markdown: this.withUploads(path, content.text) },
        ref,
        ...(isHome ? {} : { slug: this.slugFor(slugOfPath(path), parent) }),
        ...(parent ? { into: parent.handle } : {}),
        ...(at !== undefined ? { at } : {}),
      }
      this.inserted.set(path, ref)
      this.place(parent, path)
      this.add(change, [{ op: 'set', path, kind: 'page', ref, hash: content.hash, state: 'pushed' }], {
        title: this.titleOf(content.text, stemOf(path)),
        defines: ref,
        uses: parent?.isRef ? [parent.handle] : [],
      })
    }
  }

  private summaryIndex(path: string): number {
    let index = 0
    for (const p of this.summary.keys()) {
      if (p === path) return index
      index++
    }
    return Number.MAX_SAFE_INTEGER
  }

  /** Pages the journal or the change request knows and whose files are still here (maybe under a new name). */
  private planKnownPages() {
    for (const k of this.known.values()) {
      if (k.now === undefined) continue
      const file = this.input.local.get(k.now)
      if (!file) continue
      this.planKnownPage(k, k.now, file)
    }
  }

  private planKnownPage(k: Known, path: string, file: LocalFile) {
    const j = k.journal
    const content = this.stripped(file)
    const main = this.main.get(k.handle)
    const carried = k.pushed ? k.pushed.hash : j?.baseHash
    const localEdited = j !== undefined && content.hash !== j.baseHash && file.hash !== j.baseHash
    const moved = path !== k.path
    const entryState = k.pushed?.state === 'conflict' && !localEdited ? 'conflict' : 'pushed'
    const title = this.titleOf(content.text, main?.title ?? stemOf(path))
    const remoteDeleted = j !== undefined && !main && !k.pushed && !k.isRef
    // An unedited file's HTML comments are the service's own text, not markers.
    const hasMarkers = file.hash !== j?.baseHash && file.text !== undefined && findMarkers(file.text).length > 0

    // Only markers were added to a page deleted there: nowhere to post them; they are kept in a copy and
    // leave the file, which sync down then removes like the page.
    if (remoteDeleted && !localEdited && hasMarkers && file.text !== undefined) {
      const markers = findMarkers(file.text).filter((m) => !this.input.posted.has(markerKey(this.input.spaceId, k.handle, m)))
      if (markers.length > 0) this.orphans.push({ path, pageId: k.handle, copyPath: conflictCopyPath(path, this.input.stamp), text: file.text })
      return
    }
    // Renamed (or left) here, deleted there, content untouched: the deletion wins. The journal follows the
    // file to its new name, so sync down removes it as it removes any unedited file of a deleted page.
    if (remoteDeleted && !localEdited) {
      if (moved) this.relocations.push({ pageId: k.handle, from: k.path, to: path, hash: file.hash })
      return
    }
    if (hasMarkers && file.text !== undefined) this.planMarkers(k, path, file.text)

    // Edited here, deleted there: the edit wins, the page comes back (its markers wait for its new id).
    if (remoteDeleted && localEdited) {
      if (content.text === undefined) return
      const parent = this.folderOwner(placeFolder(path), path)
      const ref = `quire-${shortHash(`page:${path}:${j.id}`)}`
      const at = this.placeAt(path, parent)
      this.place(parent, path)
      this.add(
        {
          operation: 'insert_page',
          document: { markdown: this.withUploads(path, content.text) },
          ref,
          slug: this.slugFor(slugOfPath(path), parent),
          ...(parent ? { into: parent.handle } : {}),
          ...(at !== undefined ? { at } : {}),
        },
        [{ op: 'set', path, kind: 'page', ref, hash: content.hash, state: 'pushed' }],
        { title, defines: ref, uses: parent?.isRef ? [parent.handle] : [] },
      )
      return
    }

    // Both sides changed since the merge base, differently.
    const remoteChanged = j !== undefined && main?.gitOid !== undefined && main.gitOid !== j.oid
    if (localEdited && remoteChanged && !moved && main?.gitOid !== content.hash && main?.gitOid !== file.hash && file.text !== undefined) {
      if (this.mergeWithMain(k, path, { hash: file.hash, text: file.text }, title)) return
      this.conflicts.push({ path, pageId: k.handle, copyPath: conflictCopyPath(path, this.input.stamp), localText: file.text, remoteOid: main!.gitOid! })
      this.keepMainVersion(k, path, title)
      return
    }

    const sendContent =
      content.text !== undefined &&
      carried !== content.hash &&
      !(k.pushed?.state === 'conflict' && !localEdited) &&
      !(!k.pushed && main?.gitOid !== undefined && main.gitOid === content.hash)
    const move = moved ? this.moveFields(k, path) : {}
    if (!sendContent && Object.keys(move).length === 0) {
      if (moved) {
        this.bookkeeping.push({ op: 'remove', path: k.path })
        this.bookkeeping.push({ op: 'set', path, kind: 'page', ...(k.isRef ? { ref: k.handle } : { pageId: k.handle }), hash: carried ?? content.hash, state: entryState })
      }
      return
    }
    const parentRef = 'into' in move && typeof move.into === 'string' && this.isRefHandle(move.into) ? [move.into] : []
    this.add(
      {
        operation: 'update_page',
        page: k.handle,
        ...(sendContent && content.text !== undefined ? { document: { markdown: this.withUploads(path, content.text) } } : {}),
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
    const texts = this.input.mergeTexts?.get(k.handle)
    if (!texts) return false
    const merged = mergePageFiles(texts.base, texts.main, file.text, { keep: 'main' })
    if (merged.conflicts.length > 0) return false
    const markers = findMarkers(merged.text)
    const sent = markers.length === 0 ? merged.text : stripMarkers(merged.text, markers)
    const content = { text: sent, hash: gitBlobOid(sent) }
    const mainOid = texts.mainOid
    this.rewrites.push({ path, pageId: k.handle, fromHash: file.hash, text: merged.text, mainOid, mainText: texts.main })
    // Sent once: after a crash before the rewrite, the next plan merges to the same text again. Main's
    // own version needs no change in a change request that never touched the page.
    if (k.pushed ? k.pushed.hash === content.hash && k.pushed.state === 'pushed' : content.hash === mainOid) return true
    this.add(
      { operation: 'update_page', page: k.handle, document: { markdown: this.withUploads(path, content.text) } },
      [{ op: 'set', path, kind: 'page', pageId: k.handle, hash: content.hash, state: 'pushed' }],
      { title },
    )
    return true
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
    this.add({ operation: 'revert_page', page: k.handle }, [entry], { title })
    if (slugOfPath(j.path) !== slugOfPath(path)) this.add({ operation: 'update_page', page: k.handle, slug: this.slugFor(slugOfPath(path), this.currentParent(k), k.handle) }, [entry], { title })
  }

  private isRefHandle(handle: string): boolean {
    return handle.startsWith('quire-')
  }

  /** `slug`, `into` and `at` for a page whose file moved from `k.path` to `path`. */
  private moveFields(k: Known, path: string): { slug?: string; into?: string | null; at?: number } {
    const fields: { slug?: string; into?: string | null; at?: number } = {}
    const fromFolder = placeFolder(k.path)
    const toFolder = placeFolder(path)
    const parent = toFolder === fromFolder ? this.currentParent(k) : this.folderOwner(toFolder, path)
    if (toFolder !== fromFolder) {
      fields.into = parent ? parent.handle : null
      const at = this.placeAt(path, parent)
      if (at !== undefined) fields.at = at
      this.place(parent, path)
    }
    if (slugOfPath(path) !== slugOfPath(k.path)) fields.slug = this.slugFor(slugOfPath(path), parent, k.handle)
    return fields
  }

  private currentParent(k: Known): Owner | undefined {
    const parentId = this.mainParent(k.handle)
    return parentId ? { handle: parentId, isRef: false } : undefined
  }

  /** Markers of a page: post the new ones (once its page exists), take posted ones out of the file. */
  private planMarkers(k: Known, path: string, text: string) {
    if (k.isRef) return // its page is still on its way: markers wait for its id
    const target = this.main.has(k.handle) ? 'space' : 'change-request'
    for (const marker of findMarkers(text)) {
      const key = markerKey(this.input.spaceId, k.handle, marker)
      this.markers.push({ key, path, pageId: k.handle, marker, post: !this.input.posted.has(key), target })
    }
  }

  /**
   * Missing pages that were not renamed: deleted, after their surviving subpages move out. A deletion
   * is remembered under the page's old path (a tombstone), so sync down does not bring the file back.
   */
  private planDeletions() {
    for (const handle of this.deleted) {
      const k = this.known.get(handle)!
      const inContent = k.isRef || this.main.has(handle) || k.pushed !== undefined
      const entry: EntryUpdate = k.journal
        ? { op: 'set', path: k.path, kind: 'page', pageId: handle, hash: '', state: 'deleted' }
        : { op: 'remove', path: k.path }
      if (!inContent || this.hasDeletedAncestor(handle)) {
        if (inContent) this.bookkeeping.push(entry)
        continue
      }
      for (const child of this.mainChildren.get(handle) ?? []) {
        const ck = this.known.get(child.id)
        // A subpage whose file is still there (or held unread) must not go with its parent.
        const stays = ck !== undefined && (ck.now === ck.path || this.held.has(child.id))
        if (!stays || this.deleted.has(child.id)) continue
        const parent = this.folderOwner(placeFolder(ck.path), ck.path)
        this.add({ operation: 'update_page', page: child.id, into: parent ? parent.handle : null }, [], {
          title: child.title,
          uses: parent?.isRef ? [parent.handle] : [],
        })
      }
      this.add({ operation: 'delete_page', page: handle }, [entry], {
        title: this.main.get(handle)?.title ?? stemOf(k.path),
        uses: k.isRef ? [handle] : [],
      })
    }
  }

  private hasDeletedAncestor(handle: string): boolean {
    for (let parent = this.mainParent(handle); parent !== undefined; parent = this.mainParent(parent)) {
      if (this.deleted.has(parent)) return true
    }
    return false
  }

  /* Images */

  /** Links of a page to new local assets become links to the uploads' refs. */
  private withUploads(pagePath: string, markdown: string): string {
    if (!markdown.includes('assets')) return markdown // no link to an asset can be in it
    const links = safeLinks(markdown)
    if (links.length === 0) return markdown
    const refs = new Map<string, string>()
    for (const link of links) {
      if (link.kind !== 'file' && link.kind !== 'page') continue
      const target = decodeTarget(link.target.split('#')[0])
      const resolved = resolveRelativePath(pagePath, target)
      if (!resolved?.startsWith(ASSETS_PREFIX)) continue
      const upload = this.uploadFor(resolved, pagePath)
      if (upload) refs.set(link.target, upload.ref)
    }
    if (refs.size === 0) return markdown
    return rewriteLinks(markdown, (link) => (refs.has(link.target) ? `./${refs.get(link.target)}` : undefined))
  }

  private uploadFor(assetPath: string, pagePath: string): { ref: string } | undefined {
    const existing = this.uploads.get(assetPath)
    if (existing) return existing
    const file = this.input.local.get(assetPath)
    if (!file) return undefined
    const journaled = this.assetsJournaled.get(assetPath)
    if (journaled) {
      if (file.hash !== journaled.baseHash) this.assetChanged(assetPath)
      return undefined
    }
    const pushed = this.assetsPushed.get(assetPath)
    if (pushed) {
      if (file.hash !== pushed.hash) this.assetChanged(assetPath)
      return undefined
    }
    const limit = this.input.maxFileBytes ?? MAX_FILE_BYTES
    if (file.size > limit) {
      this.report('too-large', assetPath, `${assetPath} is ${file.size} bytes, over the ${limit}-byte upload limit; ${pagePath} links to it but it was not uploaded`)
      return undefined
    }
    const upload = { ref: `quire-f${shortHash(`file:${assetPath}:${file.hash}`)}`, name: baseName(assetPath), hash: file.hash }
    this.uploads.set(assetPath, upload)
    return upload
  }

  private assetChanged(path: string) {
    if (this.reports.some((r) => r.kind === 'asset-changed' && r.path === path)) return
    this.report('asset-changed', path, `${path} changed locally; the service cannot replace a file's bytes, so save it under a new name to upload it`)
  }

  /** insert_files changes for the uploads the pages of this plan link to, at most 20 files each. */
  private planUploads(): PlannedChange[] {
    const uploads = [...this.uploads.entries()]
    const planned: PlannedChange[] = []
    for (let i = 0; i < uploads.length; i += MAX_FILES_PER_CHANGE) {
      const group = uploads.slice(i, i + MAX_FILES_PER_CHANGE)
      // The bytes are read by the engine when it writes the outbox: a plan stays small and pure.
      const files: InsertFileInput[] = group.map(([path, u]) => ({ ref: u.ref, name: u.name, base64: `@file:${path}` }))
      const change: ContentChange = { operation: 'insert_files', files }
      const entries: EntryUpdate[] = group.map(([path, u]) => ({ op: 'set', path, kind: 'file', ref: u.ref, hash: u.hash, state: 'pushed' }))
      const key = shortHash(JSON.stringify(change)) + shortHash(JSON.stringify(entries))
      if (this.input.refused.has(key)) {
        for (const [path] of group) this.report('refused', path, 'the service refused this upload before; it is sent again once the file changes')
        continue
      }
      planned.push({ key, change, entries, uses: [], defines: group.map(([, u]) => u.ref).join(' ') })
    }
    return planned
  }
}

const NOT_READ: Record<SkipReason, string> = {
  ignored: 'has the name of an editor\'s or tool\'s file, which Quire does not read',
  hidden: 'is hidden, which Quire does not read',
  symlink: 'is a symbolic link, which Quire does not follow',
  'too-large': `is over ${MAX_PAGE_BYTES / (1024 * 1024)} MB, which Quire does not read as a page`,
  unreadable: 'cannot be read',
  'not-a-file': 'is not a regular file',
}

function notReadMessage(at: string, reason: SkipReason, pages: number): string {
  const where = at === '.' ? 'the space folder' : /\.md$/i.test(at) ? at : `${at}/`
  const what = pages === 1 ? 'its page stays' : `its ${pages} pages stay`
  return `${where} ${NOT_READ[reason]}: ${what} as in the space, not deleted`
}

function safeLinks(markdown: string) {
  try {
    return extractLinks(markdown)
  } catch {
    return []
  }
}

function decodeTarget(target: string): string {
  try {
    return decodeURI(target)
  } catch {
    return target
  }
}

/** Placeholder the engine replaces with a file's base64 bytes when it writes the outbox. */
export const FILE_BYTES_PLACEHOLDER = '@file:'
