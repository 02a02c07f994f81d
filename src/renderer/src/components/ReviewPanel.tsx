import { useState } from 'react'
import type { ChangeRequestSummary, ReviewerEntry, ReviewVerdict } from '../../../shared/contract'
import { useBridge } from '../bridge'
import type { Action } from '../hooks'
import { useLoad } from '../hooks'
import { MergeRules } from './MergeRules'
import { RelativeTime } from './Time'

const VERDICT_WORD: Record<ReviewVerdict, string> = { approved: 'Approved', 'changes-requested': 'Changes requested' }

/** What an action answered: sent, or waiting in the outbox (offline), in words. */
function answered(done: string) {
  return (result: unknown) => {
    const cr = result as ChangeRequestSummary
    if (cr.repeat === 'sent') return `${done}: already sent before, nothing sent again.`
    if (cr.repeat === 'queued' && cr.waiting) return `${done}: already waiting to be sent (${cr.waiting}); it goes out once.`
    return cr.waiting ? `${done}: waits to be sent (${cr.waiting}).` : `${done}.`
  }
}

/** The people asked to review, and each one's latest verdict (outdated when an edit came since). */
function Reviewers({ reviewers, canRemove, busy, remove }: { reviewers: ReviewerEntry[]; canRemove: boolean; busy: boolean; remove: (r: ReviewerEntry) => void }) {
  if (reviewers.length === 0) return <p className="muted small">No reviewer asked yet.</p>
  return (
    <ul className="reviewers" aria-label="Reviewers">
      {reviewers.map((r) => (
        <li key={r.userId} className="reviewer" data-reviewer={r.userId}>
          <strong>{r.name}</strong>{' '}
          {r.verdict ? (
            <span className={`badge ${r.verdict === 'approved' ? 'badge-ok' : 'badge-warn'}`}>
              {VERDICT_WORD[r.verdict]}
              {r.outdated ? ' (outdated: edited since)' : ''}
            </span>
          ) : (
            <span className="badge">Review requested</span>
          )}
          {r.reviewedAt ? (
            <span className="muted small">
              {' '}
              <RelativeTime iso={r.reviewedAt} />
            </span>
          ) : null}
          {canRemove && r.requested ? (
            <button type="button" className="link-button small" disabled={busy} onClick={() => remove(r)} aria-label={`Remove ${r.name} from the reviewers`}>
              Remove
            </button>
          ) : null}
          {r.comment ? <p className="small review-comment">{r.comment}</p> : null}
        </li>
      ))}
    </ul>
  )
}

/** Reviewers to ask: picked from the space's members who may review, else typed user ids. */
function ReviewerPicker({ spaceId, idPrefix, picked, setPicked, asked }: { spaceId: string; idPrefix: string; picked: string[]; setPicked: (ids: string[]) => void; asked: string[] }) {
  const bridge = useBridge()
  const candidates = useLoad(() => bridge.listReviewerCandidates({ spaceId }), [spaceId])
  if (candidates.loading && !candidates.data) return <p className="muted small">Loading who may review…</p>
  if (!candidates.data) {
    return (
      <>
        <label htmlFor={`${idPrefix}-ids`} className="small">
          Reviewers (user ids, comma separated)
        </label>
        <input id={`${idPrefix}-ids`} value={picked.join(', ')} onChange={(e) => setPicked(e.target.value.split(/[,\s]+/).filter(Boolean))} />
      </>
    )
  }
  // Those already asked are listed among the reviewers, with Remove.
  const open = candidates.data.filter((c) => !asked.includes(c.userId))
  if (open.length === 0) return <p className="muted small">{candidates.data.length === 0 ? 'Nobody else in this space may review.' : 'Everyone who may review is asked.'}</p>
  return (
    <fieldset className="reviewer-picker">
      <legend className="small">Ask for a review</legend>
      {open.map((c) => (
        <label key={c.userId} className="small">
          <input type="checkbox" checked={picked.includes(c.userId)} onChange={(e) => setPicked(e.target.checked ? [...picked, c.userId] : picked.filter((p) => p !== c.userId))} /> {c.name}{' '}
          <span className="muted">({c.role})</span>
        </label>
      ))}
    </fieldset>
  )
}

/**
 * The review of one change request, beside its diff: its reviewers and their verdicts; for the writer,
 * Submit for review (a draft) or Ask reviewers, and Archive; for anyone else, Approve or Request changes
 * with a comment. Every action goes through the outbox: offline it says it waits.
 */
