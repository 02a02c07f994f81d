import { useState } from 'react'
import type { ChangeRequestSummary } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { ErrorNotice, Loading } from '../components/Notice'
import { formatTime, useAction, useLoad } from '../hooks'

type Scope = 'mine' | 'all'

export function ChangeRequestsScreen({ passes }: { passes: number }) {
  const bridge = useBridge()
  const [scope, setScope] = useState<Scope>('all')
  const list = useLoad(() => bridge.listChangeRequests(scope === 'mine' ? { mine: true } : {}), [scope, passes])
  const action = useAction()
  const [message, setMessage] = useState<string>()

  const act = (name: string, cr: ChangeRequestSummary, run: () => Promise<string | undefined>) =>
    void action.run(`${name}:${cr.id}`, async () => {
      setMessage(undefined)
      const done = await run()
      if (done) setMessage(done)
      list.reload()
    })

  const ids = (cr: ChangeRequestSummary) => ({ spaceId: cr.spaceId, changeRequestId: cr.id })

  const openInBrowser = async (url: string | undefined) => {
    if (url) await bridge.openExternal({ url })
    return undefined
  }

  return (
    <section aria-labelledby="cr-title">
      <div className="screen-head">
        <h1 id="cr-title" tabIndex={-1}>
          Change requests
        </h1>
        <div className="segmented" role="group" aria-label="Which change requests">
          <button type="button" aria-pressed={scope === 'all'} onClick={() => setScope('all')}>
            All in my spaces
          </button>
          <button type="button" aria-pressed={scope === 'mine'} onClick={() => setScope('mine')}>
            Mine
          </button>
        </div>
        <button type="button" onClick={list.reload} disabled={list.loading}>
          Refresh
        </button>
      </div>
      <ErrorNotice message={list.error ?? action.error} />
      {message ? (
        <p className="notice notice-ok" role="status">
          {message}
        </p>
      ) : null}
      {list.loading && !list.data ? <Loading what="change requests" /> : null}
      {list.data?.length === 0 ? <p>No open change requests{scope === 'mine' ? ' of yours' : ' in the spaces you sync'}.</p> : null}
      <ul className="cards">
        {list.data?.map((cr) => (
          <li key={cr.id} className="card cr" data-cr-id={cr.id}>
            <div className="cr-head">
              <h2 className="cr-subject">
                <span className="muted">#{cr.number}</span> {cr.subject || 'Untitled change request'}
              </h2>
              <span className={`badge status-${cr.status}`}>{cr.status}</span>
              {cr.outdated ? <span className="badge badge-warn">Outdated</span> : null}
              {cr.mine ? <span className="badge">Mine</span> : null}
            </div>
            <p className="muted small">
              {cr.spaceTitle} · by {cr.createdBy} · updated {formatTime(cr.updatedAt)}
            </p>
            <div className="actions">
              <button
                type="button"
                disabled={action.busy !== undefined}
                onClick={() =>
                  act('update', cr, async () => {
                    const next = await bridge.updateChangeRequest(ids(cr))
                    return next.outdated ? `#${cr.number} still differs from main: it has conflicts to resolve.` : `#${cr.number} is up to date with main.`
                  })
                }
              >
                Update from main
              </button>
              {cr.canMerge ? (
                <button
                  type="button"
                  className="primary"
                  disabled={action.busy !== undefined}
                  onClick={() =>
                    act('merge', cr, async () => {
                      await bridge.mergeChangeRequest(ids(cr))
                      return `Merged #${cr.number}.`
                    })
                  }
                >
                  Merge
                </button>
              ) : null}
              <button
                type="button"
                disabled={action.busy !== undefined}
                onClick={() =>
                  act('pdf', cr, async () => {
                    const { url } = await bridge.changeRequestPdf(ids(cr))
                    await bridge.openExternal({ url })
                    return undefined
                  })
                }
              >
                PDF
              </button>
              {cr.appUrl ? (
                <button type="button" disabled={action.busy !== undefined} onClick={() => act('open', cr, () => openInBrowser(cr.appUrl))}>
                  Open in browser
                </button>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
    </section>
  )
}
