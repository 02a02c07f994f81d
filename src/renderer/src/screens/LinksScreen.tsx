import type { BrokenLink, OpenedFile } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { AsOfNotice, DoneNotice, ErrorNotice, Loading, Toast } from '../components/Notice'
import { saying, useAction, useLoad } from '../hooks'

/** The file's whole path inside its space folder, with the line: `integrations/git-sync/troubleshooting.md:7`. */
function fileLabel(link: BrokenLink): string {
  if (!link.file) return ''
  const name = link.path ?? link.file
  return link.line ? `${name}:${link.line}` : name
}

/**
 * What a click on a broken link did, in words: which editor opened the file (at the line), or that the
 * system's default application did (without the line). In a browser tab of `quire serve`, the file
 * opened on the computer quire serve runs on, which may not be the one showing this tab: it says so.
 */
export function openedWords(link: BrokenLink, opened: OpenedFile | undefined, inBrowser: boolean): string {
  const where = inBrowser ? ' on the computer quire serve runs on' : ''
  if (opened?.editor) return `Opened ${fileLabel(link)} in ${opened.editor}${where}.`
  return `Opened ${fileLabel(link)} with the system's default application${where}${link.line ? ` (it is not told the line: the link is on line ${link.line})` : ''}.`
}

export function LinksScreen({ passes, offlineAsOf }: { passes: number; offlineAsOf?: string }) {
  const bridge = useBridge()
  const links = useLoad(() => bridge.listBrokenLinks(), [passes])
  const action = useAction()

  /** Opening a link's file tells how it went in a toast: the link may be far down the report. */
  const opening = action.last === 'open'
  const groups = new Map<string, { space: string; page: string; links: BrokenLink[] }>()
  for (const link of links.data ?? []) {
    const key = `${link.spaceId}\u0000${link.pageId ?? link.pageTitle}`
    const group = groups.get(key) ?? { space: link.spaceTitle, page: link.pageTitle, links: [] }
    group.links.push(link)
    groups.set(key, group)
  }

  return (
    <section aria-labelledby="links-title">
      <div className="screen-head">
        <h1 id="links-title" tabIndex={-1}>
          Link report
        </h1>
        <button type="button" onClick={links.reload} disabled={links.loading}>
          {links.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <p className="muted">Broken links in the spaces you sync, by page: the service's report and the check of your local files. Choose one to open its file at the line in your editor.</p>
      <AsOfNotice asOf={offlineAsOf} />
      <ErrorNotice message={links.error ?? (opening ? undefined : action.error)} />
      <DoneNotice message={opening ? undefined : action.done} />
      {links.loading && !links.data ? <Loading what="the link report" /> : null}
      {links.data?.length === 0 ? <p>No broken links. Well done.</p> : null}
      {[...groups.entries()].map(([key, group]) => (
        <section key={key} className="card page-group" aria-label={`Broken links on ${group.page}`}>
          <h2>
            {group.page} <span className="muted small">in {group.space}</span>
          </h2>
          <ul className="link-list">
            {group.links.map((link, index) => (
              <li key={`${link.target}-${link.line ?? index}`}>
                {link.file ? (
                  <button type="button" className="link-button" onClick={() => void action.run('open', saying(`Could not open ${fileLabel(link)}`, () => bridge.openLocalFile({ file: link.file!, ...(link.line ? { line: link.line } : {}) })), (opened) => openedWords(link, opened as OpenedFile, bridge.inBrowser === true))}>
                    <code>{link.target}</code> <span className="muted">in {fileLabel(link)}</span>
                    {link.source === 'local' ? <span className="muted small"> (local edit, not sent yet{link.reason ? `: ${link.reason}` : ''})</span> : null}
                  </button>
                ) : (
                  <span>
                    <code>{link.target}</code> <span className="muted">(not synced to a local file yet)</span>
                  </span>
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
      <Toast done={opening ? action.done : undefined} error={opening ? action.error : undefined} onDismiss={action.clear} />
    </section>
  )
}