export function ReviewPanel(props: {
  cr: Pick<ChangeRequestSummary, 'id' | 'spaceId' | 'spaceTitle' | 'number' | 'status' | 'mine'> & { updatedAt?: string }
  busy: boolean
  act: Action['run']
  onChanged?: () => void
  /** Changes when the screen refreshes (a pass ended, Refresh): the reviewers are read again. */
  refreshKey?: string | number
}) {
  const { cr, busy, act, onChanged } = props
  const bridge = useBridge()
  const ids = { spaceId: cr.spaceId, changeRequestId: cr.id }
  const reviewers = useLoad(() => bridge.listReviewers(ids), [cr.id, cr.status, cr.updatedAt, props.refreshKey])
  // Read with the reviewers: a review or an edit changes what the rules say.
  const rules = useLoad(() => bridge.changeRequestMergeCheck(ids), [cr.id, cr.status, cr.updatedAt, props.refreshKey, reviewers.data])
  const [description, setDescription] = useState('')
  const [picked, setPicked] = useState<string[]>([])
  const [comment, setComment] = useState('')
  const prefix = `review-${cr.id}`

  const run = async (name: string, action: () => Promise<unknown>, done: string) => {
    if (await act(`${name}:${cr.id}`, action, answered(done))) {
      reviewers.reload()
      onChanged?.()
      return true
    }
    return false
  }
  const submit = () =>
    void run('submit', () => bridge.submitForReview({ ...ids, ...(description.trim() ? { description } : {}), ...(picked.length ? { reviewers: picked } : {}) }), `Submitted #${cr.number} for review`).then((ok) => {
      if (!ok) return
      setPicked([])
      setDescription('')
    })
  const asked = (reviewers.data ?? []).filter((r) => r.requested).map((r) => r.userId)
  const ask = () => void run('ask', () => bridge.requestReviewers({ ...ids, users: picked }), `Asked for reviews on #${cr.number}`).then((ok) => ok && setPicked([]))
  const remove = (r: ReviewerEntry) => void run('remove', () => bridge.removeReviewer({ ...ids, userId: r.userId }), `Removed ${r.name} from the reviewers of #${cr.number}`)
  const review = (verdict: ReviewVerdict) =>
    void run('review', () => bridge.reviewChangeRequest({ ...ids, verdict, ...(comment.trim() ? { comment } : {}) }), `${verdict === 'approved' ? 'Approved' : 'Requested changes on'} #${cr.number}`).then(
      (ok) => ok && setComment(''),
    )
  const archive = () => void run('archive', () => bridge.archiveChangeRequest(ids), `Archived #${cr.number}`)

  return (
    <section className="review-panel" aria-label={`Review of #${cr.number} in ${cr.spaceTitle}`}>
      <h3 className="small">Review</h3>
      {reviewers.error ? <p className="muted small">Reviewers cannot be read now: {reviewers.error}</p> : null}
      {reviewers.data ? <Reviewers reviewers={reviewers.data} canRemove={cr.mine} busy={busy} remove={remove} /> : null}
      <h3 className="small">Merge rules</h3>
      {rules.error ? <p className="muted small">The merge rules cannot be read now: {rules.error}</p> : null}
      {rules.data ? <MergeRules check={rules.data} label={`Merge rules of #${cr.number} in ${cr.spaceTitle}`} /> : null}
      {cr.mine && cr.status === 'draft' ? (
        <div className="review-form">
          <label htmlFor={`${prefix}-description`} className="small">
            Description (optional)
          </label>
          <textarea id={`${prefix}-description`} rows={2} value={description} onChange={(e) => setDescription(e.target.value)} />
          <ReviewerPicker spaceId={cr.spaceId} idPrefix={prefix} picked={picked} setPicked={setPicked} asked={asked} />
          <div className="actions">
            <button type="button" className="primary" disabled={busy} onClick={submit}>
              Submit for review
            </button>
            <button type="button" disabled={busy} onClick={archive}>
              Archive
            </button>
          </div>
        </div>
      ) : null}
      {cr.mine && cr.status === 'open' ? (
        <div className="review-form">
          <ReviewerPicker spaceId={cr.spaceId} idPrefix={prefix} picked={picked} setPicked={setPicked} asked={asked} />
          <div className="actions">
            <button type="button" disabled={busy || picked.length === 0} onClick={ask}>
              Ask reviewers
            </button>
            <button type="button" disabled={busy} onClick={archive}>
              Archive
            </button>
          </div>
        </div>
      ) : null}
      {!cr.mine && cr.status === 'open' ? (
        <div className="review-form">
          <label htmlFor={`${prefix}-comment`} className="small">
            Review comment (optional)
          </label>
          <textarea id={`${prefix}-comment`} rows={2} value={comment} onChange={(e) => setComment(e.target.value)} />
          <div className="actions">
            <button type="button" className="primary" disabled={busy} onClick={() => review('approved')}>
              Approve
            </button>
            <button type="button" disabled={busy} onClick={() => review('changes-requested')}>
              Request changes
            </button>
          </div>
        </div>
      ) : null}
    </section>
  )
}
