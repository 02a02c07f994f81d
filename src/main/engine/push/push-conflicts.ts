import fs from 'node:fs/promises'
import { GitBookAPIError } from '@gitbook/api'
import path from 'node:path'
import { gitBlobOid } from '../../content'
import { findMarkers } from '../comments/markers'
import { ServiceUnreachableError } from '../gateway/api-gateway'
import { LocalFileChanged, replaceIfUnchanged, syncFolder, writeFileAtomic, writeTempFile } from '../workspace/atomic-write'
import type { ConflictRow } from '../outbox/outbox-repository'
import { ReplacedFiles } from '../workspace/replaced-files'
import { conflictCopyPath } from '../workspace/space-files'
import { mainPage } from './main-view'
import { removeMarkers } from './marker-removal'
import { exists, hashOf, nowOf, resolveIn, stampOf, type SpacePusherOptions } from './pusher-context'
import type { PlannedRewrite, PushPlan } from './push-types'

/*
 * What a push writes into the space folder when both sides changed a page: the clean merge over the
 * file, or the conflicted copy with the remote version in the file; and the markers of a page deleted
 * remotely, kept in a copy.
 */

/**
 * Conflicts recorded but not yet on disk: the writer's version goes to the conflicted copy, the file
 * gets the remote version, and the merge base moves to it. Each step checks before it writes, so a
 * crash part way is finished by the next push.
 */
export async function finishConflicts(o: SpacePusherOptions) {
  const replaced = new ReplacedFiles()
  try {
    for (const c of o.outbox.conflicts(o.spaceId).filter((x) => x.state === 'pending')) {
      if ((await finishConflict(o, c, replaced)) === 'offline') return
    }
  } finally {
    // A save that reached the writer's file after the remote version replaced it goes back in place (or
    // beside it): the journal already takes the file as a local edit over main, as it does for a save
    // made before the step.
    await replaced.settle()
  }
}

async function finishConflict(o: SpacePusherOptions, c: ConflictRow, replaced: ReplacedFiles): Promise<'offline' | void> {
  const { outbox, cache, spaceId } = o
  let page: { markdown: string; oid: string }
  try {
    page = await mainPage(o, c.pageId)
  } catch (error) {
    if (error instanceof ServiceUnreachableError) return 'offline'
    if (error instanceof GitBookAPIError && error.code === 404) {
      outbox.removeConflict(spaceId, c.copyPath) // deleted meanwhile: the change request inserts it again
      return
    }
    throw error
  }
  const copyPath = await keptCopy(o, c.copyPath, c.localText)
  if (copyPath !== c.copyPath) {
    outbox.removeConflict(spaceId, c.copyPath)
    outbox.addConflict({ spaceId, path: c.path, pageId: c.pageId, copyPath, localText: c.localText, remoteOid: c.remoteOid })
  }
  const current = await hashOf(resolveIn(o, c.path))
  // Only over the writer's version that is in the copy (or nothing): a save since then stays.
  if (current === gitBlobOid(c.localText) || current === undefined) await replaceGuarded(o, c.path, page.markdown, current, replaced)
  cache.transaction(() => {
    cache.recordJournal(spaceId, { id: c.pageId, kind: 'page', path: c.path, oid: page.oid, baseHash: gitBlobOid(page.markdown) })
    cache.pageBases.remember(spaceId, page.oid, page.markdown)
  })
  outbox.openConflict(spaceId, copyPath)
}

/**
 * Writes the writer's version to its conflicted copy, unless the copy is there already with that text (a
 * push that stopped part way). A copy of the same name holding another text (a second conflict of the
 * page within the same second of the stamp) is never overwritten nor taken for this one: the copy gets
 * the next free name (`... (conflicted copy <stamp> 2).md`). Answers the copy's path.
 */
async function keptCopy(o: SpacePusherOptions, copyPath: string, text: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? copyPath : copyPath.replace(/\)(\.[^./]*)?$/, (end, ext: string | undefined) => ` ${n}${end.slice(0, 1)}${ext ?? ''}`)
    const full = resolveIn(o, candidate)
    if (!(await exists(full))) {
      await writeFileAtomic(full, text)
      return candidate
    }
    if ((await fs.readFile(full, 'utf8')) === text) return candidate
  }
}

