import { isPageFile, strippedContent, titleOf } from './page-file'
import type { Known, PlanState } from './plan-state'
import { DELETION_QUIET_MS, MAX_PAGE_BYTES, type LocalFile, type PushedEntry, type SkipReason } from './push-types'
import { lineSimilarity, pairBySimilarity } from '../workspace/similarity'
import { journalOf } from './revivals'

/**
 * The first steps of a push plan: which page each local file is (the change request's claims, then
 * the journal), which missing pages were renamed or moved, and which were deleted.
 */
export function identifyPages(s: PlanState) {
  identify(s)
  matchByEvidence(s)
  markDeletions(s)
}

/** Which page each local path belongs to: the change request's claims first, then the journal. */
function identify(s: PlanState) {
  const tombstones = new Set<string>()
  const pushedById = new Map<string, PushedEntry>()
  /** Old paths of pages the change request moved: a copy there that sync down put back is not a new page. */
  const shadows = new Map<string, string>()
  for (const entry of s.input.pushed) {
    if (entry.kind === 'file') continue
    if (entry.state === 'deleted') {
      if (entry.pageId) tombstones.add(entry.pageId)
      continue
    }
    const handle = entry.pageId ?? entry.ref
    if (handle === undefined) continue
    pushedById.set(handle, entry)
    s.addKnown({ handle, isRef: entry.pageId === undefined, pushed: entry, path: entry.path })
  }
  for (const j of s.input.journal) {
    if (j.kind !== 'page') continue
    if (tombstones.has(j.id)) {
      // A deletion the change request carries: taken back when the file returns (here or, by content,
      // elsewhere), as long as main still has the page to restore.
      if (s.main.has(j.id)) s.tombstones.push({ handle: j.id, isRef: false, journal: j, path: j.path, revive: true })
      else shadows.set(j.path, j.baseHash)
      continue
    }
    const pushed = pushedById.get(j.id)
    if (pushed) {
      const known = s.known.get(j.id)
      if (known) known.journal = j
      if (pushed.path !== j.path) shadows.set(j.path, j.baseHash)
      continue
    }
    if (s.byPath.has(j.path)) continue // a pushed page took the path over
    s.addKnown({ handle: j.id, isRef: false, journal: j, path: j.path })
  }
  // Deleted by a change request merged before the file came back: no journal, no entry, main lacks it.
  for (const r of s.input.revivable ?? []) {
    if (s.main.has(r.pageId) || s.known.has(r.pageId) || s.tombstones.some((t) => t.handle === r.pageId)) continue
    s.tombstones.push({ handle: r.pageId, isRef: false, journal: journalOf(r), path: r.path, revive: true, reviveFrom: r.revision })
  }
  for (const known of s.known.values()) if (s.input.local.has(known.path)) known.now = known.path
  for (const t of s.tombstones) {
    if (!isPageFile(t.path) || !s.input.local.has(t.path) || s.byPath.has(t.path)) continue
    t.now = t.path
    s.addKnown(t)
  }
  for (const path of [...s.input.local.keys()].sort()) {
    if (!isPageFile(path) || s.byPath.has(path)) continue
    if (shadows.get(path) === s.input.local.get(path)?.hash) continue
    s.newFiles.push(path)
  }
}

/** Below git's threshold: an inode says "same file", the content only has to agree that much (inodes are reused). */
const INODE_MIN_SCORE = 0.3

/**
 * Missing pages found again by evidence, strongest first: the inode the last scan saw at the page's
 * path, then its last content exactly (the journal's or the change request's hash), then similar
 * content (workspace/similarity.ts, the rule recovery uses too: git's rename detection, a score over
 * lines, 50 %, ties refused). Files the scan reads come
 * first: a page found there was edited or moved (or, deleted by the change request, comes back); a page
 * found only in a file the scan skips (`faq.md~`, `.getting-started/`) was renamed there and is held.
 */
