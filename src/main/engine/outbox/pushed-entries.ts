/** What the writer's change request carries, file by file (the outbox keeps it; the push planner reads and updates it). */

/** What the writer's open change request carries for one local path (or a page it deletes). */
export interface PushedEntry {
  path: string
  kind: 'page' | 'file'
  /** Page or file id on the service; unknown only while the insert that creates it is still in the outbox. */
  pageId?: string
  /** Batch-local name of the insert that created it. */
  ref?: string
  /** Hash of the content sent (comment markers cut out). */
  hash: string
  /**
   * `pushed`: the change request holds this version; `deleted`: it deletes the page; `conflict`: it
   * holds the writer's version while the file shows the remote one and a conflicted copy keeps theirs.
   */
  state: 'pushed' | 'deleted' | 'conflict'
}

/** A conflicted copy Quire wrote and that is still on disk. */
export interface OpenConflict {
  path: string
  copyPath: string
  pageId: string
}

/** How a pushed entry changes once a planned change is applied. */
export type EntryUpdate = ({ op: 'set' } & PushedEntry) | { op: 'remove'; path: string }
