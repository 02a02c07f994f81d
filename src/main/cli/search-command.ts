import path from 'node:path'
import { parseArgs } from 'node:util'
import { EmptyQueryError, quirePaths, SearchKeeper, searchedSpaces, signedIn, UnknownSpaceError, WorkspaceStore, type ApiGateway, type SearchAnswer, type SnippetPart } from '../engine'
import type { CliIo } from './io'

export const searchUsage = `quire search "query" [--space ID] [--json] [--local]

Full-text search of the synced spaces' files as they are now, the edits not sent yet included (the
index is in the cache and is brought up to date with the folders first: works offline). Each result is
file:line and the text around the match, the match in [brackets]; the title counts most, then the
headings. Online, the service's search runs beside it: pages only it found are marked remote, with
their address on the service.

  "two words"  a phrase          word*  a prefix          other characters are searched as written
  -- -word     a word starting with "-" (after --, so it is not read as an option)
  --space ID   only this space (ids from quire spaces)
  --local      do not ask the service
  --json       the results as JSON: {query, results: [{source, file, line, title, snippet, url}], remote}

Exits 0 when it found something, 1 when it found nothing, 2 when the query has no word to search for.`

export async function searchCommand(args: string[], io: CliIo): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args,
      options: { space: { type: 'string' }, json: { type: 'boolean', default: false }, local: { type: 'boolean', default: false }, limit: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    })
  } catch (error) {
    // A query word that starts with "-" reads as an option: say how to search for it.
    io.err(`quire search: ${error instanceof Error ? error.message.split('.')[0] : String(error)}; words starting with "-" go after --: quire search -- "-word"`)
    return 2
  }
  const { values, positionals } = parsed
  if (values.help) {
    io.out(searchUsage)
    return 0
  }
  const query = positionals.join(' ')
  const limit = values.limit === undefined ? 20 : Number(values.limit)
  if (!Number.isInteger(limit) || limit < 1) {
    io.err(`quire search: --limit takes a whole number above 0, not "${values.limit}"`)
    return 2
  }
  const paths = quirePaths()
  const store = WorkspaceStore.open(paths)
  try {
    const spaces = searchedSpaces(store.cache, store.folder(), values.space)
    // One attempt, soon given up: a search should not wait out the retries a sync would.
    const gateway = values.local ? undefined : await signedIn(store.cache, paths, { maxAttempts: 1, timeoutMs: 5_000 }).then((s): ApiGateway => s.gateway, () => undefined)
    const skipRemote = values.local ? 'the service was not asked (--local)' : gateway ? undefined : 'the service was not asked (not signed in)'
    let answer: SearchAnswer
    try {
      answer = await new SearchKeeper(store.cache).search(gateway, spaces, query, { limit, skipRemote })
    } finally {
      gateway?.clear()
    }
    const found = answer.results.length > 0 ? 0 : 1
    if (values.json) {
      const results = answer.results.map((r) => ({ ...r, snippetText: marked(r.snippet) }))
      io.out(JSON.stringify({ query, results, remote: answer.remote }, null, 2))
      return found
    }
    for (const r of answer.results) {
      const where = r.file ? `${shown(r.file)}${r.line ? `:${r.line}` : ''}` : `${r.spaceTitle ?? r.spaceId}: ${r.title}`
      const text = marked(r.snippet) || r.title
      io.out(`${r.source === 'local' ? 'local ' : 'remote'}  ${where}  ${text}${r.source === 'remote' && r.url ? `  ${r.url}` : ''}`)
    }
    io.out(summary(answer))
    return found
  } catch (error) {
    if (error instanceof EmptyQueryError || error instanceof UnknownSpaceError) {
      io.err(`quire search: ${error.message}`)
      return 2
    }
    throw error
  } finally {
    store.close()
  }
}

/** A snippet on one line, each match in brackets. */
function marked(parts: SnippetPart[]): string {
  return parts.map((p) => (p.match ? `[${p.text}]` : p.text)).join('')
}

/** A file as the writer can open it from here: relative to the current folder when inside it. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file)
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative
}

function summary(answer: SearchAnswer): string {
  const local = answer.results.filter((r) => r.source === 'local').length
  const head = `${local} local result${local === 1 ? '' : 's'}`
  const remote = answer.remote
  if (!remote.asked) return `${head}; ${remote.reason}`
  if ('failed' in remote) return `${head}; local results only: the service was not reached (${remote.failed})`
  const only = answer.results.length - local
  return `${head}, ${only} more from the service's search (${remote.found} page${remote.found === 1 ? '' : 's'} found there)`
}