function matchByEvidence(s: PlanState) {
  const missing = [...s.known.values()].filter((k) => k.now === undefined && s.notRead(k.path) === undefined)
  missing.push(...s.tombstones.filter((t) => t.now === undefined))
  const skippedFiles = s.input.skippedFiles ?? new Map<string, LocalFile>()
  if (missing.length === 0 || (s.newFiles.length === 0 && skippedFiles.size === 0)) return
  const visible = new Map(s.newFiles.flatMap((p) => (s.input.local.has(p) ? [[p, s.input.local.get(p)!] as const] : [])))
  // Only pages still known by the service are held for a skipped file; a deletion already sent stays.
  const holdable = (k: Known) => !k.revive
  const found = new Map<Known, string>()
  const taken = new Set<string>()
  const settle = (k: Known, path: string) => {
    found.set(k, path)
    taken.add(path)
  }
  const open = () => missing.filter((k) => !found.has(k))
  const baseText = (k: Known) => s.input.baseTexts?.get(k.handle)

  // Each pool by inode, then exact content, then similarity; the visible files' pool wholly first: a
  // skipped file holding the page's inode is an editor's backup (`install.md~`) the page was renamed to
  // once, while a file the writer since wrote elsewhere with the page's content is where the page went.
  const byInode = (pool: ReadonlyMap<string, LocalFile>, pages: () => Known[]) => {
    for (const [now, before] of s.input.inodeMoves ?? []) {
      const k = pages().find((m) => m.path === before)
      const file = pool.get(now)
      const text = k && baseText(k)
      const content = file && strippedContent(file)
      if (!k || !file || taken.has(now) || text === undefined || content?.text === undefined) continue
      if (hashesOf(k).has(content.hash) || lineSimilarity(text, content.text) >= INODE_MIN_SCORE) settle(k, now)
    }
  }
  for (const [pool, pages] of [[visible, open], [skippedFiles, () => open().filter(holdable)]] as const) {
    byInode(pool, pages)
    matchExact(pages(), pool, taken, settle)
    const sources = pages().flatMap((k) => {
      const text = baseText(k)
      return text === undefined ? [] : [{ key: k, text }]
    })
    const targets = [...pool].flatMap(([path, file]) => {
      const text = taken.has(path) ? undefined : strippedContent(file).text
      return text === undefined ? [] : [{ key: path, text }]
    })
    if (sources.length > 0 && targets.length > 0) for (const pair of pairBySimilarity(sources, targets)) settle(pair.left, pair.right)
    if (pool === visible) matchByTitle(s, pages(), pool, taken, settle)
  }

  for (const [k, path] of found) {
    if (!visible.has(path)) {
      s.held.add(k.handle)
      s.heldIn.set(k.handle, s.notRead(path) ?? path)
      continue
    }
    if (k.revive) s.addKnown(k)
    k.now = path
    s.byPath.set(path, k)
    s.newFiles.splice(s.newFiles.indexOf(path), 1)
  }
}

function hashesOf(k: Known): Set<string> {
  return new Set([k.journal?.baseHash, k.pushed?.hash].filter((h): h is string => !!h))
}

/** A missing page whose last content is in exactly one file of the pool, which no other page claims. */
function matchExact(missing: Known[], pool: ReadonlyMap<string, LocalFile>, taken: ReadonlySet<string>, settle: (k: Known, path: string) => void) {
  const candidates = new Map<string, string[]>()
  for (const [path, file] of pool) {
    if (taken.has(path)) continue
    for (const hash of new Set([file.hash, strippedContent(file).hash])) candidates.set(hash, [...(candidates.get(hash) ?? []), path])
  }
  const claims = new Map<string, Known[]>()
  for (const k of missing) {
    const paths = new Set([...hashesOf(k)].flatMap((h) => candidates.get(h) ?? []))
    if (paths.size !== 1) continue
    const [path] = paths
    claims.set(path, [...(claims.get(path) ?? []), k])
  }
  for (const [path, ks] of claims) if (ks.length === 1) settle(ks[0], path)
}

/**
 * The weakest evidence, for visible files only: a missing page and a new file whose H1 is the page's
 * title, each the only one of its side with that title (no other page of main has it either). A small
 * page edited in several places and then moved by a file manager's delete + create shares too few
 * lines with the last version the scan saw for similarity to tell (seed 26103: two lines, one changed,
 * two added), yet its name in the space is the same: it is that page, moved and edited. Two candidates
 * on either side are no evidence (a copy, or two pages so named): refused as similarity refuses ties.
 */
function matchByTitle(s: PlanState, missing: Known[], pool: ReadonlyMap<string, LocalFile>, taken: ReadonlySet<string>, settle: (k: Known, path: string) => void) {
  const h1 = (text: string | undefined) => (text === undefined ? undefined : titleOf(text, '').trim() || undefined)
  const pageTitle = (k: Known) => h1(s.input.baseTexts?.get(k.handle)) ?? s.main.get(k.handle)?.title?.trim()
  const pages = new Map<string, Known[]>()
  for (const k of missing) {
    const title = pageTitle(k)
    if (title !== undefined) pages.set(title, [...(pages.get(title) ?? []), k])
  }
  if (pages.size === 0) return
  const files = new Map<string, string[]>()
  for (const [path, file] of pool) {
    const title = taken.has(path) ? undefined : h1(strippedContent(file).text)
    if (title !== undefined && pages.has(title)) files.set(title, [...(files.get(title) ?? []), path])
  }
  const inMain = new Map<string, number>()
  for (const page of s.main.values()) if (page.title !== undefined) inMain.set(page.title.trim(), (inMain.get(page.title.trim()) ?? 0) + 1)
  for (const [title, ks] of pages) {
    const paths = files.get(title) ?? []
    if (ks.length !== 1 || paths.length !== 1) continue
    if ((inMain.get(title) ?? 0) > (s.main.has(ks[0].handle) ? 1 : 0)) continue
    settle(ks[0], paths[0])
  }
}

