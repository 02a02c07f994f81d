/**
 * A line reader for the SUMMARY.md Git Sync writes (and most hand-written ones): `#` title, `## Group`
 * headings (with Git Sync's `<a href="#slug" id="slug"></a>` anchor), top-level `***` separators and
 * nested `* [Title](path.md "Link title")` or `* Title` items. It gives what `parseSummary`'s markdown
 * parse gives, at a small fraction of its cost (a 20,000-page SUMMARY.md took the full parser about a
 * second and hundreds of megabytes of syntax tree, on every plan), and undefined for any line it does
 * not know for certain how markdown reads (emphasis, escapes, entities, code, HTML, quotes, tables,
 * ordered lists, tabs, paragraphs...): the caller parses those with the full parser.
 * test/content/summary-lines.test.ts holds the two equal on the corpus and on generated odd cases.
 */
import type { SummaryEntry } from './summary'

/** Characters that may start markdown syntax in a line of text (each is let through below where it cannot). */
const SPECIAL = /[\\`*_[\]<&~@]/
/** GFM's autolink literals. */
const AUTOLINK = /www\.|:\/\//i
const ENTITY = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});/
const ESCAPABLE = /\\([!-/:-@[-`{-~])/g

/**
 * What markdown reads `text` (one line of inline content) as when that is plain text, or undefined when
 * it may be anything else. Let through: backslash escapes of punctuation, `&` that starts no entity, a
 * lone `*` or `~` (no pair, no emphasis or strike-through), `_` between letters or digits (GFM never
 * opens emphasis there), `<` before what starts no tag or autolink.
 */
function plainValue(text: string): string | undefined {
  if (!SPECIAL.test(text)) return AUTOLINK.test(text) ? undefined : text
  if (text.endsWith('\\') || AUTOLINK.test(text) || ENTITY.test(text) || /[`[\]@]/.test(text.replace(ESCAPABLE, ''))) return undefined
  const bare = text.replace(ESCAPABLE, '')
  if ((bare.match(/\*/g)?.length ?? 0) > 1 || (bare.match(/~/g)?.length ?? 0) > 1) return undefined
  if (/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/u.test(bare) || /<[A-Za-z/!?]/.test(bare)) return undefined
  // Escapes next to the delimiters let through would change their flanking: not taken.
  if (bare !== text && /[*_~]/.test(text)) return undefined
  return text.replace(ESCAPABLE, '$1')
}

/** A list item: indentation, bullet, 1-4 spaces, content. */
const ITEM = /^( *)([*+-])( {1,4})(\S.*)$/
/** `[label](destination)` or `[label](destination "title")`, then nothing but spaces. */
const LINK = /^\[([^\]]*)\]\((?:<([^<>\\&\n]*)>|([^\s()<>\\&[\]"']+))(?: +"([^"\\&]*)")?\) *$/
const HEADING = /^(#{2,6}) +(.*?)(?: +<a href="#([^"<>\s&\\]+)" id="([^"<>\s&\\]+)"><\/a>)? *$/
const TITLE = /^#(?: .*)?$/
const BREAK = /^(?:(?:\* *){3,}|(?:- *){3,}|(?:_ *){3,})$/

/** An item's content column and its entry. */
interface Open {
  column: number
  entry: SummaryEntry
}

/** SUMMARY.md's entries, or undefined when a line is not one this reader knows markdown's reading of. */
export function readSummaryLines(text: string): SummaryEntry[] | undefined {
  const entries: SummaryEntry[] = []
  let container = entries
  let open: Open[] = []
  // An item's content ends at a line the reader cannot place: only blank lines may follow one before the next item.
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (line.includes('\r')) return undefined
    if (line.trim() === '') {
      if (line.length > 0 && !/^ +$/.test(line)) return undefined
      continue
    }
    const item = ITEM.exec(line)
    if (item && !BREAK.test(line)) {
      const indent = item[1].length
      const column = indent + 1 + item[3].length
      while (open.length > 0 && indent < open[open.length - 1].column) open.pop()
      const parent = open[open.length - 1]
      // Four or more columns past where the item above's content starts: indented code, not a list.
      if (indent - (parent?.column ?? 0) >= 4) return undefined
      const entry = entryOf(item[4])
      if (!entry) return undefined
      ;(parent ? parent.entry.children : container).push(entry)
      open.push({ column, entry })
      continue
    }
    // Anything else starts at the margin; an indented line would continue an item (or be code).
    if (line.startsWith(' ')) return undefined
    open = []
    if (BREAK.test(line)) {
      container = entries
      continue
    }
    if (TITLE.test(line)) continue
    const heading = HEADING.exec(line)
    if (!heading) return undefined
    const title = heading[2] === '' || heading[2].endsWith('#') || heading[3] !== heading[4] ? undefined : plainValue(heading[2])
    if (title === undefined) return undefined
    const group: SummaryEntry = { kind: 'group', title: title.trim(), children: [], ...(heading[4] ? { slug: heading[4] } : {}) }
    entries.push(group)
    container = group.children
  }
  return entries
}

function entryOf(content: string): SummaryEntry | undefined {
  const link = LINK.exec(content)
  if (!link) {
    // `* Title`: text alone, starting with a letter (a digit and `.` would be an ordered list, `>` a quote...).
    const title = /^\p{L}/u.test(content) ? plainValue(content) : undefined
    return title === undefined ? undefined : { kind: 'page', title: title.trim(), children: [] }
  }
  const [, label, bracketed, bare, linkTitle] = link
  const value = label.trim() === '' ? undefined : plainValue(label)
  const url = bracketed ?? bare
  if (value === undefined || linkTitle === '') return undefined
  const title = value.trim()
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//')) return { kind: 'link', title, href: url, children: [] }
  if (url === '' || AUTOLINK.test(url)) return undefined
  return { kind: 'page', title, path: decodePath(url), children: [], ...(linkTitle ? { linkTitle } : {}) }
}

function decodePath(url: string): string {
  const path = url.replace(/^\.\//, '')
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}
