/**
 * Text normalisation for search: case and accents do not matter ("Café" finds "cafe"), words are
 * runs of letters and digits in any script.
 */

const WORD = /[\p{L}\p{N}]+/gu

/** Lower case without combining marks; may change the text's length (see `foldWithOffsets`). */
export function foldText(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()
}

export function tokenize(text: string): string[] {
  return foldText(text).match(WORD) ?? []
}

/** Term -> number of occurrences. */
export function termFrequencies(text: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const term of tokenize(text)) counts.set(term, (counts.get(term) ?? 0) + 1)
  return counts
}

/** Folded text plus, for each of its characters, the offset of the original character it came from. */
function foldWithOffsets(text: string): { folded: string; offsets: number[] } {
  let folded = ''
  const offsets: number[] = []
  let offset = 0
  for (const char of text) {
    const piece = foldText(char)
    folded += piece
    for (let i = 0; i < piece.length; i++) offsets.push(offset)
    offset += char.length
  }
  return { folded, offsets }
}

/**
 * An excerpt of `text` of about `size` characters around the first word starting with one of
 * `terms` (folded); the start of the text when none is found. Cuts fall on spaces and are marked `…`.
 */
export function excerpt(text: string, terms: Iterable<string>, size = 200): string {
  if (text.length <= size) return text
  const { folded, offsets } = foldWithOffsets(text)
  let hit = -1
  for (const term of terms) {
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(term)}`, 'u')
    const found = pattern.exec(folded)
    if (found && (hit === -1 || offsets[found.index] < hit)) hit = offsets[found.index]
  }
  let start = hit <= 0 ? 0 : Math.max(0, hit - Math.floor(size / 4))
  if (start > 0) {
    const space = text.indexOf(' ', start)
    start = space === -1 || space >= hit ? start : space + 1
  }
  let end = Math.min(text.length, start + size)
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end)
    if (space > Math.max(start, hit)) end = space
  }
  return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? '…' : ''}`
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
