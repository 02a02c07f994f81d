import { parseArgs } from 'node:util'
import { openCache, quirePaths } from '../engine/account/account'
import { linkFindings } from '../engine/links/link-reports'
import { readSpaceStatuses, type SpaceStatus } from '../engine/sync/space-status'
import { describeSyncUp, readSyncUpStatuses } from '../engine/push/sync-up-status'
import type { CliIo } from './io'
import { workspaceFolder } from './sync-command'

export const statusUsage = `quire status [--json]

Per synced space: state (synced, syncing, offline, error), revision, page count, last sync and pending
work. Read from the local cache: works offline.`

export async function statusCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } }, strict: true })
  if (values.help) {
    io.out(statusUsage)
    return 0
  }
  const cache = openCache(quirePaths())
  try {
    const account = cache.activeAccount()
    const workspace = workspaceFolder(cache)
    const spaces = readSpaceStatuses(cache, workspace)
    // Sync up (hook): conflicts put a space in state `conflict`; the outbox and change request are pending work.
    const up = readSyncUpStatuses(quirePaths().cacheFile, spaces.map((s) => s.spaceId))
    if (values.json) {
      const withUp = spaces.map((s) => ({ ...s, state: up.get(s.spaceId)?.state ?? s.state, syncUp: up.get(s.spaceId) }))
      io.out(JSON.stringify({ account: account ? { endpoint: account.endpoint, user: account.displayName } : null, workspace, spaces: withUp }, null, 2))
      return 0
    }
    io.out(account ? `signed in to ${account.endpoint} as ${account.displayName}` : 'not signed in')
    io.out(`workspace: ${workspace}`)
    if (spaces.length === 0) io.out('no spaces selected: run quire sync --space ID (or --all)')
    for (const space of spaces) io.out([describe({ ...space, state: up.get(space.spaceId)?.state ?? space.state }), ...describeSyncUp(up.get(space.spaceId))].join('\n'))
    return 0
  } finally {
    cache.close()
  }
}

function describe(s: SpaceStatus): string {
  const state = s.state === 'idle' ? 'not synced yet' : s.state
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

export const linksUsage = `quire links [--broken] [--json]

The service's link reports for the synced spaces (refreshed by quire sync when a revision changes),
each link located in the local file and line that holds it. Works offline.`

export async function linksCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { broken: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  })
  if (values.help) {
    io.out(linksUsage)
    return 0
  }
  const cache = openCache(quirePaths())
  try {
    const workspace = workspaceFolder(cache)
    const spaces = readSpaceStatuses(cache, workspace)
    const results = []
    for (const space of spaces) {
      const report = cache.linkReport(space.spaceId)
      const links = await linkFindings(cache, space.spaceId, space.folder, { brokenOnly: values.broken })
      results.push({ space: `${space.organization}/${space.title}`, spaceId: space.spaceId, folder: space.folder, revision: report?.revisionId, stale: report !== undefined && report.revisionId !== space.remoteRevision, links })
    }
    if (values.json) {
      io.out(JSON.stringify({ spaces: results }, null, 2))
      return 0
    }
    for (const r of results) {
      if (r.revision === undefined) {
        io.out(`${r.space}: no link report yet (run quire sync)`)
        continue
      }
      io.out(`${r.space}: ${r.links.length} ${values.broken ? 'broken ' : ''}link${r.links.length === 1 ? '' : 's'}${r.stale ? ' (report of an older revision)' : ''}`)
      for (const l of r.links) {
        const where = l.localFile ? `${l.localFile}${l.line ? `:${l.line}` : ''}` : `page ${l.pageTitle ?? l.pageId ?? '?'} (not synced)`
        io.out(`  ${where}  ${l.status}  ${l.target}`)
      }
    }
    return 0
  } finally {
    cache.close()
  }
}
