/**
 * Random page files as people and Git Sync write them, not as Quire would: front matter with keys
 * Quire does not model (in any order, with comments and blank lines), descriptions on one line or
 * folded, blank lines before and after the H1 and at the end, an H1 with escaped and unescaped
 * punctuation and trailing spaces (or no H1 at all), GitBook blocks, CRLF line ends, a byte order mark.
 */
import { body, words } from './generators'
import type { Random } from './random'

const FRONT_MATTER_ENTRIES: Array<{ key: string; make: (r: Random) => string }> = [
  { key: 'description', make: (r) => `description: ${words(r, 1, 25).replace(/[#:&*!|>'"%@`{}[\],?-]/g, '').replace(/\s+/g, ' ').trim() || 'plain'}` },
  { key: 'description', make: (r) => `description: >-\n  ${words(r, 3, 8).replace(/[#:]/g, '')}\n  ${words(r, 1, 6).replace(/[#:]/g, '')}` },
  { key: 'description', make: (r) => `description: '${words(r, 1, 6).replace(/'/g, "''")}'` },
  { key: 'description', make: (r) => `description: "A ${r.int(1, 99)}: quoted one"` },
  { key: 'icon', make: (r) => `icon: ${r.pick(['gear', 'book-open', 'rocket'])}` },
  { key: 'hidden', make: (r) => `hidden: ${r.pick(['true', 'false'])}` },
  { key: 'cover', make: () => 'cover: .gitbook/assets/cover.png' },
  { key: 'coverY', make: (r) => `coverY: ${r.pick(['0', '-42', '17.5'])}` },
  { key: 'layout', make: (r) => `layout:\n  width: ${r.pick(['wide', 'default'])}\n  title:\n    visible: ${r.pick(['true', 'false'])}` },
  { key: 'tags', make: (r) => (r.bool() ? 'tags:\n  - alpha\n  - beta' : 'tags: [alpha, beta]') },
  { key: 'metadata', make: (r) => `metadata:\n  owner: docs-team\n  reviewed: ${r.int(2020, 2026)}-01-0${r.int(1, 9)}` },
  { key: 'name', make: (r) => `name: ${r.pick(['gitbook-agent', 'Some Name', 'x_y'])}` },
  { key: 'x-custom', make: (r) => `x-custom: ${r.int(0, 999)}` },
  { key: 'title', make: (r) => `title: ${r.pick(['Front title', 'Shared snippet'])}` },
]

const TITLES = ['LOAD\\_NAME', '$\\_GET\\["a"\\]', 'snake_case words', 'C# and F#', '\\*not bold\\*', '*bold* start', 'a \\# b', 'R&D', '&amp; entity', 'with `code`', '50% off', 'Ends with \\#', '1\\. Numbered', 'Über café']

function frontMatter(random: Random): string {
  const chosen = new Map<string, string>()
  for (let i = random.int(1, 5); i > 0; i--) {
    const entry = random.pick(FRONT_MATTER_ENTRIES)
    if (!chosen.has(entry.key)) chosen.set(entry.key, entry.make(random))
  }
  const lines = [...chosen.values()].map((text) => (random.bool(0.1) ? `${random.pick(['# a comment', ''])}\n${text}` : text))
  return `---\n${lines.join('\n')}\n---\n`
}

function heading(random: Random): string {
  const text = random.bool(0.6) ? random.pick(TITLES) : `${random.pick(TITLES)} ${words(random, 1, 3).replace(/[#\\`*_[\]<&]/g, '')}`.trim()
  if (random.bool(0.05)) return `${text}\n${'='.repeat(random.int(3, 12))}`
  return `# ${text}${random.pick(['', '', ' ', '  ', ' #'])}`
}

export function pageFile(random: Random): string {
  let text = ''
  if (random.bool(0.6)) text += frontMatter(random) + random.pick(['', '\n', '\n', '\n\n'])
  else text += random.pick(['', '', '', '\n'])
  if (random.bool(0.8)) text += heading(random) + random.pick(['\n', '\n\n', '\n\n', '\n\n\n', '\n\n\n\n'])
  const written = body(random)
  // A file of blank lines is an empty document, not a page file: it is written back as the page's title.
  text += written === '' && text.trim() === '' ? 'Some text.' : written
  text += random.pick(['\n', '\n', '', '\n\n', '\n\n\n', '  \n'])
  if (random.bool(0.2)) text = text.replace(/\n/g, '\r\n')
  if (random.bool(0.03)) text = `\uFEFF${text}`
  return text
}
