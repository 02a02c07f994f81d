import { processIo, type CliIo } from './io'
import { serviceCommand } from './service-command'

type Command = (args: string[], io: CliIo) => Promise<number>

/** Subcommands by name; later commands (login, sync, watch, status, links, comment, cr, serve) join here. */
const commands: Record<string, { run: Command; summary: string }> = {
  service: { run: serviceCommand, summary: 'run the local documentation service (GitBook-compatible API)' },
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
