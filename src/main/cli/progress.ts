import type { SyncProgressEvent } from '../engine/sync-entry'

export interface ProgressSink {
  /** A terminal: one bar redrawn in place. Otherwise plain lines, a few per space. */
  isTTY: boolean
  /** Raw text (the bar, with `\r`); used on a terminal only. */
  write(text: string): void
  line(text: string): void
  columns?: number
  now?: () => number
}

const BAR_WIDTH = 24
const REDRAW_MS = 80

/** Sync progress drawn on standard error (a bar when it is a terminal), as quire sync and quire import show it. */
export function stderrProgress(io: { isTTY: boolean; err(line: string): void }): (event: SyncProgressEvent) => void {
  return createProgress({ isTTY: io.isTTY, write: (text) => process.stderr.write(text), line: (text) => io.err(text), columns: process.stderr.columns })
}

/**
 * Renders sync progress: a bar on a terminal, otherwise a line at start, every quarter, and end. Spaces
 * of a pass run a few at a time, their events interleaved: each space's count is its own, and the bar
 * shows the space whose step came last.
 */
export function createProgress(sink: ProgressSink): (event: SyncProgressEvent) => void {
  const now = sink.now ?? Date.now
  const running = new Map<string, { total: number; done: number; nextQuarter: number }>()
  let lastDraw = 0
  let drawn = false

  const draw = (space: { total: number; done: number }, label: string, path: string | undefined, force: boolean) => {
    const t = now()
    if (!force && t - lastDraw < REDRAW_MS) return
    lastDraw = t
    const { total, done } = space
    const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH)
    const text = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total} ${label}${path ? `  ${path}` : ''}`
    const width = Math.max(20, (sink.columns ?? 100) - 1)
    sink.write(`\r\x1b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`)
    drawn = true
  }
  const clear = () => {
    if (drawn) sink.write('\r\x1b[2K')
    drawn = false
  }
  const spaceOf = (spaceId: string) => {
    let space = running.get(spaceId)
    if (!space) running.set(spaceId, (space = { total: 0, done: 0, nextQuarter: 1 }))
    return space
  }

  return (event) => {
    switch (event.type) {
      case 'space-started':
        running.set(event.spaceId, { total: 0, done: 0, nextQuarter: 1 })
        if (!sink.isTTY) sink.line(`${event.label}: checking`)
        return
      case 'space-planned': {
        const space = spaceOf(event.spaceId)
        space.total = event.total
        if (sink.isTTY) draw(space, event.label, undefined, true)
        else sink.line(`${event.label}: ${event.total} step${event.total === 1 ? '' : 's'} to do`)
        return
      }
      case 'step': {
        const space = spaceOf(event.spaceId)
        space.done = event.step.index
        const { total, done } = space
        const action = event.step.action
        const path = action.type === 'move' ? action.to : action.type === 'forget' ? undefined : action.path
        if (sink.isTTY) draw(space, event.label, path, done === total)
        else if (total >= 8 && done >= (space.nextQuarter * total) / 4 && done < total) {
          sink.line(`${event.label}: ${done}/${total}`)
          while (done >= (space.nextQuarter * total) / 4) space.nextQuarter++
        }
        return
      }
      case 'space-finished':
        running.delete(event.spaceId)
        // The bar stays while another space runs: its next step draws it over.
        if (sink.isTTY && running.size === 0) clear()
        return
    }
  }
}

/** What a person should hear for a file-system error code found in a step's error text. */
const REASONS: Record<string, string> = {
  ENOSPC: 'disk full',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'read-only file system',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  ENAMETOOLONG: 'name too long for this file system',
  EIO: 'disk input/output error',
  EBUSY: 'file in use',
}

/** The reason of a failed step in plain words, then the error it came from. */
export function failureReason(error: string): { reason: string; detail: string } {
  const code = /\b(E[A-Z]{2,14})\b/.exec(error)?.[1]
  const reason = code ? REASONS[code] : undefined
  return reason ? { reason, detail: error } : { reason: error, detail: '' }
}

/** Lines naming what each failed step of a space ran into (at most `limit`, then a count). */
export function describeFailures(failures: Array<{ path?: string; message: string }>, limit = 10): { lines: string[]; reasons: string[] } {
  const lines: string[] = []
  const reasons = new Set<string>()
  for (const [i, failure] of failures.entries()) {
    const { reason, detail } = failureReason(failure.message)
    reasons.add(reason)
    if (i < limit) lines.push(`- ${failure.path ? `${failure.path}: ` : ''}${reason}${detail ? ` (${detail})` : ''}`)
  }
  if (failures.length > limit) lines.push(`… and ${failures.length - limit} more`)
  return { lines, reasons: [...reasons] }
}
