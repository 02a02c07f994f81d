import { useEffect, useState, type FormEvent } from 'react'
import type { CommentThread, PageSummary, StatusSnapshot } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { Markdown } from '../components/Markdown'
import { AsOfNotice, DoneNotice, ErrorNotice, Loading } from '../components/Notice'
import { ThreadReference } from '../components/ThreadReference'
import { RelativeTime } from '../components/Time'
import { useAction, useLoad } from '../hooks'

type Shown = 'open' | 'resolved' | 'all'

/** A page in the picker: indented by its depth in the space's tree, or with its path while searching (the tree is cut then). */
function pageLabel(page: PageSummary, searching: boolean): string {
  if (searching) return page.path ? `${page.title} — ${page.path}` : page.title
  return `${'\u00a0\u00a0\u00a0'.repeat(page.depth ?? 0)}${page.title}`
}

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

/** How many spaces are asked for their threads at once when the screen looks for one to open on. */
const PROBED_AT_ONCE = 4

/**
 * The space the screen opens on: the first with open threads, else the first with any, else the first
 * (defect 8: it opened on the first space, often an empty one). Undefined while the spaces are asked, so
 * an empty space is never shown on the way. `spaceIds` is the selected spaces' ids, in order, joined by commas.
 */
function useSpaceWithThreads(spaceIds: string): string | undefined {
  const bridge = useBridge()
  const [found, setFound] = useState<{ ids: string; id: string | undefined }>()
  useEffect(() => {
    let live = true
    const ids = spaceIds.split(',').filter(Boolean)
    void (async () => {
      let withAny: string | undefined
      // A few spaces at a time, in order: with many spaces and few comments, one by one would keep the
      // screen waiting a round trip per space; all at once would flood the service.
      for (let start = 0; start < ids.length; start += PROBED_AT_ONCE) {
        const batch = ids.slice(start, start + PROBED_AT_ONCE)
        const answers = await Promise.all(batch.map((id) => bridge.listComments({ spaceId: id }).catch(() => [])))
        if (!live) return
        const open = batch.find((_, i) => answers[i].some((t) => !t.resolved))
        if (open) return setFound({ ids: spaceIds, id: open })
        withAny ??= batch.find((_, i) => answers[i].length > 0)
      }
      setFound({ ids: spaceIds, id: withAny ?? ids[0] })
    })()
    return () => {
      live = false
    }
  }, [bridge, spaceIds])
  if (found?.ids === spaceIds) return found.id
  // The list of spaces changed: the space shown stays while the new list is asked, if it is still there.
  return found?.id !== undefined && spaceIds.split(',').includes(found.id) ? found.id : undefined
}

