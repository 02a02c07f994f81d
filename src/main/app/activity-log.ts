import type { ActivityEntry } from '../../shared/contract'
import { DEFAULT_ROTATION, readLogTail, RotatingLogFile, type RotationLimits } from './rotating-log-file'

const KEEP = 500
/** Entries are a few hundred bytes: the last 500 fit well within this much of the log's end. */
const TAIL_BYTES = 512 * 1024

/**
 * The activity log: what the user sees in the Activity screen, newest last, kept in memory (the last
 * 500 entries) and appended to a JSON-lines file so it survives restarts and can be read in a bug report.
 * The file rotates (`RotatingLogFile`), so years of syncing never fill the disk or slow the start.
 */
export class ActivityLog {
  private readonly entries: ActivityEntry[] = []
  private readonly log: RotatingLogFile | undefined

  constructor(
    file: string | undefined,
    private readonly now: () => Date = () => new Date(),
    rotation: RotationLimits = DEFAULT_ROTATION,
  ) {
    this.log = file ? new RotatingLogFile(file, rotation) : undefined
    if (this.log) this.entries.push(...parseEntries(readLogTail(this.log, TAIL_BYTES)))
  }

  add(level: ActivityEntry['level'], message: string, spaceId?: string): ActivityEntry {
    const entry: ActivityEntry = { at: this.now().toISOString(), level, message, ...(spaceId ? { spaceId } : {}) }
    this.entries.push(entry)
    if (this.entries.length > KEEP) this.entries.splice(0, this.entries.length - KEEP)
    if (this.log) {
      try {
        this.log.appendSync(`${JSON.stringify(entry)}\n`)
      } catch {
        // A full or read-only disk must not stop syncing; the entry stays in memory.
      }
    }
    return entry
  }

  list(): ActivityEntry[] {
    return [...this.entries]
  }
}

function parseEntries(text: string): ActivityEntry[] {
  const out: ActivityEntry[] = []
  for (const line of text.split('\n').slice(-KEEP - 1)) {
    if (!line.trim()) continue
    try {
      const parsed = JSON.parse(line) as Partial<ActivityEntry>
      if (typeof parsed.at === 'string' && typeof parsed.message === 'string' && (parsed.level === 'info' || parsed.level === 'warning' || parsed.level === 'error')) {
        out.push({ at: parsed.at, level: parsed.level, message: parsed.message, ...(typeof parsed.spaceId === 'string' ? { spaceId: parsed.spaceId } : {}) })
      }
    } catch {
      // A torn last line (crash mid-write) is skipped.
    }
  }
  return out.slice(-KEEP)
}
