import { processIo, type CliIo } from './io'
import { serveCommand } from '../headless/serve-command'
import { serviceCommand } from './service-command'
import { loginCommand, logoutCommand } from './account-commands'
import { syncCommand } from './sync-command'
import { linksCommand, statusCommand } from './status-command'
import { watchCommand } from './watch-command'
import { commentCommand, commentsCommand, replyCommand, resolveCommand } from './comments-command'
import { crCommand } from './cr-command'

type Command = (args: string[], io: CliIo) => Promise<number>

/** Subcommands by name; later commands (login, sync, watch, status, links, comment, cr, serve) join here. */
const commands: Record<string, { run: Command; summary: string }> = {
  service: { run: serviceCommand, summary: 'run the local documentation service (GitBook-compatible API)' },
  login: { run: loginCommand, summary: 'sign in to a service with an access token (kept in the keychain)' },
  logout: { run: logoutCommand, summary: 'sign out and remove the stored token' },
  sync: { run: syncCommand, summary: 'mirror the selected spaces into the workspace (Git Sync layout)' },
  status: { run: statusCommand, summary: 'per space: state, revision, pages, last sync, pending work' },
  links: { run: linksCommand, summary: 'link reports of the synced spaces, mapped to local files and lines' },
  watch: { run: watchCommand, summary: 'sync both ways: edits become change requests, markers become comments' },
  comments: { run: commentsCommand, summary: "the comment threads of a page's file" },
  comment: { run: commentCommand, summary: 'post a comment on the page of a file' },
  reply: { run: replyCommand, summary: 'reply to a comment thread' },
  resolve: { run: resolveCommand, summary: 'resolve a comment thread' },
  cr: { run: crCommand, summary: "your change requests: list, show, update, merge, pdf" },
  serve: { run: serveCommand, summary: 'run Quire headless: the app in a browser on 127.0.0.1' },
}

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length))
  return ['usage: quire <command> [options]', '', 'commands:', ...Object.entries(commands).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`)].join('\n')
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage())
    return name ? 0 : 2
  }
  const command = commands[name]
  if (!command) {
    io.err(`quire: unknown command "${name}"\n\n${usage()}`)
    return 2
  }
  try {
    return await command.run(rest, io)
  } catch (error) {
    io.err(`quire ${name}: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
}

// Run when executed directly (npm run quire); bin/quire.mjs imports main() instead.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  process.exitCode = await main(process.argv.slice(2))
}
