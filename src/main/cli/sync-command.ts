import path from 'node:path'
import { parseArgs } from 'node:util'
import { quirePaths, signedIn } from '../engine/account/account'
import { CacheRepository } from '../engine/cache/cache-repository'
import { openCacheDatabase } from '../engine/cache/open-cache'
import { OutboxRepository } from '../engine/outbox/outbox-repository'
import { CommentsRepository } from '../engine/comments/comments-repository'
import { LeaseHeldError, WorkspaceLease } from '../engine/cache/workspace-lease'
import { WorkspaceSession } from '../engine/session/workspace-session'
import type { PassReport, SyncEngine } from '../engine/sync/sync-engine'
import { SyncEngine as Engine } from '../engine/sync/sync-engine'
import type { CliIo } from './io'
import { redactSecrets } from '../engine/gateway/secrets'
import { createProgress, describeFailures } from './progress'
import { SIGN_IN_HINT, refusedToken } from './space-states'

export const syncUsage = `quire sync [--once] [--workspace DIR] [--space ID ... | --org ID ... | --collection ID ... | --all]
           [--allow-mass-delete] [--interval SECONDS]

Mirrors the selected spaces into <workspace>/<organization>/<space>/ in the Git Sync layout.
--space, --org, --collection and --all replace the selection, which is remembered; without them the
last selection is synced. --all selects every organization the account can see (with the spaces created
in them later); quire spaces lists the ids. --once runs one pass and exits 0 only when every selected
space is in sync; otherwise passes repeat every --interval seconds (default 60) until Ctrl-C.
When the service refuses the saved token, says so and exits 1: run quire login to sign in again.`

export const WORKSPACE_SETTING = 'workspace'

export function workspaceFolder(cache: CacheRepository, requested?: string): string {
  if (requested) {
    const resolved = path.resolve(requested)
    cache.setSetting(WORKSPACE_SETTING, resolved)
    return resolved
  }
  return cache.setting(WORKSPACE_SETTING) ?? quirePaths().defaultWorkspace
}

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

  const paths = quirePaths()
  const db = openCacheDatabase(paths.cacheFile)
  const cache = new CacheRepository(db)
  const lease = new WorkspaceLease(db)
  try {
    const taken = lease.acquire({ kind: 'sync' })
    if (!taken.acquired) {
      io.err(`quire sync: ${new LeaseHeldError(taken.holder).message}; it keeps the folders in sync already`)
      return 3
    }
    const { account, gateway } = await signedIn(cache, paths)
    const workspace = workspaceFolder(cache, values.workspace)
    const engine = new Engine({ cache, account, gateway, workspace, handOverLists: true })
    // Passes run through the workspace session, the engine every front end uses: renames and deletions
    // the writer made but has not pushed yet stay as they are (the session's hold).
    const session = new WorkspaceSession({
      cache,
      outbox: new OutboxRepository(db, undefined, lease.outboxClaim()),
      comments: new CommentsRepository(db),
      account,
      gateway,
      workspace: () => workspace,
      syncUp: false,
      watch: false,
      allowMassDelete: values['allow-mass-delete'],
      onProgress: createProgress({ isTTY: io.isTTY, write: (text) => process.stderr.write(text), line: (text) => io.err(text), columns: process.stderr.columns }),
      // A pass that throws is caught by the session (a refused token is kept as signed out); the rest is said here.
      onEvent: (event) => {
        if (event.type === 'log' && event.level !== 'info') io.err(redactSecrets(`quire sync: ${event.message}`))
      },
    })
    try {
      await applySelection(engine, cache, account.id, picks)
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
    await gateway.idle()
    return 0
  } finally {
    lease.release()
    cache.close()
  }
}

/** The options that choose what is synced, the same for quire sync and quire watch. */
export const SELECTION_OPTIONS = {
  space: { type: 'string', multiple: true },
  org: { type: 'string', multiple: true },
  collection: { type: 'string', multiple: true },
  all: { type: 'boolean', default: false },
} as const

export interface SelectionPicks {
  all: boolean
  spaces: string[]
  organizations: string[]
  collections: string[]
}

export function selectionPicks(values: { space?: string[]; org?: string[]; collection?: string[]; all?: boolean }): SelectionPicks {
  const picks = { all: values.all ?? false, spaces: values.space ?? [], organizations: values.org ?? [], collections: values.collection ?? [] }
  if (picks.all && picks.spaces.length + picks.organizations.length + picks.collections.length > 0) throw new Error('--all cannot be combined with --space, --org or --collection')
  return picks
}

/** --all, --space, --org, --collection: replaces the remembered selection (none of them keeps it). */
export async function applySelection(engine: SyncEngine, cache: CacheRepository, accountId: string, { all, ...picks }: SelectionPicks) {
  if (all) {
    await engine.discover()
    cache.setSelection({ organizations: cache.organizations(accountId).map((o) => o.id) })
    return
  }
  if (picks.spaces.length + picks.organizations.length + picks.collections.length === 0) return
  if (picks.organizations.length + picks.collections.length > 0) await engine.discover()
  await engine.resolveSpaces(picks.spaces)
  const orgs = cache.organizations(accountId)
  for (const id of picks.organizations) if (!orgs.some((o) => o.id === id)) throw new Error(`no organization ${id}`)
  const collections = new Set(orgs.flatMap((o) => cache.collections(o.id).map((c) => c.id)))
  for (const id of picks.collections) if (!collections.has(id)) throw new Error(`no collection ${id}`)
  cache.setSelection(picks)
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
