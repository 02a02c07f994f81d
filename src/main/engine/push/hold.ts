import fs from 'node:fs'
import path from 'node:path'
import type { JournalEntry } from '../sync/plan-types'
import { confinedPath } from '../workspace/safe-names'
import type { PushedEntry } from './push-types'

/**
 * Pages sync down must leave alone because the writer renamed, moved or deleted their files: put back
 * where main has them, the old file would come back beside the renamed one (a duplicate page at the next
 * push) or undo the deletion. That is every page whose rename, move or deletion the writer's change
 * request carries, and every page whose file is missing from the folder (a rename or deletion no push
 * has seen yet). Their journal and remote entries are held out of the pass until the change request is
 * merged or closed.
 */
export function heldPageIds(
  journal: readonly JournalEntry[],
  pushed: readonly PushedEntry[],
  missing: (path: string) => boolean = () => false,
  /** Main's oid of a page as last seen: a missing file whose page changed there since is not held (an edit beats a delete). */
  remoteOid: (pageId: string) => string | undefined = () => undefined,
): Set<string> {
  const journalPath = new Map(journal.filter((j) => j.kind === 'page').map((j) => [j.id, j.path]))
  const journalOid = new Map(journal.filter((j) => j.kind === 'page').map((j) => [j.id, j.oid]))
  const held = new Set<string>()
  for (const entry of pushed) {
    if (entry.kind !== 'page' || !entry.pageId) continue
    const was = journalPath.get(entry.pageId)
    if (entry.state === 'deleted' || (was !== undefined && was !== entry.path)) held.add(entry.pageId)
  }
  for (const [id, path] of journalPath) {
    if (held.has(id) || !missing(path)) continue
    const remote = remoteOid(id)
    if (remote === undefined || remote === journalOid.get(id)) held.add(id)
  }
  return held
}

/** The hold of one space, from the cache's journal, the outbox's pushed entries and (given its folder) the files on disk. */
export function holdOf(
  journal: { journal(spaceId: string): JournalEntry[]; remoteTree?(spaceId: string): { pages: ReadonlyArray<{ id: string; gitOid?: string }> } },
  outbox: { entries(spaceId: string): PushedEntry[] },
  spaceId: string,
  folder?: string,
): Set<string> {
  // A space folder gone as a whole is a moved workspace or an unmounted drive, as for the push planner:
  // no page is the writer's removal then, and sync down may put them all back.
  const missing = folder === undefined ? undefined : folderGone(folder) ? () => false : (path: string) => !exists(folder, path)
  // Main's oids are only asked for pages whose file is missing, which is almost never: read from the
  // cache then, not on every pass over every space (bench:scale: a third of an unchanged pass).
  let remote: Map<string, string | undefined> | undefined
  const remoteOid = (id: string) => (remote ??= new Map((journal.remoteTree?.(spaceId).pages ?? []).map((p) => [p.id, p.gitOid]))).get(id)
  return heldPageIds(journal.journal(spaceId), outbox.entries(spaceId), missing, remoteOid)
}

/**
 * Whether anything at all is at a page's path: the push planner's rule for "the writer removed it"
 * (nothing there: lstat says ENOENT or ENOTDIR). A symlink, even a dangling one, a folder or a file the
 * scan would not read is there, and its page is held as it is rather than taken for deleted.
 */
function exists(folder: string, relative: string): boolean {
  let full: string
  try {
    full = confinedPath(folder, relative)
  } catch {
    return true // a path that cannot be in the folder is not the writer's to have removed
  }
  try {
    return fs.lstatSync(full, { throwIfNoEntry: false }) !== undefined
  } catch {
    // ENOTDIR: a file where a folder of the path was, so nothing is at the path. Any other failure
    // (an I/O error) leaves it unknown, and unknown is held: a pass must not put back what may be removed.
    return false
  }
}

/** Only a folder lstat says is not there is gone; one that cannot be looked at is taken as there. */
function folderGone(folder: string): boolean {
  try {
    return fs.lstatSync(folder, { throwIfNoEntry: false }) === undefined
  } catch {
    return false
  }
}

/**
 * The hold of every space of a workspace, for a sync-down engine run outside `quire watch` (plain
 * `quire sync`, the app): without it a pass would bring back files the writer renamed or deleted.
 */
export function workspaceHold(
  cache: {
    journal(spaceId: string): JournalEntry[]
    remoteTree?(spaceId: string): { pages: ReadonlyArray<{ id: string; gitOid?: string }> }
    space(id: string): { orgId: string; folder?: string | null } | undefined
    organization(id: string): { folder?: string | null } | undefined
  },
  outbox: { entries(spaceId: string): PushedEntry[] },
  workspace: string,
): (spaceId: string) => Set<string> {
  return (spaceId) => {
    const space = cache.space(spaceId)
    const org = space && cache.organization(space.orgId)
    const folder = org?.folder && space?.folder ? path.join(workspace, org.folder, space.folder) : undefined
    return holdOf(cache, outbox, spaceId, folder)
  }
}

/**
 * New files a push kept local because SUMMARY.md does not list them (push-planner.ts `keptLocal`),
 * remembered in the cache's settings so they stay local after the change request is merged and the
 * space's SUMMARY.md replaces the writer's: listed again there, they become pages.
 */
export function keptLocalFiles(cache: { setting(key: string): string | undefined }, spaceId: string): Set<string> {
  const stored = cache.setting(keptLocalSetting(spaceId))
  if (!stored) return new Set()
  try {
    const paths: unknown = JSON.parse(stored)
    return new Set(Array.isArray(paths) ? paths.filter((p): p is string => typeof p === 'string') : [])
  } catch {
    return new Set() // a setting this code did not write: nothing remembered
  }
}

/** Remembers what the last plan kept local (only files still new and unlisted: a plan forgets the rest). */
export function rememberKeptLocal(cache: { setting(key: string): string | undefined; setSetting(key: string, value: string): void }, spaceId: string, paths: readonly string[]): void {
  const value = JSON.stringify([...paths].sort())
  if ((cache.setting(keptLocalSetting(spaceId)) ?? '[]') !== value) cache.setSetting(keptLocalSetting(spaceId), value)
}

const keptLocalSetting = (spaceId: string) => `kept_local:${spaceId}`
