/**
 * Splits markdown into runs of top-level blocks that remark parses the same
 * way alone as inside the whole text, so a large body can be parsed piece by
 * piece: remark's cost per character is high (several seconds per megabyte on
 * a busy machine), so a large page must be parseable in parts that can be
 * skipped, cached, or interleaved with other work.
 *
 * A boundary is a blank line followed by a line that starts in column 0. After
 * a blank line such a line always starts a new top-level block (no lazy
 * continuation, no list item or block quote continues without indentation),
 * except inside a fenced code block or an HTML block of CommonMark types 1-5,
 * which run across blank lines. Those are tracked when they open in column 0.
 * An opener that is indented or inside a container (`>`, a list item) could
 * be top-level or not depending on the containers around it, which only a full
 * parse knows: such a text is not split at all.
 */

const BLANK = /^[ \t]*$/
const FENCE = /^(`{3,}|~{3,})(.*)$/
/** Fence or HTML type 1-5 opener after some indentation or container markers. */
const NESTED_OPENER = /^(?:[ \t]|>|[-+*][ \t]|\d{1,9}[.)][ \t])[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)*(?:`{3,}|~{3,}|<(?:script|pre|style|textarea)(?:[\s>]|$)|<!--|<\?|<![A-Za-z]|<!\[CDATA\[)/i
const HTML_OPENERS: Array<[RegExp, RegExp]> = [
  [/^<(?:script|pre|style|textarea)(?:[\s>]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^<!--/, /-->/],
  [/^<\?/, /\?>/],
  [/^<![A-Za-z]/, />/],
  [/^<!\[CDATA\[/, /\]\]>/],
]

/** Where a top-level region that runs across blank lines ends, while one is open. */
type Open = { fence: string } | { htmlEnd: RegExp } | undefined

/**
 * Half-open ranges covering `text` in order, each a run of whole top-level
 * blocks of about `target` characters (a single block may be larger). One
 * range when the text cannot be split safely.
 */
export function topLevelChunks(text: string, target: number): Array<[number, number]> {
  if (text.length <= target) return [[0, text.length]]
  const starts: number[] = [0]
  let open: Open
  let previousBlank = false
  let lineStart = 0
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart)
    const lineEnd = newline === -1 ? text.length : newline
    const line = text.slice(lineStart, lineEnd).replace(/\r$/, '')
    if (open && 'fence' in open) {
      const fence = FENCE.exec(line.replace(/^ {1,3}/, ''))
      if (fence && fence[1][0] === open.fence[0] && fence[1].length >= open.fence.length && BLANK.test(fence[2])) open = undefined
    } else if (open) {
      if (open.htmlEnd.test(line)) open = undefined
    } else if (BLANK.test(line)) {
      previousBlank = true
    } else {
      if (NESTED_OPENER.test(line)) return [[0, text.length]]
      if (previousBlank && lineStart > starts[starts.length - 1] && !/^[ \t]/.test(line)) starts.push(lineStart)
      previousBlank = false
      open = opener(line)
    }
    if (open) previousBlank = false
    lineStart = lineEnd + 1
  }
  return group(starts, text.length, target)
}

function opener(line: string): Open {
  const fence = FENCE.exec(line)
  // A backtick fence's info string may not contain a backtick (that line is inline code instead).
  if (fence && !(fence[1][0] === '`' && fence[2].includes('`'))) return { fence: fence[1] }
  for (const [start, end] of HTML_OPENERS) {
    if (start.test(line)) return end.test(line.slice(1)) ? undefined : { htmlEnd: end }
  }
  return undefined
}

function group(starts: number[], length: number, target: number): Array<[number, number]> {
  const out: Array<[number, number]> = []
  let from = 0
  for (let i = 1; i < starts.length; i++) {
    if (starts[i] - from >= target) {
      out.push([from, starts[i]])
      from = starts[i]
    }
  }
  out.push([from, length])
  return out
}