/**
 * A page is deleted only when the writer removed its file: nothing at all is at its path. A file the
 * scan saw and would not read (a symlink, a hidden or ignored folder, too large, unreadable) holds its
 * page as it is, and the writer is told why.
 */
function markDeletions(s: PlanState) {
  const held = new Map<string, number>()
  for (const t of s.tombstones) {
    // Restored with a parent the writer brought back while its own file stays gone: deleted again.
    if (t.now !== undefined || !reviving(s, t)) continue
    t.redelete = true
    s.addKnown(t)
  }
  for (const k of s.known.values()) {
    if (k.now !== undefined) continue
    // Nothing at the page's path: the removal waits for the quiet interval first, silently, also when
    // a skipped file holds the page (an editor's backup-save is under way: no word of holding it yet).
    if (s.notRead(k.path) === undefined && !k.redelete && waits(s, k)) continue
    const at = s.notRead(k.path) ?? s.heldIn.get(k.handle)
    if (at === undefined) {
      // An edit beats a delete: a page someone changed in the space since the writer's last sync is not
      // deleted by the writer's removal of its file (their edit would go); the pass brings it back.
      const main = s.main.get(k.handle)
      if (k.journal && main?.gitOid !== undefined && main.gitOid !== k.journal.oid) {
        s.report('edit-beats-delete', k.path, `${k.path} was changed in the space since your last sync, so your deletion is not sent: the file comes back with that version; delete it again if it should go`)
        continue
      }
      // The same inside the writer's change request: someone else changed the page there. The file is
      // put back with their version (only where nothing is), which the change request keeps.
      const theirs = s.input.changeRequestTexts?.get(k.handle)
      if (theirs && !k.isRef) {
        s.report('edit-beats-delete', k.path, `${k.path} was changed in your change request by someone else, so your deletion is not sent: the file comes back with their version; delete it again if it should go`)
        s.rewrites.push({ path: k.path, pageId: k.handle, fromHash: undefined, text: theirs.text, mainOid: '', mainText: '', keepBase: true })
        s.bookkeeping.push({ op: 'set', path: k.path, kind: 'page', pageId: k.handle, hash: theirs.oid, state: 'pushed' })
        continue
      }
      s.deleted.add(k.handle)
      continue
    }
    s.held.add(k.handle)
    held.set(at, (held.get(at) ?? 0) + 1)
  }
  for (const [at, count] of held) s.report('not-read', at, notReadMessage(at, s.input.skipped!.get(at)!, count, s.input.skippedFiles?.has(at) ?? false))
}

/**
 * A removal waits until its file has been missing for the quiet interval (an editor's backup-save
 * renames the file away and writes the new one a moment later): held as it is, the plan says when to
 * look again. Without `now` (a caller that does not track time) removals go at once.
 */
function waits(s: PlanState, k: Known): boolean {
  const now = s.input.now
  if (now === undefined) return false
  const since = Math.min(s.input.missingSince?.get(k.path) ?? now, now)
  if (now - since >= (s.input.deletionQuietMs ?? DELETION_QUIET_MS)) return false
  s.waiting.set(k.path, since)
  s.held.add(k.handle)
  return true
}

/** Whether a page the change request deleted comes back with an ancestor revived by this plan. */
export function reviving(s: PlanState, k: Known): boolean {
  for (let parent = s.mainParent(k.handle); parent !== undefined; parent = s.mainParent(parent)) {
    const p = s.known.get(parent)
    if (p?.revive && p.now !== undefined) return true
  }
  return false
}

const NOT_READ: Record<SkipReason, string> = {
  ignored: 'has the name of an editor\'s or tool\'s file, which Quire does not read',
  hidden: 'is hidden, which Quire does not read',
  symlink: 'is a symbolic link, which Quire does not follow',
  'too-large': `is over ${MAX_PAGE_BYTES / (1024 * 1024)} MB, which Quire does not read as a page`,
  unreadable: 'cannot be read',
  'not-a-file': 'is not a regular file',
}

function notReadMessage(at: string, reason: SkipReason, pages: number, isFile: boolean): string {
  const where = at === '.' ? 'the space folder' : isFile || /\.md$/i.test(at) ? at : `${at}/`
  const what = pages === 1 ? 'its page stays' : `its ${pages} pages stay`
  return `${where} ${NOT_READ[reason]}: ${what} as in the space, not deleted`
}
