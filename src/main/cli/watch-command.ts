import { parseArgs } from 'node:util'
import { DEFAULT_DEBOUNCE_MS, DEFAULT_RENAME_WINDOW_MS, selectSpaces } from '../engine'
import { openCommandWorkspace } from './command-workspace'
import type { CliIo } from './io'
import { printSessionEvents } from './session-output'
import { SELECTION_OPTIONS, intervalSeconds, selectionPicks } from './sync-command'
import { refusedToken } from './space-states'

export const watchUsage = `quire watch [--workspace DIR] [--space ID ... | --org ID ... | --collection ID ... | --all]
            [--interval SECONDS] [--debounce MS] [--once]

Keeps the selected spaces in sync both ways until Ctrl-C: the spaces are synced down every --interval
seconds (default 60), and every edit saved in the workspace goes up as it happens — into one change
request per space, kept open and updated until it is merged or closed. Comment markers in pages
(<!-- comment: ... -->, <!-- reply ID: ... -->, <!-- resolve ID -->) are posted and removed from the file.
Each change and comment is printed when it is queued and again when the service has it ("sent").
Edits made offline wait in the outbox and go out when the service is back.
--space, --org, --collection and --all choose the spaces as for quire sync (the choice is remembered;
--all: every organization the account can see); without them the last selection is watched.
--once runs one round (send, sync down, send) and exits.`

export async function watchCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      workspace: { type: 'string' },
      ...SELECTION_OPTIONS,
      interval: { type: 'string', default: '60' },
      debounce: { type: 'string', default: String(DEFAULT_DEBOUNCE_MS) },
      once: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    io.out(watchUsage)
    return 0
  }
  const interval = intervalSeconds(values.interval)
  const debounce = Number(values.debounce)
  if (!Number.isInteger(debounce) || debounce < 0 || debounce > 60_000) throw new Error(`--debounce must be 0..60000 milliseconds, got "${values.debounce}"`)
  const picks = selectionPicks(values)

  const ws = await openCommandWorkspace(io, 'watch', {
    lease: 'watch',
    exclusive: true,
    held: 'stop it first (its edits and outbox are the same)',
    folder: values.workspace,
    watch: !values.once,
    intervalMs: () => (values.once ? undefined : interval * 1000),
    debounceMs: debounce,
    renameWindowMs: Math.max(DEFAULT_RENAME_WINDOW_MS, debounce),
  })
  if (typeof ws === 'number') return ws
  const { cache, outbox, account, session } = ws
  try {
    try {
      await selectSpaces(ws, picks)
    } catch (error) {
      const refused = refusedToken(cache, account, error)
      if (!refused) throw error
      io.err(`quire watch: ${refused}`)
      return 1
    }
    if (!cache.hasSelection()) {
      io.err('quire watch: nothing selected; choose spaces with quire sync --space ID (or --org, --collection, --all) first')
      return 2
    }
    session.observe(printSessionEvents(io, cache, outbox))
    io.out(`workspace: ${ws.workspace}`)
    if (values.once) {
      await session.start()
      // A removal waits for the quiet interval (an editor's backup-save): sent before this run ends.
      await session.settled()
      await session.stop()
      return outbox.unfinished().length === 0 && session.signedOutReason === undefined ? 0 : 1
    }
    let stop!: () => void
    const stopped = new Promise<void>((resolve) => (stop = resolve))
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    try {
      await session.start()
      io.out(`watching ${session.spaces().length} space(s); Ctrl-C to stop`)
      await stopped
    } finally {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      await session.stop()
      await ws.gateway.idle()
    }
    io.out('stopped')
    return 0
  } finally {
    await ws.close()
  }
}
