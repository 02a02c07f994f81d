import type { EntryUpdate, PushedEntry } from '../outbox/pushed-entries'
import type { ContentChange } from '../../content'
import type { RemoteFileRow, RemotePageRow } from '../cache/cache-repository'
import type { Marker } from '../comments/markers'
import type { JournalEntry } from '../sync/plan-types'
import type { Revivable } from './revivals'

/**
 * The vocabulary of sync up, shared by the pure planner and the engine that carries a plan out. Paths
 * are relative to the space folder, `/`-separated; hashes are git blob ids, the same function the
 * service uses for `git.oid`, so a local file and a remote page can be compared without fetching.
 */

export type { EntryUpdate, OpenConflict, PushedEntry } from '../outbox/pushed-entries'

/** One file of the space folder as the scanner saw it. */
export interface LocalFile {
  hash: string
  size: number
  /** UTF-8 text of page files the planner may need (those that differ from their merge base, and new ones). */
  text?: string
}

export type LocalFiles = ReadonlyMap<string, LocalFile>

/**
 * Why the scanner saw something at a path but did not read it: an ignored (editor's, tool's) or hidden
 * name, a symbolic link, a page over the size limit, no permission, or not a regular file.
 */
/** Files larger than this are not read as pages (a stray export, not something to send as markdown). */
export const MAX_PAGE_BYTES = 8 * 1024 * 1024

export type SkipReason = 'ignored' | 'hidden' | 'symlink' | 'too-large' | 'unreadable' | 'not-a-file'

export interface PushInput {
  spaceId: string
  journal: readonly JournalEntry[]
  /** The space's current content (main), as the last sync down saw it. */
  main: { pages: readonly RemotePageRow[]; files: readonly RemoteFileRow[] }
  local: LocalFiles
  /**
   * Paths the scanner saw and did not read (a folder for all under it). A page whose file is there was
   * not removed by the writer: it is held as it is, never deleted.
   */
  skipped?: ReadonlyMap<string, SkipReason>
  /** SUMMARY.md as the writer left it: where it lists a new page is where the page goes. */
  summary?: string
  /**
   * SUMMARY.md as sync down last wrote it (the journal's summary entry, its merge base), when kept: the
   * writer's order, nesting and titles are what differs from it (summary-edits.ts). Without it, main
   * stands for the base.
   */
  summaryBase?: string
  /** The writer's SUMMARY.md the open change request already carries (its order, nesting and titles sent). */
  summaryCarried?: { hash: string; text: string }
  pushed: readonly PushedEntry[]
  /** Marker keys already posted or waiting in the outbox. */
  posted: ReadonlySet<string>
  /** The writer's user id: part of a comment's or reply's key (outbox/action-keys.ts). */
  userId?: string
  /** Keys of changes the service refused for good (sent again only once the file changes). */
  refused: ReadonlySet<string>
  /** Local time for conflicted copy names, `YYYY-MM-DD HHMMSS`. */
  stamp: string
  maxFileBytes?: number
  /**
   * For pages both the writer and main changed since the merge base: the base's text (the journal's
   * oid) and main's, so the planner merges them with the file block by block. A page without them
   * gets a conflicted copy. `mainOid`: main's version as fetched (it may be newer than `main` above).
   */
  mergeTexts?: ReadonlyMap<string, { base: string; main: string; mainOid: string }>
  /**
   * Pages someone else changed inside the writer's open change request since it carried them, that the
   * writer edited again: the carried text and the change request's version (oid), to merge with.
   */
  changeRequestTexts?: ReadonlyMap<string, { carried?: string; text: string; oid: string }>
  /** New files an earlier push kept local (SUMMARY.md did not list them): kept while it still does not (hold.ts). */
  keptLocal?: ReadonlySet<string>
  /**
   * Regular files under names the scan skips (hidden and editor's names, inside hidden folders too),
   * hashed within the scan's bounds, with their text: a page whose content is in one of them was
   * renamed there (`faq.md~`, `.getting-started/`), not deleted, and is held.
   */
  skippedFiles?: ReadonlyMap<string, LocalFile>
  /** The last text each missing page had (its handle -> the journal's or the change request's version), to find it by similarity. */
  baseTexts?: ReadonlyMap<string, string>
  /** A file the scan found where another was the scan before, with the same inode: new path -> old path. */
  inodeMoves?: ReadonlyMap<string, string>
  /** Now (ms since the epoch): with it, a removal is sent only once its file has been missing `deletionQuietMs`. */
  now?: number
  /** When each missing path was first seen missing (ms); a path not in it is missing since `now`. */
  missingSince?: ReadonlyMap<string, number>
  /** The quiet interval a removal waits for (an editor's backup-save puts the file back within it). Default DELETION_QUIET_MS. */
  deletionQuietMs?: number
  /** Pages a merged change request of the writer deleted while their files were back (revivals.ts): restored with their ids. */
  revivable?: readonly Revivable[]
}

