import { useState, type FormEvent } from 'react'
import type { CommentThread, StatusSnapshot } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { ErrorNotice, Loading } from '../components/Notice'
import { formatTime, useAction, useLoad } from '../hooks'

function ReplyForm({ thread, onReply, busy }: { thread: CommentThread; onReply: (text: string) => Promise<boolean>; busy: boolean }) {
  const [text, setText] = useState('')
  const id = `reply-${thread.id}`
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (await onReply(text)) setText('')
  }
  return (
    <form className="inline-form" onSubmit={(e) => void submit(e)}>
      <label htmlFor={id} className="small">
        Reply to {thread.author}
      </label>
      <textarea id={id} rows={2} required value={text} onChange={(e) => setText(e.target.value)} />
      <button type="submit" disabled={busy || text.trim() === ''}>
        Reply
      </button>
    </form>
  )
}

export function CommentsScreen({ status }: { status: StatusSnapshot | undefined }) {
  const bridge = useBridge()
  const spaces = status?.spaces ?? []
  const [chosen, setChosen] = useState<string>()
  const spaceId = chosen ?? spaces[0]?.id
  const [pageFilter, setPageFilter] = useState('')
  const pages = useLoad(async () => (spaceId ? bridge.listPages({ spaceId }) : []), [spaceId])
  const threads = useLoad(async () => (spaceId ? bridge.listComments({ spaceId, ...(pageFilter ? { pageId: pageFilter } : {}) }) : []), [spaceId, pageFilter])
  const action = useAction()
  const [newPage, setNewPage] = useState('')
  const [newText, setNewText] = useState('')

  if (spaces.length === 0) {
    return (
      <section aria-labelledby="comments-title">
        <h1 id="comments-title" tabIndex={-1}>
          Comments
        </h1>
        <p>Pick a space to sync first: comments are shown for the spaces you sync.</p>
      </section>
    )
  }

  const groups = new Map<string, { title: string; threads: CommentThread[] }>()
  for (const thread of threads.data ?? []) {
    const key = thread.pageId ?? ''
    const group = groups.get(key) ?? { title: thread.pageTitle ?? (thread.pageId ? 'Untitled page' : 'The whole space'), threads: [] }
    group.threads.push(thread)
    groups.set(key, group)
  }

  const post = (event: FormEvent) => {
    event.preventDefault()
    if (!spaceId) return
    void action
      .run('post', () => bridge.postComment({ spaceId, pageId: newPage, markdown: newText }))
      .then((ok) => {
        if (ok) {
          setNewText('')
          threads.reload()
        }
      })
  }

  return (
    <section aria-labelledby="comments-title">
      <div className="screen-head">
        <h1 id="comments-title" tabIndex={-1}>
          Comments
        </h1>
        <button type="button" onClick={threads.reload} disabled={threads.loading}>
          Refresh
        </button>
      </div>
      <div className="filters">
        <label htmlFor="comment-space">Space</label>
        <select id="comment-space" value={spaceId} onChange={(e) => setChosen(e.target.value)}>
          {spaces.map((s) => (
            <option key={s.id} value={s.id}>
              {s.title}
            </option>
          ))}
        </select>
        <label htmlFor="comment-page">Page</label>
        <select id="comment-page" value={pageFilter} onChange={(e) => setPageFilter(e.target.value)}>
          <option value="">All pages</option>
          {pages.data?.map((p) => (
            <option key={p.id} value={p.id}>
              {p.title}
            </option>
          ))}
        </select>
      </div>
      <ErrorNotice message={threads.error ?? pages.error ?? action.error} />

      <form className="card new-comment" onSubmit={post} aria-labelledby="new-comment-title">
        <h2 id="new-comment-title">New comment</h2>
        <label htmlFor="new-comment-page">On page</label>
        <select id="new-comment-page" required value={newPage} onChange={(e) => setNewPage(e.target.value)}>
          <option value="" disabled>
            Choose a page…
          </option>
          {pages.data?.map((p) => (
            <option key={p.id} value={p.id}>
              {p.title}
            </option>
          ))}
        </select>
        <label htmlFor="new-comment-text">Comment</label>
        <textarea id="new-comment-text" rows={3} required value={newText} onChange={(e) => setNewText(e.target.value)} />
        <button type="submit" className="primary" disabled={action.busy !== undefined || !newPage || newText.trim() === ''}>
          Post comment
        </button>
      </form>

      {threads.loading && !threads.data ? <Loading what="comments" /> : null}
      {threads.data?.length === 0 ? <p>No comments here yet.</p> : null}
      {[...groups.entries()].map(([key, group]) => (
        <section key={key} className="page-group" aria-label={`Comments on ${group.title}`}>
          <h2>{group.title}</h2>
          <ul className="cards">
            {group.threads.map((thread) => (
              <li key={thread.id} className={`card thread${thread.resolved ? ' resolved' : ''}`} data-comment-id={thread.id}>
                <p className="small muted">
                  <strong>{thread.author}</strong> · {formatTime(thread.postedAt)} {thread.resolved ? <span className="badge">Resolved</span> : null}
                </p>
                <p className="comment-body">{thread.markdown}</p>
                {thread.replies.length > 0 ? (
                  <ul className="replies" aria-label="Replies">
                    {thread.replies.map((r) => (
                      <li key={r.id}>
                        <p className="small muted">
                          <strong>{r.author}</strong> · {formatTime(r.postedAt)}
                        </p>
                        <p className="comment-body">{r.markdown}</p>
                      </li>
                    ))}
                  </ul>
                ) : null}
                <div className="thread-actions">
                  <ReplyForm
                    thread={thread}
                    busy={action.busy !== undefined}
                    onReply={async (text) => {
                      const ok = await action.run(`reply:${thread.id}`, () => bridge.replyToComment({ spaceId: spaceId ?? '', commentId: thread.id, markdown: text }))
                      if (ok) threads.reload()
                      return ok
                    }}
                  />
                  {!thread.resolved ? (
                    <button
                      type="button"
                      disabled={action.busy !== undefined}
                      onClick={() => void action.run(`resolve:${thread.id}`, () => bridge.resolveComment({ spaceId: spaceId ?? '', commentId: thread.id })).then((ok) => ok && threads.reload())}
                    >
                      Resolve
                    </button>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </section>
  )
}
