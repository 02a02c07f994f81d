import fs from 'node:fs/promises'
import { GitBookAPIError } from '@gitbook/api'
import path from 'node:path'
import { gitBlobOid } from '../../content'
import { findMarkers } from '../comments/markers'
import { ServiceUnreachableError } from '../gateway/api-gateway'
import { LocalFileChanged, replaceIfUnchanged, syncFolder, writeFileAtomic, writeTempFile } from '../workspace/atomic-write'
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
  const { outbox, cache, spaceId } = o
  for (const c of outbox.conflicts(spaceId).filter((x) => x.state === 'pending')) {
    let page: { markdown: string; oid: string }
    try {
      page = await mainPage(o, c.pageId)
    } catch (error) {
      if (error instanceof ServiceUnreachableError) return
      if (error instanceof GitBookAPIError && error.code === 404) {
        outbox.removeConflict(spaceId, c.copyPath) // deleted meanwhile: the change request inserts it again
        continue
      }
      throw error
    }
    const copy = resolveIn(o, c.copyPath)
    if (!(await exists(copy))) await writeFileAtomic(copy, c.localText)
    const file = resolveIn(o, c.path)
    const current = await hashOf(file)
    if (current === gitBlobOid(c.localText) || current === undefined) await writeFileAtomic(file, page.markdown)
    cache.transaction(() => {
      cache.recordJournal(spaceId, { id: c.pageId, kind: 'page', path: c.path, oid: page.oid, baseHash: gitBlobOid(page.markdown) })
      cache.pageBases.remember(spaceId, page.oid, page.markdown)
    })
    outbox.openConflict(spaceId, c.copyPath)
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
  for (const r of rewrites) {
    const full = resolveIn(o, r.path)
    await o.rewriteHooks?.before?.(r.path)
    if (r.fromHash === undefined) await fs.mkdir(path.dirname(full), { recursive: true })
    const temp = await writeTempFile(path.dirname(full), path.basename(full), r.text)
    try {
      const stamp = stampOf(nowOf(o))
      await replaceIfUnchanged(temp, full, r.fromHash, r.path, { copyPath: (target) => conflictCopyPath(target, stamp), inWindow: o.rewriteHooks?.inWindow })
    } catch (error) {
      if (error instanceof LocalFileChanged) continue
      throw error
    }
    if (!r.keepBase) {
      cache.transaction(() => {
        cache.recordJournal(spaceId, { id: r.pageId, kind: 'page', path: r.path, oid: r.mainOid, baseHash: gitBlobOid(r.mainText) })
        cache.pageBases.remember(spaceId, r.mainOid, r.mainText)
      })
    }
    await syncFolder(path.dirname(full))
  }
  if (rewrites.length > 0) cache.pageBases.prune(spaceId)
}

/**
 * Markers on a page deleted remotely: the file is kept whole in a conflicted copy (recorded as an open
 * conflict, so the writer sees it), then the markers leave the file.
 */
export async function keepOrphans(o: SpacePusherOptions, orphans: PushPlan['orphans']) {
  for (const orphan of orphans) {
    const copy = resolveIn(o, orphan.copyPath)
    if (!(await exists(copy))) await writeFileAtomic(copy, orphan.text)
    o.outbox.addConflict({ spaceId: o.spaceId, path: orphan.path, pageId: orphan.pageId, copyPath: orphan.copyPath, localText: orphan.text, remoteOid: '' }, 'open')
    await removeMarkers(o, orphan.path, findMarkers(orphan.text).map((m) => m.source))
  }
}
