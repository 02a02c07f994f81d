import fs from 'node:fs'
import { healedCacheLine, isCacheDamage, onCacheHealed } from '../engine/cache/cache-health-events'
import { processIo, type CliIo } from './io'

type Command = (args: string[], io: CliIo) => Promise<number>

// Commands load on demand: `quire sync` should not pay (in start-up time and memory) for the service,
// the headless server or the watcher.
const commands: Record<string, { load: () => Promise<Command>; summary: string }> = {
  service: { load: async () => (await import('./service-command')).serviceCommand, summary: 'run the local documentation service (GitBook-compatible API)' },
  login: { load: async () => (await import('./account-commands')).loginCommand, summary: 'sign in to a service with an access token (kept in the keychain)' },
  logout: { load: async () => (await import('./account-commands')).logoutCommand, summary: 'sign out and remove the stored token' },
  sync: { load: async () => (await import('./sync-command')).syncCommand, summary: 'mirror the selected spaces into the workspace (Git Sync layout)' },
  spaces: { load: async () => (await import('./spaces-command')).spacesCommand, summary: 'the spaces you can see: ids, titles, which are selected, the state of each' },
  status: { load: async () => (await import('./status-command')).statusCommand, summary: 'per space: state, revision, pages, last sync, pending work' },
  links: { load: async () => (await import('./status-command')).linksCommand, summary: 'link reports of the synced spaces, mapped to local files and lines' },
  search: { load: async () => (await import('./search-command')).searchCommand, summary: 'full-text search of the synced files (offline), with the service\'s search beside it online' },
  watch: { load: async () => (await import('./watch-command')).watchCommand, summary: 'sync both ways: edits become change requests, markers become comments' },
  comments: { load: async () => (await import('./comments-command')).commentsCommand, summary: "the comment threads of a page's file" },
  comment: { load: async () => (await import('./comments-command')).commentCommand, summary: 'post a comment on the page of a file' },
  reply: { load: async () => (await import('./comments-command')).replyCommand, summary: 'reply to a comment thread' },
  resolve: { load: async () => (await import('./comments-command')).resolveCommand, summary: 'resolve a comment thread' },
  cr: { load: async () => (await import('./cr-command')).crCommand, summary: 'change requests: list, show, update, merge, pdf; review: submit, review, reviewers, archive, list --review' },
  doctor: { load: async () => (await import('./doctor-command')).doctorCommand, summary: 'check the cache and its outbox; --repair sets a damaged cache or outbox row aside' },
  preview: { load: async () => (await import('./preview-command')).previewCommand, summary: 'a page file rendered as the service shows it, sanitized, as a standalone HTML page' },
  import: { load: async () => (await import('./import-command')).importCommand, summary: 'bring a Git Sync tree into one change request of a space (new or existing)' },
  serve: { load: async () => (await import('../headless/serve-command')).serveCommand, summary: 'run Quire headless: the app in a browser on 127.0.0.1' },
}

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length))
  return [
    'usage: quire <command> [options]',
    '',
    'commands:',
    ...Object.entries(commands).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`),
    '',
    'quire <command> --help explains a command and its options; quire --version prints the version.',
  ].join('\n')
}

/** The version of the package this CLI belongs to (package.json, read where the sources are: tsx runs them in place). */
export function quireVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string }
  if (!pkg.version) throw new Error('package.json has no version')
  return pkg.version
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv
  if (name === '--version' || name === '-V') {
    io.out(quireVersion())
    return 0
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage())
    return name ? 0 : 2
  }
  const command = commands[name]
  if (!command) {
    io.err(`quire: unknown command "${name}"\n\n${usage()}`)
    return 2
  }
  // A damaged cache is set aside and replaced when a command opens it: said once, naming both files.
  onCacheHealed((healed) => io.err(`quire: ${healedCacheLine(healed)}`))
  try {
    return await (await command.load())(rest, io)
  } catch (error) {
    if (isCacheDamage(error)) {
      io.err(`quire ${name}: the cache is damaged (${error instanceof Error ? error.message : String(error)}): run quire doctor --repair to set it aside and start a fresh one`)
      return 1
    }
    // Only on failure: these pull in @gitbook/api, the cache schema and better-sqlite3, which --help does not need.
    const [{ redactedMessage, isAuthError }, { SIGN_IN_HINT }] = await Promise.all([import('../engine/basics'), import('./space-states')])
    // A refused token is the user's to fix, not a request to quote (its URL says nothing to them).
    if (isAuthError(error)) io.err(`quire ${name}: the service refused the saved token (HTTP 401); ${SIGN_IN_HINT}`)
    // SQLite says "disk I/O error" or "database or disk is full": say which disk, and what to do.
    else if (await fullCacheDisk(error)) io.err(`quire ${name}: ${await fullCacheDisk(error)}: free some space there and run it again (${redactedMessage(error)})`)
    // Scrubbed of tokens: an error can quote a header value or a request, token and all.
    else io.err(`quire ${name}: ${redactedMessage(error)}`)
    return 1
  }
}

/** The disk-full message when an error is a storage error and the cache's disk is full (modules loaded only then). */
async function fullCacheDisk(error: unknown): Promise<string | undefined> {
  const { cacheDiskFull, isStorageError, quirePaths } = await import('../engine/basics')
  return isStorageError(error) ? cacheDiskFull(quirePaths().cacheFile) : undefined
}

// Run when executed directly (npm run quire); bin/quire.mjs imports main() instead.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  process.exitCode = await main(process.argv.slice(2))
}
