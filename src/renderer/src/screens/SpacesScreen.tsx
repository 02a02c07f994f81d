import type { CollectionNode, OrganizationNode, SelectionTarget, SpaceNode, StatusSnapshot } from '../../../shared/contract'
import { spaceWords, type StateWords, type WayOut } from '../../../shared/status-words'
import { useBridge } from '../bridge'
import { ConflictsPanel } from '../components/ConflictsPanel'
import { DoneNotice, ErrorNotice, Loading } from '../components/Notice'
import { StateLine } from '../components/StateLine'
import { RelativeTime, useNow } from '../components/Time'
import { useAction, useLoad } from '../hooks'

interface TreeProps {
  live: Map<string, SpaceNode>
  toggle: (target: SelectionTarget) => void
  busy: boolean
  onWayOut: (way: WayOut) => void
}

const withoutResume = (words: StateWords): StateWords => (words.wayOut === 'resume' ? { ...words, wayOut: undefined } : words)

function SpaceRow({ space, inherited, live, toggle, busy, onWayOut }: TreeProps & { space: SpaceNode; inherited: boolean }) {
  const now = useNow()
  // The live status (events) is newer than the tree when it has the space.
  const current = live.get(space.id) ?? space
  const id = `space-${space.id}`
  const checked = inherited || space.selected
  return (
    <li className="space-row" data-space-id={space.id}>
      <div className="row-head">
        <input
          type="checkbox"
          id={id}
          checked={checked}
          disabled={busy || inherited}
          onChange={(e) => toggle({ kind: 'space', id: space.id, selected: e.target.checked })}
          aria-describedby={`${id}-state`}
        />
        <label htmlFor={id}>
          {space.emoji ? <span aria-hidden="true">{space.emoji} </span> : null}
          {space.title}
        </label>
        {inherited ? <span className="muted small">(included)</span> : null}
      </div>
      {checked ? (
        <div className="space-meta" id={`${id}-state`}>
          {/* Pausing is the whole app's: its one Resume is in the header, not one per space. */}
          <StateLine words={withoutResume(spaceWords(current, now))} onWayOut={onWayOut} />
          <span>Revision {current.revision ? <code>{current.revision.slice(0, 10)}</code> : '—'}</span>
          {current.pageCount !== undefined ? <span>{current.pageCount} pages</span> : null}
          <span>
            Last sync: <RelativeTime iso={current.lastSyncAt} fallback="not yet" />
          </span>
          {current.progress !== undefined ? (
            <span className="progress-wrap">
              <progress max={1} value={current.progress} aria-label={`Syncing ${space.title}`} />
              <span aria-hidden="true">{Math.round(current.progress * 100)}%</span>
            </span>
          ) : null}
          {current.folder ? <span className="muted small">{current.folder}</span> : null}
        </div>
      ) : (
        <div className="space-meta muted small" id={`${id}-state`}>
          Not synced
        </div>
      )}
    </li>
  )
}

function CollectionBranch({ collection, inherited, ...props }: TreeProps & { collection: CollectionNode; inherited: boolean }) {
  const id = `collection-${collection.id}`
  const checked = inherited || collection.selected
  return (
    <li className="collection">
      <div className="row-head">
        <input
          type="checkbox"
          id={id}
          checked={checked}
          disabled={props.busy || inherited}
          onChange={(e) => props.toggle({ kind: 'collection', id: collection.id, selected: e.target.checked })}
        />
        <label htmlFor={id} className="strong">
          {collection.title}
        </label>
        <span className="muted small">collection</span>
      </div>
      <ul>
        {collection.collections.map((c) => (
          <CollectionBranch key={c.id} collection={c} inherited={checked} {...props} />
        ))}
        {collection.spaces.map((s) => (
          <SpaceRow key={s.id} space={s} inherited={checked} {...props} />
        ))}
      </ul>
    </li>
  )
}

function OrganizationTree({ org, ...props }: TreeProps & { org: OrganizationNode }) {
  const id = `org-${org.id}`
  return (
    <section className="card org" aria-labelledby={`${id}-label`}>
      <div className="row-head">
        <input type="checkbox" id={id} checked={org.selected} disabled={props.busy} onChange={(e) => props.toggle({ kind: 'organization', id: org.id, selected: e.target.checked })} />
        <label htmlFor={id} id={`${id}-label`} className="org-title">
          {org.title}
        </label>
        <span className="muted small">organization: everything in it</span>
      </div>
      <ul>
        {org.collections.map((c) => (
          <CollectionBranch key={c.id} collection={c} inherited={org.selected} {...props} />
        ))}
        {org.spaces.map((s) => (
          <SpaceRow key={s.id} space={s} inherited={org.selected} {...props} />
        ))}
      </ul>
    </section>
  )
}

export function SpacesScreen({ status, onWayOut }: { status: StatusSnapshot | undefined; onWayOut: (way: WayOut) => void }) {
  const bridge = useBridge()
  const tree = useLoad(() => bridge.listSpaces(), [])
  const action = useAction()
  const live = new Map((status?.spaces ?? []).map((s) => [s.id, s]))

  const toggle = (target: SelectionTarget) => {
    void action.run(
      'select',
      async () => {
        await bridge.setSelection(target)
        tree.reload()
      },
      target.selected ? 'Selected: the first sync starts now.' : 'No longer synced; the folder stays on disk.',
    )
  }

  return (
    <section aria-labelledby="spaces-title">
      <div className="screen-head">
        <h1 id="spaces-title" tabIndex={-1}>
          Spaces
        </h1>
        <button type="button" onClick={tree.reload} disabled={tree.loading}>
          Refresh
        </button>
      </div>
      <p className="muted">Pick what to sync. A checked organization or collection includes every space in it, new ones too.</p>
      <ErrorNotice message={tree.error ?? action.error} />
      <DoneNotice message={action.done} />
      <ConflictsPanel conflicts={status?.conflicts ?? []} />
      {tree.loading && !tree.data ? <Loading what="spaces" /> : null}
      {tree.data?.length === 0 ? <p>No organizations are visible to this account.</p> : null}
      {tree.data?.map((org) => <OrganizationTree key={org.id} org={org} live={live} toggle={toggle} busy={action.busy !== undefined} onWayOut={onWayOut} />)}
    </section>
  )
}
