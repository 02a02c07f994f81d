/**
 * A writer's query made into an FTS5 expression that cannot fail to parse. Writers type words, not
 * FTS5: `foo"`, `-bar`, `AND`, `(`, `near:` must search for what they say, never throw a syntax error.
 * So every term is quoted (FTS5's string, `"` doubled inside), and only two forms are read:
 *
 * - `"two words"`: a phrase (an unclosed quote runs to the end of the query);
 * - `word*`: a prefix (as is the last word as it is typed, with `prefixLast`: search as you type).
 *
 * Terms are ANDed. A term with no letter or digit (`-`, `"`, `*`) is dropped: the tokenizer would read
 * nothing in it. A query left with no term is refused with `EmptyQueryError`.
 */

export class EmptyQueryError extends Error {
  constructor(readonly query: string) {
    super(query.trim() === '' ? 'the query is empty: give a word to search for' : `the query "${query}" has no word to search for (letters or digits)`)
  }
}

const TERM = /"([^"]*)"?(\*?)|(\S+)/g
const WORD_CHAR = /[\p{L}\p{N}]/u

export interface QueryTerm {
  text: string
  phrase: boolean
  prefix: boolean
}

/** The terms of a query, as the writer meant them. */
export function queryTerms(query: string, options: { prefixLast?: boolean } = {}): QueryTerm[] {
  const terms: QueryTerm[] = []
  for (const m of query.matchAll(TERM)) {
    if (m[3] !== undefined) {
      const prefix = m[3].endsWith('*')
      const text = m[3].replace(/\*+$/, '').replaceAll('"', '')
      terms.push({ text, phrase: false, prefix })
    } else {
      terms.push({ text: m[1], phrase: true, prefix: m[2] === '*' })
    }
  }
  const kept = terms.filter((t) => WORD_CHAR.test(t.text))
  // Only the last word still being typed: a closed phrase or a finished word before it is as written.
  const last = kept.at(-1)
  if (options.prefixLast && last && !last.phrase && !/\s$/.test(query)) last.prefix = true
  return kept
}

/** The FTS5 MATCH expression of a writer's query; throws EmptyQueryError when it has no word. */
export function ftsExpression(query: string, options: { prefixLast?: boolean } = {}): string {
  const terms = queryTerms(query, options)
  if (terms.length === 0) throw new EmptyQueryError(query)
  return terms.map((t) => `"${t.text.replaceAll('"', '""')}"${t.prefix ? '*' : ''}`).join(' ')
}
