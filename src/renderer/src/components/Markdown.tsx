import type { Element, Text } from 'hast'
import { toJsxRuntime } from 'hast-util-to-jsx-runtime'
import type { Html, Parents } from 'mdast'
import { useMemo } from 'react'
import { Fragment, jsx, jsxs } from 'react/jsx-runtime'
import rehypeSanitize from 'rehype-sanitize'
import remarkGfm from 'remark-gfm'
import remarkParse from 'remark-parse'
import remarkRehype from 'remark-rehype'
import { unified } from 'unified'

/** Parents whose children are inline text: raw HTML inside them stays inline. */
const PHRASING_PARENTS = new Set(['paragraph', 'heading', 'emphasis', 'strong', 'delete', 'link', 'linkReference', 'tableCell'])

/**
 * Raw HTML in a comment is what the reviewer typed, shown as text: never an element (it could run), and
 * not dropped either (remark-rehype's default), which would silently lose words such as `<kbd>` from
 * the comment. A block of HTML becomes a paragraph of its text.
 */
function htmlAsText(_state: unknown, node: Html, parent: Parents | undefined): Text | Element {
  const text: Text = { type: 'text', value: node.value }
  if (parent && PHRASING_PARENTS.has(parent.type)) return text
  return { type: 'element', tagName: 'p', properties: {}, children: [text] }
}

/**
 * Comment markdown as elements: remark parses it, remark-rehype turns it into an HTML tree (raw HTML
 * becomes text: allowDangerousHtml is off and `htmlAsText` keeps it visible), rehype-sanitize keeps
 * GitHub's safe subset (a `javascript:` link loses its address), and the tree becomes React elements (no
 * innerHTML anywhere). Links open outside the app.
 */
const processor = unified().use(remarkParse).use(remarkGfm).use(remarkRehype, { handlers: { html: htmlAsText } }).use(rehypeSanitize)

export function Markdown({ text }: { text: string }) {
  const element = useMemo(() => {
    try {
      const tree = processor.runSync(processor.parse(text))
      return toJsxRuntime(tree, {
        Fragment,
        jsx,
        jsxs,
        components: { a: (props) => <a {...props} target="_blank" rel="noreferrer noopener" /> },
      })
    } catch {
      // A comment that cannot be parsed is shown as it was written.
      return <p>{text}</p>
    }
  }, [text])
  return <div className="comment-body markdown">{element}</div>
}
