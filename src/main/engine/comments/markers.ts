/**
 * Comment markers: what a writer types in a page, in any editor, to talk to reviewers.
 *
 *   <!-- comment: Is this still true for v2? -->      a new comment on the page
 *   <!-- reply 4fX9aQ: Yes, checked on v2.3 -->        a reply to the thread with id 4fX9aQ
 *   <!-- resolve 4fX9aQ -->                            resolves that thread
 *
 * Markers are never page content: they are cut out of what is sent, posted once, then removed from
 * the file. Markers inside fenced code blocks or inline code are examples, not markers.
 */
import { commentKey, replyKey, resolveKey } from '../outbox/action-keys'

export type MarkerKind = 'comment' | 'reply' | 'resolve'

export interface Marker {
  kind: MarkerKind
  /** The thread a reply or resolve addresses. */
  commentId?: string
  /** Comment or reply text (markdown), trimmed; empty for resolve. */
  text: string
  /** Exact source of the marker, for removal. */
  source: string
  start: number
  end: number
}

// One HTML comment; the body may span lines but never contains `-->`.
const HTML_COMMENT = /<!--([\s\S]*?)-->/g
const COMMENT_BODY = /^\s*comment\s*:\s*([\s\S]*?)\s*$/i
const REPLY_BODY = /^\s*reply\s+([A-Za-z0-9_-]{1,128})\s*:\s*([\s\S]*?)\s*$/i
const RESOLVE_BODY = /^\s*resolve\s+([A-Za-z0-9_-]{1,128})\s*$/i

/** Ranges of fenced code blocks and inline code spans, where markers are only text. */
function codeRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = []
  const fence = /^( {0,3})(`{3,}|~{3,})[^\n]*$/gm
  let open: { char: string; length: number; start: number } | undefined
  for (let m = fence.exec(text); m; m = fence.exec(text)) {
    const marks = m[2]
    if (!open) open = { char: marks[0], length: marks.length, start: m.index }
    else if (marks[0] === open.char && marks.length >= open.length && m[0].trim() === marks) {
      ranges.push([open.start, m.index + m[0].length])
      open = undefined
    }
  }
  if (open) ranges.push([open.start, text.length])
  const inline = /(`+)[^`\n][\s\S]*?\1/g
  for (let m = inline.exec(text); m; m = inline.exec(text)) {
    const at = m.index
    if (!ranges.some(([s, e]) => at >= s && at < e)) ranges.push([at, at + m[0].length])
  }
  return ranges
}

export function findMarkers(text: string): Marker[] {
  if (!text.includes('<!--')) return []
  const code = codeRanges(text)
  const markers: Marker[] = []
  HTML_COMMENT.lastIndex = 0
  for (let m = HTML_COMMENT.exec(text); m; m = HTML_COMMENT.exec(text)) {
    const start = m.index
    if (code.some(([s, e]) => start >= s && start < e)) continue
    const body = m[1]
    const base = { source: m[0], start, end: start + m[0].length }
    let parts: RegExpExecArray | null
    if ((parts = COMMENT_BODY.exec(body)) && parts[1] !== '') markers.push({ kind: 'comment', text: parts[1], ...base })
    else if ((parts = REPLY_BODY.exec(body)) && parts[2] !== '') markers.push({ kind: 'reply', commentId: parts[1], text: parts[2], ...base })
    else if ((parts = RESOLVE_BODY.exec(body))) markers.push({ kind: 'resolve', commentId: parts[1], text: '', ...base })
  }
  return markers
}

/**
 * The text without the given markers. Markers alone on their lines take the lines with them, plus one
 * blank line when they stood between blank lines, so writing a marker as its own paragraph and stripping
 * it gives back the file as it was. A marker inside a line leaves the line's other text.
 */
export function stripMarkers(text: string, markers: readonly Marker[] = findMarkers(text)): string {
  if (markers.length === 0) return text
  const lines = text.split('\n')
  const finalNewline = text.endsWith('\n')
  if (finalNewline) lines.pop()
  const starts: number[] = []
  let offset = 0
  for (const line of lines) {
    starts.push(offset)
    offset += line.length + 1
  }
  const lineAt = (at: number) => {
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (starts[mid] <= at) lo = mid
      else hi = mid - 1
    }
    return lo
  }
  const removed = new Set<number>()
  const inline: Marker[] = []
  for (const marker of markers) {
    const first = lineAt(marker.start)
    const last = lineAt(Math.max(marker.start, marker.end - 1))
    const before = text.slice(starts[first], marker.start)
    const after = text.slice(marker.end, starts[last] + lines[last].length)
    if (before.trim() === '' && after.trim() === '') {
      for (let i = first; i <= last; i++) removed.add(i)
    } else {
      inline.push(marker)
    }
  }
  const blank = (i: number) => lines[i].trim() === ''
  for (let i = 0; i < lines.length; i++) {
    if (!removed.has(i) || removed.has(i - 1)) continue
    let end = i
    while (removed.has(end + 1)) end++
    const prev = i - 1
    const next = end + 1
    if ((prev < 0 || blank(prev)) && (next >= lines.length || blank(next))) {
      if (next < lines.length) removed.add(next)
      else if (prev >= 0) removed.add(prev)
    }
  }
  const kept = lines.filter((_, i) => !removed.has(i))
  let out = kept.join('\n') + (finalNewline && kept.length > 0 ? '\n' : '')
  if (inline.length === 0) return out
  // Inline markers: cut from what is left, matched by their source.
  const wanted = inline.map((m) => m.source)
  const cuts = findMarkers(out).filter((m) => {
    const at = wanted.indexOf(m.source)
    if (at === -1) return false
    wanted.splice(at, 1)
    return true
  })
  let result = ''
  let cursor = 0
  for (const m of cuts) {
    let end = m.end
    if (out[end] === ' ' && (m.start === 0 || out[m.start - 1] === ' ')) end += 1 // `a <!-- x --> b` leaves `a b`
    result += out.slice(cursor, m.start)
    cursor = end
  }
  out = result + out.slice(cursor)
  return out
}

/**
 * Identity of a marker for posting it exactly once: the same text on the same page is the same comment
 * (an editor that saves its old buffer again must not post it twice), and the same as `quire comment`
 * or the app posting that text (outbox/action-keys.ts: one key for all three). `userId` is the writer's.
 */
export function markerKey(spaceId: string, pageKey: string, marker: Pick<Marker, 'kind' | 'commentId' | 'text'>, userId = ''): string {
  if (marker.kind === 'comment') return commentKey(spaceId, pageKey, marker.text, userId)
  if (marker.kind === 'reply') return replyKey(spaceId, marker.commentId ?? '', marker.text, userId)
  return resolveKey(spaceId, marker.commentId ?? '')
}
