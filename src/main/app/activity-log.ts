import fs from 'node:fs'
import path from 'node:path'
import type { ActivityEntry } from '../../shared/contract'

const KEEP = 500

/**
 * The activity log: what the user sees in the Activity screen, newest last, kept in memory (the last
 * 500 entries) and appended to a JSON-lines file so it survives restarts and can be read in a bug report.
 */
export class ActivityLog {
  private readonly entries: ActivityEntry[] = []

  constructor(
    private readonly file: string | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {
    if (file) this.entries.push(...readTail(file))
  }

  add(level: ActivityEntry['level'], message: string, spaceId?: string): ActivityEntry {
    const entry: ActivityEntry = { at: this.now().toISOString(), level, message, ...(spaceId ? { spaceId } : {}) }
    this.entries.push(entry)
    if (this.entries.length > KEEP) this.entries.splice(0, this.entries.length - KEEP)
    if (this.file) {
      try {
        fs.mkdirSync(path.dirname(this.file), { recursive: true })
        fs.appendFileSync(this.file, `${JSON.stringify(entry)}\n`)
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

function readTail(file: string): ActivityEntry[] {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return []
  }
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
