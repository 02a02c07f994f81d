import type Database from 'better-sqlite3'

/**
 * The mirror of comment threads (the `comments` table of the cache): every SQL statement about it.
 * A thread is the comment as the service returned it plus its replies, so `quire comments` works offline.
 */

export interface ThreadReply {
  id: string
  author: string
  authorId: string
  postedAt: string
  markdown: string
}

export interface Thread {
  id: string
  spaceId: string
  changeRequestId?: string
  pageId?: string
  author: string
  authorId: string
  postedAt: string
  markdown: string
  status: 'open' | 'resolved'
  resolvedAt?: string
  replies: ThreadReply[]
  /** When the thread was last read from the service. */
  fetchedAt: string
}

type Row = Record<string, unknown>

export class CommentsRepository {
  constructor(private readonly db: Database.Database) {}

  save(thread: Thread) {
    const { id, spaceId, changeRequestId, pageId, ...data } = thread
    this.db
      .prepare(
        `INSERT INTO comments (id, space_id, change_request_id, page_id, data) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET space_id = excluded.space_id, change_request_id = excluded.change_request_id,
           page_id = excluded.page_id, data = excluded.data`,
      )
      .run(id, spaceId, changeRequestId ?? null, pageId ?? null, JSON.stringify(data))
  }

  /** Replaces the mirror of one page's threads (in the space or in one change request) by what the service listed. */
  replacePage(spaceId: string, pageId: string, changeRequestId: string | undefined, threads: Thread[]) {
    this.db.transaction(() => {
      if (changeRequestId === undefined) this.db.prepare('DELETE FROM comments WHERE space_id = ? AND page_id = ? AND change_request_id IS NULL').run(spaceId, pageId)
      else this.db.prepare('DELETE FROM comments WHERE space_id = ? AND page_id = ? AND change_request_id = ?').run(spaceId, pageId, changeRequestId)
      for (const thread of threads) this.save(thread)
    })()
  }

  thread(id: string): Thread | undefined {
    const row = this.db.prepare('SELECT * FROM comments WHERE id = ?').get(id) as Row | undefined
    return row && threadOf(row)
  }

  /** Threads of a space outside change requests, oldest first (what the app lists offline). */
  threadsOfSpace(spaceId: string): Thread[] {
    const rows = this.db.prepare('SELECT * FROM comments WHERE space_id = ? AND change_request_id IS NULL').all(spaceId) as Row[]
    return rows.map(threadOf).sort((a, b) => a.postedAt.localeCompare(b.postedAt) || a.id.localeCompare(b.id))
  }

  /** Threads of one change request, oldest first (its discussion as last read). */
  threadsOfChangeRequest(spaceId: string, changeRequestId: string): Thread[] {
    const rows = this.db.prepare('SELECT * FROM comments WHERE space_id = ? AND change_request_id = ?').all(spaceId, changeRequestId) as Row[]
    return rows.map(threadOf).sort((a, b) => a.postedAt.localeCompare(b.postedAt) || a.id.localeCompare(b.id))
  }

  /** Threads of a page, oldest first, change request threads included. */
  threadsOfPage(spaceId: string, pageId: string): Thread[] {
    const rows = this.db.prepare('SELECT * FROM comments WHERE space_id = ? AND page_id = ?').all(spaceId, pageId) as Row[]
    return rows.map(threadOf).sort((a, b) => a.postedAt.localeCompare(b.postedAt) || a.id.localeCompare(b.id))
  }
}

function threadOf(row: Row): Thread {
  const data = JSON.parse(String(row.data)) as Omit<Thread, 'id' | 'spaceId' | 'changeRequestId' | 'pageId'>
  return {
    ...data,
    id: String(row.id),
    spaceId: String(row.space_id),
    ...(row.change_request_id ? { changeRequestId: String(row.change_request_id) } : {}),
    ...(row.page_id ? { pageId: String(row.page_id) } : {}),
  }
}
