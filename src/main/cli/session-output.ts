import type { CacheRepository, OutboxRepository, SessionEvent } from '../engine'
import type { CliIo } from './io'
import { SentOps } from './sent-ops'
import { SIGN_IN_HINT } from './space-states'

/**
 * How `quire watch` prints the session's events: what was queued, sent, settled, kept in a conflicted
 * copy, reported, refused or left waiting. Conflicts and reports are printed once each (every push plans
 * again and meets the same file over the upload limit), and so is each operation sent.
 */
export function printSessionEvents(io: CliIo, cache: CacheRepository, outbox: OutboxRepository): (event: SessionEvent) => void {
  const reportedConflicts = new Set<string>()
  const saidReports = new Set<string>()
  const ops = new SentOps(outbox, cache)
  const lastWaiting = new Map<string, string | undefined>()
  return (event) => {
    switch (event.type) {
      case 'pass':
        for (const space of event.report.spaces) if (space.state !== 'synced') io.err(`${space.label}: ${space.state}${space.message ? `: ${space.message}` : ''}`)
        return
      case 'log':
        if (event.level === 'info') io.out(event.message)
        else io.err(`${event.level}: ${event.message}`)
        return
      case 'state':
        if (event.to.kind === 'signed-out' && event.from?.kind !== 'signed-out') io.err(`${cache.space(event.spaceId)?.title ?? event.spaceId}: signed out: ${event.to.reason}; ${SIGN_IN_HINT}`)
        return
      case 'push': {
        const { spaceId, result } = event
        const name = cache.space(spaceId)?.title ?? spaceId
        const cr = result.changeRequest?.number !== undefined ? ` (change request #${result.changeRequest.number})` : ''
        if (result.planned > 0) io.out(`${name}: ${result.planned} change${result.planned === 1 ? '' : 's'} queued${cr}`)
        // Queued is not sent: each change and comment is named again once the service has it.
        if (result.sent > 0) for (const line of ops.sent(spaceId, result.changeRequest?.number)) io.out(`${name}: ${line}`)
        for (const line of ops.queued(spaceId)) io.out(`${name}: ${line}`)
        if (result.settled) io.out(`${name}: change request ${result.settled.status}; the workspace follows the space again`)
        for (const copy of result.conflicts) {
          if (reportedConflicts.has(`${spaceId}/${copy}`)) continue
          reportedConflicts.add(`${spaceId}/${copy}`)
          io.out(`${name}: conflict: ${copy} keeps your version; the file shows the remote one`)
        }
        for (const report of result.reports) {
          const key = `${spaceId}\n${report.message}`
          if (saidReports.has(key)) continue
          saidReports.add(key)
          io.out(`${name}: ${report.message}`)
        }
        // Still sent: the writer decides. Each said once, as reports are.
        const broken = (result.brokenLinks ?? []).filter((l) => !saidReports.has(`${spaceId}\nlink\n${l.file}:${l.line}\n${l.target}`))
        if (broken.length > 0) io.out(`${name}: this push adds ${broken.length} broken link${broken.length === 1 ? '' : 's'} (sent all the same):`)
        for (const l of broken) {
          saidReports.add(`${spaceId}\nlink\n${l.file}:${l.line}\n${l.target}`)
          io.out(`  ${l.file}:${l.line}  ${l.target}  (${l.reason})`)
        }
        for (const failure of result.failures) io.out(`${name}: refused: ${failure}`)
        // Said when it changes: a round pushes twice, and a long watch meets the same outage every interval.
        const waiting = result.stopped ? `${name}: ${result.stopped.reason}: ${outbox.unfinished(spaceId).length} operation(s) wait in the outbox` : undefined
        if (waiting && waiting !== lastWaiting.get(spaceId)) io.out(waiting)
        lastWaiting.set(spaceId, waiting)
        if (result.skipped) io.out(`${name}: ${result.skipped}`)
      }
    }
  }
}
