import fs from 'node:fs/promises'
import { findMarkers, stripMarkers } from '../comments/markers'
import { writeFileAtomic } from '../workspace/atomic-write'
import { resolveIn, type SpacePusherOptions } from './pusher-context'
import type { PlannedMarker } from './push-types'

/** Posted markers leave the files they were typed in, a file at a time. */
export async function removePostedMarkers(o: SpacePusherOptions, markers: readonly PlannedMarker[]) {
  const byPath = new Map<string, string[]>()
  for (const m of markers) byPath.set(m.path, [...(byPath.get(m.path) ?? []), m.marker.source])
  for (const [p, sources] of byPath) await removeMarkers(o, p, sources)
}

/**
 * Cuts markers out of a file, writing it atomically only if it still holds them (the writer may have
 * removed or changed them meanwhile). Quire's own write is no edit: the content without markers is
 * what the change request already has.
 */
export async function removeMarkers(o: SpacePusherOptions, relative: string, sources: readonly string[]) {
  const full = resolveIn(o, relative)
  let text: string
  try {
    text = await fs.readFile(full, 'utf8')
  } catch {
    return
  }
  const remaining = [...sources]
  const gone = findMarkers(text).filter((m) => {
    const at = remaining.indexOf(m.source)
    if (at === -1) return false
    remaining.splice(at, 1)
    return true
  })
  if (gone.length === 0) return
  await writeFileAtomic(full, stripMarkers(text, gone))
}
