export function ErrorNotice({ message }: { message: string | undefined }) {
  if (!message) return null
  return (
    <p className="notice notice-error" role="alert">
      {message}
    </p>
  )
}

/** What an action did: announced politely, gone after a few seconds. */
export function DoneNotice({ message }: { message: string | undefined }) {
  return (
    <p className={message ? 'notice notice-ok' : 'sr-only'} role="status">
      {message ?? ''}
    </p>
  )
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  )
}

/** Data read from the cache because the service could not be reached, and when it was last seen. */
export function AsOfNotice({ asOf }: { asOf: string | undefined }) {
  if (!asOf) return null
  const when = new Date(asOf)
  return (
    <p className="notice notice-warn" role="status">
      Offline: shown as of <time dateTime={asOf}>{Number.isNaN(when.getTime()) ? asOf : when.toLocaleString()}</time>, from what Quire last fetched. Actions wait and are sent when the service is back.
    </p>
  )
}

/** An action's outcome beside the button that started it (a notice at the top of a long list would be out of sight). */
export function ActionFeedback({ done, error }: { done: string | undefined; error: string | undefined }) {
  if (error) {
    return (
      <p className="notice notice-error small action-feedback" role="alert">
        {error}
      </p>
    )
  }
  return (
    <p className={done ? 'notice notice-ok small action-feedback' : 'sr-only'} role="status">
      {done ?? ''}
    </p>
  )
}

/**
 * An action's outcome over the screen's bottom corner, where it is seen however far the list was scrolled
 * (the button that started it may be anywhere in a long list). A failure stays until dismissed.
 */
export function Toast({ done, error, onDismiss }: { done: string | undefined; error: string | undefined; onDismiss: () => void }) {
  const message = error ?? done
  return (
    <div className={message ? `notice toast-fixed ${error ? 'notice-error' : 'notice-ok'}` : 'sr-only'} role={error ? 'alert' : 'status'}>
      {message ?? ''}
      {message ? (
        <>
          {' '}
          <button type="button" className="link-button" onClick={onDismiss}>
            Dismiss
          </button>
        </>
      ) : null}
    </div>
  )
}
