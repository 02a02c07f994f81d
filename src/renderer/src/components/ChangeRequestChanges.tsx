import { useEffect, useState } from 'react'
import type { ChangeRequestChanges, ChangeRequestPageChange } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { useLoad, type Action } from '../hooks'
import { ErrorNotice, Loading } from './Notice'
import { PagePreview } from './PagePreview'
import { TextDiff } from './TextDiff'

const CHANGE_WORD = { added: 'New page', edited: 'Edited', removed: 'Removed', moved: 'Moved' } as const
const FILE_WORD = { added: 'New file', edited: 'Replaced file', removed: 'Removed file' } as const

/** How often an open diff asks whether the change request has a new revision (one light request when it has not). */
const LIVE_MS = 4_000

/** "2 pages changed, 1 moved, 1 file added": every kind of change the change request makes, counted. */
export function changeCount(changes: ChangeRequestChanges): string {
  const n = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`
  const moved = changes.pages.filter((p) => p.change === 'moved' || p.fromPath).length
  const parts = [
    n(changes.pages.length, 'page') + ' changed',
    ...(moved > 0 ? [`${moved} moved or renamed`] : []),
    ...(changes.files.length > 0 ? [n(changes.files.length, 'file') + ' changed'] : []),
    ...(changes.summary ? ['the table of contents changed'] : []),
  ]
  return parts.join(', ')
}

/**
 * A change request's changes while shown: Show changes reads them, and while they are shown they follow
 * the change request (a new revision, seen in the list or asked every few seconds, reads them again), so
 * a reviewer looking at a diff sees the writer's new edits arrive.
 */
export function useChanges(ids: { spaceId: string; changeRequestId: string }, act: Action['run'], revision?: string) {
  const bridge = useBridge()
  const [changes, setChanges] = useState<ChangeRequestChanges>()
  const shown = changes !== undefined
  const key = `${ids.spaceId}/${ids.changeRequestId}`
  useEffect(() => {
    if (!shown) return
    let live = true
    const read = () =>
      bridge.changeRequestChanges(ids).then(
        (next) => {
          if (!live) return
          // Hidden meanwhile stays hidden; the same revision and count keep what is shown (and its open pages).
          setChanges((prev) => (prev && (prev.revision !== next.revision || prev.comments !== next.comments || prev.asOf !== next.asOf) ? next : prev))
        },
        () => undefined, // a failed look leaves the diff as shown; the next one tries again
      )
    if (revision && changes?.revision && revision !== changes.revision) void read()
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void read()
    }, LIVE_MS)
    return () => {
      live = false
      clearInterval(timer)
    }
    // The ids are followed by their key; `changes` is read here, not followed.
  }, [shown, key, revision, bridge])
  const toggle = () =>
    void act(`changes:${ids.changeRequestId}`, async () => {
      if (changes) return setChanges(undefined)
      setChanges(await bridge.changeRequestChanges(ids))
    })
  return { changes, setChanges, toggle }
}

function FrontMatter({ page }: { page: ChangeRequestPageChange }) {
  if (!page.frontMatter?.length) return null
  return (
    <table className="cr-front-matter small">
      <caption>Front matter of {page.title}</caption>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">On main</th>
          <th scope="col">In this change request</th>
        </tr>
      </thead>
      <tbody>
        {page.frontMatter.map((f) => (
          <tr key={f.key}>
            <th scope="row">
              <code>{f.key}</code>
            </th>
            <td>{f.before === undefined ? <span className="muted">(not set)</span> : <del>{f.before}</del>}</td>
            <td>{f.after === undefined ? <span className="muted">(removed)</span> : <ins>{f.after}</ins>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** A changed page previewed on main and in the change request, side by side (issue 28): each side rendered as the service shows it. */
function SidePreviews({ spaceId, page }: { spaceId: string; page: ChangeRequestPageChange }) {
  const bridge = useBridge()
  const side = (markdown: string, path: string | undefined) => (markdown.trim() && path?.endsWith('.md') ? bridge.previewPage({ spaceId, path, markdown }) : Promise.resolve(undefined))
  const load = useLoad(() => Promise.all([side(page.before, page.fromPath ?? page.path), side(page.after, page.path)]), [spaceId, page.pageId, page.before, page.after])
  if (load.error) return <ErrorNotice message={`The preview cannot be shown: ${load.error}`} />
  if (!load.data) return <Loading what="the preview" />
  const [before, after] = load.data
  return (
    <div className="preview-sides" role="group" aria-label={`${page.title}: on main and in this change request, previewed side by side`}>
      <section>
        <h3>On main</h3>
        {before ? <PagePreview tree={before.tree} idPrefix={`main-${page.pageId}-`} label={`${page.title} on main`} /> : <p className="muted small">Not on main: a new page.</p>}
      </section>
      <section>
        <h3>In this change request</h3>
        {after ? <PagePreview tree={after.tree} idPrefix={`cr-${page.pageId}-`} label={`${page.title} in this change request`} /> : <p className="muted small">Removed by this change request.</p>}
      </section>
    </div>
  )
}

/** The pages a change request changes (each with a word-level diff of main's text and its own, renames as old → new), its front matter, files and table of contents. */
export function Changes({ changes, spaceId }: { changes: ChangeRequestChanges; spaceId?: string }) {
  const [previewed, setPreviewed] = useState<ReadonlySet<string>>(new Set())
  const togglePreview = (pageId: string) =>
    setPreviewed((set) => {
      const next = new Set(set)
      if (!next.delete(pageId)) next.add(pageId)
      return next
    })
  const asOf = changes.asOf ? (
    <p className="notice notice-warn small" role="status">
      Offline: these changes as last read <time dateTime={changes.asOf}>{new Date(changes.asOf).toLocaleString()}</time>.
    </p>
  ) : null
  if (changes.pages.length === 0 && changes.files.length === 0 && !changes.summary)
    return (
      <>
        {asOf}
        <p className="muted small">This change request changes no page and no file.</p>
      </>
    )
  return (
    <div className="cr-changes">
      {asOf}
      <p className="small">
        {changeCount(changes)} · {changes.comments} open comment{changes.comments === 1 ? '' : 's'}
      </p>
      {changes.pages.map((page) => (
        <details key={page.pageId} className="cr-page" open={changes.pages.length <= 3 && page.change !== 'moved'}>
          <summary>
            <span className="badge">{CHANGE_WORD[page.change]}</span> {page.title}{' '}
            {page.fromPath ? (
              <>
                <code>{page.fromPath}</code> → <code>{page.path}</code>
              </>
            ) : page.path ? (
              <code>{page.path}</code>
            ) : null}
            {page.frontMatter?.length ? <span className="badge">Front matter</span> : null}
          </summary>
          <FrontMatter page={page} />
          {spaceId && page.change !== 'moved' && (page.path ?? page.fromPath)?.endsWith('.md') ? (
            <button type="button" className="link-button small" aria-pressed={previewed.has(page.pageId)} onClick={() => togglePreview(page.pageId)}>
              Preview side by side
            </button>
          ) : null}
          {page.change === 'moved' ? (
            <p className="small muted">Same text, at a new place.</p>
          ) : spaceId && previewed.has(page.pageId) ? (
            <SidePreviews spaceId={spaceId} page={page} />
          ) : (
            <TextDiff before={page.before} after={page.after} beforeLabel="On main" afterLabel="In this change request" />
          )}
        </details>
      ))}
      {changes.summary ? (
        <details className="cr-page cr-summary" open={changes.pages.length <= 3}>
          <summary>
            <span className="badge">Table of contents</span> Order and titles <code>SUMMARY.md</code>
          </summary>
          <TextDiff before={changes.summary.before} after={changes.summary.after} beforeLabel="On main" afterLabel="In this change request" by="lines" />
        </details>
      ) : null}
      {changes.files.length > 0 ? (
        <ul className="cr-files" aria-label="Files changed">
          {changes.files.map((file) => (
            <li key={file.id} className="small">
              <span className="badge">{FILE_WORD[file.change]}</span> {file.name} {file.path ? <code>{file.path}</code> : null} {file.contentType ? <span className="muted">({file.contentType})</span> : null}
              {file.preview ? <img className="cr-preview" src={file.preview} alt={`Preview of ${file.name}`} /> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
