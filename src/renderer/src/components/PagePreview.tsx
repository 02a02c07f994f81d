import type { Element, Root } from 'hast'
import { toJsxRuntime, type Components } from 'hast-util-to-jsx-runtime'
import { createContext, useContext, useId, useMemo, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react'
import { Fragment, jsx, jsxs } from 'react/jsx-runtime'
import type { PreviewNode, PreviewRoot } from '../../../shared/contract'
import './preview.css'

/**
 * A page as the service shows it. The engine made the tree and sanitized it (engine/preview); here it
 * becomes React elements (never innerHTML), with the few things a page does: tabs switch, a link to a
 * page of the space opens that page's preview, an in-page anchor scrolls, an outside link opens in the
 * browser (nothing remote loads in the preview itself).
 */

interface PreviewActions {
  /** Opens another page's preview; absent: page links are shown, not followed. */
  onOpenPage?: (path: string, anchor?: string) => void
  /** Keeps ids apart when two previews share a screen (a change request's two sides). */
  idPrefix: string
}

const Actions = createContext<PreviewActions>({ idPrefix: '' })

function renderTree(root: Root, components: Partial<Components>): ReactNode {
  return toJsxRuntime(root, { Fragment, jsx, jsxs, components, passNode: true })
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

function PreviewLink(props: { node?: Element; href?: string; className?: string; title?: string; children?: ReactNode }) {
  const actions = useContext(Actions)
  const { node, href, children, className, title } = props
  const page = str(node?.properties.dataPreviewPath)
  const anchor = str(node?.properties.dataPreviewAnchor)
  if (page) {
    if (!actions.onOpenPage) return <span className={`gb-page-link ${className ?? ''}`} title={page}>{children}</span>
    const open = (event: MouseEvent) => {
      event.preventDefault()
      actions.onOpenPage?.(page, anchor)
    }
    return (
      <a href="#" className={className} onClick={open} data-preview-path={page} title={`Preview ${page}`}>
        {children}
      </a>
    )
  }
  if (href?.startsWith('#')) {
    const scroll = (event: MouseEvent) => {
      event.preventDefault()
      const id = href.slice(1).replace(/^(user-content-)?/, 'user-content-')
      document.getElementById(`${actions.idPrefix}${id}`)?.scrollIntoView({ block: 'start' })
    }
    return (
      <a href={href} className={className} onClick={scroll}>
        {children}
      </a>
    )
  }
  if (href) {
    return (
      <a href={href} className={className} title={title} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    )
  }
  return (
    <a className={className} title={title}>
      {children}
    </a>
  )
}

/** GitBook's tabs: a tab list (arrow keys move between tabs) over one panel shown at a time. */
function Tabs({ node, components }: { node: Element; components: Partial<Components> }) {
  const id = useId()
  const [selected, setSelected] = useState(0)
  const tabs = node.children.filter((c): c is Element => c.type === 'element')
  const move = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0
    if (step === 0) return
    event.preventDefault()
    const next = (selected + step + tabs.length) % tabs.length
    setSelected(next)
    document.getElementById(`${id}-tab-${next}`)?.focus()
  }
  return (
    <div className="gb-tabs">
      <div role="tablist" className="gb-tablist" onKeyDown={move}>
        {tabs.map((tab, i) => (
          <button
            key={i}
            type="button"
            role="tab"
            id={`${id}-tab-${i}`}
            aria-selected={i === selected}
            aria-controls={`${id}-panel-${i}`}
            tabIndex={i === selected ? 0 : -1}
            onClick={() => setSelected(i)}
          >
            {str(tab.properties.dataTitle) ?? `Tab ${i + 1}`}
          </button>
        ))}
      </div>
      {tabs.map((tab, i) => (
        <div key={i} role="tabpanel" id={`${id}-panel-${i}`} aria-labelledby={`${id}-tab-${i}`} hidden={i !== selected} className="gb-tab">
          {renderTree({ type: 'root', children: tab.children }, components)}
        </div>
      ))}
    </div>
  )
}

/** Ids made distinct per preview (the sanitizer's `user-content-` ones). */
function prefixIds(nodes: PreviewNode[], prefix: string): PreviewNode[] {
  if (!prefix) return nodes
  return nodes.map((n) =>
    n.type === 'element' ? { ...n, properties: typeof n.properties.id === 'string' ? { ...n.properties, id: `${prefix}${n.properties.id}` } : n.properties, children: prefixIds(n.children, prefix) } : n,
  )
}

export function PagePreview({ tree, onOpenPage, idPrefix = '', label }: { tree: PreviewRoot; onOpenPage?: PreviewActions['onOpenPage']; idPrefix?: string; label: string }) {
  const element = useMemo(() => {
    const components: Partial<Components> = {
      a: PreviewLink as Components['a'],
      div: (props) => {
        const { node, ...rest } = props as { node?: Element } & Record<string, unknown>
        if (node && Array.isArray(node.properties.className) && node.properties.className.includes('gb-tabs')) return <Tabs node={node} components={components} />
        return <div {...(rest as object)} />
      },
    }
    return renderTree({ type: 'root', children: prefixIds(tree.children, idPrefix) } as Root, components)
  }, [tree, idPrefix])
  return (
    <Actions.Provider value={{ onOpenPage, idPrefix }}>
      <article className="page-preview" aria-label={label}>
        {element}
      </article>
    </Actions.Provider>
  )
}
