import { useEffect, useRef, useState } from 'react'

type CopyOutcome = { ok: true; what: string } | { ok: false; what: string }

const COPIED_SHOWN_MS = 4_000

/** The reply marker a writer puts in a page to answer the thread from an editor (README: Comment markers). */
export function replyMarker(threadId: string): string {
  return `<!-- reply ${threadId}: your answer -->`
}

/**
 * Copies to the clipboard and says how it went: "Copied" for a while, or, when the browser or the desktop
 * refuses (no permission, no clipboard outside a secure page), that the text is there to select by hand
 * (the codes select whole on a click).
 */
function useCopy() {
  const [outcome, setOutcome] = useState<CopyOutcome>()
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])
  const copy = async (text: string, what: string) => {
    clearTimeout(timer.current)
    setOutcome(undefined)
    try {
      if (!navigator.clipboard) throw new Error('no clipboard here')
      await navigator.clipboard.writeText(text)
      setOutcome({ ok: true, what })
      timer.current = setTimeout(() => setOutcome(undefined), COPIED_SHOWN_MS)
    } catch {
      setOutcome({ ok: false, what })
    }
  }
  return { outcome, copy }
}

/**
 * A thread's id, as reply and resolve markers need it, and the reply marker itself, each with a button
 * that copies it. Threads waiting to be sent have no id yet, so nothing to show.
 */
export function ThreadReference({ id }: { id: string }) {
  const { outcome, copy } = useCopy()
  if (id.startsWith('pending-')) return null
  const marker = replyMarker(id)
  return (
    <div className="thread-reference small">
      <span className="thread-id" data-thread-id={id}>
        Thread <code>{id}</code>{' '}
        <button type="button" className="link-button" aria-label={`Copy the thread id ${id}`} onClick={() => void copy(id, 'the id')}>
          Copy
        </button>
      </span>
      <span className="reply-marker">
        {' '}
        · reply from your editor: <code>{marker}</code>{' '}
        <button type="button" className="link-button" aria-label={`Copy the reply marker for ${id}`} onClick={() => void copy(marker, 'the marker')}>
          Copy
        </button>
      </span>
      {outcome?.ok === false ? (
        <span className="copy-feedback copy-failed" role="alert">
          {' '}
          Could not copy: select {outcome.what} and copy it by hand.
        </span>
      ) : (
        <span className="copy-feedback" role="status">
          {outcome?.ok ? ` Copied ${outcome.what}.` : ''}
        </span>
      )}
    </div>
  )
}
