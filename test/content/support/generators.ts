/**
 * Random content for property tests: titles, page bodies full of GitBook
 * syntax, metadata, trees and valid change batches.
 */
import type { ContentChange, PageLayout, PageMetadata, RevisionTree, TreePage } from '../../../src/main/content'
import { flattenPages } from '../../../src/main/content'
import type { Random } from './random'

const WORDS = ['alpha', 'beta', 'Gamma', 'délta', 'ünïcode', '日本語', 'Ελληνικά', 'snake_case', 'a*b', 'x_y_z', '50%', 'C#', 'emoji🎉', 'tab\tin', '{% x %}', '`tick`', 'R&D', '&amp;', '<tag>', '[br]', '#hash', 'end.']

export function words(random: Random, min: number, max: number): string {
  return random.many(random.int(min, max), () => random.pick(WORDS)).join(' ')
}

export function title(random: Random): string {
  const raw = random.bool(0.9) ? words(random, 1, 5) : random.pick(['*Bold*', 'Ends with #', 'a  # b', '1. Numbered', '> quoted', '- dash', '---', '\\back\\slash', 'Title `code`', '[link](x.md)'])
  return raw.replace(/\s+/g, ' ').trim() || 'Untitled'
}

const BLOCKS: Array<(random: Random) => string> = [
  (r) => words(r, 3, 20),
  (r) => `## ${words(r, 1, 4)}`,
  (r) => r.many(r.int(1, 4), () => `* ${words(r, 1, 6)}`).join('\n'),
  (r) => r.many(r.int(1, 3), () => `1. ${words(r, 1, 4)}`).join('\n'),
  (r) => `{% hint style="${r.pick(['info', 'warning', 'danger', 'success'])}" %}\n${words(r, 2, 10)}\n{% endhint %}`,
  (r) => `{% tabs %}\n{% tab title="${words(r, 1, 2)}" %}\n${words(r, 1, 5)}\n{% endtab %}\n{% endtabs %}`,
  (r) => `{% code title="a.js" %}\n\`\`\`js\nconst x = ${r.int(0, 99)} * 2_000\n\`\`\`\n{% endcode %}`,
  (r) => `{% embed url="https://example.com/${r.int(0, 9)}" %}`,
  (r) => `{% content-ref url="page-${r.int(0, 9)}.md" %}\n[page-${r.int(0, 9)}.md](page-${r.int(0, 9)}.md)\n{% endcontent-ref %}`,
  (r) => `{% file src=".gitbook/assets/doc ${r.int(0, 9)}.pdf" %}`,
  () => `{% include "../.gitbook/includes/shared.md" %}`,
  (r) => `{% stepper %}\n{% step %}\n### Step\n\n${words(r, 1, 5)}\n{% endstep %}\n{% endstepper %}`,
  (r) => `{% columns %}\n{% column %}\n${words(r, 1, 5)}\n{% endcolumn %}\n{% endcolumns %}`,
  (r) => `<figure><img src="../.gitbook/assets/image (${r.int(1, 9)}).png" alt=""><figcaption><p>${words(r, 1, 3)}</p></figcaption></figure>`,
  (r) => `<details>\n\n<summary>${words(r, 1, 3)}</summary>\n\n${words(r, 2, 8)}\n\n</details>`,
  () => '$$\nx^2 + y_1\n$$',
  (r) => `![](<.gitbook/assets/image (${r.int(1, 9)}).png>)`,
  (r) => `> ${words(r, 2, 8)}`,
  (r) => `| a | b |\n| - | - |\n| ${words(r, 1, 1)} | ${r.int(0, 9)} |`,
  (r) => `Some _under_score_ and *star* and \\_escaped\\_ [link](other.md#anchor) ${words(r, 0, 3)}`,
  () => '***',
  (r) => `    indented code ${r.int(0, 9)}`,
]

export function body(random: Random): string {
  if (random.bool(0.1)) return ''
  const text = random.many(random.int(1, 6), () => random.pick(BLOCKS)(random)).join(random.pick(['\n\n', '\n\n\n']))
  return text.replace(/^(?:[ \t]*\n)+/, '').trimEnd()
}

export function metadata(random: Random): PageMetadata {
  const m: PageMetadata = {}
  if (random.bool(0.4)) m.description = random.bool(0.3) ? words(random, 12, 30) : words(random, 1, 6)
  if (random.bool(0.3)) m.icon = random.pick(['gear', 'book-open', 'rocket'])
  if (random.bool(0.1)) m.emoji = random.pick(['🎉', '📘', '1f600'])
  if (random.bool(0.2)) m.cover = random.pick(['.gitbook/assets/cover.png', 'https://example.com/c.jpg'])
  if (random.bool(0.2)) m.coverY = random.pick([0, -42, 17.5])
  if (random.bool(0.1)) m.coverHeight = random.int(10, 700)
  if (random.bool(0.2)) m.hidden = random.bool()
  if (random.bool(0.1)) m.noIndex = random.bool()
  if (random.bool(0.1)) m.noRobotsIndex = random.bool()
  if (random.bool(0.3)) m.layout = layout(random)
  if (random.bool(0.1)) m.metaLinks = { canonical: { kind: 'url', url: 'https://example.com/canonical' }, alternates: [{ kind: 'page', page: 'p1' }] }
  if (random.bool(0.1)) m.condition = 'visitor.claims.beta == true'
  if (random.bool(0.1)) m.variables = { version: String(random.int(1, 9)), name: words(random, 1, 2) }
  return m
}