/** A conflict is over once its copy is gone (the writer took what they wanted from it). */
export async function closeResolvedConflicts(o: SpacePusherOptions) {
  for (const c of o.outbox.conflicts(o.spaceId)) {
    if (c.state === 'open' && !(await exists(resolveIn(o, c.copyPath)))) o.outbox.removeConflict(o.spaceId, c.copyPath)
  }
}

/**
 * A cleanly merged page: the file becomes the merge and its merge base becomes main's version (merged
 * with the change request's version instead: the base stays). Only over the very file the merge was
 * made from: a save made since then stays (the next push merges it).
 */
export async function applyRewrites(o: SpacePusherOptions, rewrites: readonly PlannedRewrite[]) {
  const { cache, spaceId } = o
  if (rewrites.length === 0) return
  const replaced = new ReplacedFiles()
  // What the journal says of each page before its rewrite: said again if a late save undoes the rewrite.
  const before = new Map(cache.journal(spaceId).filter((j) => j.kind === 'page').map((j) => [j.path, j]))
  try {
    for (const r of rewrites) await applyRewrite(o, r, replaced)
  } finally {
    for (const save of await replaced.settle()) {
      const entry = before.get(save.relative)
      // Back in place: the rewrite is undone, as when the save lands before it (the next push merges again).
      if (save.went === 'in place' && entry) cache.recordJournal(spaceId, entry)
    }
  }
  cache.pageBases.prune(spaceId)
}

/** Puts `text` at `relative` if the file there still hashes to `fromHash`; false when the writer saved meanwhile. */
async function replaceGuarded(o: SpacePusherOptions, relative: string, text: string, fromHash: string | undefined, replaced: ReplacedFiles): Promise<boolean> {
  const full = resolveIn(o, relative)
  if (fromHash === undefined) await fs.mkdir(path.dirname(full), { recursive: true })
  const temp = await writeTempFile(path.dirname(full), path.basename(full), text)
  const stamp = stampOf(nowOf(o))
  const copyPath = (target: string) => conflictCopyPath(target, stamp)
  try {
    const placedHash = gitBlobOid(text)
    await replaceIfUnchanged(temp, full, fromHash, relative, { copyPath, inWindow: o.rewriteHooks?.inWindow, keep: (file) => replaced.keep(relative, file, copyPath, placedHash) })
  } catch (error) {
    if (error instanceof LocalFileChanged) return false
    throw error
  }
  await syncFolder(path.dirname(full))
  return true
}

async function applyRewrite(o: SpacePusherOptions, r: PlannedRewrite, replaced: ReplacedFiles) {
  const { cache, spaceId } = o
  await o.rewriteHooks?.before?.(r.path)
  if (!(await replaceGuarded(o, r.path, r.text, r.fromHash, replaced))) return
  if (r.keepBase) return
  cache.transaction(() => {
    cache.recordJournal(spaceId, { id: r.pageId, kind: 'page', path: r.path, oid: r.mainOid, baseHash: gitBlobOid(r.mainText) })
    cache.pageBases.remember(spaceId, r.mainOid, r.mainText)
  })
}

/**
 * Markers on a page deleted remotely: the file is kept whole in a conflicted copy (recorded as an open
 * conflict, so the writer sees it), then the markers leave the file.
 */
export async function keepOrphans(o: SpacePusherOptions, orphans: PushPlan['orphans']) {
  for (const orphan of orphans) {
    const copyPath = await keptCopy(o, orphan.copyPath, orphan.text)
    o.outbox.addConflict({ spaceId: o.spaceId, path: orphan.path, pageId: orphan.pageId, copyPath, localText: orphan.text, remoteOid: '' }, 'open')
    await removeMarkers(o, orphan.path, findMarkers(orphan.text).map((m) => m.source))
  }
}
