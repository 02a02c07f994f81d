import { diffLines, diffWordsWithSpace, type Change } from 'diff'
import { useMemo } from 'react'

/** Longer texts are diffed by lines first: a word diff of two large files is slow and unreadable. */
const WORD_DIFF_LIMIT = 60_000

function parts(before: string, after: string, by: 'words' | 'lines'): Change[] {
  if (by === 'lines') return diffLines(before, after)
  if (before.length + after.length > WORD_DIFF_LIMIT) return [{ value: before, removed: true, added: false, count: 1 }, { value: after, added: true, removed: false, count: 1 }]
  // With space: jsdiff's diffWords keeps the new text's whitespace in what both share, so the old side
  // would lose its blank lines ("folder.\n\n**Does" shown as "folder. **Does"). Each side here is its
  // own markdown exactly: the parts it shows, joined, are its text.
  return joinChanges(diffWordsWithSpace(before, after))
}

/**
 * diffWordsWithSpace keeps a space both sides share between two changed words as unchanged, which cuts
 * "someone else" → "the writer" into word-sized marks. A run of changes with only shared whitespace
 * between them becomes one removed part and one added part (the whitespace in both): each side still
 * shows exactly its own text, marked as one phrase.
 */
function joinChanges(changes: Change[]): Change[] {
  const out: Change[] = []
  let removed: string[] = []
  let added: string[] = []
  const flush = () => {
    if (removed.length) out.push({ value: removed.join(''), removed: true, added: false, count: 1 })
    if (added.length) out.push({ value: added.join(''), added: true, removed: false, count: 1 })
    removed = []
    added = []
  }
  changes.forEach((c, i) => {
    if (c.removed) removed.push(c.value)
    else if (c.added) added.push(c.value)
    else {
      const next = changes[i + 1]
      const between = (removed.length > 0 || added.length > 0) && next !== undefined && (next.added || next.removed) && /^[ \t]+$/.test(c.value)
      if (between) {
        removed.push(c.value)
        added.push(c.value)
        return
      }
      flush()
      out.push(c)
    }
  })
  flush()
  return out
}

/**
 * Two versions side by side with word-level highlights (jsdiff's diffWordsWithSpace): the left column shows the
 * old text with what went away marked, the right the new text with what came in marked. Markup
 * (<del>/<ins>) carries the meaning, so it reads without color too.
 */
export function TextDiff({ before, after, beforeLabel, afterLabel, by = 'words' }: { before: string; after: string; beforeLabel: string; afterLabel: string; by?: 'words' | 'lines' }) {
  const changes = useMemo(() => parts(before, after, by), [before, after, by])
  const same = changes.every((c) => !c.added && !c.removed)
  return (
    <div className="diff" role="group" aria-label={`${beforeLabel} and ${afterLabel} side by side`}>
      <section className="diff-side">
        <h3 className="diff-label">{beforeLabel}</h3>
        <pre className="diff-text">
          {changes.map((c, i) => (c.added ? null : c.removed ? <del key={i}>{c.value}</del> : <span key={i}>{c.value}</span>))}
        </pre>
      </section>
      <section className="diff-side">
        <h3 className="diff-label">{afterLabel}</h3>
        <pre className="diff-text">
          {changes.map((c, i) => (c.removed ? null : c.added ? <ins key={i}>{c.value}</ins> : <span key={i}>{c.value}</span>))}
        </pre>
      </section>
      {same ? <p className="muted small">The two versions are the same.</p> : null}
    </div>
  )
}
