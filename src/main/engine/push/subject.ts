/** The spec's limit on a change request subject. */
const MAX_SUBJECT = 100

/** Titles of the pages a change request touches, first touched first, each once. */
export function mergeTitles(current: readonly string[], added: readonly (string | undefined)[]): string[] {
  const out = [...current]
  for (const title of added) {
    const clean = title?.replace(/\s+/g, ' ').trim()
    if (clean && !out.includes(clean)) out.push(clean)
  }
  return out
}

/** "Edit Install, Getting started", shortened to "Edit Install, Getting started and 3 more" to fit. */
export function subjectFor(titles: readonly string[]): string {
  if (titles.length === 0) return 'Edit pages'
  for (let shown = titles.length; shown >= 1; shown--) {
    const rest = titles.length - shown
    const subject = `Edit ${titles.slice(0, shown).join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`
    if (subject.length <= MAX_SUBJECT) return subject
  }
  const suffix = titles.length > 1 ? ` and ${titles.length - 1} more` : ''
  return `Edit ${titles[0].slice(0, MAX_SUBJECT - 5 - suffix.length - 1)}…${suffix}`
}
