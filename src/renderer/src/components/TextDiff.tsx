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
  return diffWordsWithSpace(before, after)
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
