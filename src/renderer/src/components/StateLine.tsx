import { STATE_LABEL, WAY_OUT_LABEL, type StateWords, type WayOut } from '../../../shared/status-words'
import { StateBadge } from './StateBadge'

/**
 * A state in plain words with its way out: the header's line for the whole workspace and each space's
 * line in the list. The button is the one thing to do about it (Sign in again, Retry now, Resume…).
 */
export function StateLine({ words, onWayOut, busy, id }: { words: StateWords; onWayOut?: (way: WayOut) => void; busy?: boolean; id?: string }) {
  return (
    <span className={`state-line state-line-${words.kind}`} id={id} data-state={words.kind}>
      <StateBadge state={words.kind} />
      {/* "In sync", "Paused": the badge says it all; a longer headline ("Offline, last synced 4 min ago") follows it. */}
      {words.kind !== 'nothing-selected' && STATE_LABEL[words.kind] === words.headline ? null : (
        <span className="state-headline" title={words.headline}>
          {words.headline}
        </span>
      )}
      {words.detail ? (
        <span className="state-detail muted small" title={words.detail}>
          {words.detail}
        </span>
      ) : null}
      {words.wayOut && onWayOut ? (
        <button type="button" className="way-out" disabled={busy} onClick={() => onWayOut(words.wayOut!)}>
          {busy ? `${WAY_OUT_LABEL[words.wayOut]}…` : WAY_OUT_LABEL[words.wayOut]}
        </button>
      ) : null}
    </span>
  )
}
