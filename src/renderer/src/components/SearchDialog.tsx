import { useEffect, useRef, useState } from 'react'
import type { OpenedFile, SearchHit, SearchResults } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { errorText, saying, useAction } from '../hooks'

/** How long typing must pause before the query is asked: a search a key would be wasted work. */
const TYPING_PAUSE_MS = 150

/** Where a result is, in words: its space, and its file and line (or that the page is on the service). */
function placeOf(hit: SearchHit): string {
  const file = hit.path ? `${hit.path}${hit.line ? `:${hit.line}` : ''}` : 'on the service'
  return hit.spaceTitle ? `${hit.spaceTitle} · ${file}` : file
}

/**
 * The search box (Ctrl+K or Cmd+K, or the header's Search button) over every synced space: the files as
 * they are on this computer, unsent edits included, each result at its line; and, when the service
 * answers, the pages only its search found, marked Remote. A local result opens the file at its line in
 * the writer's editor; a remote one opens the page on the service. A modal <dialog>: Escape closes it
 * and focus returns where it was.
 */
export function SearchDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const bridge = useBridge()
  const dialog = useRef<HTMLDialogElement>(null)
  const list = useRef<HTMLUListElement>(null)
  const input = useRef<HTMLInputElement>(null)
  const [query, setQuery] = useState('')
  const [answer, setAnswer] = useState<SearchResults>()
  const [error, setError] = useState<string>()
  const [searching, setSearching] = useState(false)
  const action = useAction()

  useEffect(() => {
    const element = dialog.current
    if (!element) return
    if (open && !element.open) {
      element.showModal()
      // showModal focuses the first button (Close): the writer came to type.
      input.current?.focus()
    } else if (!open && element.open) element.close()
  }, [open])

  useEffect(() => {
    const asked = query.trim()
    if (!open || asked === '') {
      setAnswer(undefined)
      setError(undefined)
      return
    }
    let current = true
    const timer = setTimeout(() => {
      setSearching(true)
      bridge
        .searchWorkspace({ query })
        .then(
          (next) => current && (setAnswer(next), setError(undefined)),
          (e: unknown) => current && (setAnswer(undefined), setError(errorText(e))),
        )
        .finally(() => current && setSearching(false))
    }, TYPING_PAUSE_MS)
    return () => {
      current = false
      clearTimeout(timer)
    }
  }, [query, open, bridge])

  const openHit = (hit: SearchHit) => {
    if (hit.file) {
      const where = `${hit.path ?? hit.title}${hit.line ? ` at line ${hit.line}` : ''}`
      const inBrowser = bridge.inBrowser ? ' on the computer quire serve runs on' : ''
      return void action.run('open', saying(`Could not open ${where}`, () => bridge.openLocalFile({ file: hit.file!, ...(hit.line ? { line: hit.line } : {}) })), (opened) =>
        (opened as OpenedFile).editor ? `Opened ${where} in ${(opened as OpenedFile).editor}${inBrowser}.` : `Opened ${hit.path ?? hit.title} with the system's default application${inBrowser}.`,
      )
    }
    if (hit.url) void action.run('open', saying(`Could not open ${hit.title} on the service`, () => bridge.openExternal({ url: hit.url! })), `Opened ${hit.title} on the service in ${bridge.inBrowser ? 'a new tab' : 'your browser'}.`)
  }

  const results = answer?.results ?? []
  const local = results.filter((r) => r.source === 'local').length
  const summary = searching ? 'Searching…' : answer ? `${local} local result${local === 1 ? '' : 's'}${results.length > local ? `, ${results.length - local} remote` : ''}.` : ''

  return (
    <dialog ref={dialog} className="search-dialog" aria-labelledby="search-title" onClose={onClose}>
      <div className="search-head">
        <h2 id="search-title">Search every space</h2>
        <button type="button" className="link-button" onClick={onClose}>
          Close
        </button>
      </div>
      <input
        type="search"
        className="search-input"
        aria-label="Search words"
        aria-describedby="search-hint"
        maxLength={512}
        value={query}
        ref={input}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          // Down from the box goes to the first result, as in a menu.
          if (e.key === 'ArrowDown') {
            e.preventDefault()
            list.current?.querySelector<HTMLButtonElement>('button')?.focus()
          }
        }}
      />
      <p id="search-hint" className="hint">
        Your files as they are, unsent edits included. &quot;Two words&quot; for a phrase, word* for a prefix.
      </p>
      <p role="status" className="search-summary">
        {summary} {answer?.remote.note ?? ''}
      </p>
      {error ? (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      {results.length > 0 ? (
        <ul
          className="search-results"
          aria-label="Results"
          ref={list}
          onKeyDown={(e) => {
            if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return
            e.preventDefault()
            const buttons = [...(list.current?.querySelectorAll<HTMLButtonElement>('button') ?? [])]
            const at = buttons.indexOf(document.activeElement as HTMLButtonElement)
            buttons[Math.min(buttons.length - 1, Math.max(0, at + (e.key === 'ArrowDown' ? 1 : -1)))]?.focus()
          }}
        >
          {results.map((hit, index) => (
            <li key={`${hit.source}:${hit.spaceId}:${hit.path ?? hit.url ?? index}`}>
              <button type="button" className="search-result" onClick={() => openHit(hit)} disabled={!hit.file && !hit.url}>
                <span className={`badge ${hit.source === 'local' ? 'badge-ok' : 'state-syncing'}`}>{hit.source === 'local' ? 'Local' : 'Remote'}</span> <span className="search-title">{hit.title}</span>{' '}
                <span className="muted small">{placeOf(hit)}</span>
                <span className="search-snippet">{hit.snippet.map((part, i) => (part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {action.last === 'open' && (action.done || action.error) ? (
        <p className={`notice ${action.error ? 'notice-error' : 'notice-ok'}`} role={action.error ? 'alert' : 'status'}>
          {action.error ?? action.done}
        </p>
      ) : null}
    </dialog>
  )
}
