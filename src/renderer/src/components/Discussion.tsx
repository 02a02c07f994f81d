import { useState, type FormEvent } from 'react'
import type { ChangeRequestSummary, CommentThread, ReviewEvent } from '../../../shared/contract'
import { useBridge } from '../bridge'
import type { Action } from '../hooks'
import { useLoad } from '../hooks'
import { Markdown } from './Markdown'
import { RelativeTime } from './Time'

const VERDICT_EVENT = { approved: 'approved', 'changes-requested': 'asked for changes' } as const

/** What a thread action answered: sent, or queued in the outbox (offline), in words. */
function threadAnswer(done: string) {
  return (result: unknown) => {
    const thread = result as CommentThread
    if (thread.repeat === 'sent') return `${done}: already sent before, nothing sent again.`
    if (thread.waiting) return `${done}: queued, it goes out when the service is back (${thread.waiting}).`
    return `${done}: sent.`
  }
}

function ReviewEvents({ reviews }: { reviews: ReviewEvent[] }) {
  if (reviews.length === 0) return <p className="muted small">No review yet.</p>
  return (
    <ul className="review-events" aria-label="Reviews">
      {reviews.map((r) => (
        <li key={r.id} className="small">
          <strong>{r.reviewer}</strong> {VERDICT_EVENT[r.verdict]} <RelativeTime iso={r.at} />
          {r.outdated ? <span className="muted"> (on an earlier version)</span> : null}
          {r.comment ? <Markdown text={r.comment} /> : null}
        </li>
      ))}
    </ul>
  )
}

function ThreadItem(props: { thread: CommentThread; busy: boolean; reply: (text: string) => Promise<boolean>; resolve: () => void; reopen: () => void }) {
  const { thread, busy } = props
  const [text, setText] = useState('')
  const id = `cr-reply-${thread.id}`
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (await props.reply(text)) setText('')
  }
  return (
    <li className="thread" data-thread-id={thread.id}>
      <p className="small">
        <strong>{thread.author}</strong> <RelativeTime iso={thread.postedAt} /> {thread.resolved ? <span className="badge badge-ok">Resolved</span> : <span className="badge">Open</span>}
        {thread.waiting ? <span className="badge badge-warn">Queued</span> : null}
      </p>
      <Markdown text={thread.markdown} />
      {thread.replies.length > 0 ? (
        <ul className="replies" aria-label={`Replies to ${thread.author}`}>
          {thread.replies.map((r) => (
            <li key={r.id}>
              <p className="small">
                <strong>{r.author}</strong> <RelativeTime iso={r.postedAt} />
              </p>
              <Markdown text={r.markdown} />
            </li>
          ))}
        </ul>
      ) : null}
      <form className="inline-form" onSubmit={(e) => void submit(e)}>
        <label htmlFor={id} className="small">
          Reply to {thread.author}
        </label>
        <textarea id={id} rows={2} required value={text} onChange={(e) => setText(e.target.value)} />
        <div className="actions">
          <button type="submit" disabled={busy || text.trim() === ''}>
            Reply
          </button>
          {thread.resolved ? (
            <button type="button" disabled={busy} onClick={props.reopen}>
              Reopen
            </button>
          ) : (
            <button type="button" disabled={busy} onClick={props.resolve}>
              Resolve
            </button>
          )}
        </div>
      </form>
    </li>
  )
}

/**
 * The discussion of a change request, as a reviewer reads it: the description (rendered; its author
 * may edit it), the reviews as events, and the comment threads with their replies, each with Reply and
 * Resolve or Reopen. Every action goes through the outbox: offline it says it is queued.
 */
export function Discussion(props: { cr: Pick<ChangeRequestSummary, 'id' | 'spaceId' | 'spaceTitle' | 'number' | 'status' | 'updatedAt'>; busy: boolean; act: Action['run']; refreshKey?: string | number }) {
  const { cr, busy, act } = props
  const bridge = useBridge()
  const ids = { spaceId: cr.spaceId, changeRequestId: cr.id }
  const discussion = useLoad(() => bridge.changeRequestDiscussion(ids), [cr.id, cr.updatedAt, props.refreshKey])
  const [editing, setEditing] = useState<string>()
  const data = discussion.data
  const live = cr.status === 'open' || cr.status === 'draft'

  const run = async (name: string, action: () => Promise<unknown>, done: (result: unknown) => string | undefined) => {
    const ok = await act(`${name}:${cr.id}`, action, done)
    if (ok) discussion.reload()
    return ok
  }
  const save = () =>
    void run('describe', () => bridge.editChangeRequestDescription({ ...ids, description: editing ?? '' }), (result) => {
      const next = result as ChangeRequestSummary
      return next.waiting ? `The description of #${cr.number} is queued: it goes out when the service is back (${next.waiting}).` : `Saved the description of #${cr.number}.`
    }).then((ok) => ok && setEditing(undefined))
  const open = data?.threads.filter((t) => !t.resolved).length ?? 0

  return (
    <section className="discussion" aria-label={`Discussion of #${cr.number} in ${cr.spaceTitle}`}>
      {discussion.error ? <p className="muted small">The discussion cannot be read now: {discussion.error}</p> : null}
      {data?.asOf ? (
        <p className="small muted">
          As last read <RelativeTime iso={data.asOf} />: the service cannot be reached.
        </p>
      ) : null}
      <h3 className="small">Description</h3>
      {editing !== undefined ? (
        <div className="review-form">
          <label htmlFor={`describe-${cr.id}`} className="small">
            Description (markdown)
          </label>
          <textarea id={`describe-${cr.id}`} rows={4} value={editing} onChange={(e) => setEditing(e.target.value)} />
          <div className="actions">
            <button type="button" className="primary" disabled={busy || editing.trim() === ''} onClick={save}>
              Save description
            </button>
            <button type="button" disabled={busy} onClick={() => setEditing(undefined)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <>
          {data?.description ? <Markdown text={data.description} /> : data ? <p className="muted small">No description.</p> : null}
          {data?.canEditDescription && live ? (
            <button type="button" className="link-button small" disabled={busy} onClick={() => setEditing(data.description)}>
              Edit description
            </button>
          ) : null}
        </>
      )}
      {data && !data.asOf ? (
        <>
          <h3 className="small">Reviews</h3>
          <ReviewEvents reviews={data.reviews} />
        </>
      ) : null}
      <h3 className="small">
        Comments{data ? ` (${open} open)` : ''}
      </h3>
      {data && data.threads.length === 0 ? <p className="muted small">No comments on this change request.</p> : null}
      {data && data.threads.length > 0 ? (
        <ul className="threads" aria-label={`Comments on #${cr.number} in ${cr.spaceTitle}`}>
          {data.threads.map((thread) => (
            <ThreadItem
              key={thread.id}
              thread={thread}
              busy={busy}
              reply={(text) => run(`reply-${thread.id}`, () => bridge.replyToComment({ spaceId: cr.spaceId, changeRequestId: cr.id, commentId: thread.id, markdown: text }), threadAnswer(`Replied to ${thread.author}`))}
              resolve={() => void run(`resolve-${thread.id}`, () => bridge.resolveComment({ spaceId: cr.spaceId, changeRequestId: cr.id, commentId: thread.id }), threadAnswer(`Resolved ${thread.author}’s comment`))}
              reopen={() => void run(`reopen-${thread.id}`, () => bridge.reopenComment({ spaceId: cr.spaceId, changeRequestId: cr.id, commentId: thread.id }), threadAnswer(`Reopened ${thread.author}’s comment`))}
            />
          ))}
        </ul>
      ) : null}
    </section>
  )
}
