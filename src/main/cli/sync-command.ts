import { parseArgs } from 'node:util'
import { redactSecrets, selectSpaces, type CacheRepository, type PassReport, type SelectionPicks, type WorkspaceSession } from '../engine/sync-entry'
import type { CliIo } from './io'
import { openCommandWorkspace } from './command-workspace'
import { describeFailures, stderrProgress } from './progress'
import { SIGN_IN_HINT, refusedToken } from './space-states'

export const syncUsage = `quire sync [--once] [--workspace DIR] [--space ID ... | --org ID ... | --collection ID ... | --all]
           [--allow-mass-delete] [--interval SECONDS]

Mirrors the selected spaces into <workspace>/<organization>/<space>/ in the Git Sync layout.
--space, --org, --collection and --all replace the selection, which is remembered; without them the
last selection is synced. --all selects every organization the account can see (with the spaces created
in them later); quire spaces lists the ids. --once runs one pass and exits 0 only when every selected
space is in sync; otherwise passes repeat every --interval seconds (default 60) until Ctrl-C.
When the service refuses the saved token, says so and exits 1: run quire login to sign in again.`

/** `--interval SECONDS` of quire sync and quire watch: how long between sync-down passes. */
export function intervalSeconds(text: string): number {
  const interval = Number(text)
  if (!Number.isFinite(interval) || interval < 1) throw new Error(`--interval must be a number of seconds (at least 1), got "${text}"`)
  return interval
}

export async function syncCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      once: { type: 'boolean', default: false },
      workspace: { type: 'string' },
      ...SELECTION_OPTIONS,
      'allow-mass-delete': { type: 'boolean', default: false },
      interval: { type: 'string', default: '60' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    io.out(syncUsage)
    return 0
  }
  const interval = intervalSeconds(values.interval)
  const picks = selectionPicks(values)

  // Passes run through the workspace session, the engine every front end uses: renames and deletions
  // the writer made but has not pushed yet stay as they are (the session's hold).
  const ws = await openCommandWorkspace(io, 'sync', {
    lease: 'sync',
    exclusive: true,
    held: 'it keeps the folders in sync already',
    folder: values.workspace,
    syncUp: false,
    watch: false,
    allowMassDelete: values['allow-mass-delete'],
    onProgress: stderrProgress(io),
    // A pass that throws is caught by the session (a refused token is kept as signed out); the rest is said here.
    onEvent: (event) => {
      if (event.type === 'log' && event.level !== 'info') io.err(redactSecrets(`quire sync: ${event.message}`))
    },
  })
  if (typeof ws === 'number') return ws
  const { cache, account, session, workspace } = ws
  try {
    try {
      await selectSpaces(ws, picks, { handOverLists: true })
    } catch (error) {
      const refused = refusedToken(cache, account, error)
      if (!refused) throw error
      io.err(`quire sync: ${refused}`)
      return 1
    }
    if (!cache.hasSelection()) {
      io.err('quire sync: nothing selected; choose with --space ID (repeatable), --org ID, --collection ID or --all')
      return 2
    }
    io.out(`workspace: ${workspace}`)
    const passOnce = () => passAndReport(session, io, cache)
    if (values.once) return (await passOnce()).code

    let stop = false
    let wake: (() => void) | undefined
    let timer: NodeJS.Timeout | undefined
    const onSignal = () => {
      stop = true
      clearTimeout(timer)
      wake?.()
    }
    process.once('SIGINT', onSignal)
    process.once('SIGTERM', onSignal)
    try {
      while (!stop) {
        const { code, signedOut } = await passOnce()
        // Nothing can sync until the user signs in again: waiting for the next pass would only repeat it.
        if (signedOut) return code
        if (stop) break
        await new Promise<void>((resolve) => {
          wake = resolve
          timer = setTimeout(resolve, interval * 1000)
        })
      }
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
    return 0
  } finally {
    await ws.close()
  }
}

/** The options that choose what is synced, the same for quire sync and quire watch. */
export const SELECTION_OPTIONS = {
  space: { type: 'string', multiple: true },
  org: { type: 'string', multiple: true },
  collection: { type: 'string', multiple: true },
  all: { type: 'boolean', default: false },
} as const

export function selectionPicks(values: { space?: string[]; org?: string[]; collection?: string[]; all?: boolean }): SelectionPicks {
  const picks = { all: values.all ?? false, spaces: values.space ?? [], organizations: values.org ?? [], collections: values.collection ?? [] }
  if (picks.all && picks.spaces.length + picks.organizations.length + picks.collections.length > 0) throw new Error('--all cannot be combined with --space, --org or --collection')
  return picks
}

/** One pass, reported; a refused token (the pass threw, or the spaces could not be read) becomes the hint to sign in. */
async function passAndReport(session: WorkspaceSession, io: CliIo, cache: CacheRepository): Promise<{ code: number; signedOut: boolean }> {
  // The session catches what a pass throws (and reports it through onEvent): then there is no report.
  const pass = await session.pass()
  const signedOut = session.signedOutReason !== undefined && (pass === undefined || !pass.offline)
  if (pass) report(pass, io, cache)
  if (signedOut) {
    io.err(`quire sync: the service refused the saved token (HTTP 401); ${SIGN_IN_HINT}`)
    return { code: 1, signedOut }
  }
  if (!pass) return { code: 1, signedOut }
  return { code: pass.inSync ? 0 : 1, signedOut }
}

function report(pass: PassReport, io: CliIo, cache: CacheRepository): number {
  const reasons = new Set<string>()
  for (const space of pass.spaces) {
    const mark = space.state === 'synced' ? 'ok' : space.state
    io.out(redactSecrets(`${mark.padEnd(7)} ${space.label}${space.folder ? `  -> ${space.folder}` : ''}${space.message ? `\n        ${space.message}` : ''}`))
    // "3 steps failed" alone leaves the reader to guess: name what each step ran into (disk full, denied).
    const failures = space.state === 'synced' ? [] : (cache.space(space.spaceId)?.issues ?? []).filter((issue) => issue.kind === 'failed')
    const described = describeFailures(failures)
    for (const line of described.lines) io.out(redactSecrets(`        ${line}`))
    for (const reason of described.reasons) reasons.add(reason)
  }
  if (pass.inSync) return 0
  const behind = pass.spaces.filter((s) => s.state !== 'synced').length
  const why = reasons.size > 0 && reasons.size <= 3 ? `: ${[...reasons].join(', ')}` : ''
  io.err(
    redactSecrets(
      pass.offline
        ? `quire sync: offline: the service cannot be reached; ${behind} space${behind === 1 ? '' : 's'} not synced (the folders are untouched; the next pass resumes)`
        : `quire sync: ${behind} of ${pass.spaces.length} space${pass.spaces.length === 1 ? ' is' : 's are'} not in sync${why} (see above, or run quire status)`,
    ),
  )
  return 1
}
