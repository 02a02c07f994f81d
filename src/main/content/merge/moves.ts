/**
 * Blocks one side moved and the other edited in place (issue 15: "a moved
 * paragraph plus an edit of it elsewhere merges"). Found on the segments of
 * a page (segments.ts): one side deletes a segment the base has once and
 * inserts that very segment once elsewhere; the other side replaces just
 * that segment. The edit then travels with the move: the moving side's copy
 * becomes the edited text, and the editing side's copy is put back to the
 * base's, so the three-way merge sees a move on one side and nothing there on
 * the other, and merges cleanly.
 */
import { hunks } from './three-way'

/** Segment texts of a side. */
type Side = string[]

/** main and branch with the edits of moved segments carried to where they moved. */
export function carryEditsAlongMoves(base: Side, main: Side, branch: Side): [Side, Side] {
  let [m, b] = [main, branch]
  ;[m, b] = carry(base, m, b)
  ;[b, m] = carry(base, b, m)
  return [m, b]
}

/** Carries `editor`'s edits of segments `mover` moved. */
function carry(base: Side, mover: Side, editor: Side): [Side, Side] {
  const ids = new Map<string, number>()
  const id = (segment: string): number => ids.get(segment) ?? (ids.set(segment, ids.size).get(segment) as number)
  const [o, x, y] = [base.map(id), mover.map(id), editor.map(id)]
  const count = (list: number[], value: number): number => list.reduce((n, v) => n + (v === value ? 1 : 0), 0)
  const moverHunks = hunks(o, x)
  const editorHunks = hunks(o, y)
  const inserted = moverHunks.flatMap((h) => x.slice(h.start, h.end).map((value, i) => ({ value, at: h.start + i })))
  let [nextMover, nextEditor] = [[...mover], [...editor]]
  // Later positions first, so that earlier ones stay valid while segments are replaced.
  const moves: Array<{ at: number; edit: { start: number; end: number }; from: number }> = []
  for (const hunk of moverHunks) {
    for (let from = hunk.oStart; from < hunk.oEnd; from++) {
      const value = o[from]
      const copies = inserted.filter((entry) => entry.value === value)
      const edit = editedAs(editorHunks, from)
      if (copies.length !== 1 || count(o, value) !== 1 || count(x, value) !== 1 || !edit) continue
      // The segment left this hunk and went elsewhere (not back into the hunk's own place).
      if (copies[0].at >= hunk.start && copies[0].at < hunk.end && hunk.oStart === from) continue
      moves.push({ at: copies[0].at, edit, from })
    }
  }
  for (const move of moves.sort((p, q) => q.at - p.at)) nextMover.splice(move.at, 1, ...editor.slice(move.edit.start, move.edit.end))
  for (const move of moves.sort((p, q) => q.edit.start - p.edit.start)) nextEditor.splice(move.edit.start, move.edit.end - move.edit.start, base[move.from])
  if (moves.length === 0) [nextMover, nextEditor] = [mover, editor]
  return [nextMover, nextEditor]
}

/** What the editor's hunks replaced base segment `from` with: the hunk of just that segment, or its part of a one-for-one replacement of several. */
function editedAs(editorHunks: ReturnType<typeof hunks>, from: number): { start: number; end: number } | undefined {
  const hunk = editorHunks.find((h) => h.oStart <= from && from < h.oEnd)
  if (!hunk || hunk.end === hunk.start) return undefined
  if (hunk.oStart === from && hunk.oEnd === from + 1) return { start: hunk.start, end: hunk.end }
  if (hunk.oEnd - hunk.oStart !== hunk.end - hunk.start) return undefined
  const at = hunk.start + (from - hunk.oStart)
  return { start: at, end: at + 1 }
}
