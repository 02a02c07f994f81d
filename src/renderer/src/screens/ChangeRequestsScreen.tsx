import { useState } from 'react'
import type { ChangeRequestFilter, ChangeRequestSummary, MergeCheck } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { Changes, changeCount, useChanges } from '../components/ChangeRequestChanges'
import { Discussion } from '../components/Discussion'
import { MergeRules } from '../components/MergeRules'
import { ActionFeedback, AsOfNotice, DoneNotice, ErrorNotice, Loading } from '../components/Notice'
import { ReviewPanel } from '../components/ReviewPanel'
import { RelativeTime } from '../components/Time'
import { saying, useAction, useLoad } from '../hooks'

const FILTERS: Array<{ id: ChangeRequestFilter; label: string; empty: string }> = [
  { id: 'live', label: 'Open', empty: 'No open change requests' },
  { id: 'merged', label: 'Merged', empty: 'No merged change requests' },
  { id: 'archived', label: 'Archived', empty: 'No archived change requests' },
]

/** Actions whose outcome shows in their card, beside their buttons: opening the PDF or the change request's web page. */
const CARD_FEEDBACK = /^(pdf|open|describe|reply-[^:]*|resolve-[^:]*|reopen-[^:]*):/

interface CardProps {
  cr: ChangeRequestSummary
  /** The name of the action running now (any card's). */
  running: string | undefined
  /** This card's PDF or Open in browser outcome, when it is the last one. */
  feedback: { done: string | undefined; error: string | undefined } | undefined
  act: ReturnType<typeof useAction>['run']
  onChanged: () => void
  refreshKey: string
}

function ChangeRequestCard(props: CardProps) {
  const { cr, act, onChanged, running } = props
  const busy = running !== undefined
  const bridge = useBridge()
  const ids = { spaceId: cr.spaceId, changeRequestId: cr.id }
  const { changes, setChanges, toggle: showChanges } = useChanges(ids, act, cr.revision)
  const [confirming, setConfirming] = useState(false)
  /** The merge rules as they stood when Merge… was clicked. */
  const [mergeCheck, setMergeCheck] = useState<MergeCheck>()
  const name = `#${cr.number} "${cr.subject || 'Untitled change request'}"`
  const live = cr.status === 'open' || cr.status === 'draft'

  const askMerge = () =>
    void act(`changes:${cr.id}`, async () => {
      // The confirmation names what the merge brings into main, and what the merge rules say of it now.
      const [loaded, check] = await Promise.all([changes ?? bridge.changeRequestChanges(ids), bridge.changeRequestMergeCheck(ids)])
      setChanges(loaded)
      setMergeCheck(check)
      setConfirming(true)
    })
  const merge = () =>
    void act(
      `merge:${cr.id}`,
      async () => {
        setConfirming(false)
        return bridge.mergeChangeRequest(ids)
      },
      (result) => {
        const next = result as ChangeRequestSummary
        if (next.repeat === 'sent') return `#${cr.number} was already merged: nothing sent again.`
        if (next.waiting) return `Merging #${cr.number} ${next.repeat === 'queued' ? 'already waits' : 'waits'} to be sent: ${next.waiting}.`
        return `Merged #${cr.number}.`
      },
    )
  const update = () =>
    void act(
      `update:${cr.id}`,
      () => bridge.updateChangeRequest(ids),
      (result) => {
        const next = result as Awaited<ReturnType<typeof bridge.updateChangeRequest>>
        if (next.waiting) return `Update from main of #${cr.number} waits to be sent: ${next.waiting}.`
        if (next.conflicts) return `#${cr.number} was updated from main with conflicts: main and this change request changed the same places. Main's version is kept there and yours is in a conflicted copy (Show conflicts: Compare, Keep mine, Keep theirs).`
        return `#${cr.number} is up to date with main.`
      },
    )
  const pageNames = [...(changes?.pages.map((p) => (p.fromPath ? `${p.title} (${p.fromPath} → ${p.path})` : p.title)) ?? []), ...(changes?.files.map((f) => f.name) ?? [])]
  const blocked = (mergeCheck?.blockers.length ?? 0) > 0

  return (
    <li className="card cr" data-cr-id={cr.id}>
      <div className="cr-head">
        <h2 className="cr-subject">
          {/* The number is the space's own: two spaces both have a #1, so the space goes with it. */}
          <span className="muted">
            {cr.spaceTitle} #{cr.number}
          </span>{' '}
          {cr.subject || 'Untitled change request'}
        </h2>
        <span className={`badge status-${cr.status}`}>{cr.status}</span>
        {cr.outdated && live ? <span className="badge badge-warn">Outdated</span> : null}
        {cr.mine ? <span className="badge">Mine</span> : null}
        {cr.waiting ? <span className="badge badge-warn">Waiting to be sent</span> : null}
      </div>
      <p className="muted small">
        {cr.spaceTitle} · by {cr.createdBy} · updated <RelativeTime iso={cr.updatedAt} />
        {cr.asOf ? (
          <>
            {' '}
            · as of <RelativeTime iso={cr.asOf} />
          </>
        ) : null}
      </p>
      {cr.outdated && live ? <p className="small">Main changed since this change request was last updated. Update from main brings those changes in, so what you review is what a merge would give.</p> : null}
      {cr.waiting ? <p className="small">Waiting to be sent: {cr.waiting}</p> : null}
      <div className="actions">
        <button type="button" aria-expanded={changes !== undefined} disabled={busy} onClick={showChanges}>
          {changes ? 'Hide changes' : 'Show changes'}
        </button>
        {live ? (
          <button type="button" disabled={busy} onClick={update}>
            Update from main
          </button>
        ) : null}
        {cr.canMerge && !confirming ? (
          <button type="button" className="primary" disabled={busy} onClick={askMerge}>
            Merge…
          </button>
        ) : null}
        <button type="button" disabled={busy} onClick={() => void act(`pdf:${cr.id}`, saying(`Could not open the PDF of #${cr.number}`, async () => bridge.openExternal(await bridge.changeRequestPdf(ids))), `Opened the PDF of #${cr.number} in ${bridge.inBrowser ? 'a new tab' : 'your browser'}.`)}>
          {running === `pdf:${cr.id}` ? 'Making the PDF…' : 'PDF'}
        </button>
        {/* The hosted service's web app, or the local service's own read-only page of the change request. */}
        {cr.appUrl ? (
          <button type="button" disabled={busy} onClick={() => void act(`open:${cr.id}`, saying(`Could not open #${cr.number} in your browser`, () => bridge.openExternal({ url: cr.appUrl! })), `Opened #${cr.number} in ${bridge.inBrowser ? 'a new tab' : 'your browser'}.`)}>
            {running === `open:${cr.id}` ? 'Opening…' : 'Open in browser'}
          </button>
        ) : null}
      </div>
      <ActionFeedback done={props.feedback?.done} error={props.feedback?.error} />
      {confirming ? (
        <div className={`confirm notice ${blocked ? 'notice-error' : 'notice-warn'}`} role="group" aria-label={`Confirm merging #${cr.number} in ${cr.spaceTitle}`}>
          {blocked ? (
            <p>
              {name} cannot be merged yet: {mergeCheck!.blockers.join('; ')}.
            </p>
          ) : (
            <p>
              Merge {name} into main of {cr.spaceTitle}? It brings {pageNames.length === 0 ? 'no page changes' : `changes to ${changes ? changeCount(changes).replace(/ changed/g, '') : ''}: ${pageNames.slice(0, 6).join(', ')}${pageNames.length > 6 ? '…' : ''}`}.
              {cr.outdated ? ' It is outdated: update it from main first to review what the merge gives.' : ''}
            </p>
          )}
          {mergeCheck ? <MergeRules check={mergeCheck} label={`Merge rules for #${cr.number} in ${cr.spaceTitle}`} /> : null}
          <div className="actions">
            <button type="button" className="primary" disabled={busy || blocked} onClick={merge}>
              Merge #{cr.number}
            </button>
            <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
              {blocked ? 'Close' : 'Cancel'}
            </button>
          </div>
        </div>
      ) : null}
      {changes ? <Changes changes={changes} spaceId={cr.spaceId} /> : null}
      <Discussion cr={cr} busy={busy} act={act} refreshKey={props.refreshKey} />
      {live && !cr.asOf ? <ReviewPanel cr={cr} busy={busy} act={act} onChanged={onChanged} refreshKey={props.refreshKey} /> : null}
    </li>
  )
}

