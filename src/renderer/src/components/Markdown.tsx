import { toJsxRuntime } from 'hast-util-to-jsx-runtime'
import { useMemo } from 'react'
import { Fragment, jsx, jsxs } from 'react/jsx-runtime'
import rehypeSanitize from 'rehype-sanitize'
import remarkGfm from 'remark-gfm'
import remarkParse from 'remark-parse'
import remarkRehype from 'remark-rehype'
import { unified } from 'unified'

/**
 * Comment markdown as elements: remark parses it, remark-rehype turns it into an HTML tree (raw HTML in
 * the comment stays text: allowDangerousHtml is off), rehype-sanitize keeps GitHub's safe subset, and
 * the tree becomes React elements (no innerHTML anywhere). Links open outside the app.
 */
const processor = unified().use(remarkParse).use(remarkGfm).use(remarkRehype).use(rehypeSanitize)

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
