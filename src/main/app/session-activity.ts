import type { ActivityEntry } from '../../shared/contract'
import type { CacheRepository, SessionEvent } from '../engine'

type Log = (level: ActivityEntry['level'], message: string, spaceId?: string) => void

/**
 * What the Activity screen says about the session's work: revisions synced, new problems of a pass,
 * changes sent, conflicts, refusals, push reports (each once per session, not at every pass), merges
 * taken in, and edits waiting while offline. Only new facts are logged, so a quiet pass adds nothing.
 */
export function sessionActivity(cache: CacheRepository, log: Log): (event: SessionEvent) => void {
  const revisions = new Map(cache.selectedSpaces().map((row) => [row.id, row.syncedRevision]))
  const issues = new Map(cache.selectedSpaces().map((row) => [row.id, new Set(row.issues.map((i) => i.message))]))
  const reported = new Set<string>()
  const conflicts = new Set<string>()
  let offline = false
  /** Spaces with work queued while offline or paused: their next push that delivers it says so. */
  const queued = new Set<string>()
  const title = (spaceId: string) => cache.space(spaceId)?.title ?? spaceId

  return (event) => {
    switch (event.type) {
      case 'log':
        log(event.level, event.message, event.spaceId)
        return
      case 'state':
        if (event.to.kind === 'signed-out' && event.from?.kind !== 'signed-out') log('error', `${title(event.spaceId)}: ${event.to.reason}; sign in again`, event.spaceId)
        if ((event.to.kind === 'offline' || event.to.kind === 'paused') && event.to.queued) queued.add(event.spaceId)
        // In sync means the outbox is empty: what waited has reached the service.
        if (event.to.kind === 'synced' && queued.delete(event.spaceId)) log('info', `Delivered the changes queued for ${title(event.spaceId)}: the service has them all`, event.spaceId)
        return
      case 'pass': {
        const report = event.report
        for (const space of report.spaces) {
          if (space.state === 'offline') continue
          if (space.steps > 0 || (space.revision && space.revision !== revisions.get(space.spaceId))) {
            log('info', `Synced ${title(space.spaceId)} to revision ${(space.revision ?? '').slice(0, 10)} (${space.steps} change${space.steps === 1 ? '' : 's'} on disk)`, space.spaceId)
          }
          revisions.set(space.spaceId, space.revision ?? revisions.get(space.spaceId))
          const known = issues.get(space.spaceId) ?? new Set<string>()
          const now = cache.space(space.spaceId)?.issues ?? []
          for (const issue of now) {
            // A kept local edit is on its way to a change request: not news.
            if (known.has(issue.message) || issue.kind === 'local-edit') continue
            log(issue.kind === 'failed' ? 'error' : 'warning', `${title(space.spaceId)}: ${issue.message}`, space.spaceId)
          }
          issues.set(space.spaceId, new Set(now.map((i) => i.message)))
          if (space.state === 'error' && now.length === 0 && space.message) log('error', `${title(space.spaceId)}: ${space.message}`, space.spaceId)
        }
        if (report.offline && !offline) log('warning', `Offline: ${report.spaces.find((s) => s.state === 'offline')?.message ?? 'the service cannot be reached'}`)
        offline = report.offline
        return
      }
      case 'push': {
        const { spaceId, result } = event
        const name = title(spaceId)
        const cr = result.changeRequest?.number !== undefined ? `change request #${result.changeRequest.number}` : 'a change request'
        const changes = (n: number) => `${n} local change${n === 1 ? '' : 's'}`
        // Written to the outbox is not sent: while the service cannot be reached the changes are queued.
        if (result.planned > 0 && result.stopped) log('warning', `Queued ${changes(result.planned)} of ${name}: not sent yet (${result.stopped.message})`, spaceId)
        else if (result.planned > 0) log('info', `Sent ${changes(result.planned)} of ${name} to ${cr}`, spaceId)
        if (result.stopped) queued.add(spaceId)
        for (const copy of result.conflicts) {
          if (conflicts.has(`${spaceId}\n${copy}`)) continue
          conflicts.add(`${spaceId}\n${copy}`)
          log('warning', `${name}: both sides changed a page; the file now shows the space's version, your version is kept in ${copy}`, spaceId)
        }
        for (const failure of result.failures) log('warning', `${name}: ${failure}`, spaceId)
        for (const report of result.reports) {
          const key = `${spaceId}\n${report.kind}\n${report.path}\n${report.message}`
          if (reported.has(key)) continue
          reported.add(key)
          log('warning', `${name}: ${report.message}`, spaceId)
        }
        // Sent all the same: the writer decides; the link report lists each with its file and line.
        const broken = (result.brokenLinks ?? []).filter((l) => !reported.has(`${spaceId}\nlink\n${l.file}:${l.line}\n${l.target}`))
        for (const l of broken) reported.add(`${spaceId}\nlink\n${l.file}:${l.line}\n${l.target}`)
        if (broken.length > 0) {
          const where = broken.slice(0, 3).map((l) => `${l.file}:${l.line} ${l.target}`).join(', ')
          log('warning', `${name}: this push adds ${broken.length} broken link${broken.length === 1 ? '' : 's'} (sent all the same): ${where}${broken.length > 3 ? ', …' : ''}`, spaceId)
        }
        if (result.stopped && result.planned === 0) log('warning', `${name}: queued changes wait to be sent (${result.stopped.message})`, spaceId)
        if (result.settled) log('info', `${name}: your change request was ${result.settled.status === 'merged' ? 'merged' : 'closed'}`, spaceId)
      }
    }
  }
}
