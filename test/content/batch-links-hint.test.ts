/**
 * Link rewriting of large pages (issue 16) keeps its answers: the batch-link hint scans a text once
 * (instead of a regex over a slice per `./`) and says what the plain definition says, and a rewrite's
 * links carry the same kind, line and column as extractLinks gives, worked out only when read.
 */
import { describe, expect, it } from 'vitest'
import { extractLinks, rewriteLinks, type MarkdownLink } from '../../src/main/content/markdown/links'
import { batchLinkHint } from '../../src/main/content/revision/batch-links'
import { Random } from './support/random'

/** The hint's definition: a `./` not preceded by `.`, followed within 256 characters by `\` or `&`, or by a ref. */
function hintByDefinition(refs: string[], text: string): boolean {
  if (text.includes('/pages/') || text.includes('/files/')) return true
  if (refs.length === 0) return false
  for (let at = text.indexOf('./'); at !== -1; at = text.indexOf('./', at + 2)) {
    if (text[at - 1] === '.') continue
    const after = text.slice(at + 2, at + 258)
    if (/[\\&]/.test(after) || refs.some((ref) => after.startsWith(ref))) return true
  }
  return false
}

const PIECES = ['./', '../', '.', '/', '\\', '&', 'new-page', 'new', 'img.png', 'a', ' ', '\n', '/pages/', '/files', 'files/']

describe('batch link hint', () => {
  it('says what its definition says, on random texts', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const random = new Random(seed)
      // Fillers of any length, so escapes land on both sides of the 256-character window.
      const text = random.many(random.int(0, 40), () => (random.bool(0.15) ? 'x'.repeat(random.int(0, 260)) : random.pick(PIECES))).join('')
      const refs = random.pick([[], ['new-page'], ['new-page', 'img.png']])
      expect(batchLinkHint(refs)(text), `seed ${seed}: ${JSON.stringify(text)} ${JSON.stringify(refs)}`).toBe(hintByDefinition(refs, text))
    }
  })
})

describe('rewriteLinks', () => {
  it('hands replace the links extractLinks finds, kind, line and column included', () => {
    const body = ['# T', 'See [a](./a.md) and ![i](.gitbook/assets/i.png).', '', '{% content-ref url="b.md" %}\n[b](b.md)\n{% endcontent-ref %}', '', '<https://x.y/z> and [anchor](#here)'].join('\n')
    const seen: MarkdownLink[] = []
    rewriteLinks(body, (link) => {
      seen.push({ kind: link.kind, target: link.target, line: link.line, column: link.column, start: link.start, end: link.end, syntax: link.syntax })
      return undefined
    })
    expect(seen).toEqual(extractLinks(body))
    expect(seen.length).toBe(6)
  })
})