export function ChangeRequestsScreen({ passes, offlineAsOf }: { passes: number; offlineAsOf?: string }) {
  const bridge = useBridge()
  const [mine, setMine] = useState(false)
  const [filter, setFilter] = useState<ChangeRequestFilter>('live')
  /** Counts Refresh clicks, so each card's reviewers are read again too. */
  const [refreshes, setRefreshes] = useState(0)
  const list = useLoad(() => bridge.listChangeRequests({ ...(mine ? { mine: true } : {}), status: filter }), [mine, filter, passes])
  const action = useAction()
  const asOf = list.data?.find((cr) => cr.asOf)?.asOf ?? offlineAsOf
  const inCard = action.last !== undefined && CARD_FEEDBACK.test(action.last)

  const act: typeof action.run = async (name, run, done) => {
    const ok = await action.run(name, run, done)
    // Only what changes a change request needs a new list; showing its changes does not.
    if (ok && !name.startsWith('changes:')) list.reload()
    return ok
  }

  return (
    <section aria-labelledby="cr-title">
      <div className="screen-head">
        <h1 id="cr-title" tabIndex={-1}>
          Change requests
        </h1>
        <div className="segmented" role="group" aria-label="Which status">
          {FILTERS.map((f) => (
            <button key={f.id} type="button" aria-pressed={filter === f.id} onClick={() => setFilter(f.id)}>
              {f.label}
            </button>
          ))}
        </div>
        <div className="segmented" role="group" aria-label="Whose change requests">
          <button type="button" aria-pressed={!mine} onClick={() => setMine(false)}>
            All in my spaces
          </button>
          <button type="button" aria-pressed={mine} onClick={() => setMine(true)}>
            Mine
          </button>
        </div>
        <button
          type="button"
          onClick={() => {
            setRefreshes((n) => n + 1)
            list.reload()
          }}
          disabled={list.loading}
        >
          {list.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <AsOfNotice asOf={asOf} />
      <ErrorNotice message={list.error ?? (inCard ? undefined : action.error)} />
      <DoneNotice message={inCard ? undefined : action.done} />
      {list.loading && !list.data ? <Loading what="change requests" /> : null}
      {list.data?.length === 0 ? (
        <p>
          {FILTERS.find((f) => f.id === filter)?.empty}
          {mine ? ' of yours' : ' in the spaces you sync'}.
        </p>
      ) : null}
      <ul className="cards">
        {list.data?.map((cr) => (
          <ChangeRequestCard
            key={cr.id}
            cr={cr}
            running={action.busy}
            feedback={inCard && action.last?.endsWith(`:${cr.id}`) ? { done: action.done, error: action.error } : undefined}
            act={act}
            onChanged={list.reload}
            refreshKey={`${passes}:${refreshes}`}
          />
        ))}
      </ul>
    </section>
  )
}