export function CommentsScreen({ status, offlineAsOf, passes }: { status: StatusSnapshot | undefined; offlineAsOf?: string; passes: number }) {
  const bridge = useBridge()
  const spaces = status?.spaces ?? []
  const [chosen, setChosen] = useState<string>()
  const spaceIds = spaces.map((s) => s.id).join(',')
  const opening = useSpaceWithThreads(spaceIds)
  const spaceId = chosen ?? opening
  const [pageFilter, setPageFilter] = useState('')
  const [shown, setShown] = useState<Shown>('open')
  const [pageSearch, setPageSearch] = useState('')
  // Each answer carries what it was asked for: another space's (or page's) answer is never shown as this one's.
  const pagesKey = spaceId ?? ''
  const threadsKey = `${spaceId ?? ''}/${pageFilter}`
  // Read again after every pass: a page the pass brought (or removed) is in the picker then, not at the next change of space.
  const pagesLoad = useLoad(async () => ({ key: pagesKey, list: spaceId ? await bridge.listPages({ spaceId }) : [] }), [pagesKey, passes])
  // Read again when the service comes back: what was queued shows as sent.
  const reachable = status !== undefined && status.overall !== 'offline'
  const threadsLoad = useLoad(async () => ({ key: threadsKey, list: spaceId ? await bridge.listComments({ spaceId, ...(pageFilter ? { pageId: pageFilter } : {}) }) : [] }), [threadsKey, reachable])
  const pages = { ...pagesLoad, data: pagesLoad.data?.key === pagesKey ? pagesLoad.data.list : undefined }
  // No space yet (the spaces are being asked which has threads): nothing to list, not an empty list.
  const threads = { ...threadsLoad, data: spaceId && threadsLoad.data?.key === threadsKey ? threadsLoad.data.list : undefined }
  const action = useAction()
  const [newPage, setNewPage] = useState('')
  const [newText, setNewText] = useState('')
  /** Comments posted while the service could not be reached: shown as waiting until the list has them. */
  const [waiting, setWaiting] = useState<CommentThread[]>([])
  /** Replies typed while the service could not be reached: shown as queued under their thread until it has them. */
  const [queuedReplies, setQueuedReplies] = useState<Array<{ threadId: string; markdown: string }>>([])
  const [sentNotice, setSentNotice] = useState<string>()
  const onlineList = threadsLoad.data && !threadsLoad.data.list.some((t) => t.asOf) ? threadsLoad.data.list : undefined
  useEffect(() => {
    if (!onlineList || queuedReplies.length === 0) return
    const arrived = queuedReplies.filter((q) => onlineList.find((t) => t.id === q.threadId)?.replies.some((r) => r.mine !== false && r.markdown.trim() === q.markdown.trim()))
    if (arrived.length === 0) return
    setQueuedReplies((list) => list.filter((q) => !arrived.includes(q)))
    setSentNotice(arrived.length === 1 ? 'Your queued reply was sent.' : `Your ${arrived.length} queued replies were sent.`)
  }, [onlineList, queuedReplies])

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

  const asOf = threads.data?.find((t) => t.asOf)?.asOf ?? offlineAsOf
  const online = threads.data !== undefined && asOf === undefined
  const queued = online ? [] : waiting.filter((w) => w.pageId === (pageFilter || w.pageId))
  const listed = [...queued, ...(threads.data ?? [])]
  const counts = { open: listed.filter((t) => !t.resolved).length, resolved: listed.filter((t) => t.resolved).length, all: listed.length }
  const visible = listed.filter((t) => shown === 'all' || (shown === 'resolved') === t.resolved)
  const matching = (pages.data ?? []).filter((p) => `${p.title} ${p.path ?? ''}`.toLowerCase().includes(pageSearch.trim().toLowerCase()))
  const groups = new Map<string, { title: string; threads: CommentThread[] }>()
  for (const thread of visible) {
    const key = thread.pageId ?? ''
    const title = thread.pageTitle ?? pages.data?.find((p) => p.id === thread.pageId)?.title
    const group = groups.get(key) ?? { title: title ?? (thread.pageId ? 'Untitled page' : 'The whole space'), threads: [] }
    group.threads.push(thread)
    groups.set(key, group)
  }

  const post = (event: FormEvent) => {
    event.preventDefault()
    if (!spaceId) return
    void action
      .run(
        'post',
        async () => {
          const thread = await bridge.postComment({ spaceId, pageId: newPage, markdown: newText })
          // Asked again while it waits: the same comment, already in the list.
          if (thread.waiting && thread.repeat !== 'queued') setWaiting((list) => [thread, ...list])
          return thread
        },
        (thread) => postedMessage(thread as CommentThread),
      )
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
        <select id="comment-space" value={spaceId ?? ''} onChange={(e) => setChosen(e.target.value)}>
          {spaceId ? null : (
            <option value="" disabled>
              Finding the space with comments…
            </option>
          )}
          {spaces.map((s) => (
            <option key={s.id} value={s.id}>
              {s.title}
            </option>
          ))}
        </select>
        <label htmlFor="comment-page-search">Find a page</label>
        <input id="comment-page-search" type="search" value={pageSearch} onChange={(e) => setPageSearch(e.target.value)} placeholder="Title or path" />
        <label htmlFor="comment-page">Page</label>
        <select id="comment-page" value={pageFilter} onChange={(e) => setPageFilter(e.target.value)}>
          <option value="">All pages ({pages.data?.length ?? 0})</option>
          {matching.map((p) => (
            <option key={p.id} value={p.id}>
              {pageLabel(p, pageSearch !== '')}
            </option>
          ))}
        </select>
        <div className="segmented" role="group" aria-label="Which threads">
          {(['open', 'resolved', 'all'] as const).map((which) => (
            <button key={which} type="button" aria-pressed={shown === which} onClick={() => setShown(which)}>
              {which === 'open' ? 'Open' : which === 'resolved' ? 'Resolved' : 'All'}
              {threads.data ? ` (${counts[which]})` : ''}
            </button>
          ))}
        </div>
      </div>
      <AsOfNotice asOf={asOf} />
      <ErrorNotice message={threads.error ?? pages.error ?? action.error} />
      <DoneNotice message={action.done ?? sentNotice} />

      {!threads.data && !threads.error ? <Loading what="comments" /> : null}
      {threads.data && visible.length === 0 ? <p>{shown === 'open' ? 'No open comments here.' : shown === 'resolved' ? 'No resolved comments here.' : 'No comments here yet.'}</p> : null}
      {[...groups.entries()].map(([key, group]) => (
        <section key={key} className="page-group" aria-label={`Comments on ${group.title}`}>
          <h2>{group.title}</h2>
          <ul className="cards">
            {group.threads.map((thread) => (
              <li key={thread.id} className={`card thread${thread.resolved ? ' resolved' : ''}`} data-comment-id={thread.id}>
                <p className="small muted">
                  <strong>{thread.author}</strong> · <RelativeTime iso={thread.postedAt} /> {thread.resolved ? <span className="badge">Resolved</span> : null}{' '}
                  {thread.waiting ? <span className="badge badge-warn">Waiting to be sent</span> : null}
                </p>
                <ThreadReference id={thread.id} />
                <Markdown text={thread.markdown} />
                {thread.replies.length > 0 ? (
                  <ul className="replies" aria-label="Replies">
                    {thread.replies.map((r) => (
                      <li key={r.id}>
                        <p className="small muted">
                          <strong>{r.author}</strong> · <RelativeTime iso={r.postedAt} />
                        </p>
                        <Markdown text={r.markdown} />
                      </li>
                    ))}
                  </ul>
                ) : null}
                {queuedReplies.some((q) => q.threadId === thread.id) ? (
                  <ul className="replies" aria-label="Replies queued">
                    {queuedReplies
                      .filter((q) => q.threadId === thread.id)
                      .map((q) => (
                        <li key={q.markdown}>
                          <p className="small muted">
                            <strong>You</strong> <span className="badge badge-warn">Queued</span>
                          </p>
                          <Markdown text={q.markdown} />
                        </li>
                      ))}
                  </ul>
                ) : null}
                {thread.id.startsWith('pending-') ? null : (
                <div className="thread-actions">
                  <ReplyForm
                    thread={thread}
                    busy={action.busy !== undefined}
                    onReply={async (text) => {
                      const ok = await action.run(
                        `reply:${thread.id}`,
                        async () => {
                          const answer = await bridge.replyToComment({ spaceId: spaceId ?? '', commentId: thread.id, markdown: text })
                          if (answer.waiting && answer.repeat !== 'queued') setQueuedReplies((list) => [...list, { threadId: thread.id, markdown: text }])
                          return answer
                        },
                        (answer) => {
                          const t = answer as CommentThread
                          if (t.repeat === 'sent') return 'This reply was already sent: nothing was sent again.'
                          return t.waiting ? `Your reply is queued: it goes out when the service is back (${t.waiting}).` : 'Reply sent.'
                        },
                      )
                      if (ok) {
                        setSentNotice(undefined)
                        threads.reload()
                      }
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
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
      <form className="card new-comment" onSubmit={post} aria-labelledby="new-comment-title">
        <h2 id="new-comment-title">New comment</h2>
        <label htmlFor="new-comment-page">On page</label>
        <select id="new-comment-page" required value={newPage} onChange={(e) => setNewPage(e.target.value)}>
          <option value="" disabled>
            Choose a page…
          </option>
          {matching.map((p) => (
            <option key={p.id} value={p.id}>
              {pageLabel(p, pageSearch !== '')}
            </option>
          ))}
        </select>
        <label htmlFor="new-comment-text">Comment</label>
        <textarea id="new-comment-text" rows={3} required value={newText} onChange={(e) => setNewText(e.target.value)} />
        <button type="submit" className="primary" disabled={action.busy !== undefined || !newPage || newText.trim() === ''}>
          Post comment
        </button>
      </form>
    </section>
  )
}

/** What posting a comment came to, in words: posted, waiting, or the same comment asked again. */
function postedMessage(thread: CommentThread): string {
  if (thread.repeat === 'sent') return 'This comment was already posted: nothing was posted again.'
  if (thread.repeat === 'queued') return thread.waiting ? 'This comment is already waiting to be sent: it goes out once.' : 'This comment was already queued: it is posted now, once.'
  return thread.waiting ? 'Your comment is waiting to be sent: it goes out once the service answers.' : 'Comment posted.'
}
