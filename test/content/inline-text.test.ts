/**
 * The fast path of escapeInlineText (issue 16): a title that needs no parse to be known as its own
 * markdown is returned as is. Whenever the fast path applies, its answer must be the parse's, for the
 * constructs titles are written into (a page's H1, a SUMMARY.md link label and group heading).
 */
import type { Nodes } from 'mdast'
import { describe, expect, it } from 'vitest'
import { escapeInlineText, escapeInlineTextByParse, headingText, readsBackAsIs } from '../../src/main/content/markdown/inline-text'
import { normalizeTitle } from '../../src/main/content/markdown/page-head'
import { plainText, visitNodes } from '../../src/main/content/markdown/syntax-tree'
import { Random } from './support/random'

type Wrap = [string, (text: string) => string, (root: Nodes) => string | undefined]

/** The wraps and readings of the callers: titleSource (page-head.ts), labelSource and headingSource (summary.ts). */
const WRAPS: Wrap[] = [
  [
    'page H1',
    (text) => `# ${text}`,
    (root) => {
      const text = headingText(root, 1)
      return text === undefined ? undefined : normalizeTitle(text)
    },
  ],
  [
    'summary link label',
    (text) => `* [${text}](x)`,
    (root) => {
      let label: string | undefined
      visitNodes(root, (node) => {
        if (label === undefined && node.type === 'link') label = plainText(node)
      })
      return label
    },
  ],
  [
    'summary group heading',
    (text) => `## ${text}`,
    (root) => {
      const heading = 'children' in root ? root.children[0] : undefined
      return heading?.type === 'heading' ? plainText(heading).trim() : undefined
    },
  ],
]

const ASCII_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'.split('')
const PIECES = [
  ...'abcXYZ019'.split(''),
  ' ',
  ' ',
  ...ASCII_PUNCTUATION,
  // Inert punctuation more often, so the fast path is taken with punctuation in it.
  ...'.,:;?!\'"()/%=+-@'.split(''),
  ...'.,:;?!\'"()/%=+-@'.split(''),
  '\t',
  '\n',
  '\r\n',
  '\u00a0',
  '\u0000',
  '\u2028',
  'é',
  '中文',
  '😀',
  // Things GFM or CommonMark read specially with inert characters alone.
  'www.',
  'http://',
  'https://a.b/',
  'a@b.co',
  'mailto:',
  '1.',
  '1)',
  '- ',
  '+ ',
  '---',
  '===',
  ' #',
  '&amp;',
  '&#35;',
  '<a>',
  '**',
  '__',
  '~~',
  '[x]',
  '![x](y)',
  '\\',
]

function randomTitle(random: Random): string {
  if (random.bool()) return random.many(random.int(0, 12), () => random.pick(PIECES)).join('')
  // A few letters around one punctuation character, often repeated: `_a_`, `a  #`, `&a;`, `<a>`.
  const mark = random.pick(ASCII_PUNCTUATION)
  const inert = random.pick('.,:;?!\'"()/%=+-@'.split(''))
  return random.many(random.int(1, 8), () => random.pick(['a', 'b', ' ', mark, mark, mark, inert])).join('')
}

const CASES = Number(process.env.CONTENT_CASES ?? 1500)

describe('escapeInlineText: the fast path for plain titles', () => {
  it('answers as the parse does whenever it applies, for every construct titles go into', () => {
    let fast = 0
    let fastWithPunctuation = 0
    let escaped = 0
    for (let seed = 1; seed <= CASES; seed++) {
      const title = randomTitle(new Random(seed))
      const applies = readsBackAsIs(title)
      for (const [name, wrap, readBack] of WRAPS) {
        const slow = escapeInlineTextByParse(title, wrap, readBack)
        if (slow !== title) escaped++
        if (!applies) continue
        expect(slow, `seed ${seed}, ${name}: ${JSON.stringify(title)}`).toBe(title)
        expect(escapeInlineText(title, wrap, readBack)).toBe(slow)
      }
      if (applies) {
        fast++
        if (/[!-/:-@[-`{-~]/.test(title)) fastWithPunctuation++
      }
    }
    // The generator must reach both sides: titles the fast path takes (with punctuation in them), and
    // titles the parse escapes (so a too-wide fast path would be caught).
    expect(fastWithPunctuation, `${fast} of ${CASES} took the fast path`).toBeGreaterThan(CASES / 20)
    expect(escaped).toBeGreaterThan(CASES / 4)
  }, 120_000)

  it('takes common titles without a parse, and leaves markdown-looking ones to it', () => {
    for (const title of ['Getting started', 'Accounts overview 1.2.3', 'FAQ: billing (EU), taxes & VAT'.replace(' & ', ' and '), "What's new?", 'Setup - macOS/Linux', 'Café 中文 😀']) {
      expect(readsBackAsIs(title), title).toBe(true)
    }
    for (const title of ['*bold*', 'a_b_', 'x `y`', '[link]', 'a & b', '<tag>', 'C#', 'a | b', '~x~', 'trailing. ', ' leading.', 'tab.\t', 'line.\nbreak', 'back\\slash']) {
      expect(readsBackAsIs(title), title).toBe(false)
    }
  })
})
