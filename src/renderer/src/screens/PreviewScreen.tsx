import { useEffect, useState } from 'react'
import type { StatusSnapshot } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { ErrorNotice, Loading } from '../components/Notice'
import { PagePreview } from '../components/PagePreview'
import { useLoad } from '../hooks'

interface Shown {
  path: string
  anchor?: string
}

/**
 * Issue 28, a faithful preview: a page of a synced space as the service would show it, from its file as
 * saved. It follows each save (the watcher's `files` event reads it again); a link to another page opens
 * that page's preview, and Back returns.
 */
export function PreviewScreen({ status, passes }: { status: StatusSnapshot | undefined; passes: number }) {
  const bridge = useBridge()
  const spaces = (status?.spaces ?? []).filter((s) => s.folder)
  const [chosen, setChosen] = useState<string>()
  const spaceId = chosen && spaces.some((s) => s.id === chosen) ? chosen : spaces[0]?.id
  const [history, setHistory] = useState<Shown[]>([])
  const shown = history.at(-1)
  const [saves, setSaves] = useState(0)

  // Read again after each pass: a page the pass brought is in the list then.
  const pagesLoad = useLoad(async () => (spaceId ? { spaceId, list: await bridge.listPages({ spaceId }) } : undefined), [spaceId, passes])
  const pages = pagesLoad.data?.spaceId === spaceId ? pagesLoad.data.list.filter((p) => p.path) : undefined
  const path = shown?.path ?? pages?.[0]?.path
  const preview = useLoad(async () => (spaceId && path ? { key: `${spaceId}/${path}`, preview: await bridge.previewPage({ spaceId, path }) } : undefined), [spaceId, path, saves])
  const current = preview.data?.key === `${spaceId}/${path}` ? preview.data.preview : undefined

  // A save of the page (or of an image it may show) reads it again.
  useEffect(
    () =>
      bridge.onEvent((event) => {
        if (event.type !== 'files' || event.spaceId !== spaceId) return
        if (event.paths.some((p) => p === path || p.startsWith('.gitbook/assets/'))) setSaves((n) => n + 1)
      }),
    [bridge, spaceId, path],
  )

  // An anchor asked for by a link: scrolled to once its page is shown.
  useEffect(() => {
    if (current && shown?.anchor) document.getElementById(`user-content-${shown.anchor}`)?.scrollIntoView({ block: 'start' })
  }, [current, shown?.anchor])

  const open = (next: string, anchor?: string) => setHistory((list) => [...list, { path: next, ...(anchor ? { anchor } : {}) }])

  return (
    <section aria-labelledby="preview-title">
      <h1 id="preview-title" tabIndex={-1}>
        Preview
      </h1>
      {spaces.length === 0 ? (
        <p>Pick a space to sync first: a page is previewed from its file in the space folder.</p>
      ) : (
        <>
          <div className="inline-form">
            <label htmlFor="preview-space">Space</label>
            <select
              id="preview-space"
              value={spaceId}
              onChange={(e) => {
                setChosen(e.target.value)
                setHistory([])
              }}
            >
              {spaces.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.title}
                </option>
              ))}
            </select>
          </div>
          <div className="preview-layout">
            <nav aria-label="Pages">
              {pages === undefined ? (
                <Loading what="pages" />
              ) : (
                <ul className="preview-pages">
                  {pages.map((p) => (
                    <li key={p.id}>
                      <button type="button" aria-current={p.path === path ? 'page' : undefined} onClick={() => setHistory([{ path: p.path! }])} style={{ paddingLeft: `${0.4 + (p.depth ?? 0) * 0.9}rem` }}>
                        {p.title}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </nav>
            <div>
              <p className="small muted" role="status">
                {history.length > 1 ? (
                  <button type="button" className="link-button" onClick={() => setHistory((list) => list.slice(0, -1))}>
                    Back
                  </button>
                ) : null}{' '}
                {path ? (
                  <>
                    <code>{path}</code> as saved: the preview follows each save.
                  </>
                ) : null}
              </p>
              <ErrorNotice message={preview.error} />
              {current ? <PagePreview tree={current.tree} onOpenPage={open} label={`Preview of ${current.title ?? current.path}`} /> : preview.loading ? <Loading what="the preview" /> : null}
            </div>
          </div>
        </>
      )}
    </section>
  )
}
