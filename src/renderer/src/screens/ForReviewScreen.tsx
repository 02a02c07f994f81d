import type { ForReviewItem } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { Changes, useChanges } from '../components/ChangeRequestChanges'
import { AsOfNotice, DoneNotice, ErrorNotice, Loading } from '../components/Notice'
import { Discussion } from '../components/Discussion'
import { ReviewPanel } from '../components/ReviewPanel'
import { RelativeTime } from '../components/Time'
import { useAction, useLoad, type Action } from '../hooks'

const VERDICT_WORD = { approved: 'approved', 'changes-requested': 'requested changes' } as const

function ForReviewCard({ item, busy, act, onChanged }: { item: ForReviewItem; busy: boolean; act: Action['run']; onChanged: () => void }) {
  const { changes, toggle: showChanges } = useChanges({ spaceId: item.spaceId, changeRequestId: item.id }, act)
  return (
    <li className="card cr" data-cr-id={item.id}>
      <div className="cr-head">
        <h2 className="cr-subject">
          <span className="muted">
            {item.spaceTitle} #{item.number}
          </span>{' '}
          {item.subject || 'Untitled change request'}
        </h2>
        <span className={`badge status-${item.status}`}>{item.status}</span>
      </div>
      <p className="muted small">
        {item.spaceTitle} · by {item.author} · updated <RelativeTime iso={item.updatedAt} />
      </p>
      <p className="small">{item.requestedBy ? `${item.requestedBy} asks for your review.` : 'Your review is asked for.'}</p>
      {item.myReview ? (
        <p className="small">
          You {VERDICT_WORD[item.myReview.verdict]} <RelativeTime iso={item.myReview.reviewedAt} />; it was edited since, so it waits for your review again.
        </p>
      ) : null}
      <div className="actions">
        <button type="button" aria-expanded={changes !== undefined} disabled={busy} onClick={showChanges}>
          {changes ? 'Hide changes' : 'Show changes'}
        </button>
      </div>
      {changes ? <Changes changes={changes} spaceId={item.spaceId} /> : null}
      <Discussion cr={{ id: item.id, spaceId: item.spaceId, spaceTitle: item.spaceTitle, number: item.number, status: item.status, updatedAt: item.updatedAt }} busy={busy} act={act} />
      <ReviewPanel cr={{ id: item.id, spaceId: item.spaceId, spaceTitle: item.spaceTitle, number: item.number, status: item.status, mine: false }} busy={busy} act={act} onChanged={onChanged} />
    </li>
  )
}

/** What waits for the user's review, across organizations: change requests that asked for them and that they have not reviewed since the last edit. */
export function ForReviewScreen({ passes, count }: { passes: number; count?: number }) {
  const bridge = useBridge()
  // The count (the status's) moves when a review or a merge settles one, here or anywhere in the app: read again.
  const list = useLoad(() => bridge.listForReview(), [passes, count])
  const action = useAction()
  return (
    <section aria-labelledby="for-review-title">
      <div className="screen-head">
        <h1 id="for-review-title" tabIndex={-1}>
          For review
        </h1>
        <button type="button" onClick={list.reload} disabled={list.loading}>
          {list.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <AsOfNotice asOf={list.data?.asOf} />
      <ErrorNotice message={list.error ?? action.error} />
      <DoneNotice message={action.done} />
      {list.loading && !list.data ? <Loading what="what waits for your review" /> : null}
      {list.data?.items.length === 0 ? <p>Nothing waits for your review.</p> : null}
      <ul className="cards">
        {list.data?.items.map((item) => (
          <ForReviewCard key={item.id} item={item} busy={action.busy !== undefined} act={action.run} onChanged={list.reload} />
        ))}
      </ul>
    </section>
  )
}
