import { parseArgs } from 'node:util'
import { cacheDiskFull, describeSyncUp, linkFindings, linkReportsStale, localLinkFindings, quirePaths, readSpaceStatuses, readSyncUpStatuses, refreshStaleLinkReports, signedIn, WorkspaceStore, type SpaceStatus } from '../engine'
import { describeState, type SpaceSyncState } from '../../shared/space-state'
import type { CliIo } from './io'
import { SIGN_IN_HINT, signedOutReason, spaceStateReader } from './space-states'

export const statusUsage = `quire status [--json]

Per synced space: its state (in sync, syncing, N local changes waiting, conflict, offline, error, paused,
signed out), revision, page count, last sync and pending work. Read from the local cache: works offline.
Exits 1 when no account is signed in or the service refused the saved token (run quire login), else 0.`

export async function statusCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } }, strict: true })
  if (values.help) {
    io.out(statusUsage)
    return 0
  }
  const store = WorkspaceStore.open(quirePaths())
  const { cache } = store
  try {
    const account = cache.activeAccount()
    const workspace = store.folder()
    // A pass reads no link report (issue 29): a report of an older revision is read now, when online;
    // offline or signed out, the kept one is shown as of an older revision.
    if (linkReportsStale(cache)) {
      try {
        const { gateway } = await signedIn(cache, quirePaths())
        await refreshStaleLinkReports(cache, gateway)
      } catch {
        // Shown as it is kept.
      }
    }
    const spaces = readSpaceStatuses(cache, workspace)
    const up = readSyncUpStatuses(quirePaths().cacheFile, spaces.map((s) => s.spaceId))
    // The one state the app shows too, from the same facts; but on a full disk no pass could record
    // what it met, so what was last recorded (offline, say) is not the truth: the full disk is.
    const full = cacheDiskFull(quirePaths().cacheFile)
    const recorded = spaceStateReader(cache, store.outbox, account)
    const stateOf = (spaceId: string): SpaceSyncState => (full ? { kind: 'error', reason: full } : recorded(spaceId))
    const signedOut = signedOutReason(cache, account)
    // Scripts (and people) see at once that nothing syncs: the exit code says signed out.
    const exitCode = signedOut ? 1 : 0
    if (values.json) {
      const withUp = spaces.map((s) => {
        const state = stateOf(s.spaceId)
        return { ...s, state: state.kind, stateDetail: state, syncUp: up.get(s.spaceId) }
      })
      const who = account ? { endpoint: account.endpoint, user: account.displayName } : null
      io.out(JSON.stringify({ account: who, signedOut: signedOut ? { reason: signedOut, hint: SIGN_IN_HINT } : null, workspace, spaces: withUp }, null, 2))
      return exitCode
    }
    if (!account) io.out('not signed in: run quire login --endpoint URL')
    else io.out(`signed in to ${account.endpoint} as ${account.displayName}${signedOut ? `, but ${signedOut}: ${SIGN_IN_HINT}` : ''}`)
    io.out(`workspace: ${workspace}`)
    if (spaces.length === 0) io.out('no spaces selected: run quire sync --space ID (or --all); quire spaces lists them')
    for (const space of spaces) io.out([describe(space, describeState(stateOf(space.spaceId))), ...describeSyncUp(up.get(space.spaceId))].join('\n'))
    return exitCode
  } finally {
    store.close()
  }
}

function describe(s: SpaceStatus, state: string): string {
  const lines = [`${s.organization}/${s.title}: ${state}`]
  const facts = [
    s.revision ? `revision ${s.revision}` : undefined,
    `${s.pages} page${s.pages === 1 ? '' : 's'}`,
    s.lastSyncAt ? `last sync ${s.lastSyncAt}` : 'never synced',
  ].filter(Boolean)
  lines.push(`  ${facts.join(', ')}`)
  if (s.folder) lines.push(`  folder: ${s.folder}`)
  const pending: string[] = []
  if (s.pending.steps > 0) pending.push(`${s.pending.steps} step${s.pending.steps === 1 ? '' : 's'} left of an interrupted pass`)
  if (s.pending.behind && s.state !== 'syncing') pending.push(`revision ${s.remoteRevision} not mirrored yet`)
  if (pending.length > 0) lines.push(`  pending: ${pending.join('; ')}`)
  if (s.message && s.pending.issues.length === 0) lines.push(`  ${s.message}`)
  for (const issue of s.pending.issues.slice(0, 10)) lines.push(`  - ${issue.message}`)
  if (s.pending.issues.length > 10) lines.push(`  … and ${s.pending.issues.length - 10} more`)
  return lines.join('\n')
}

export const linksUsage = `quire links [--broken] [--local] [--json]

The service's link reports for the synced spaces (refreshed by quire sync when a revision changes),
each link located in the local file and line that holds it. Works offline.

  --broken  only the broken links of the service's report
  --local   also the pre-flight of the files as they are now (relative page links, anchors, assets,
            content-ref and include targets), each with file:line; nothing is fetched

With --broken or --local the command exits 1 when it lists a broken link (for CI), 0 otherwise.`

export async function linksCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { broken: { type: 'boolean', default: false }, local: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  })
  if (values.help) {
    io.out(linksUsage)
    return 0
  }
  const store = WorkspaceStore.open(quirePaths())
  const { cache } = store
  try {
    const workspace = store.folder()
    // A pass reads no link report (issue 29): a report of an older revision is read now, when online;
    // offline or signed out, the kept one is shown as of an older revision.
    if (linkReportsStale(cache)) {
      try {
        const { gateway } = await signedIn(cache, quirePaths())
        await refreshStaleLinkReports(cache, gateway)
      } catch {
        // Shown as it is kept.
      }
    }
    const spaces = readSpaceStatuses(cache, workspace)
    const results = []
    for (const space of spaces) {
      const report = cache.linkReport(space.spaceId)
      const links = await linkFindings(cache, space.spaceId, space.folder, { brokenOnly: values.broken })
      const local = values.local && space.folder ? localLinkFindings(space.folder) : undefined
      results.push({ space: `${space.organization}/${space.title}`, spaceId: space.spaceId, folder: space.folder, revision: report?.revisionId, stale: report !== undefined && report.revisionId !== space.remoteRevision, links, ...(local ? { local } : {}) })
    }
    // For CI: a listed broken link fails the run (the service's or the pre-flight's).
    const listsBroken = results.some((r) => r.links.some((l) => l.status === 'broken') || (r.local?.length ?? 0) > 0)
    const code = (values.broken || values.local) && listsBroken ? 1 : 0
    if (values.json) {
      io.out(JSON.stringify({ spaces: results }, null, 2))
      return code
    }
    for (const r of results) {
      if (r.revision === undefined) {
        io.out(`${r.space}: no link report yet (run quire sync)`)
      } else {
        io.out(`${r.space}: ${r.links.length} ${values.broken ? 'broken ' : ''}link${r.links.length === 1 ? '' : 's'} in the service's report${r.stale ? ' (report of an older revision)' : ''}`)
        for (const l of r.links) {
          const where = l.localFile ? `${l.localFile}${l.line ? `:${l.line}` : ''}` : `page ${l.pageTitle ?? l.pageId ?? '?'} (not synced)`
          io.out(`  ${where}  ${l.status}  ${l.target}`)
        }
      }
      if (r.local) {
        io.out(`${r.space}: ${r.local.length} broken link${r.local.length === 1 ? '' : 's'} in the local files (pre-flight)`)
        for (const l of r.local) io.out(`  ${l.file}:${l.line}  broken  ${l.target}  (${l.reason})`)
      }
    }
    return code
  } finally {
    store.close()
  }
}
