/** What a sync down pass recorded per file (the merge base): the cache keeps it, sync down and sync up read it. */
export type EntryKind = 'page' | 'file' | 'summary'

/** What the last pass left on disk for one entry: the merge base. */
export interface JournalEntry {
  id: string
  kind: EntryKind
  path: string
  /** Remote version (`git.oid`) the file was written from. */
  oid: string
  /** Hash of the content written: a local file with another hash was edited by someone else. */
  baseHash: string
}
