import { parseArgs } from 'node:util'
import { inspectCacheFile, openCacheDatabase, OutboxRepository, quirePaths } from '../engine/basics'
import type { CliIo } from './io'

export const doctorUsage = `quire doctor [--repair]

Checks Quire's cache: SQLite's quick check of the whole file, and every operation of the outbox (one
whose stored data cannot be read). Says what it finds and changes nothing, unless --repair is given:
then a damaged cache file is set aside (renamed to cache.db.damaged-<time>, with its -wal and -shm;
never deleted) and a fresh one takes its place, and unreadable outbox operations are set aside (kept,
never sent) so the rest goes on. After a fresh cache, sign in again with quire login; the next sync
matches the workspace's files to their pages (nothing is downloaded over them). Any command that opens
a damaged cache does the same repair by itself and says so in one line; run this with no other Quire
(quire watch, the app) using the cache.
Exits 0 when all is healthy, 1 when damage was found (repaired or not).`

export async function doctorCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { repair: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } }, strict: true })
  if (values.help) {
    io.out(doctorUsage)
    return 0
  }
  const file = quirePaths().cacheFile
  const inspected = inspectCacheFile(file)
  if (inspected.state === 'missing') {
    io.out(`cache: ${file} does not exist yet; nothing to check`)
    return 0
  }
  let damaged = false
  if (inspected.state === 'damaged') {
    damaged = true
    if (!values.repair) {
      io.out(`cache: ${file} is damaged (${inspected.reason}); quire doctor --repair sets it aside and starts a fresh one`)
      return 1
    }
    // Opening heals it: the damaged file is set aside and the one line naming both files is said (main.ts).
    openCacheDatabase(file).close()
  } else io.out(`cache: ${file} passes SQLite's quick check`)

  const db = openCacheDatabase(file, { heal: false })
  try {
    const outbox = new OutboxRepository(db)
    const unreadable = outbox.unreadable()
    for (const row of unreadable) io.out(`outbox: operation #${row.seq} (${row.kind}) of space ${row.spaceId}: ${row.error}${values.repair ? '; set aside' : ''}`)
    if (unreadable.length > 0) {
      damaged = true
      if (values.repair) outbox.setAsideUnreadable()
      else io.out(`outbox: quire doctor --repair sets ${unreadable.length === 1 ? 'it' : 'them'} aside; the rest of the outbox goes on`)
    } else io.out('outbox: every operation can be read')
    for (const row of outbox.setAside().filter((r) => !unreadable.some((u) => u.seq === r.seq))) {
      io.out(`outbox: operation #${row.seq} (${row.kind}) of space ${row.spaceId} was set aside earlier: ${row.error}`)
    }
  } finally {
    db.close()
  }
  if (!damaged) io.out('healthy')
  return damaged ? 1 : 0
}