function layout(random: Random): PageLayout {
  const l: PageLayout = {}
  if (random.bool()) l.width = random.pick(['default', 'wide'] as const)
  if (random.bool()) l.cover = random.bool()
  if (random.bool(0.3)) l.coverSize = random.pick(['hero', 'full'] as const)
  for (const key of ['title', 'description', 'tableOfContents', 'outline', 'pagination', 'metadata'] as const) if (random.bool(0.4)) l[key] = random.bool()
  if (Object.keys(l).length === 0) l.outline = false
  return l
}

/** A valid markdown page file as a writer would send it. */
export function pageMarkdown(random: Random): string {
  const fm = random.bool(0.3) ? `---\ndescription: ${words(random, 1, 4).replace(/[^\p{L}\p{N} ]/gu, '')}x\n---\n\n` : ''
  const heading = random.bool(0.9) ? `# ${title(random)}\n\n` : ''
  return `${fm}${heading}${body(random)}\n`
}

let counter = 0

/** Ids unique across the whole test run. */
export function idMaker(prefix = 'id'): () => string {
  return () => `${prefix}${(counter++).toString(36)}`
}

/** A random valid batch for `tree` (may reference pages it inserts itself by ref). */
export function changeBatch(random: Random, tree: RevisionTree): ContentChange[] {
  const changes: ContentChange[] = []
  const known = flattenPages(tree).map((page) => page.id)
  const refs: string[] = []
  const fileRefs: string[] = []
  const count = random.int(1, 8)
  for (let i = 0; i < count; i++) {
    const targets = [...known, ...refs]
    const kind = random.int(0, 11)
    if (kind <= 4 || targets.length === 0) {
      const ref = `ref${i}x${random.int(0, 1e6)}`
      const link = fileRefs.length > 0 && random.bool() ? `\n\n![diagram](./${random.pick(fileRefs)})` : ''
      const pageLink = refs.length > 0 && random.bool() ? `\n\nSee [earlier](./${random.pick(refs)}.md).` : ''
      changes.push({
        operation: 'insert_page',
        document: { markdown: pageMarkdown(random) + link + pageLink },
        ...(targets.length > 0 && random.bool() ? { into: random.pick(targets) } : {}),
        ...(random.bool(0.3) ? { title: title(random) } : {}),
        ...(random.bool(0.2) ? { hidden: true } : {}),
        ref,
      })
      refs.push(ref)
    } else if (kind <= 8) {
      const page = random.pick(targets)
      changes.push({
        operation: 'update_page',
        page,
        ...(random.bool(0.6) ? { document: { markdown: pageMarkdown(random) } } : {}),
        ...(random.bool(0.3) ? { title: title(random) } : {}),
        ...(random.bool(0.2) ? { description: random.bool() ? '' : words(random, 1, 4) } : {}),
        ...(random.bool(0.25) ? { into: null } : {}),
      })
    } else if (kind === 9) {
      const ref = `file${i}x${random.int(0, 1e6)}.png`
      changes.push({ operation: 'insert_files', files: [{ ref, name: random.pick(['image.png', 'Image.png', 'diagram.png', 'doc.pdf']), contentType: 'image/png', base64: Buffer.from(words(random, 1, 3)).toString('base64') }] })
      fileRefs.push(ref)
    } else {
      // Mostly leaves: deleting whole sections every time would keep trees tiny.
      const leaves = known.filter((id) => flattenPages(pagesIn(tree, id)).length === 1)
      const page = random.pick(leaves.length > 0 && random.bool(0.8) ? leaves : known.length > 0 ? known : targets)
      changes.push({ operation: 'delete_page', page })
      // Later changes must not touch the deleted subtree.
      const removed = new Set(flattenPages(pagesIn(tree, page)).map((p) => p.id))
      for (let k = known.length - 1; k >= 0; k--) if (removed.has(known[k])) known.splice(k, 1)
      refs.length = 0
    }
  }
  // A move under another page, last so that no later change depends on where
  // it lands; the target is never inside the moved page's subtree.
  if (known.length >= 2 && random.bool(0.4) && changes.length < 50) {
    const moved = random.pick(known)
    const inside = new Set(flattenPages(pagesIn(tree, moved)).map((p) => p.id))
    const targets = known.filter((id) => !inside.has(id))
    if (targets.length > 0) changes.push({ operation: 'update_page', page: moved, into: random.pick(targets), ...(random.bool() ? { at: 0 } : {}) })
  }
  return changes
}

function pagesIn(tree: RevisionTree, id: string): TreePage[] {
  const page = flattenPages(tree).find((p) => p.id === id)
  return page ? [page] : []
}

/** A random tree built by applying random batches to an empty one. */
export function emptyTree(): RevisionTree {
  return { pages: [], files: [] }
}
