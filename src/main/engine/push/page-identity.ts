import { isPageFile, strippedContent } from './page-file'
import type { Known, PlanState } from './plan-state'
import { MAX_PAGE_BYTES, type PushedEntry, type SkipReason } from './push-types'

/**
 * The first steps of a push plan: which page each local file is (the change request's claims, then
 * the journal), which missing pages were renamed or moved, and which were deleted.
 */
export function identifyPages(s: PlanState) {
  identify(s)
  matchRenames(s)
  markDeletions(s)
}

/** Which page each local path belongs to: the change request's claims first, then the journal. */
function identify(s: PlanState) {
  const tombstones = new Set<string>()
  const pushedById = new Map<string, PushedEntry>()
  /** Old paths of pages the change request moved or deleted: a copy there that sync down put back is not a new page. */
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
      shadows.set(j.path, j.baseHash)
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
  for (const known of s.known.values()) if (s.input.local.has(known.path)) known.now = known.path
  for (const path of [...s.input.local.keys()].sort()) {
    if (!isPageFile(path) || s.byPath.has(path)) continue
    if (shadows.get(path) === s.input.local.get(path)?.hash) continue
    s.newFiles.push(path)
  }
}

/** A missing page whose last content shows up exactly once under a new name was renamed or moved. */
function matchRenames(s: PlanState) {
  const missing = [...s.known.values()].filter((k) => k.now === undefined && s.notRead(k.path) === undefined)
  if (missing.length === 0 || s.newFiles.length === 0) return
  const candidates = new Map<string, string[]>()
  for (const path of s.newFiles) {
    const file = s.input.local.get(path)
    if (!file) continue
    const hashes = new Set([file.hash, strippedContent(file).hash])
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
    s.byPath.set(path, ks[0])
    s.newFiles.splice(s.newFiles.indexOf(path), 1)
  }
}

/**
 * A page is deleted only when the writer removed its file: nothing at all is at its path. A file the
 * scan saw and would not read (a symlink, a hidden or ignored folder, too large, unreadable) holds its
 * page as it is, and the writer is told why.
 */
function markDeletions(s: PlanState) {
  const held = new Map<string, number>()
  for (const k of s.known.values()) {
    if (k.now !== undefined) continue
    const at = s.notRead(k.path)
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
  for (const [at, count] of held) s.report('not-read', at, notReadMessage(at, s.input.skipped!.get(at)!, count))
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