/** How long a file must stay missing before its page's deletion is sent: editors' backup-saves write the new file 250-400 ms after the rename. */
export const DELETION_QUIET_MS = 2000

export interface PlannedChange {
  /** Stable identity of this exact change (page and content), to skip one the service refused before. */
  key: string
  change: ContentChange
  entries: EntryUpdate[]
  /** Title of the page it touches, for the change request's subject. */
  title?: string
  /** The `ref` it defines and the refs it needs from the same batch (or an earlier one). */
  defines?: string
  uses: string[]
}

export interface PlannedMarker {
  key: string
  path: string
  pageId: string
  marker: Marker
  /** False when it was posted already and only has to leave the file. */
  post: boolean
  /** Where the page exists: the space's content, or only the writer's change request. */
  target: 'space' | 'change-request'
}

export interface PlannedConflict {
  path: string
  pageId: string
  copyPath: string
  /** The writer's version, kept in the copy. */
  localText: string
  /** The remote version the file is given back (`git.oid` in main). */
  remoteOid: string
}

/**
 * A page merged cleanly with main: the file becomes the merge (only while it still holds `fromHash`, so a
 * save made since the plan is never replaced) and its merge base becomes main's version, so the merged
 * edits still count as the writer's.
 */
export interface PlannedRewrite {
  path: string
  pageId: string
  /** Hash of the file the merge was made from; undefined: a file put back where nothing is. */
  fromHash: string | undefined
  /** The merged file (with the writer's comment markers). */
  text: string
  /** Main's version merged with: the new merge base. */
  mainOid: string
  mainText: string
  /** Merged with the change request's version, not main's: the file changes, its merge base stays. */
  keepBase?: boolean
}

export type PushReportKind = 'too-large' | 'asset-changed' | 'refused' | 'placed-higher' | 'unknown-thread' | 'not-read' | 'edit-beats-delete' | 'group-not-created' | 'not-in-summary' | 'include-kept'
  /** A SUMMARY.md edit the content API cannot represent (a new group, a separator, a URL entry...): not sent, the file stays an edit. */
  | 'summary-not-sent'
  /** An entry's new title that the page file's own H1 overrides. */
  | 'summary-title-kept'
  /** A list both the writer and main reordered: the writer's order is sent. */
  | 'summary-merged'

export interface PushReport {
  kind: PushReportKind
  path: string
  /** 1-based line of `path` the report is about, where there is one. */
  line?: number
  message: string
}

export interface PushPlan {
  changes: PlannedChange[]
  /** Entry updates that need no request (a file renamed where the service would put it anyway, a deletion covered by its parent's). */
  bookkeeping: EntryUpdate[]
  markers: PlannedMarker[]
  conflicts: PlannedConflict[]
  rewrites: PlannedRewrite[]
  /**
   * Files whose only change is comment markers on a page deleted remotely: nothing to post them on, so
   * the file is kept whole in a conflicted copy and the markers leave it (sync down then removes it).
   */
  orphans: Array<{ path: string; pageId: string; copyPath: string; text: string }>
  /** Unedited files renamed locally whose page the service deleted: the journal follows them (sync down then removes them). */
  relocations: Array<{ pageId: string; from: string; to: string; hash: string }>
  reports: PushReport[]
  /** New files this plan keeps local (SUMMARY.md does not list them), remembered for the next plans. */
  keptLocal?: string[]
  /** Removals held back until the quiet interval has passed: path -> when its file was first seen missing (ms). */
  waitingDeletions?: Map<string, number>
  /** When to plan again (ms since the epoch) for the waiting removals; undefined when none waits. */
  replanAt?: number
  /**
   * The writer's SUMMARY.md when it differs from its merge base: what this plan's change request carries
   * of it (remembered for the next plans) and how many of its edits cannot be sent (the file stays an edit).
   */
  summaryEdit?: { hash: string; text: string; unsent: number }
}

/** `name (conflicted copy 2026-01-31 093612).md`: Nextcloud's naming, recognizable by people and by Quire. */
export const CONFLICT_COPY = / \(conflicted copy \d{4}-\d{2}-\d{2} \d{6}(?: \d+)?\)(\.[^/.]*)?$/
