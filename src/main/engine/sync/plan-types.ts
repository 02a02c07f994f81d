import type { EntryKind } from '../cache/journal-types'
import type { LocalLinks } from '../workspace/local-links'
import type { IncludeSource } from './include-files'
import type { EarlierVersions, RecoveryTexts } from './recovery-match'

/**
 * The vocabulary shared by the planner (pure) and the executor (I/O). Paths are relative to the space
 * folder, `/`-separated, already made safe by the remote snapshot; content hashes are git blob ids, so a
 * page written from the service hashes to its `git.oid` (one whose links were written to local file
 * names, `RemoteEntry.links`, is journaled with the remote oid and the hash of what was written).
 */

export type { EntryKind, JournalEntry } from '../cache/journal-types'
export type { LocalState } from '../workspace/space-files'
export type { LocalLinks } from '../workspace/local-links'

/** One file the remote revision wants on disk. */
export interface RemoteEntry {
  id: string
  kind: EntryKind
  path: string
  /** Git blob id of the content. */
  oid: string
  /** Files: where to download the bytes. */
  url?: string
  /** SUMMARY.md: rendered locally, no download. */
  content?: string
  /** Pages: links to files the folder names otherwise, written to the local names (`localizeLinks`). */
  links?: LocalLinks
  /** Includes: written from their reusable content's document (include-files.ts), so not always to `oid`'s bytes. */
  include?: IncludeSource
}

export interface RemoteSnapshot {
  revision: string
  entries: RemoteEntry[]
}

export type SyncAction =
  /**
   * Write the remote content at `path`; the executor checks the file there still hashes to `expect`
   * (absent when undefined). `journaledOid`: the remote oid the journal records for the file it
   * replaces (at `path`, with base hash `expect`), which it records again if a save undoes the step.
   */
  | { type: 'download'; id: string; kind: EntryKind; path: string; oid: string; url?: string; content?: string; expect?: string; journaledOid?: string; links?: LocalLinks; include?: IncludeSource }
  /** The file at `path` already holds the remote content: only the journal learns it. */
  | { type: 'adopt'; id: string; kind: EntryKind; path: string; oid: string }
  /** Rename an unedited file (hash `baseHash`) to its new remote place. */
  | { type: 'move'; id: string; kind: EntryKind; from: string; to: string; oid: string; baseHash: string }
  /** Remove an unedited file whose entry the remote removed (`journaledOid`: as for a download). */
  | { type: 'delete'; id: string; kind: EntryKind; path: string; baseHash: string; journaledOid?: string }
  /** The journal names a file that is gone and the remote no longer wants: drop the record. */
  | { type: 'forget'; id: string; kind: EntryKind }
  /**
   * Recovery without a journal (recovery-match.ts): the file at `file` (hash `hash`) is this remote
   * entry. Only the journal learns it, at `path` (the entry's place, or the file's own), with the remote
   * oid and, as base, the hash of what Quire would write for it: a file that differs is the writer's
   * edit of that entry. Nothing on disk is touched. The other fields are the entry's, as for a download.
   */
  | {
      type: 'recover'
      id: string
      kind: EntryKind
      path: string
      file: string
      hash: string
      /** The version the file is journaled as: the remote one, or with `baseText` an earlier one it was edited from. */
      oid: string
      /** The text of the earlier version `oid` when the file was edited from it (its merge base), not from the remote one. */
      baseText?: string
      url?: string
      content?: string
      links?: LocalLinks
      include?: IncludeSource
    }

export type SyncNotice =
  /** A local edit (content differs from the merge base) kept: the remote change for it is not applied. */
  | { type: 'local-edit'; id: string; kind: EntryKind; path: string; remote: 'changed' | 'moved' | 'deleted' }
  /** A file that is not ours (or is kept) holds the place the remote wants: nothing written there. */
  | { type: 'path-occupied'; id: string; kind: EntryKind; path: string }

export interface SyncPlan {
  revision: string
  actions: SyncAction[]
  notices: SyncNotice[]
  /** Set when the plan must not run without the user's word. */
  blocked?: { reason: 'mass-delete'; deletions: number; total: number }
}

export interface PlanOptions {
  allowMassDelete?: boolean
  /**
   * The local names of renamed files changed since pages were last written with local links
   * (`RemoteEntry.links`): such pages are written again, though their remote oid is the same.
   */
  relinkPages?: boolean
  /**
   * The journal is not known to be whole (a first sync, a rebuilt cache, lost rows): files it does not
   * name are matched to remote entries it does not name (recovery-match.ts) before any counts as new.
   * `texts` feeds the similarity step; without it only paths and oids match. `earlier`: each page's oids
   * in the space's recent revisions before this one; a file at a page's place holding one of them is that
   * version as Quire once wrote it, not the writer's edit (recovery-match.ts `earlierVersions`).
   */
  recover?: { texts?: RecoveryTexts; earlier?: EarlierVersions }
}
