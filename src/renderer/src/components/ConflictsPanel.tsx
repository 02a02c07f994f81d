import { useState } from 'react'
import type { ConflictComparison, ConflictEntry } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { useAction } from '../hooks'
import { DoneNotice, ErrorNotice } from './Notice'
import { TextDiff } from './TextDiff'
import { RelativeTime } from './Time'

const keyOf = (c: ConflictEntry) => `${c.spaceId}\n${c.copyPath}`

function ConflictItem({ conflict }: { conflict: ConflictEntry }) {
  const bridge = useBridge()
  const action = useAction()
  const [comparison, setComparison] = useState<ConflictComparison>()
  const [confirmTheirs, setConfirmTheirs] = useState(false)
  const page = conflict.pageTitle ?? conflict.path
  const ids = { spaceId: conflict.spaceId, copyPath: conflict.copyPath }
  const busy = action.busy !== undefined

  const open = (file: string | undefined, name: string) => void action.run(name, () => bridge.openLocalFile({ file: file! }), `Asked your editor to open ${name === 'open-copy' ? conflict.copyPath : conflict.path}.`)
  const compare = () =>
    void action.run('compare', async () => {
      if (comparison) return setComparison(undefined)
      setComparison(await bridge.compareConflict(ids))
    })
  const keep = (which: 'mine' | 'theirs') =>
    void action.run(`keep-${which}`, () => bridge.resolveConflict({ ...ids, keep: which }), which === 'mine' ? `Kept your version of ${page}: it is sent to your change request.` : `Kept main's version of ${page}; your copy was removed.`)

  return (
    <li className="card conflict" data-copy-path={conflict.copyPath}>
      <h3 className="conflict-title">
        {page}
        {conflict.spaceTitle ? <span className="muted small"> in {conflict.spaceTitle}</span> : null}
      </h3>
      <p className="small">
        You and someone else changed the same place. <code>{conflict.path}</code> now holds main's version (theirs); your version (mine) is kept in <code>{conflict.copyPath}</code>.
        {conflict.detectedAt ? (
          <span className="muted">
            {' '}
            Found <RelativeTime iso={conflict.detectedAt} />.
          </span>
        ) : null}
      </p>
      <div className="actions">
        <button type="button" disabled={busy || !conflict.file} onClick={() => open(conflict.file, 'open-file')}>
          Open the file
        </button>
        <button type="button" disabled={busy || !conflict.copyFile} onClick={() => open(conflict.copyFile, 'open-copy')}>
          Open your copy
        </button>
        <button type="button" aria-expanded={comparison !== undefined} disabled={busy} onClick={compare}>
          {action.busy === 'compare' ? 'Comparing…' : comparison ? 'Hide comparison' : 'Compare'}
        </button>
        <button type="button" className="primary" disabled={busy} onClick={() => keep('mine')}>
          {action.busy === 'keep-mine' ? 'Keeping mine…' : 'Keep mine'}
        </button>
        {confirmTheirs ? (
          <span className="confirm" role="group" aria-label="Confirm keep theirs">
            <span className="small">Your version in {conflict.copyPath} will be deleted.</span>
            <button type="button" disabled={busy} onClick={() => keep('theirs')}>
              {action.busy === 'keep-theirs' ? 'Keeping theirs…' : 'Delete my copy, keep theirs'}
            </button>
            <button type="button" disabled={busy} onClick={() => setConfirmTheirs(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" disabled={busy} onClick={() => setConfirmTheirs(true)}>
            Keep theirs
          </button>
        )}
      </div>
      <ErrorNotice message={action.error} />
      <DoneNotice message={action.done} />
      {comparison ? <TextDiff before={comparison.theirs} after={comparison.mine} beforeLabel={`Theirs: main's version (${comparison.path})`} afterLabel={`Mine: your version (${comparison.copyPath})`} /> : null}
    </li>
  )
}

/** The open conflicts of the selected spaces, each with what to do about it; gone once the copies are. */
export function ConflictsPanel({ conflicts }: { conflicts: ConflictEntry[] }) {
  if (conflicts.length === 0) return null
  return (
    <section className="conflicts" aria-labelledby="conflicts-title">
      <h2 id="conflicts-title" tabIndex={-1}>
        Conflicts to look at ({conflicts.length})
      </h2>
      <ul className="cards">
        {conflicts.map((c) => (
          <ConflictItem key={keyOf(c)} conflict={c} />
        ))}
      </ul>
    </section>
  )
}
